/**
 * A replay's report: each of a trace's actions run again on a device and judged against what
 * the trace recorded. The CLI prints it, the API carries it to the UI, one schema for both.
 */
import { z } from 'zod';
import { StepStatusSchema } from './reader';
import { ActionResultSchema, PointSchema } from '@shared/protocol/action';

export const ReplayVerdictSchema = z.enum(['matched', 'diverged', 'failed']);
export type ReplayVerdict = z.infer<typeof ReplayVerdictSchema>;

/** The parts of a result a replay compares. */
export const OutcomeSchema = z.object({
  success: z.boolean(),
  backend: z.string().optional(),
  fallbackReason: z.string().optional(),
  failureReason: z.string().optional(),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

/** A selector a replay resolves a target with: never a picked node, which exists only on its own screen. */
export const PlainSelectorSchema = z.union([z.object({ id: z.string() }), z.object({ text: z.string() }), z.object({ point: PointSchema })]);
export type PlainSelector = z.infer<typeof PlainSelectorSchema>;

/** A selector as the report's lines name it: `id "login.submit"`, `text "Sign In"`, `point 12,40`. */
export function selectorText(selector: PlainSelector): string {
  if ('id' in selector) return `id ${JSON.stringify(selector.id)}`;
  if ('text' in selector) return `text ${JSON.stringify(selector.text)}`;
  return `point ${selector.point.x},${selector.point.y}`;
}

export const ReplayStepSchema = z.object({
  /** Position in the trace's timeline (0-based). */
  index: z.number().int().nonnegative(),
  callId: z.string(),
  /** The action's kind as recorded (tap, sendKeys, ...). */
  kind: z.string(),
  verdict: ReplayVerdictSchema,
  /** Each one line: "target not found: …", "other backend: …", "other outcome: …", … Empty when matched. */
  differences: z.array(z.string()),
  recorded: z.object({
    status: StepStatusSchema,
    /** The selector the user gave: id, text, point, or node for a picked element. */
    selector: z.string().optional(),
    outcome: OutcomeSchema.optional(),
  }),
  replayed: z.object({
    /** The selector the replay resolved the target with. */
    selector: PlainSelectorSchema.optional(),
    outcome: OutcomeSchema.optional(),
    result: ActionResultSchema.optional(),
    /** Why the step could not be run at all. */
    error: z.string().optional(),
    /** A refusal that ran nothing and came from the replay's own pace; the action was sent once more. */
    retriedAfter: z.string().optional(),
    durationMs: z.number().optional(),
  }),
});
export type ReplayStep = z.infer<typeof ReplayStepSchema>;

export const ReplayReportSchema = z.object({
  steps: z.array(ReplayStepSchema),
  matched: z.number().int().nonnegative(),
  diverged: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Actions in the trace. */
  total: z.number().int().nonnegative(),
  /** Actions not run because the replay stopped first. */
  notRun: z.number().int().nonnegative(),
  stopped: z.object({ reason: z.enum(['divergence', 'aborted']), afterCallId: z.string().optional() }).optional(),
});
export type ReplayReport = z.infer<typeof ReplayReportSchema>;

/**
 * The report in one line, as the CLI ends a replay and the UI sums one up:
 * "3 of 7 replayed: 2 matched, 1 diverged, 0 failed; stopped at the first divergence, 4 not run".
 */
export function replaySummary(report: ReplayReport): string {
  const counts = `${report.steps.length} of ${report.total} replayed: ${report.matched} matched, ${report.diverged} diverged, ${report.failed} failed`;
  const reason = report.stopped?.reason;
  if (!reason) return counts;
  return `${counts}; ${reason === 'divergence' ? 'stopped at the first divergence' : 'stopped by you'}, ${report.notRun} not run`;
}

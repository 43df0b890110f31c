/**
 * A replay's report (docs/rules.md#r-rpl): each of a trace's actions run again on a device and judged
 * by what the screen shows. The CLI prints it, the API carries it to the UI, one schema for both.
 *
 * A step is judged by its target (found again by the selector the recording would export, and by the
 * recorded identity: replay-target.ts), by the screen before it and the screen after it against the
 * recorded ones (compare/screens.ts), and by whether it did what it did when it was recorded. The
 * backend and fallback that served it are reported, never judged.
 */
import { z } from 'zod';
import { StepStatusSchema } from './reader';
import { ActionResultSchema } from '@shared/protocol/action';
import { SCREEN_THRESHOLD, ScreenComparisonSchema, type ScreenComparison } from '@shared/compare/screens';
import { ComparedOutcomeSchema, PlainSelectorSchema, selectorText, type ComparedOutcome, type PlainSelector } from './action-record';
import { TargetCheckSchema, elsewhereText, targetDiverges, type TargetCheck } from './replay-target';
import { FindingsDiffSchema } from '@shared/a11y/diff';
import { StepPerfSchema } from '@shared/protocol/perf';

export { ComparedOutcomeSchema, PlainSelectorSchema, selectorText, type ComparedOutcome, type PlainSelector };

export const ReplayVerdictSchema = z.enum(['matched', 'diverged', 'failed']);
export type ReplayVerdict = z.infer<typeof ReplayVerdictSchema>;

/**
 * Whether the step ran on the device this time (docs/rules.md#r-rpl-06): `yes` (done), `no` (nothing
 * was sent, or the device said it did nothing), `maybe` (it may have: never sent again).
 */
export const RanSchema = z.enum(['yes', 'no', 'maybe']);
export type Ran = z.infer<typeof RanSchema>;

/** A recorded frame of the step, by its resources in the trace, and when it was taken. */
export const RecordedFrameSchema = z.object({ observationRef: z.string().optional(), screenshotRef: z.string().optional(), time: z.number() });
export type RecordedFrame = z.infer<typeof RecordedFrameSchema>;

export const ReplayStepSchema = z.object({
  /** Position in the trace's timeline (0-based). */
  index: z.number().int().nonnegative(),
  /** The step's number on the trace view's filmstrip (docs/rules.md#r-qa-10). */
  number: z.number().int().positive(),
  callId: z.string(),
  /** The action's kind as recorded (tap, sendKeys, ...). */
  kind: z.string(),
  verdict: ReplayVerdictSchema,
  /** What made it diverge or fail, one line each: "target moved: …", "the screen before …", … Empty when matched. */
  differences: z.array(z.string()),
  /** Reported, not judged: the backend or fallback that served it this time, a send after a race. */
  notes: z.array(z.string()),
  /**
   * What changed on the way without stopping the step, as the exported flow would meet it
   * (docs/rules.md#r-rpl-10): "target moved by 62 pt", "target renamed: …", "removed Cell \"Post 12\"",
   * "added …" (an element only on one side of a compared screen that is still the same screen).
   */
  changes: z.array(z.string()).default([]),
  ran: RanSchema,
  /** The recorded target found again on the replayed screen; absent for a step that aims at nothing. */
  target: TargetCheckSchema.optional(),
  /** The replayed screens against the recorded ones, where both exist. */
  screens: z.object({ before: ScreenComparisonSchema.optional(), after: ScreenComparisonSchema.optional() }),
  recorded: z.object({
    status: StepStatusSchema,
    /** The selector the user gave: id, text, point, or node for a picked element. */
    selector: z.string().optional(),
    outcome: ComparedOutcomeSchema.optional(),
    before: RecordedFrameSchema.optional(),
    after: RecordedFrameSchema.optional(),
  }),
  replayed: z.object({
    /** What the replay sent as the target, in a few words ("picked login.submit", "id login.submit", "point 200,400"). */
    sent: z.string().optional(),
    outcome: ComparedOutcomeSchema.optional(),
    result: ActionResultSchema.optional(),
    /** Why the step could not be run at all. */
    error: z.string().optional(),
    /** A refusal that ran nothing and came from the replay's own pace; the action was sent once more. */
    retriedAfter: z.string().optional(),
    /** The variable whose value was typed in place of the secret the trace does not hold (never the value). */
    variable: z.string().optional(),
    durationMs: z.number().optional(),
    /** Which replayed frames the host keeps for the side-by-side view (`trace.replayFrame`). */
    frames: z.object({ before: z.boolean(), after: z.boolean() }),
    /** When each replayed frame was read (epoch ms). */
    beforeTime: z.number().optional(),
    afterTime: z.number().optional(),
  }),
  /** The accessibility findings of the last screen both have (after, else before the step) against the recording's (docs/rules.md#r-a11y-20): new, gone, unchanged. */
  a11y: FindingsDiffSchema.extend({ screen: z.enum(['before', 'after']) }).optional(),
  /**
   * The step's perf window as recorded and as replayed (docs/rules.md#r-perfstep-05): present when either
   * side has one. Reported, not judged: a memory flag is the reader's threshold's (perf-step.ts).
   */
  perf: z.object({ recorded: StepPerfSchema.optional(), replayed: StepPerfSchema.optional() }).optional(),
});
export type ReplayStep = z.infer<typeof ReplayStepSchema>;

export const ReplayReportSchema = z.object({
  steps: z.array(ReplayStepSchema),
  matched: z.number().int().nonnegative(),
  diverged: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Of the matched steps, those with changes (docs/rules.md#r-rpl-10). */
  changed: z.number().int().nonnegative().default(0),
  /** Actions in the trace. */
  total: z.number().int().nonnegative(),
  /** Actions not reached because the replay stopped first (a reached step that did not run is in `steps`, `ran: no`). */
  notRun: z.number().int().nonnegative(),
  /** Their filmstrip numbers. */
  unreached: z.array(z.number().int().positive()).default([]),
  stopped: z.object({ reason: z.enum(['divergence', 'aborted']), afterCallId: z.string().optional() }).optional(),
  /** "Relaunch first" (docs/rules.md#r-life-05): the app was relaunched before step 1, and how that went. */
  relaunchedFirst: z.object({ success: z.boolean(), failureReason: z.string().optional(), bundleId: z.string().optional() }).optional(),
});
export type ReplayReport = z.infer<typeof ReplayReportSchema>;

/** "3", "1–4", "1, 3, 5–7": filmstrip numbers as a person reads them. */
export function stepRanges(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? String(sorted[i]) : j === i + 1 ? `${sorted[i]}, ${sorted[j]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * Which steps ran, in one line (docs/rules.md#r-rpl-06): "ran: 1–3 · may have run: 4 · did not run: 5 ·
 * not reached: 6, 7". A step the replay reached but that ran nothing (not sent, or refused) is "did not
 * run"; one it never reached (it stopped first) is "not reached", as the count line says it.
 */
export function ranSummary(report: Pick<ReplayReport, 'steps' | 'unreached'>): string {
  const of = (ran: Ran) => report.steps.filter((s) => s.ran === ran).map((s) => s.number);
  const parts: string[] = [];
  for (const [words, numbers] of [
    ['ran', of('yes')],
    ['may have run', of('maybe')],
    ['did not run', of('no')],
    ['not reached', report.unreached],
  ] as const) {
    if (numbers.length > 0) parts.push(`${words}: ${stepRanges(numbers)}`);
  }
  return parts.length > 0 ? parts.join(' · ') : 'no step ran';
}

/** At most this many elements named per side of one screen; the rest are counted. */
const MAX_NAMED_ELEMENTS = 5;

/**
 * A step's target as it reports it and its changes (docs/rules.md#r-rpl-10), once its screens are compared.
 * The changes: its target moved or renamed where the exported selector still finds it alone, and the
 * elements removed or added on a compared screen that is still the same screen (one that is not is a
 * divergence of its own, and says so), each named once, before and after alike. A target that only went
 * where its list's scroll took it (docs/rules.md#r-rpl-12) is no change, and its line says so instead of
 * "moved", so the two agree; its verdict stays `elsewhere`: it did move on the screen, and a secret's
 * field that moved still stops its step (R-TRUST-02).
 */
export function judgedStep(
  found: TargetCheck | undefined,
  screens: { before?: ScreenComparison | undefined; after?: ScreenComparison | undefined },
): { target: TargetCheck | undefined; changes: string[] } {
  const target = found && found.verdict === 'elsewhere' && scrolledWithItsView(found, screens.before) ? carried(found) : found;
  const out: string[] = [];
  if (target && !targetDiverges(target.verdict)) {
    if (target.verdict === 'elsewhere' && !target.carriedByScroll) out.push(`target moved by ${target.movedPt ?? '?'} pt`);
    if (target.verdict === 'renamed') out.push(target.detail);
  }
  for (const screen of [screens.before, screens.after]) {
    if (!screen || screen.differs) continue;
    for (const [cls, words] of [
      ['only_recorded', 'removed'],
      ['only_replayed', 'added'],
    ] as const) {
      const named = screen.differences.filter((d) => d.class === cls).map((d) => `${words} ${d.element ?? d.detail}`);
      const unnamed = screen.counts[cls] - Math.min(named.length, MAX_NAMED_ELEMENTS);
      for (const line of [...named.slice(0, MAX_NAMED_ELEMENTS), ...(unnamed > 0 ? [`${words} ${unnamed} more`] : [])]) if (!out.includes(line)) out.push(line);
    }
  }
  return { target, changes: out };
}

function carried(target: TargetCheck): TargetCheck {
  const moved = { ...target, carriedByScroll: true as const };
  return { ...moved, detail: `target ${elsewhereText(moved)}` };
}

/**
 * Whether a moved target only went where its scrolling view's scroll took it (docs/rules.md#r-rpl-12):
 * the view scrolled between the reads (`ScreenComparison.scrolled`, on the screen the target was found
 * on) and the target's centre travelled by that scroll. A list scrolled a few points otherwise (a stroke
 * carried by XCTest rather than the bridge's exact scroll) is not a change of the app; a target that
 * moved in its row, or rows that moved below a removed one, are not a scroll.
 */
function scrolledWithItsView(target: TargetCheck, before: ScreenComparison | undefined): boolean {
  const { offset, recordedKey, replayedKey } = target;
  if (!offset || recordedKey === undefined || replayedKey === undefined) return false;
  const t = SCREEN_THRESHOLD.moveTolerancePt;
  return (before?.scrolled ?? []).some(
    (view) =>
      recordedKey.startsWith(`${view.recordedKey}.`) &&
      replayedKey.startsWith(`${view.replayedKey}.`) &&
      Math.abs(view.dx - offset.dx) <= t &&
      Math.abs(view.dy - offset.dy) <= t,
  );
}

/**
 * The report in one line, as the CLI ends a replay and the UI sums one up:
 * "3 of 7 replayed: 2 matched (1 with changes), 1 diverged, 0 failed; stopped at the first divergence, 4
 * not reached; changes: step 2: target moved by 62 pt".
 */
export function replaySummary(report: ReplayReport): string {
  const first = report.relaunchedFirst;
  const relaunched = first ? (first.success ? 'relaunched first; ' : `relaunch first failed (${first.failureReason ?? 'failed'}); `) : '';
  return relaunched + countsSummary(report);
}

function countsSummary(report: ReplayReport): string {
  const changed = report.changed > 0 ? ` (${report.changed} with changes)` : '';
  const counts = `${report.steps.length} of ${report.total} replayed: ${report.matched} matched${changed}, ${report.diverged} diverged, ${report.failed} failed`;
  // Each change once, at the first step that met it: a removed row is missing from every screen after it.
  const named = new Set<string>();
  const withChanges: string[] = [];
  for (const step of report.steps) {
    const fresh = step.changes.filter((c) => !named.has(c));
    fresh.forEach((c) => named.add(c));
    if (fresh.length > 0) withChanges.push(`step ${step.number}: ${fresh.join(', ')}`);
  }
  const changes = withChanges.length > 0 ? `; changes: ${withChanges.join('; ')}` : '';
  const reason = report.stopped?.reason;
  if (!reason) return counts + changes;
  return `${counts}; ${reason === 'divergence' ? 'stopped at the first divergence' : 'stopped by you'}, ${report.notRun} not reached${changes}`;
}

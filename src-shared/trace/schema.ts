/**
 * Trace format v1 (docs/protocol.md#p-trace): what a session records, as files a reader can check line by
 * line.
 *
 * A trace is a folder (or an archive of one) holding
 *   manifest.json   who recorded what, on which device: `TraceManifest`
 *   events.jsonl    one `TraceEvent` per line, appended and flushed as each step happens, so a crash
 *                   loses at most the line being written
 *   resources/      screenshots and observation JSON, each stored once under its content address
 *
 * Events name resources by content address, `sha256:<64 lowercase hex>` of the stored bytes. The main
 * process hashes and writes them; this module only defines the reference and where it lives.
 *
 * Action and result shapes are deliberately loose here: the action schema is owned by
 * `protocol/action.ts` and plugs in later. A trace only needs an action's `kind` (to export it) and a
 * result's success, backend, fallback and failure reasons (to show it); everything else passes through.
 */
import { z } from 'zod';
import { PointSchema } from '@shared/protocol/action';
import { BackendSchema, FallbackReasonSchema } from '@shared/protocol/observation';
import { emptySummary } from '@shared/compare/diff';
import { StepPerfSchema } from '@shared/protocol/perf';
import { urlSecretProblem } from './redact';
import { StepFindingsSchema } from '@shared/a11y/diff';

export const TRACE_FORMAT = 'parallax-trace';
export const TRACE_VERSION = 1;

export const TRACE_FILES = {
  manifest: 'manifest.json',
  events: 'events.jsonl',
  resources: 'resources',
} as const;

// ---- Resources --------------------------------------------------------------------------------------

export const RESOURCE_REF_PATTERN = /^sha256:[0-9a-f]{64}$/;

export const ResourceRefSchema = z.string().regex(RESOURCE_REF_PATTERN, 'expected a content address "sha256:" followed by 64 lowercase hex digits');
export type ResourceRef = z.infer<typeof ResourceRefSchema>;

/** The reference for a SHA-256 digest given as hex (either case). Throws on anything that is not one. */
export function resourceRef(sha256Hex: string): ResourceRef {
  const ref = `sha256:${sha256Hex.toLowerCase()}`;
  if (!RESOURCE_REF_PATTERN.test(ref)) throw new Error(`not a SHA-256 digest: ${JSON.stringify(sha256Hex.slice(0, 80))}`);
  return ref;
}

export function isResourceRef(value: unknown): value is ResourceRef {
  return typeof value === 'string' && RESOURCE_REF_PATTERN.test(value);
}

export const RESOURCE_EXTENSIONS = {
  observation: 'json',
  screenshot: 'png',
  comparison: 'json',
  /** What an AppReveal app's read-only tools said after a step (AppStateChanges, trace/app-state.ts). */
  appState: 'json',
} as const;
export type ResourceKind = keyof typeof RESOURCE_EXTENSIONS;

/**
 * Where a resource lives inside the trace, relative to its root: `resources/<hex>.<ext>`. The
 * extension is for people browsing the folder; the address alone identifies the bytes.
 */
export function resourcePath(ref: ResourceRef, kind: ResourceKind): string {
  if (!RESOURCE_REF_PATTERN.test(ref)) throw new Error(`not a resource reference: ${JSON.stringify(ref.slice(0, 80))}`);
  return `${TRACE_FILES.resources}/${ref.slice('sha256:'.length)}.${RESOURCE_EXTENSIONS[kind]}`;
}

// ---- Manifest ---------------------------------------------------------------------------------------

/** A device URL as recorded: never with a token in it (the writer redacts; the reader refuses). */
export const TraceUrlSchema = z.string().superRefine((url, ctx) => {
  const problem = urlSecretProblem(url);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `a trace never holds secrets: ${problem}` });
});

export const TraceManifestSchema = z.object({
  format: z.literal(TRACE_FORMAT),
  version: z.literal(TRACE_VERSION),
  /** ISO 8601 with an offset, e.g. 2026-07-01T09:30:00.000Z. */
  createdAt: z.iso.datetime({ offset: true }),
  device: z.object({
    name: z.string(),
    /** runner, replay, demo, appreveal, ...: open, so a new device kind does not make old readers refuse. */
    kind: z.string().min(1),
    url: TraceUrlSchema,
  }),
  app: z
    .object({
      bundleId: z.string().min(1),
      name: z.string().optional(),
      version: z.string().optional(),
    })
    .optional(),
  /** Which Parallax wrote it, for bug reports. */
  generator: z.object({ name: z.string(), version: z.string() }).optional(),
  /** An edited copy (docs/rules.md#r-edit-06): the file it was made from, when, with how many edits. */
  edited: z.object({ from: z.string(), at: z.iso.datetime({ offset: true }), edits: z.number().int().positive() }).optional(),
});
export type TraceManifest = z.infer<typeof TraceManifestSchema>;

// ---- Events -----------------------------------------------------------------------------------------

const eventBase = {
  /** Ties an action's before and after (and anything else one call produced) together. */
  callId: z.string().min(1),
  /** Strictly increasing through the file; the reader rejects a file where it is not. */
  seq: z.number().int().nonnegative(),
  /** Epoch milliseconds when the event was recorded. */
  time: z.number().finite(),
};

/** The action as dispatched. `kind` names it (tap, longPress, inputText, swipe, ...); the rest is the action's own. */
export const TraceActionSchema = z.looseObject({ kind: z.string().min(1) });
export type TraceAction = z.infer<typeof TraceActionSchema>;

/**
 * What the action aimed at, on the screen it was resolved against: the node's index path in the
 * before-observation, a copy of the node's attributes (so a trace still says what was tapped when the
 * observation is missing), the selector the user gave, and the screen point.
 */
export const TraceTargetSchema = z.looseObject({
  nodeKey: z.string().optional(),
  node: z.record(z.string(), z.unknown()).optional(),
  selector: z.record(z.string(), z.unknown()).optional(),
  point: PointSchema.optional(),
  /**
   * What plain XCTest reported of the target (docs/protocol.md#p-trace): the identifying attributes of
   * the XCTest node it is, or was merged over (className, role, resource-id, text, value, content-desc,
   * hint-text), or null when only the SDK bridge or the DOM reported it. Absent in traces written before
   * it was recorded, and for a point that hit no element.
   */
  xctest: z.record(z.string(), z.string()).nullable().optional(),
});
export type TraceTarget = z.infer<typeof TraceTargetSchema>;

/** An action's result (docs/architecture.md#a-fail-closed): it always says its backend and why it fell back or failed. */
export const TraceActionResultSchema = z.looseObject({
  success: z.boolean(),
  /**
   * Absent when none applies (docs/protocol.md#p-action-result-api). Closed sets: every trace Parallax
   * wrote holds only these values (the backend set has only grown, sdk/xctest then appreveal; the
   * fallback reasons never changed), so a value outside them is a bad trace, refused by name.
   */
  backend: BackendSchema.optional(),
  /** Why XCTest stood in for the SDK. */
  fallbackReason: FallbackReasonSchema.optional(),
  /** Why it failed closed: stale_observation, element_not_actionable, a timeout, ... */
  failureReason: z.string().optional(),
  /** Stage durations in ms, by name (dispatch, settle, observe, ...). */
  timings: z.record(z.string(), z.number()).optional(),
  durationMs: z.number().optional(),
});
export type TraceActionResult = z.infer<typeof TraceActionResultSchema>;

const refs = {
  observationRef: ResourceRefSchema.optional(),
  screenshotRef: ResourceRefSchema.optional(),
};

export const ActionBeforeEventSchema = z.object({
  type: z.literal('action.before'),
  ...eventBase,
  action: TraceActionSchema,
  target: TraceTargetSchema.optional(),
  ...refs,
  /** The accessibility findings of the frame before the step (docs/rules.md#r-a11y-19), bounded. Optional: older traces read. */
  a11y: StepFindingsSchema.optional(),
  /** The step's name, given in the trace view (docs/rules.md#r-edit-03). */
  label: z.string().max(200).optional(),
});

export const ActionAfterEventSchema = z.object({
  type: z.literal('action.after'),
  ...eventBase,
  result: TraceActionResultSchema,
  ...refs,
  /**
   * AppReveal only: what the app's read-only tools said after the step, as changes since the step
   * before (an `appState` resource). Optional, so traces written before it still read.
   */
  appStateRef: ResourceRefSchema.optional(),
  /** The accessibility findings of the frame after the step (docs/rules.md#r-a11y-19), bounded. Optional: older traces read. */
  a11y: StepFindingsSchema.optional(),
});

export const ObservationEventSchema = z.object({
  type: z.literal('observation'),
  ...eventBase,
  observationRef: ResourceRefSchema,
  screenshotRef: ResourceRefSchema.optional(),
  backend: BackendSchema.optional(),
  fallbackReason: FallbackReasonSchema.optional(),
  timings: z.record(z.string(), z.number()).optional(),
});

/**
 * Counts per difference class. Read leniently both ways: a class this reader does not know is kept, and
 * one the writer did not know reads as 0, so adding a class needs no new trace version.
 */
export const DiffSummarySchema = z.record(z.string(), z.number().int().nonnegative()).transform((counts) => ({ ...emptySummary(), ...counts }));

export const ComparisonEventSchema = z.object({
  type: z.literal('comparison'),
  ...eventBase,
  xctestObservationRef: ResourceRefSchema,
  sdkObservationRef: ResourceRefSchema,
  screenshotRef: ResourceRefSchema.optional(),
  /** The full diff (pairs and differences) as a resource; the summary travels inline for the timeline. */
  diffRef: ResourceRefSchema.optional(),
  summary: DiffSummarySchema,
});

export const NoteEventSchema = z.object({
  type: z.literal('note'),
  ...eventBase,
  text: z.string(),
  level: z.enum(['info', 'warning', 'error']).optional(),
});

/**
 * A step's perf window (docs/rules.md#r-perfstep-03), under the action's call id, written once the
 * window after the action closed (after its action.after). Optional: a trace without it reads.
 */
export const StepPerfEventSchema = z.object({
  type: z.literal('step.perf'),
  ...eventBase,
  perf: StepPerfSchema,
});

export const TraceEventSchema = z.discriminatedUnion('type', [
  ActionBeforeEventSchema,
  ActionAfterEventSchema,
  ObservationEventSchema,
  ComparisonEventSchema,
  NoteEventSchema,
  StepPerfEventSchema,
]);
export type TraceEvent = z.infer<typeof TraceEventSchema>;
export type TraceEventType = TraceEvent['type'];
export type ActionBeforeEvent = z.infer<typeof ActionBeforeEventSchema>;
export type ActionAfterEvent = z.infer<typeof ActionAfterEventSchema>;
export type ObservationEvent = z.infer<typeof ObservationEventSchema>;
export type ComparisonEvent = z.infer<typeof ComparisonEventSchema>;
export type NoteEvent = z.infer<typeof NoteEventSchema>;
export type StepPerfEvent = z.infer<typeof StepPerfEventSchema>;

export const TRACE_EVENT_TYPES: readonly TraceEventType[] = ['action.before', 'action.after', 'observation', 'comparison', 'note', 'step.perf'];

/**
 * The one typed API between the renderer and the main process.
 *
 * Both hosts carry exactly these methods and events: Electron over IPC (through the preload), the web
 * host over a WebSocket. Every method's params are decoded with its `input` schema on the main side
 * before anything runs, whichever host delivered them.
 *
 * Over 500 lines on purpose: the API is one table (docs/architecture.md#a-one-api), so both hosts and the
 * renderer read every method and event in one place; the schemas it is built from live in protocol/.
 */
import { z } from 'zod';
import { AppRevealSessionUrlSchema, DiscoveredDeviceSchema, WebControlSchema } from '@shared/protocol/appreveal';
import { AppStateSchema } from '@shared/protocol/appreveal-tools';
import { ActionRequestSchema, ActionResultSchema, WEB_TOOLS } from '@shared/protocol/action';
import { DiffClassSchema, TreeDiffSchema } from '@shared/compare/diff';
import { BackendSchema, FallbackReasonSchema, StrategySchema } from '@shared/protocol/observation';
import { ViewHierarchySchema } from '@shared/protocol/runner';
import { ActionStepSchema, ClientRefSchema, DeviceSummarySchema, FrameSchema, ObservedFrameSchema, ScreenshotFrameSchema } from '@shared/protocol/device';
import { DemoFaultsAnswerSchema, DemoScreenAnswerSchema } from '@shared/protocol/demo-admin';
import { ReplayReportSchema, ReplayStepSchema } from '@shared/trace/replay-report';
import { MAX_VARIABLE_VALUE, TraceVariableSchema, VARIABLE_NAME } from '@shared/trace/variables';
import { AppStateChangesSchema } from '@shared/trace/app-state';
import { TraceEditsSchema } from '@shared/trace/trace-edit';
import { AccessibilityAuditSchema } from '@shared/protocol/accessibility';
import { AuditsDiffSchema } from '@shared/a11y/diff';
import { DevicePerfSampleSchema, PerfSeriesSchema, StepPerfSchema } from '@shared/protocol/perf';

const DeviceIdInput = z.object({ deviceId: z.string().min(1) });
/** A resource of a trace, named by its content. */
const TraceRefSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 hex>');
const TracePathSchema = z.string().min(1).max(4096);

/** A frame a trace stored: its observation (a recorded screen) and, when kept, its screenshot. */
export const StoredFrameSchema = z.object({ path: TracePathSchema, observationRef: TraceRefSchema, screenshotRef: TraceRefSchema.optional() });

/** A frame whose accessibility findings are compared (docs/rules.md#r-a11y-21): a device's current one, or one a trace stored. */
export const A11yFrameSourceSchema = z.discriminatedUnion('from', [
  z.object({ from: z.literal('device'), deviceId: z.string().min(1) }),
  StoredFrameSchema.extend({ from: z.literal('trace') }),
]);
export type A11yFrameSource = z.infer<typeof A11yFrameSourceSchema>;

/** One side of a findings comparison: what it counted (all of them, past the listed cap too), and when a device's frame was received. */
const A11yCompareSideSchema = z.object({
  receivedAt: z.number().nullable(),
  summary: AccessibilityAuditSchema.shape.summary,
  truncated: AccessibilityAuditSchema.shape.truncated,
});

/** The stage an action in flight has reached (`started` first, then the dispatcher's own stage names). */
export const ActionProgressSchema = z.object({
  callId: z.string(),
  deviceId: z.string(),
  clientRef: ClientRefSchema.optional(),
  request: ActionRequestSchema,
  startedAt: z.number(),
  stage: z.string().max(100),
  /** Milliseconds since the action started. */
  elapsedMs: z.number().nonnegative(),
});
export type ActionProgress = z.infer<typeof ActionProgressSchema>;

export const WebControlsSchema = z.object({
  controls: z.array(WebControlSchema),
  /** More elements than shown. */
  truncated: z.boolean(),
  /** The web tools the app registered (web_click, web_type). */
  tools: z.array(z.enum(WEB_TOOLS)),
});
export type WebControls = z.infer<typeof WebControlsSchema>;

/** Where a trace step's frame is kept in the trace: its observation (a ViewHierarchy) and its screenshot. */
export const TraceFrameRefsSchema = z.object({
  observationRef: z.string().optional(),
  screenshotRef: z.string().optional(),
  /** When the frame was read (epoch ms), as the live timeline stamps its frames. */
  time: z.number().optional(),
});

/** One action step of a trace opened offline. */
export const TraceViewStepSchema = z.object({
  callId: z.string(),
  kind: z.string(),
  /** The action with its parameters, as the live timeline words it ("type secret" for text the trace does not hold). */
  action: z.string(),
  /** The target in one line (#id, "text", at x,y); '' when the action has none. */
  target: z.string(),
  /** The name the step was given in the trace view (docs/rules.md#r-edit-03). */
  label: z.string().optional(),
  /** The text a sendKeys types when it types one the trace holds: what the editor offers to change. */
  text: z.string().optional(),
  /** Where the finger went, in screen points, for the frame's mark (docs/rules.md#r-edit-08). */
  gesture: z
    .union([
      z.object({ kind: z.enum(['tap', 'doubleTap', 'longPress']), at: z.object({ x: z.number(), y: z.number() }) }),
      z.object({ kind: z.literal('swipe'), from: z.object({ x: z.number(), y: z.number() }), to: z.object({ x: z.number(), y: z.number() }) }),
    ])
    .optional(),
  /** The variable a replay types in place of the secret this step typed (docs/rules.md#r-rpl-04). */
  variable: z.string().optional(),
  status: z.string(),
  statusText: z.string(),
  startTime: z.number(),
  durationMs: z.number().optional(),
  /** null while the step was still in flight when the trace stopped. */
  result: z
    .object({
      success: z.boolean(),
      backend: BackendSchema.optional(),
      fallbackReason: FallbackReasonSchema.optional(),
      failureReason: z.string().optional(),
    })
    .nullable(),
  /** The whole recorded result (target and how it was resolved, timings, the device's words, warnings), when it parses. */
  actionResult: ActionResultSchema.optional(),
  before: TraceFrameRefsSchema.optional(),
  after: TraceFrameRefsSchema.optional(),
  /** AppReveal: what the app's read-only tools said after the step, as changes (read as `appState`). */
  appStateRef: z.string().optional(),
  /** The step's perf window, when the recording kept one (docs/rules.md#r-perfstep-03). */
  perf: StepPerfSchema.optional(),
});
export type TraceViewStep = z.infer<typeof TraceViewStepSchema>;

export const TraceOpenedSchema = z.object({
  path: z.string(),
  manifest: z.object({
    createdAt: z.string(),
    /** An edited copy: the file it was made from, and how many edits (docs/rules.md#r-edit-06). */
    edited: z.object({ from: z.string(), at: z.string(), edits: z.number() }).optional(),
    device: z.object({ name: z.string(), kind: z.string(), url: z.string() }),
    app: z.object({ bundleId: z.string(), name: z.string().optional(), version: z.string().optional() }).optional(),
  }),
  steps: z.array(TraceViewStepSchema),
  /** Comparisons saved into the trace, in the order they were taken. */
  comparisons: z.array(z.lazy(() => TraceComparisonSchema)),
  /** The secrets its steps typed and it does not hold: what a replay asks for (docs/rules.md#r-rpl-04). */
  variables: z.array(TraceVariableSchema),
  /** Oddities that did not stop the trace from opening (a cut-off last line, missing resources). */
  warnings: z.array(z.string()),
});
export type TraceOpened = z.infer<typeof TraceOpenedSchema>;

/** What identifies the moment a frame was read, so two frames can be said to show the same screen. */
export const CaptureStampSchema = z.object({
  /** The XCTest hierarchy's frame context token; it moves only when what is on screen changes. */
  frameContext: z.string().optional(),
  /** The hierarchy's own timestamp (device clock when `updatedAtSource` is device). */
  updatedAt: z.number().optional(),
  updatedAtSource: z.enum(['device', 'server']).optional(),
  /** Inspector clock, epoch ms, when the observe returned. */
  receivedAt: z.number(),
  /** The merged bridge snapshot's capture (SDK-backed frame only). */
  captureIdentity: z.string().optional(),
  /** The merged web snapshot (SDK-backed frame only). */
  webSnapshotId: z.string().optional(),
});
export type CaptureStamp = z.infer<typeof CaptureStampSchema>;

/**
 * The current screen as plain XCTest sees it beside the SDK-backed view of the same moment, with the
 * tree diff between them. Node keys in the diff are index paths into each frame's tree.
 */
export const ComparisonViewSchema = z.object({
  /** Names this comparison for `recording.saveComparison`. */
  comparisonId: z.string(),
  deviceId: z.string(),
  xctest: FrameSchema,
  sdk: FrameSchema,
  diff: TreeDiffSchema,
  stamps: z.object({ xctest: CaptureStampSchema, sdk: CaptureStampSchema }),
  /** Both reads carried the same frame context (true), a different one (false: compare again), or none (null). */
  sameScreen: z.boolean().nullable(),
});
export type ComparisonView = z.infer<typeof ComparisonViewSchema>;

/** A comparison saved into a trace: its summary inline, everything else as resources of the trace. */
export const TraceComparisonSchema = z.object({
  callId: z.string(),
  time: z.number(),
  summary: z.record(DiffClassSchema, z.number().int().nonnegative()),
  xctestObservationRef: z.string(),
  sdkObservationRef: z.string(),
  diffRef: z.string().optional(),
  screenshotRef: z.string().optional(),
});
export type TraceComparison = z.infer<typeof TraceComparisonSchema>;

/** The resource a saved comparison's `diffRef` names: the whole diff with the stamps of both reads. */
export const SavedComparisonSchema = TreeDiffSchema.extend({
  stamps: ComparisonViewSchema.shape.stamps,
  sameScreen: ComparisonViewSchema.shape.sameScreen,
});
export type SavedComparison = z.infer<typeof SavedComparisonSchema>;

/** One step of a replay running in the host, as soon as it is judged. */
export const ReplayProgressSchema = z.object({
  path: z.string(),
  deviceId: z.string(),
  /** Actions in the trace. */
  total: z.number().int().nonnegative(),
  step: ReplayStepSchema,
});
export type ReplayProgress = z.infer<typeof ReplayProgressSchema>;

/**
 * A replay's report when it has run to its end, also sent as an event: a long replay outlives a
 * caller's wait for the reply (the web transport gives up after 30 s), and the report must still arrive.
 */
export const ReplayEndedSchema = z.object({
  path: z.string(),
  deviceId: z.string(),
  report: ReplayReportSchema,
});
export type ReplayEnded = z.infer<typeof ReplayEndedSchema>;

/** What a trace resource is read as: a screenshot, a recorded screen (its ViewHierarchy), a saved comparison's diff, or an AppReveal step's app state. */
export const TRACE_RESOURCE_KINDS = ['png', 'hierarchy', 'comparison', 'appState'] as const;

/** One resource of a trace, decoded by the host with the schema of what the caller asked it to be. */
export const TraceResourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('png'), dataBase64: z.string() }),
  z.object({ kind: z.literal('hierarchy'), hierarchy: ViewHierarchySchema }),
  z.object({ kind: z.literal('comparison'), comparison: z.lazy(() => SavedComparisonSchema) }),
  z.object({ kind: z.literal('appState'), appState: AppStateChangesSchema }),
]);
export type TraceResource = z.infer<typeof TraceResourceSchema>;

/**
 * The largest API call frame the web host takes (docs/rules.md#r-host-01): 1 MB of typed text, or a
 * tapped node whose label a device made huge, fits many times over; a bigger frame closes its socket.
 */
export const MAX_API_FRAME_BYTES = 16 * 1024 * 1024;

/** The largest trace file a browser may hand the host (512 MiB). */
export const MAX_TRACE_BYTES = 512 * 1024 * 1024;

/**
 * A browser has a picked or dropped file's bytes but not its path: the web host takes them as the body
 * of `POST TRACE_UPLOAD_PATH?token=…&name=<file name>` and answers with the reply envelope of
 * `trace.open`. (Electron's renderer knows the file's path and calls `trace.open` with it.)
 */
export const TRACE_UPLOAD_PATH = '/trace-upload';

/** The demo device's screen and faults, as the host read them from its admin endpoint (docs/rules.md#r-qa-18). */
export const DemoStateSchema = z.object({
  screen: DemoScreenAnswerSchema.shape.screen,
  screens: DemoScreenAnswerSchema.shape.screens,
  /** The faults on, `name` or `name=value`. */
  faults: DemoFaultsAnswerSchema.shape.faults,
  /** Every fault, with its help text and what its value is. */
  known: DemoFaultsAnswerSchema.shape.known,
});
export type DemoState = z.infer<typeof DemoStateSchema>;

/** A fault as the demo takes it: `name` or `name=value`. */
const DemoFaultSpec = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9-]+(=[A-Za-z0-9_.-]+)?$/, 'a fault is name or name=value');

export const apiMethods = {
  'app.info': {
    input: z.object({}),
    output: z.object({ version: z.string(), host: z.enum(['electron', 'web']) }),
  },
  'devices.list': {
    input: z.object({}),
    output: z.array(DeviceSummarySchema),
  },
  'devices.connect': {
    input: z.object({
      /** A runner (`ws://HOST:PORT/ws`) or an AppReveal session URL (`http://HOST:PORT/?appreveal_session_token=…`). */
      url: z
        .string()
        .max(2048)
        .refine((url) => /^wss?:\/\//.test(url) || AppRevealSessionUrlSchema.safeParse(url).success, {
          message: 'a runner URL (ws://HOST:PORT/ws) or an AppReveal session URL (http://HOST:PORT/?appreveal_session_token=…)',
        }),
      name: z.string().min(1).max(200).optional(),
    }),
    output: DeviceSummarySchema,
  },
  'devices.disconnect': {
    input: DeviceIdInput,
    output: z.object({ ok: z.literal(true) }),
  },
  'device.observe': {
    input: DeviceIdInput.extend({
      strategy: StrategySchema.optional(),
      /** Read with the SDK observation bridge flag off: what plain XCTest sees. */
      xctestOnly: z.boolean().optional(),
      /** An AppReveal window (from list_windows) to read instead of the key window; runner devices ignore it. */
      windowId: z.string().min(1).max(200).optional(),
    }),
    output: FrameSchema,
  },
  'device.screenshot': {
    input: DeviceIdInput,
    output: ScreenshotFrameSchema,
  },
  /**
   * Runs one action on the device (through the bridge, the web view, XCTest or AppReveal: see the result).
   * It answers when the host has the result, however long that takes: a caller must not give up sooner
   * (docs/rules.md#r-act-05); `device.actionProgress` says meanwhile what it is doing.
   */
  'device.act': {
    input: DeviceIdInput.extend({ action: ActionRequestSchema, xctestOnly: z.boolean().optional(), clientRef: ClientRefSchema.optional() }),
    output: ActionStepSchema,
  },
  /**
   * The device's action steps so far, oldest first, for a window opened mid-session: the newest few with
   * their before / after frames, older ones with their results only.
   */
  'device.history': {
    input: DeviceIdInput,
    output: z.array(ActionStepSchema),
  },
  /** An AppReveal app's own back navigation (navigate_back), recorded like device.act; a runner has none (not_offered). */
  'device.navigateBack': {
    input: DeviceIdInput,
    output: ActionStepSchema,
  },
  /** The interactive elements of an AppReveal app's web view (get_dom_interactive); not_offered without the tool. */
  'device.webControls': {
    input: DeviceIdInput,
    output: WebControlsSchema,
  },
  /**
   * What an AppReveal app's read-only tools say now (state, navigation stack, feature flags, network
   * calls, logs, recent errors, device info, launch context): each one the app registered, read fresh.
   * not_offered for a runner or an app that registered none.
   */
  'device.appState': {
    input: DeviceIdInput,
    output: AppStateSchema,
  },
  /**
   * One network call of an AppReveal app in full (get_network_call_detail: headers, captured bodies,
   * SSE frames), by the id its get_network_calls gave; read on the user's click, never recorded.
   * not_offered for a runner or an app without the tool.
   */
  'device.networkCall': {
    input: DeviceIdInput.extend({ id: z.string().min(1).max(200) }),
    output: z.object({ id: z.string(), value: z.unknown() }),
  },
  /**
   * Turns a runner device's perf mode on or off: while on, its observations carry `perfSnapshot`
   * (docs/rules.md#r-perfsnap). The window is clamped to 1,000–30,000 ms; none keeps the current one.
   */
  'device.perfMode': {
    input: DeviceIdInput.extend({ enabled: z.boolean(), windowMs: z.number().int().min(0).max(3_600_000).optional() }),
    output: z.object({ enabled: z.boolean(), windowMs: z.number().int() }),
  },
  /** A runner device's newest performance samples, for a strip opened mid-session (docs/rules.md#r-perfstrip-01). */
  'device.perfSamples': { input: DeviceIdInput, output: PerfSeriesSchema },
  /** web_click / web_type on a web view element by selector, recorded like device.act (only these bounded tools). */
  'device.webAct': {
    input: DeviceIdInput.extend({
      tool: z.enum(WEB_TOOLS),
      selector: z.string().min(1).max(500),
      text: z.string().max(10_000).optional(),
      /** The text is a secret (docs/rules.md#r-secret): kept out of everything but the request to the app. */
      secret: z.boolean().optional(),
    }).refine((input) => input.tool !== 'web_type' || input.text !== undefined, { path: ['text'], message: 'web_type needs text' }),
    output: ActionStepSchema,
  },
  /**
   * An XCTest-only observation and an SDK-backed one of the current screen, back to back, and their tree
   * diff. The host keeps the last few by comparisonId so one can be saved into a recording.
   */
  'device.compare': {
    input: DeviceIdInput.extend({ strategy: StrategySchema.optional() }),
    output: ComparisonViewSchema,
  },
  /** Recording: every action and requested observation of one device goes into a trace as it happens. */
  'recording.start': { input: DeviceIdInput, output: z.lazy(() => RecordingStatusSchema) },
  /** Stops and packs the trace into one `.parallax-trace` file (its path is in `lastTrace`). */
  'recording.stop': { input: z.object({}), output: z.lazy(() => RecordingStatusSchema) },
  'recording.status': { input: z.object({}), output: z.lazy(() => RecordingStatusSchema) },
  /** Traces a crash or a kill left unfinished, which the user may recover. */
  'recording.unfinished': { input: z.object({}), output: z.array(z.lazy(() => UnfinishedTraceSchema)) },
  /** Writes a comparison taken with device.compare into the running recording. */
  'recording.saveComparison': { input: z.object({ comparisonId: z.string().min(1).max(100) }), output: z.lazy(() => RecordingStatusSchema) },
  'recording.recover': { input: z.object({ folder: z.string().min(1) }), output: z.object({ path: z.string(), droppedLines: z.number() }) },
  /** What discovery finds (Bonjour, the runner port probe, manual entries): devices one can connect to. */
  'discovery.list': {
    input: z.object({}),
    output: z.array(DiscoveredDeviceSchema),
  },
  /** Remembers a device by URL between starts; an AppReveal token is stripped before it is saved. */
  'discovery.addManual': {
    input: z.object({ url: z.string().min(1).max(2048), name: z.string().min(1).max(200).optional() }),
    output: z.array(DiscoveredDeviceSchema),
  },
  /** Opens a trace file or folder offline (no device): its manifest and its action steps. */
  'trace.open': {
    input: z.object({ path: z.string().min(1).max(4096) }),
    output: TraceOpenedSchema,
  },
  /** The trace files this host recorded, newest first: what a browser, which knows no paths, can open in place. */
  'trace.recent': {
    input: z.object({}),
    output: z.array(z.object({ path: z.string(), name: z.string(), bytes: z.number().int().nonnegative(), modifiedAt: z.number() })),
  },
  /** One resource of an opened trace, read as the kind the caller names (a screenshot, a recorded screen, a saved diff). */
  'trace.resource': {
    input: z.object({
      path: z.string().min(1).max(4096),
      ref: TraceRefSchema,
      as: z.enum(TRACE_RESOURCE_KINDS),
    }),
    output: TraceResourceSchema,
  },
  /**
   * Re-runs an opened trace's actions on a device, each target resolved again by its recorded selector,
   * and reports every step (matched, diverged, failed) as a `trace.replayStep` event and in the report.
   * One replay at a time.
   */
  'trace.replay': {
    input: DeviceIdInput.extend({
      path: z.string().min(1).max(4096),
      stopOnDivergence: z.boolean(),
      /** The values of the trace's `variables`, typed where it left a secret out; never stored or logged. */
      variables: z.record(z.string().regex(VARIABLE_NAME), z.string().max(MAX_VARIABLE_VALUE)).optional(),
      /** Relaunch the app (cold boot) before step 1 (docs/rules.md#r-life-05). */
      relaunchFirst: z.boolean().optional(),
      /** Start at this step, by call id (docs/rules.md#r-edit-07); with `only`, run it alone. */
      fromCallId: z.string().min(1).max(200).optional(),
      only: z.boolean().optional(),
    }).refine((input) => !input.only || input.fromCallId !== undefined, { path: ['only'], message: 'only one step: name it with fromCallId' }),
    output: ReplayReportSchema,
  },
  /**
   * Saves the trace with `edits` applied as a new file beside it (docs/rules.md#r-edit-06), never over
   * the recording nor an earlier edited copy, and opens it.
   */
  'trace.saveEdited': {
    input: z.object({ path: z.string().min(1).max(4096), edits: TraceEditsSchema }),
    output: TraceOpenedSchema,
  },
  /**
   * A replayed frame of the last replay's step (docs/rules.md#r-rpl-05), for the side-by-side: the host
   * keeps the frames of its last replay only, in memory, redacted as a trace is; null when it kept none.
   */
  'trace.replayFrame': {
    input: z.object({ path: z.string().min(1).max(4096), callId: z.string().min(1).max(200), when: z.enum(['before', 'after']) }),
    output: ObservedFrameSchema.nullable(),
  },
  /**
   * The trace as a Maestro flow (YAML), with a note for each step that has no Maestro form and for each
   * screen the export could not read.
   */
  'trace.exportMaestro': {
    input: z.object({ path: z.string().min(1).max(4096) }),
    output: z.object({ yaml: z.string(), notes: z.array(z.string()) }),
  },
  /**
   * The trace as an XCUITest test method (Swift), with the same notes as the Maestro export: steps with no
   * XCUITest form, secrets to set in the scheme's environment, screens that could not be read.
   */
  'trace.exportXcuiTest': {
    input: z.object({ path: z.string().min(1).max(4096) }),
    output: z.object({ swift: z.string(), notes: z.array(z.string()) }),
  },
  /** Stops the running replay between steps (the step in flight finishes); false when none runs. */
  'trace.stopReplay': { input: z.object({}), output: z.object({ stopping: z.boolean() }) },
  /**
   * Shows a trace file in its folder: Electron opens the system's file manager there (`shown: true`); the
   * web host cannot, and answers the folder for the page to show (`shown: false`).
   */
  'trace.reveal': {
    input: z.object({ path: z.string().min(1).max(4096) }),
    output: z.object({ shown: z.boolean(), folder: z.string() }),
  },
  /** The demo device's screen and faults; `not_offered` for a device that is not the demo (docs/rules.md#r-qa-18). */
  'demo.state': { input: DeviceIdInput, output: DemoStateSchema },
  'demo.setScreen': { input: DeviceIdInput.extend({ screen: z.string().min(1).max(64) }), output: DemoStateSchema },
  /** Turns the demo's faults on (`name` or `name=value`) and off (`name`), all or nothing. */
  'demo.setFaults': {
    input: DeviceIdInput.extend({ add: z.array(DemoFaultSpec).max(16).optional(), remove: z.array(DemoFaultSpec).max(16).optional() }).refine(
      (input) => (input.add?.length ?? 0) + (input.remove?.length ?? 0) > 0,
      { message: 'add or remove at least one fault' },
    ),
    output: DemoStateSchema,
  },
  /**
   * The accessibility audit of the device's current frame, run by the host (docs/rules.md#r-a11y-17), with
   * the fingerprints of the findings muted on this device (its profile, kept between connections).
   * `receivedAt` names the frame audited (null: the device has shown none yet).
   */
  'device.audit': {
    input: DeviceIdInput,
    output: z.object({ receivedAt: z.number().nullable(), audit: AccessibilityAuditSchema.nullable(), muted: z.array(z.string()) }),
  },
  /**
   * The accessibility audit of a frame a trace stored (docs/rules.md#r-a11y-21), run offline by the host
   * (the screenshot decoded and sampled there): what the trace view's step findings list. Null when the
   * stored JSON is no screen.
   */
  'trace.audit': { input: StoredFrameSchema, output: z.object({ audit: AccessibilityAuditSchema.nullable() }) },
  /**
   * Two frames' findings compared by fingerprint (docs/rules.md#r-a11y-21): new (only on `compared`), gone
   * (only on `recorded`), unchanged. Either side a device's current frame or a trace's stored one.
   */
  'a11y.compare': {
    input: z.object({ recorded: A11yFrameSourceSchema, compared: A11yFrameSourceSchema }),
    output: z.object({ recorded: A11yCompareSideSchema, compared: A11yCompareSideSchema, diff: AuditsDiffSchema }),
  },
  /** Mutes (or unmutes) one finding on this device, by fingerprint; kept in the device's profile. */
  'device.muteFinding': {
    input: DeviceIdInput.extend({ fingerprint: z.string().min(1).max(2_000), muted: z.boolean() }),
    output: z.object({ muted: z.array(z.string()) }),
  },
} as const;

export type ApiMethod = keyof typeof apiMethods;

export const RecordingStatusSchema = z.object({
  recording: z.boolean(),
  deviceId: z.string().optional(),
  traceId: z.string().optional(),
  /** Action steps written so far (what the trace view's filmstrip will show). */
  steps: z.number().int().nonnegative(),
  /** Comparisons saved so far (the trace view lists them apart from the steps). */
  comparisons: z.number().int().nonnegative(),
  lastTrace: z.string().optional(),
});
export type RecordingStatus = z.infer<typeof RecordingStatusSchema>;

export const UnfinishedTraceSchema = z.object({
  folder: z.string(),
  /** The actions it holds, whole or in flight (observations are not counted). */
  actions: z.number().int().nonnegative(),
  lastEventTime: z.number().optional(),
  deviceName: z.string().optional(),
});
export type ApiInput<M extends ApiMethod> = z.input<(typeof apiMethods)[M]['input']>;
export type ApiOutput<M extends ApiMethod> = z.output<(typeof apiMethods)[M]['output']>;

export const apiEvents = {
  'devices.changed': z.object({ devices: z.array(DeviceSummarySchema) }),
  /** A frame the device pushed by itself (a `hierarchy_update` push). */
  'device.frame': FrameSchema,
  'device.action': ActionStepSchema,
  /** An action in flight (whoever asked for it): the stage it is in now, until its `device.action` step. */
  'device.actionProgress': z.lazy(() => ActionProgressSchema),
  'recording.changed': z.lazy(() => RecordingStatusSchema),
  'discovery.changed': z.object({ devices: z.array(DiscoveredDeviceSchema) }),
  'trace.replayStep': ReplayProgressSchema,
  'trace.replayEnded': ReplayEndedSchema,
  /** A device's performance push (docs/rules.md#r-perfstrip-01), about once a second per runner device. */
  'device.perf': DevicePerfSampleSchema,
  /** The user picked a trace file outside the page (the Electron menu's Open Trace…): the renderer opens it. */
  'trace.openRequested': z.object({ path: z.string().min(1) }),
} as const;

export type ApiEvent = keyof typeof apiEvents;
export type ApiEventPayload<E extends ApiEvent> = z.output<(typeof apiEvents)[E]>;

/** What the renderer sees, whichever host it runs in. */
export interface ParallaxApi {
  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>>;
  on<E extends ApiEvent>(event: E, listener: (payload: ApiEventPayload<E>) => void): () => void;
}

// Envelopes: how a call, its answer and an event travel over the web host's WebSocket (and IPC).
export const ApiCallEnvelopeSchema = z.object({
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.unknown(),
});
export const ApiErrorSchema = z.object({ code: z.string(), message: z.string() });
export type ApiError = z.infer<typeof ApiErrorSchema>;
export const ApiReplyEnvelopeSchema = z.union([
  z.object({ id: z.number(), ok: z.literal(true), result: z.unknown() }),
  z.object({ id: z.number(), ok: z.literal(false), error: ApiErrorSchema }),
]);
export const ApiEventEnvelopeSchema = z.object({ event: z.string(), payload: z.unknown() });
export const ApiServerMessageSchema = z.union([ApiReplyEnvelopeSchema, ApiEventEnvelopeSchema]);

export function isApiMethod(name: string): name is ApiMethod {
  return Object.hasOwn(apiMethods, name);
}

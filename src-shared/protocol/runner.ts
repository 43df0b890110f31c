/**
 * The iOS runner ("CtrlProxy") WebSocket protocol (docs/protocol.md#p-runner): requests, replies and
 * pushes.
 *
 * Shapes follow recorded real traffic (resources/recordings/settings-tap-general) and the runner's
 * Codable types: a field the runner declares optional is optional here, so an older or newer runner still
 * decodes.
 */
import { z } from 'zod';
import { decodeWith, fail, parseFrame, validateWith, type DecodeResult } from './errors';
import { stringifyJsonLossless } from './json';
import { treeSchema } from './tree';
import {
  SdkActionPayloadSchema,
  SdkCapabilitiesPayloadSchema,
  SdkObservationPayloadSchema,
  SdkWebActionPayloadSchema,
  SdkWebSnapshotPayloadSchema,
} from './sdk';

// ---- Hierarchy --------------------------------------------------------------------------------------

/**
 * Integer screen points; a node may extend off screen, so any sign, but never inverted: right is not
 * left of left, bottom not above top (an empty box is fine: hidden views have one). docs/rules.md#r-lim-05
 */
export const BoundsSchema = z
  .object({
    left: z.number().int(),
    top: z.number().int(),
    right: z.number().int(),
    bottom: z.number().int(),
  })
  .refine((b) => b.right >= b.left, { path: ['right'], message: 'inverted bounds: right is less than left' })
  .refine((b) => b.bottom >= b.top, { path: ['bottom'], message: 'inverted bounds: bottom is less than top' });
export type Bounds = z.infer<typeof BoundsSchema>;

/** Node booleans travel as the strings "true"/"false" (a frozen contract shared with Android). */
const flag = z.enum(['true', 'false']).optional();
export const NODE_FLAGS = [
  'clickable',
  'enabled',
  'focusable',
  'focused',
  'scrollable',
  'password',
  'checkable',
  'checked',
  'selected',
  'long-clickable',
] as const;
export type NodeFlag = (typeof NODE_FLAGS)[number];

const text = z.string().optional();
const optionalBounds = BoundsSchema.optional();
const extras = z.record(z.string(), z.string()).optional();
const actions = z.array(z.string()).optional();
const count = z.number().int().nonnegative().optional();

/** A node's own fields; its children (`node`) are decoded by treeSchema, without recursion (R-LIM-02). */
export const UiNodeFieldsSchema = z.object({
  text,
  value: text,
  'content-desc': text,
  'resource-id': text,
  'view-id': text,
  'test-tag': text,
  'hint-text': text,
  role: text,
  className: text,
  bounds: optionalBounds,
  extras,
  actions,
  clickable: flag,
  enabled: flag,
  focusable: flag,
  focused: flag,
  scrollable: flag,
  password: flag,
  checkable: flag,
  checked: flag,
  selected: flag,
  'long-clickable': flag,
  // Added by the inspector's merge (docs/protocol.md#p-merge-attrs); declared so a merged tree survives a
  // re-decode.
  'sdk-element-id': text,
  'sdk-capture-identity': text,
  'web-view-id': text,
  'web-snapshot-id': text,
  'web-element-id': text,
  'web-document-id': text,
  'web-origin': text,
  'web-role': text,
  'value-redacted': text,
  // Set by the OVERVIEW observe-scope on a kept node: how many nodes below it were collapsed (docs/rules.md#r-scope-03).
  omittedDescendants: count,
});
export const UiNodeSchema = treeSchema(UiNodeFieldsSchema, 'node', {
  fast: fastFieldsOf(UiNodeFieldsSchema.shape),
  asIs: asIsFieldsOf(UiNodeFieldsSchema.shape, 'node'),
});
export type UiNode = z.infer<typeof UiNodeSchema>;

/**
 * `shape`'s decode without zod, for a node whose every field is well formed: the same object zod would
 * give (its keys in the shape's order, unknown keys dropped, fresh bounds, extras and actions), or
 * undefined for anything else, which zod then decodes and words (issue 29.2: in the page, where the CSP
 * keeps zod from compiling its parsers, 50,000 nodes cost it half a second). Built from the schema's
 * own field schemas, so a field of another kind fails at load, not silently.
 */
export function fastFieldsOf(shape: Record<string, z.ZodType>): (raw: unknown) => Record<string, unknown> | undefined {
  type Kind = FieldKind;
  const kinds = fastKinds(shape);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const order = new Map(kinds.map(([key, kind], index) => [key, { kind, index }]));
  /** `v` as the field's schema decodes it, or undefined when it does not (or zod's answer is not plain). */
  const field = (kind: Kind, v: unknown): unknown => {
    if (kind === 'text') return typeof v === 'string' ? v : undefined;
    if (kind === 'flag') return v === 'true' || v === 'false' ? v : undefined;
    if (kind === 'count') return isCount(v) ? v : undefined;
    if (kind === 'bounds') {
      if (!isObject(v)) return undefined;
      const { left, top, right, bottom } = v;
      if (!Number.isSafeInteger(left) || !Number.isSafeInteger(top) || !Number.isSafeInteger(right) || !Number.isSafeInteger(bottom)) return undefined;
      if ((right as number) < (left as number) || (bottom as number) < (top as number)) return undefined;
      return { left, top, right, bottom };
    }
    if (kind === 'extras') {
      if (!isObject(v)) return undefined;
      const copy: Record<string, string> = {};
      for (const name of Object.keys(v)) {
        const value = v[name];
        if (typeof value !== 'string' || name === '__proto__') return undefined;
        copy[name] = value;
      }
      return copy;
    }
    if (!Array.isArray(v)) return undefined;
    for (const item of v) if (typeof item !== 'string') return undefined;
    return v.slice();
  };
  // One scratch row of the node's values by field, reused: the decode is synchronous.
  const values: unknown[] = new Array<unknown>(kinds.length);
  const given: boolean[] = new Array<boolean>(kinds.length).fill(false);
  return (raw) => {
    if (!isObject(raw)) return undefined;
    // A node holds a few of the fields: its own keys are walked (in whatever order the device wrote
    // them), and the answer is written in the shape's order, as zod writes it.
    given.fill(false);
    let first = kinds.length;
    let lastIndex = -1;
    for (const key in raw) {
      const known = order.get(key);
      if (!known) continue;
      const v = raw[key];
      // zod keeps a key given as undefined (never on the wire; a writer in this process may).
      const decoded = v === undefined ? undefined : field(known.kind, v);
      if (decoded === undefined && v !== undefined) return undefined;
      values[known.index] = decoded;
      given[known.index] = true;
      if (known.index < first) first = known.index;
      if (known.index > lastIndex) lastIndex = known.index;
    }
    const out: Record<string, unknown> = {};
    for (let i = first; i <= lastIndex; i++) if (given[i]) out[kinds[i]![0]] = values[i];
    return out;
  };
}

/** The field kinds of `shape` the fast paths know, in the shape's order; a field of another kind fails at load. */
function fieldKinds(shape: Record<string, z.ZodType>): Map<string, { kind: FieldKind; index: number }> {
  return new Map(fastKinds(shape).map(([key, kind], index) => [key, { kind, index }]));
}

type FieldKind = 'text' | 'flag' | 'count' | 'bounds' | 'extras' | 'actions';

/** A count as `count` decodes it (zod's int() is a safe integer). */
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function fastKinds(shape: Record<string, z.ZodType>): [string, FieldKind][] {
  return Object.entries(shape).map(([key, schema]) => {
    const kind =
      schema === text
        ? 'text'
        : schema === flag
          ? 'flag'
          : schema === count
            ? 'count'
            : schema === optionalBounds
              ? 'bounds'
              : schema === extras
                ? 'extras'
                : schema === actions
                  ? 'actions'
                  : undefined;
    if (!kind) throw new Error(`fastFieldsOf: the field ${key} is of a kind the fast decode does not know`);
    return [key, kind];
  });
}

const BOUNDS_KEYS = ['left', 'top', 'right', 'bottom'] as const;

/**
 * Whether a node already is what `shape` decodes it to: only its fields, in the shape's order, each well
 * formed, bounds exactly `{left, top, right, bottom}`, and its children (under `childKey`) last. What
 * zod would give is then a copy equal to it, key order included, so the node may stand for itself.
 */
export function asIsFieldsOf(shape: Record<string, z.ZodType>, childKey: string): (raw: unknown) => boolean {
  const order = fieldKinds(shape);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const boundsAsIs = (v: unknown): boolean => {
    if (!isObject(v)) return false;
    let i = 0;
    for (const key in v) if (key !== BOUNDS_KEYS[i++]) return false;
    if (i !== 4) return false;
    const { left, top, right, bottom } = v as Record<string, number>;
    return (
      Number.isSafeInteger(left) &&
      Number.isSafeInteger(top) &&
      Number.isSafeInteger(right) &&
      Number.isSafeInteger(bottom) &&
      right! >= left! &&
      bottom! >= top!
    );
  };
  return (raw) => {
    if (!isObject(raw)) return false;
    let last = -1;
    let childrenSeen = false;
    for (const key in raw) {
      if (childrenSeen) return false;
      if (key === childKey) {
        childrenSeen = true;
        continue;
      }
      const known = order.get(key);
      if (!known || known.index <= last) return false;
      last = known.index;
      const v = raw[key];
      switch (known.kind) {
        case 'text':
          if (typeof v !== 'string') return false;
          break;
        case 'flag':
          if (v !== 'true' && v !== 'false') return false;
          break;
        case 'count':
          if (!isCount(v)) return false;
          break;
        case 'bounds':
          if (!boundsAsIs(v)) return false;
          break;
        case 'extras':
          if (!isObject(v)) return false;
          for (const name in v) if (typeof v[name] !== 'string' || name === '__proto__') return false;
          break;
        case 'actions':
          if (!Array.isArray(v)) return false;
          for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
          break;
      }
    }
    return true;
  };
}

export const WindowInfoSchema = z.object({
  id: z.number().int().optional(),
  type: z.number().int().optional(),
  isActive: z.boolean(),
  isFocused: z.boolean(),
  bounds: BoundsSchema.optional(),
});

export const EdgeInsetsSchema = z.object({ top: z.number(), left: z.number(), bottom: z.number(), right: z.number() });

export const InsetsSchema = z.object({
  available: z.boolean(),
  source: z.string(),
  units: z.string(),
  safeArea: EdgeInsetsSchema.optional(),
  // Optional: runners from before the display_cutout_info feature send insets without it.
  displayCutoutInfo: z.object({ classification: z.string(), bounds: z.array(BoundsSchema).optional() }).optional(),
  systemChrome: z
    .object({
      visibility: z.string(),
      statusBar: z.string(),
      navigationBar: z.string().optional(),
      homeIndicatorAutoHideRequested: z.boolean().optional(),
      source: z.string(),
    })
    .optional(),
});

/** A wire `error` may be null from a dictionary-built reply; null and absent both mean "no error". */
const ErrorTextSchema = z.string().nullish();
const hasError = (error: string | null | undefined) => error !== undefined && error !== null;

export const ViewHierarchySchema = z
  .object({
    updatedAt: z.number().optional(),
    packageName: z.string().optional(),
    hierarchy: UiNodeSchema.optional(),
    windowInfo: WindowInfoSchema.optional(),
    windows: z.array(WindowInfoSchema).optional(),
    // A screen has a size: zero or negative is impossible geometry, refused naming the field (R-LIM-05).
    screenScale: z.number().positive().optional(),
    screenWidth: z.number().int().positive().optional(),
    screenHeight: z.number().int().positive().optional(),
    nativeScale: z.number().positive().optional(),
    pixelWidth: z.number().int().positive().optional(),
    pixelHeight: z.number().int().positive().optional(),
    rotation: z.number().int().min(0).max(3).optional(),
    systemInsets: EdgeInsetsSchema.optional(),
    insets: InsetsSchema.optional(),
    error: ErrorTextSchema,
  })
  // Optional in the type because a failed capture carries only `error`; otherwise a tree is required.
  .refine((h) => h.hierarchy !== undefined || hasError(h.error), {
    path: ['hierarchy'],
    message: 'required unless error is present',
  });
export type ViewHierarchy = z.infer<typeof ViewHierarchySchema>;

// ---- Pushes -----------------------------------------------------------------------------------------

export const ConnectedPushSchema = z
  .object({
    type: z.literal('connected'),
    id: z.number().optional(),
    /** How a client detects an older runner: a command missing here is never sent. */
    supportedCommands: z.array(z.string()).optional(),
    supportedFeatures: z.array(z.string()).default([]),
    timestamp: z.number().optional(),
  })
  .transform(({ supportedCommands, ...push }) => ({
    ...push,
    supportedCommands: supportedCommands ?? [...BASE_RUNNER_COMMANDS],
    /** False when the runner sent no list and BASE_RUNNER_COMMANDS stands in for it. */
    commandsListed: supportedCommands !== undefined,
  }));
export type ConnectedPush = z.output<typeof ConnectedPushSchema>;

/** A failed hierarchy read is a hierarchy_update with `error` and no `data` (the runner's CommandHandler). */
const dataUnlessError = (m: { data?: unknown; error?: string | null }) => m.data !== undefined || hasError(m.error);
const dataUnlessErrorMessage = { path: ['data'], message: 'required unless error is present' };

export const HierarchyUpdateSchema = z
  .object({
    type: z.literal('hierarchy_update'),
    data: ViewHierarchySchema.optional(),
    frameContext: z.string().optional(),
    timestamp: z.number().optional(),
    error: ErrorTextSchema,
  })
  .refine(dataUnlessError, dataUnlessErrorMessage);
export type HierarchyUpdate = z.infer<typeof HierarchyUpdateSchema>;

export const PerformanceUpdateSchema = z.object({
  type: z.literal('performance_update'),
  performanceData: z.object({
    fps: z.number(),
    frameTimeMs: z.number(),
    jankFrames: z.number(),
    cpuUsagePercent: z.number(),
    memoryUsageMb: z.number(),
    timestamp: z.number(),
  }),
  timestamp: z.number().optional(),
});
export type PerformanceUpdate = z.infer<typeof PerformanceUpdateSchema>;

export type RunnerPush = ConnectedPush | HierarchyUpdate | PerformanceUpdate;

// ---- Requests ---------------------------------------------------------------------------------------

export const RUNNER_COMMANDS = [
  'request_hierarchy',
  'request_hierarchy_if_stale',
  'request_screenshot',
  'request_tap_coordinates',
  'request_swipe',
  'request_set_text',
  'request_append_text',
  'request_clear_text',
  'request_ime_action',
  'request_press_key',
  'request_launch_app',
  'get_sdk_capabilities',
  'request_sdk_observation',
  'request_sdk_action',
  'request_sdk_web_snapshot',
  'request_sdk_web_action',
] as const;
export type RunnerCommand = (typeof RUNNER_COMMANDS)[number];

/** What Parallax sends, by what it is for: a runner without the first group cannot be observed at all. */
export const RUNNER_COMMAND_GROUPS = {
  observe: ['request_hierarchy', 'request_screenshot'],
  act: ['request_tap_coordinates', 'request_swipe', 'request_append_text', 'request_clear_text', 'request_ime_action', 'request_press_key'],
  discovery: ['get_sdk_capabilities'],
  bridge: ['request_sdk_observation', 'request_sdk_action', 'request_sdk_web_snapshot', 'request_sdk_web_action'],
} as const satisfies Record<string, readonly RunnerCommand[]>;

/**
 * The commands every real runner has (its RequestType) that Parallax sends: all but the SDK relay
 * commands (`request_sdk_*`), which no real runner has. A `connected` push without a list (the real
 * runner's fallback when encoding its list fails, docs/protocol.md#p-runner-push) stands for these.
 */
export const BASE_RUNNER_COMMANDS: readonly RunnerCommand[] = RUNNER_COMMANDS.filter((command) => !command.startsWith('request_sdk_'));

const requestEnvelope = {
  requestId: z.string(),
  timeoutMs: z.number().nonnegative().optional(),
  frameContext: z.string().optional(),
};

function request<const T extends RunnerCommand, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), ...requestEnvelope, ...shape });
}

const hierarchyRequest = { disableAllFiltering: z.boolean().optional() };
const textRequest = { text: z.string(), resourceId: z.string().optional() };

export const IME_ACTIONS = ['done', 'next', 'go', 'search', 'send'] as const;

export const RequestHierarchySchema = request('request_hierarchy', hierarchyRequest);
export const RequestHierarchyIfStaleSchema = request('request_hierarchy_if_stale', hierarchyRequest);
export const RequestScreenshotSchema = request('request_screenshot', {});
export const RequestTapCoordinatesSchema = request('request_tap_coordinates', {
  x: z.number(),
  y: z.number(),
  /** ms; 0 (or none) is a tap, more is a press. Optional as the runner's `duration: Int?` (RequestTapCoordinates.swift). */
  duration: z.number().nonnegative().optional(),
});
export const RequestSwipeSchema = request('request_swipe', {
  x1: z.number(),
  y1: z.number(),
  x2: z.number(),
  y2: z.number(),
  /** Optional as the runner's `duration: Int?` (RequestSwipe.swift). */
  duration: z.number().nonnegative().optional(),
});
export const RequestSetTextSchema = request('request_set_text', textRequest);
export const RequestAppendTextSchema = request('request_append_text', textRequest);
export const RequestClearTextSchema = request('request_clear_text', { resourceId: z.string().optional() });
export const RequestImeActionSchema = request('request_ime_action', { action: z.enum(IME_ACTIONS) });
/**
 * `modifiers` is not optional: the runner's `RequestPressKey` declares `public var modifiers: [String]`
 * (kaeawc/auto-mobile ios/control-proxy/Sources/CtrlProxyRewrite/Models/RequestPressKey.swift:6), so a
 * request without it fails to decode on every real runner. Parallax sends `[]` for a plain key.
 */
export const RequestPressKeySchema = request('request_press_key', { key: z.string(), modifiers: z.array(z.string()) });
export const RequestLaunchAppSchema = request('request_launch_app', {
  bundleId: z.string(),
  coldBoot: z.boolean().optional(),
});
export const GetSdkCapabilitiesSchema = request('get_sdk_capabilities', {});
export const RequestSdkObservationSchema = request('request_sdk_observation', {});
// actionJson and webViewId are optional on the wire: a runner answers their absence with
// `failure: invalid_action` (docs/rules.md#r-cmd-06, R-WEB-14), so a server must be able to decode such a
// request to say so.
export const RequestSdkActionSchema = request('request_sdk_action', { actionJson: z.string().optional() });
export const RequestSdkWebSnapshotSchema = request('request_sdk_web_snapshot', { webViewId: z.string().optional() });
export const RequestSdkWebActionSchema = request('request_sdk_web_action', {
  webViewId: z.string().optional(),
  actionJson: z.string().optional(),
});

export const RunnerRequestSchema = z.discriminatedUnion('type', [
  RequestHierarchySchema,
  RequestHierarchyIfStaleSchema,
  RequestScreenshotSchema,
  RequestTapCoordinatesSchema,
  RequestSwipeSchema,
  RequestSetTextSchema,
  RequestAppendTextSchema,
  RequestClearTextSchema,
  RequestImeActionSchema,
  RequestPressKeySchema,
  RequestLaunchAppSchema,
  GetSdkCapabilitiesSchema,
  RequestSdkObservationSchema,
  RequestSdkActionSchema,
  RequestSdkWebSnapshotSchema,
  RequestSdkWebActionSchema,
]);
export type RunnerRequest = z.infer<typeof RunnerRequestSchema>;

// ---- Replies ----------------------------------------------------------------------------------------

export const PerfTimingSchema = treeSchema(z.object({ name: z.string(), durationMs: z.number() }), 'children');
export type PerfTiming = z.infer<typeof PerfTimingSchema>;

const replyEnvelope = {
  requestId: z.string(),
  timestamp: z.number().optional(),
  success: z.boolean().optional(),
  error: ErrorTextSchema,
  // The runner's additive machine-readable error code (CtrlProxy's `wireCode`: deadline_completed_late,
  // deadline_not_started), read before the wording (docs/protocol.md#p-runner-error).
  errorCode: z.string().nullish().catch(undefined),
  totalTimeMs: z.number().optional(),
  // Some runner versions send a list of top-level timings instead of one tree.
  perfTiming: z.union([PerfTimingSchema, z.array(PerfTimingSchema)]).optional(),
  frameContext: z.string().optional(),
};

function reply<const T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), ...replyEnvelope, ...shape });
}

export const HierarchyUpdateReplySchema = reply('hierarchy_update', {
  data: ViewHierarchySchema.optional(),
  servedFromCache: z.boolean().optional(),
}).refine(dataUnlessError, dataUnlessErrorMessage);
export const ScreenshotReplySchema = reply('screenshot', {
  format: z.literal('png').optional(),
  /** base64 PNG */
  data: z.string().optional(),
  rotation: z.number().int().optional(),
})
  // The runner's CommandHandler reports a failed capture as `screenshot` with success:false and error.
  .refine((m) => m.data !== undefined || hasError(m.error) || m.success === false, dataUnlessErrorMessage);
export const ScreenshotErrorReplySchema = reply('screenshot_error', { error: z.string() });
export const TapCoordinatesResultSchema = reply('tap_coordinates_result', {});
export const SwipeResultSchema = reply('swipe_result', {});
export const SetTextResultSchema = reply('set_text_result', {});
export const AppendTextResultSchema = reply('append_text_result', {});
export const ClearTextResultSchema = reply('clear_text_result', {});
export const ImeActionResultSchema = reply('ime_action_result', {});
export const PressKeyResultSchema = reply('press_key_result', {});
export const LaunchAppResultSchema = reply('launch_app_result', {});
export const SdkCapabilitiesResultSchema = reply('sdk_capabilities_result', SdkCapabilitiesPayloadSchema.shape);
export const SdkObservationResultSchema = reply('sdk_observation_result', SdkObservationPayloadSchema.shape);
export const SdkActionResultSchema = reply('sdk_action_result', SdkActionPayloadSchema.shape);
export const SdkWebSnapshotResultSchema = reply('sdk_web_snapshot_result', SdkWebSnapshotPayloadSchema.shape);
export const SdkWebActionResultSchema = reply('sdk_web_action_result', SdkWebActionPayloadSchema.shape);

const REPLY_SCHEMAS = {
  hierarchy_update: HierarchyUpdateReplySchema,
  screenshot: ScreenshotReplySchema,
  screenshot_error: ScreenshotErrorReplySchema,
  tap_coordinates_result: TapCoordinatesResultSchema,
  swipe_result: SwipeResultSchema,
  set_text_result: SetTextResultSchema,
  append_text_result: AppendTextResultSchema,
  clear_text_result: ClearTextResultSchema,
  ime_action_result: ImeActionResultSchema,
  press_key_result: PressKeyResultSchema,
  launch_app_result: LaunchAppResultSchema,
  sdk_capabilities_result: SdkCapabilitiesResultSchema,
  sdk_observation_result: SdkObservationResultSchema,
  sdk_action_result: SdkActionResultSchema,
  sdk_web_snapshot_result: SdkWebSnapshotResultSchema,
  sdk_web_action_result: SdkWebActionResultSchema,
} as const;
export type RunnerReplyType = keyof typeof REPLY_SCHEMAS;
export const RUNNER_REPLY_TYPES = Object.keys(REPLY_SCHEMAS) as RunnerReplyType[];
export type KnownRunnerReply = z.infer<(typeof REPLY_SCHEMAS)[RunnerReplyType]>;
export type HierarchyUpdateReply = z.infer<typeof HierarchyUpdateReplySchema>;
export type ScreenshotReply = z.infer<typeof ScreenshotReplySchema>;
export type SdkCapabilitiesResult = z.infer<typeof SdkCapabilitiesResultSchema>;

/**
 * A reply of a type this client does not know, kept so the waiting request fails cleanly (the runner
 * answers an unknown command this way). Lenient on purpose: it only has to carry the requestId.
 */
export const GenericReplySchema = z.object({
  type: z.string(),
  requestId: z.string(),
  success: z.boolean().optional().catch(undefined),
  error: z.string().optional().catch(undefined),
});
export type GenericReply = z.infer<typeof GenericReplySchema>;

/**
 * The runner's error reply (docs/protocol.md#p-runner-error): it could not decode or does not know the
 * command, so it ran nothing. `requestId` is null when it could not even read the id.
 */
export const RunnerErrorReplySchema = z.object({
  type: z.literal('error'),
  requestId: z.string().nullable(),
  success: z.boolean().optional().catch(undefined),
  error: z.string().optional().catch(undefined),
  errorCode: z.string().nullish().catch(undefined),
  timestamp: z.number().optional().catch(undefined),
});
export type RunnerErrorReply = z.infer<typeof RunnerErrorReplySchema>;
export const RUNNER_ERROR_REPLY_TYPE = 'error';

export type RunnerReply = KnownRunnerReply | GenericReply;
/** An error reply whose requestId the runner could not read: a reply to nothing it can name. */
export type UnmatchedErrorReply = RunnerErrorReply & { requestId: null };
export type RunnerInbound = RunnerPush | RunnerReply | UnmatchedErrorReply;

/** Which reply types answer each command; any other reply type means the command failed. */
export const RESULT_TYPES: Record<RunnerCommand, readonly string[]> = {
  request_hierarchy: ['hierarchy_update'],
  request_hierarchy_if_stale: ['hierarchy_update'],
  request_screenshot: ['screenshot', 'screenshot_error'],
  request_tap_coordinates: ['tap_coordinates_result'],
  request_swipe: ['swipe_result'],
  request_set_text: ['set_text_result'],
  request_append_text: ['append_text_result'],
  request_clear_text: ['clear_text_result'],
  request_ime_action: ['ime_action_result'],
  request_press_key: ['press_key_result'],
  request_launch_app: ['launch_app_result'],
  get_sdk_capabilities: ['sdk_capabilities_result'],
  request_sdk_observation: ['sdk_observation_result'],
  request_sdk_action: ['sdk_action_result'],
  request_sdk_web_snapshot: ['sdk_web_snapshot_result'],
  request_sdk_web_action: ['sdk_web_action_result'],
} satisfies Record<RunnerCommand, readonly RunnerReplyType[]>;

export function isRunnerCommand(type: string): type is RunnerCommand {
  return (RUNNER_COMMANDS as readonly string[]).includes(type);
}

/** Pushes carry no requestId; everything else a runner sends is a reply. */
export function isRunnerPush(message: RunnerInbound): message is RunnerPush {
  return !('requestId' in message);
}

export function isUnmatchedErrorReply(message: RunnerInbound): message is UnmatchedErrorReply {
  return message.type === RUNNER_ERROR_REPLY_TYPE && 'requestId' in message && message.requestId === null;
}

// ---- Decode / encode --------------------------------------------------------------------------------

const PUSH_SCHEMAS = {
  connected: ConnectedPushSchema,
  performance_update: PerformanceUpdateSchema,
} as const;

/** What a runner sends: pushes and replies. Never throws. */
export function decodeRunnerInbound(text: string): DecodeResult<RunnerInbound> {
  const parsed = parseFrame(text);
  if (!parsed.ok) return parsed;
  const raw = parsed.value;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail('invalid_message', '', 'expected a JSON object');
  }
  const { type, requestId } = raw as { type?: unknown; requestId?: unknown };
  const id = typeof requestId === 'string' ? requestId : undefined;
  if (typeof type !== 'string') return fail('invalid_message', 'type', 'expected a string message type', id);

  // The error reply, with its id or without one (null): read as itself, so the client can tell the
  // runner's refusal from a reply it cannot read.
  if (type === RUNNER_ERROR_REPLY_TYPE && (id !== undefined || requestId === null)) {
    return validateWith(RunnerErrorReplySchema, raw, id) as DecodeResult<RunnerInbound>;
  }
  const schema = pickInboundSchema(type, requestId);
  if (!schema) {
    if (id === undefined) return fail('invalid_message', 'type', `unknown message type "${type}" without a requestId`);
    return validateWith(GenericReplySchema, raw);
  }
  return validateWith(schema, raw, id);
}

function pickInboundSchema(type: string, requestId: unknown): z.ZodType<RunnerInbound> | undefined {
  if (Object.hasOwn(PUSH_SCHEMAS, type)) return PUSH_SCHEMAS[type as keyof typeof PUSH_SCHEMAS];
  // The one type that is both: pushed on every UI change, and the reply to a hierarchy request.
  if (type === 'hierarchy_update' && (requestId === undefined || requestId === null)) return HierarchyUpdateSchema;
  if (Object.hasOwn(REPLY_SCHEMAS, type)) return REPLY_SCHEMAS[type as RunnerReplyType];
  return undefined;
}

/** What a client sends; for servers (the replay and demo devices). Never throws. */
export function decodeRunnerRequest(text: string): DecodeResult<RunnerRequest> {
  return decodeWith(RunnerRequestSchema, text);
}

/** One text frame; capture identities (if any) go out as bare digits. */
export function encodeRunnerMessage(msg: object): string {
  return stringifyJsonLossless(msg);
}

/**
 * The SDK wire types (docs/protocol.md#p-sdk-types): what the in-app observation and web view bridges
 * serve, as the runner relays them. Identities are UInt64 decimal strings (json.ts), never JS numbers.
 */
import { z } from 'zod';
import { treeSchema } from './tree';
import { decodeWith, type DecodeResult } from './errors';
import { stringifyJsonLossless, UInt64Schema } from './json';
import { PointSchema } from './geometry';

/** A closed set of strings where a value written by a newer peer reads as `fallback` instead of failing. */
function enumOr<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.string().transform((value): T[number] => ((values as readonly string[]).includes(value) ? value : fallback));
}

type OneCase<C extends Record<string, z.ZodType>> = { [K in keyof C]: { [P in K]: z.output<C[K]> } }[keyof C];

/**
 * Swift's synthesized enum encoding: an object with exactly one key, the case name, holding the payload.
 * Decoded by hand so an error names the case's field (`tap.observationIdentity`) rather than "no union
 * branch matched".
 */
function swiftEnum<C extends Record<string, z.ZodType>>(cases: C) {
  return z.unknown().transform((raw, ctx): OneCase<C> => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      ctx.addIssue({ code: 'custom', message: `expected an object with one key of: ${Object.keys(cases).join(', ')}` });
      return z.NEVER;
    }
    const keys = Object.keys(raw);
    const key = keys[0];
    if (keys.length !== 1 || key === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected exactly one case key, got ${keys.length}` });
      return z.NEVER;
    }
    const schema = Object.hasOwn(cases, key) ? cases[key] : undefined;
    if (!schema) {
      ctx.addIssue({ code: 'custom', path: [key], message: `unknown case "${key}"` });
      return z.NEVER;
    }
    const result = schema.safeParse((raw as Record<string, unknown>)[key]);
    if (!result.success) {
      for (const issue of result.error.issues) {
        ctx.addIssue({ code: 'custom', path: [key, ...issue.path], message: issue.message });
      }
      return z.NEVER;
    }
    return { [key]: result.data } as OneCase<C>;
  });
}

// ---- Observation bridge discovery ------------------------------------------------------------------

/** The action kinds the native bridge performs (AutoMobile's enum); Parallax's own kinds are `ActionRequest['action']`. */
export const BRIDGE_ACTION_KINDS = ['tap', 'longPress', 'swipe', 'drag', 'pinch', 'insertText', 'clearText', 'back', 'scroll'] as const;
export const BridgeActionKindSchema = z.enum(BRIDGE_ACTION_KINDS);
export type BridgeActionKind = z.infer<typeof BridgeActionKindSchema>;

export const OBSERVATION_BRIDGE_REASONS = ['NOT_REGISTERED', 'SDK_TOO_OLD', 'SDK_UNAVAILABLE', 'MALFORMED_RESPONSE', 'UNKNOWN'] as const;
/** A reason written by a newer SDK reads as UNKNOWN (docs/rules.md#r-disc-09). */
export const ObservationBridgeReasonSchema = enumOr(OBSERVATION_BRIDGE_REASONS, 'UNKNOWN');
export type ObservationBridgeReason = z.output<typeof ObservationBridgeReasonSchema>;

export const ObservationBridgeStateSchema = z.object({
  // A schema version this client does not know is a bridge object that "does not match the schema".
  schemaVersion: z.literal(1),
  available: z.boolean(),
  reason: ObservationBridgeReasonSchema.optional(),
  // Sorted and deduplicated; a kind from a newer SDK is dropped, since this client cannot send it anyway.
  supportedActions: z
    .array(z.string())
    .transform((kinds) => [...new Set(kinds)].filter((kind): kind is BridgeActionKind => (BRIDGE_ACTION_KINDS as readonly string[]).includes(kind)).sort()),
});
export type ObservationBridgeState = z.output<typeof ObservationBridgeStateSchema>;

/** What a client reports when the bridge object it got does not match the schema. */
export function malformedObservationBridge(): ObservationBridgeState {
  return { schemaVersion: 1, available: false, reason: 'MALFORMED_RESPONSE', supportedActions: [] };
}

export const WebViewBridgeEntrySchema = z.object({
  webViewId: z.string(),
  url: z.string().optional(),
  allowedOrigins: z.array(z.string()).transform((origins) => [...origins].sort()),
  contentProcessAvailable: z.boolean(),
});
export type WebViewBridgeEntry = z.output<typeof WebViewBridgeEntrySchema>;

/** The payload of `sdk_capabilities_result` (runner.ts adds the reply envelope). */
export const SdkCapabilitiesPayloadSchema = z.object({
  available: z.boolean().optional(),
  bundleId: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  // The runner drops a malformed bridge object; should one reach us anyway, it reads as MALFORMED_RESPONSE
  // rather than failing the whole capability reply (R-DISC-08, R-DISC-11).
  observationBridge: ObservationBridgeStateSchema.catch(malformedObservationBridge).optional(),
  // No reason exists for web views: a malformed list reads as not reported.
  webViewBridge: z.array(WebViewBridgeEntrySchema).optional().catch(undefined),
});
export type SdkCapabilitiesPayload = z.output<typeof SdkCapabilitiesPayloadSchema>;

// ---- Observation snapshot ---------------------------------------------------------------------------

/** SDK rectangles are UIKit points and may be fractional (unlike the runner's integer bounds). */
export const SdkBoundsSchema = z.object({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() });

export const ORIENTATIONS = ['portrait', 'portraitUpsideDown', 'landscapeLeft', 'landscapeRight', 'unknown'] as const;
export const COORDINATE_SPACES = ['screen', 'window', 'view'] as const;

/** A bridge node's own fields; `children` are decoded by treeSchema, without recursion (docs/rules.md#r-lim-02). */
const ObservationNodeFieldsSchema = z.object({
  id: z.string(),
  role: z.string(),
  label: z.string().optional(),
  value: z.string().optional(),
  bounds: SdkBoundsSchema,
  enabled: z.boolean().default(true),
  visible: z.boolean().default(true),
  focused: z.boolean().default(false),
});
export const ObservationNodeSchema = treeSchema(ObservationNodeFieldsSchema, 'children', { childrenDefault: true });
export type ObservationNode = z.output<typeof ObservationNodeSchema>;

export const ObservationSnapshotSchema = z.object({
  captureIdentity: UInt64Schema,
  orientation: enumOr(ORIENTATIONS, 'unknown'),
  // Strict: a merge is only sound for `screen`, and a space we do not know must not pass for one.
  coordinateSpace: z.enum(COORDINATE_SPACES),
  bounds: SdkBoundsSchema,
  root: ObservationNodeSchema.optional(),
  focusedElementId: z.string().optional(),
  capabilities: z.array(z.string()),
});
export type ObservationSnapshot = z.output<typeof ObservationSnapshotSchema>;

// ---- Native actions ---------------------------------------------------------------------------------

const DurationSchema = z.number().nonnegative();
const observed = { observationIdentity: UInt64Schema };

export const AutoMobileActionSchema = swiftEnum({
  tap: z.object({ ...observed, elementId: z.string() }),
  longPress: z.object({ ...observed, elementId: z.string(), durationMs: DurationSchema }),
  swipe: z.object({ ...observed, start: PointSchema, end: PointSchema, durationMs: DurationSchema }),
  drag: z.object({ ...observed, elementId: z.string(), end: PointSchema, durationMs: DurationSchema }),
  pinch: z.object({ ...observed, elementId: z.string(), scale: z.number().positive(), durationMs: DurationSchema }),
  insertText: z.object({ ...observed, elementId: z.string(), text: z.string() }),
  clearText: z.object({ ...observed, elementId: z.string() }),
  back: z.object({ ...observed }),
  scroll: z.object({ ...observed, elementId: z.string().optional(), delta: PointSchema }),
} satisfies Record<BridgeActionKind, z.ZodType>);
export type AutoMobileAction = z.output<typeof AutoMobileActionSchema>;

/** The `actionJson` string of `request_sdk_action`; identities go out digit for digit. */
export function encodeAutoMobileAction(action: AutoMobileAction): string {
  return stringifyJsonLossless(action);
}

export function decodeAutoMobileAction(text: string): DecodeResult<AutoMobileAction> {
  return decodeWith(AutoMobileActionSchema, text);
}

/**
 * The rejection reasons the spec names, in the order they are checked: the SDK, then the bridge, then
 * the host executor (R-CMD-08). Known reasons keep their rules; on the wire `reason` is free text
 * (docs/protocol.md#p-action-result): a host executor may answer any string, which is kept verbatim.
 */
export const ACTION_REJECTION_REASONS = [
  'unsupported_action',
  'stale_observation',
  'unknown_element',
  'element_not_actionable',
  'action_in_flight',
  'action_queue_overloaded',
  'action_cancelled',
] as const;
export type KnownActionRejection = (typeof ACTION_REJECTION_REASONS)[number];

/** The SDK's own statuses (Swift `AutoMobileActionResult.Status`). */
export const ACTION_RESULT_STATUSES = ['accepted', 'rejected', 'cancelled'] as const;
export type ActionResultStatus = (typeof ACTION_RESULT_STATUSES)[number];

/** A reason longer than this is not one a person reads: the reply is refused (bad_reply) rather than kept. */
export const MAX_REASON_CHARS = 2_000;
const ReasonSchema = z.string().max(MAX_REASON_CHARS);

/** The Swift form every real SDK encodes: `durationMs` is a Double and always present. */
export const SwiftActionResultSchema = z.object({
  status: z.enum(ACTION_RESULT_STATUSES),
  reason: ReasonSchema.optional(),
  durationMs: z.number(),
  nextObservationIdentity: UInt64Schema.optional(),
});
/** The older form the spec describes (and the demo device sends under a fault). */
export const SuccessActionResultSchema = z.object({
  success: z.boolean(),
  reason: ReasonSchema.optional(),
  durationMs: z.number().optional(),
  nextObservationIdentity: UInt64Schema.optional(),
});

/** The bridge's own reply to one native action; Parallax's result for the user is `ActionResult` (action.ts). */
export interface BridgeActionResult {
  /** `accepted` is success, in either form. */
  readonly success: boolean;
  readonly status: ActionResultStatus;
  /** Verbatim; known values are ACTION_REJECTION_REASONS. */
  readonly reason?: string | undefined;
  readonly durationMs?: number | undefined;
  readonly nextObservationIdentity?: string | undefined;
  /** Which wire form it came in. */
  readonly form: 'status' | 'success';
}

/**
 * Either form, one shape out (docs/protocol.md#p-action-result): an object with `status` is read in the
 * Swift form, anything else in the `success` form, so each error names the field of the form it tried.
 */
export const BridgeActionResultSchema = z.unknown().transform((raw, ctx): BridgeActionResult => {
  const swift = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'status' in raw;
  const parsed = swift ? SwiftActionResultSchema.safeParse(raw) : SuccessActionResultSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  }
  const { reason, durationMs, nextObservationIdentity } = parsed.data;
  const status: ActionResultStatus =
    'status' in parsed.data ? parsed.data.status : parsed.data.success ? 'accepted' : reason === 'action_cancelled' ? 'cancelled' : 'rejected';
  return {
    success: status === 'accepted',
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(nextObservationIdentity !== undefined ? { nextObservationIdentity } : {}),
    form: swift ? 'status' : 'success',
  };
});

// ---- Web views --------------------------------------------------------------------------------------

export const WebViewportSchema = z.object({
  offsetLeft: z.number(),
  offsetTop: z.number(),
  width: z.number(),
  height: z.number(),
  scale: z.number(),
});

/** The real SDK's bridge replaces a redacted value with this text instead of leaving it out (protocol.md §9). */
export const REDACTED_VALUE = '[REDACTED]';

const WebElementFields = {
  id: z.string(),
  role: z.string().optional(),
  label: z.string().optional(),
  value: z.string().optional(),
  valueRedacted: z.boolean().optional(),
  inputType: z.string().optional(),
  /** [x, y, width, height] in CSS pixels, from getBoundingClientRect(). */
  bounds: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  enabled: z.boolean(),
  visible: z.boolean(),
  focused: z.boolean(),
};

/** The SDK's "[REDACTED]" is a redaction, never the field's text. */
function readRedaction<T extends { value?: string | undefined; valueRedacted?: boolean | undefined }>(element: T): T {
  if (element.value !== REDACTED_VALUE) return element;
  const { value: _redacted, ...rest } = element;
  return { ...rest, valueRedacted: true } as T;
}

export const WebElementSchema = z.object(WebElementFields).transform(readRedaction);
/**
 * The real SDK sends `bounds: []` when the page script sent none: such an element has no place on the
 * screen or the page, so the snapshot drops it rather than failing whole (docs/protocol.md#p-web-snapshot).
 */
const WebElementOnWireSchema = z.object({ ...WebElementFields, bounds: z.union([WebElementFields.bounds, z.tuple([])]) }).transform(readRedaction);
export type WebElement = z.output<typeof WebElementSchema>;

export const WebSnapshotSchema = z.object({
  snapshotId: z.string(),
  // R-OWV-10: web-document-id is set "when the SDK reports it", so an older SDK may leave it out.
  documentId: z.string().optional(),
  url: z.string().optional(),
  title: z.string().optional(),
  viewport: WebViewportSchema.optional(),
  elements: z.array(WebElementOnWireSchema).transform((elements) => elements.filter((element): element is WebElement => element.bounds.length === 4)),
});
export type WebSnapshot = z.output<typeof WebSnapshotSchema>;

const target = { snapshotId: z.string(), elementId: z.string() };

/** Only bounded actions exist; there is deliberately no case that carries script (R-WEB-12). */
export const WebControlActionSchema = swiftEnum({
  click: z.object(target),
  focus: z.object(target),
  clear: z.object(target),
  scrollIntoView: z.object(target),
  submit: z.object(target),
  insertText: z.object({ ...target, text: z.string() }),
  setValue: z.object({ ...target, text: z.string() }),
  select: z.object({ ...target, value: z.string() }),
  scroll: z.object({ snapshotId: z.string(), elementId: z.string().optional(), x: z.number(), y: z.number() }),
});
export type WebControlAction = z.output<typeof WebControlActionSchema>;

export function encodeWebControlAction(action: WebControlAction): string {
  return stringifyJsonLossless(action);
}

export function decodeWebControlAction(text: string): DecodeResult<WebControlAction> {
  return decodeWith(WebControlActionSchema, text);
}

export const WEB_ACTION_REJECTION_REASONS = [
  'stale_snapshot',
  'element_not_actionable',
  'disallowed_origin',
  'web_process_unavailable',
  'javascript_error',
] as const;
export type KnownWebActionRejection = (typeof WEB_ACTION_REJECTION_REASONS)[number];

/** `reason` is kept verbatim like a native one; known values are WEB_ACTION_REJECTION_REASONS. */
export const WebActionResultSchema = z.object({
  success: z.boolean(),
  reason: ReasonSchema.optional(),
  durationMs: z.number().optional(),
});
export type WebActionResult = z.output<typeof WebActionResultSchema>;

// ---- Relay replies ----------------------------------------------------------------------------------

/** Why a relay command sent nothing or got nothing usable; `bridge_unavailable` alone means available: false. */
export const SDK_RELAY_FAILURES = [
  'bridge_unavailable',
  'app_not_active',
  'invalid_action',
  'bad_reply',
  'disallowed_origin',
  'web_process_unavailable',
  'message_too_large',
  'no_snapshot',
] as const;
export const SdkRelayFailureSchema = z.enum(SDK_RELAY_FAILURES);
export type SdkRelayFailure = z.infer<typeof SdkRelayFailureSchema>;

// `available` is optional: a runner-level failure (busy, unknown command) answers with the bare envelope.
const relay = { available: z.boolean().optional(), failure: SdkRelayFailureSchema.optional() };

export const SdkObservationPayloadSchema = z.object({ ...relay, snapshot: ObservationSnapshotSchema.optional() });
export const SdkActionPayloadSchema = z.object({ ...relay, result: BridgeActionResultSchema.optional() });
export const SdkWebSnapshotPayloadSchema = z.object({
  ...relay,
  webViews: z.array(WebViewBridgeEntrySchema).default([]),
  webViewId: z.string().optional(),
  snapshot: WebSnapshotSchema.optional(),
});
export const SdkWebActionPayloadSchema = z.object({ ...relay, result: WebActionResultSchema.optional() });

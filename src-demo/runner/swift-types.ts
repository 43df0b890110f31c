/**
 * The real runner's request types, field by field, as its Swift `Decodable` structs declare them
 * (kaeawc/auto-mobile `ios/control-proxy/Sources/CtrlProxyRewrite/Models/`, read at the commits named per
 * type; docs/protocol.md#p-runner-swift-types). The demo runner decodes every request with these first,
 * so a request a real runner cannot decode is refused here too, whatever Parallax's own schema allows.
 *
 * How Swift's JSONDecoder reads each field: a property without `?` must be present and not null; `Int`
 * takes only a whole number; `Double` any number; `String`, `Bool` and `[String]` their own JSON type;
 * keys the struct does not declare are ignored. The command itself is picked by `type`
 * (`WebSocketRequest.init(from:)`, Models/RequestType.swift for the list).
 */
import { z } from 'zod';
import type { RunnerCommand } from '@shared/protocol/runner';

const swiftString = z.string();
const swiftBool = z.boolean();
const swiftDouble = z.number();
const swiftInt = z.number().int();
const swiftStrings = z.array(z.string());

/** `requestId: String?`, on every request type. */
const envelope = { requestId: swiftString.optional() };

export interface SwiftRequestType {
  /** The struct's file under Models/ and the auto-mobile commit it was read at. */
  readonly file: string;
  readonly commit: string;
  readonly schema: z.ZodType;
}

const type = (file: string, commit: string, shape: z.ZodRawShape): SwiftRequestType => ({
  file,
  commit,
  // Swift's synthesized Decodable ignores undeclared keys, so the mirror does too.
  schema: z.object({ ...envelope, ...shape }).passthrough(),
});

/** `RequestHierarchy`: also serves `request_hierarchy_if_stale` (WebSocketRequest.init(from:)). */
const hierarchy = type('RequestHierarchy.swift', '4b2a1320c5cf48d1ba7acf25896b7ef94b221150', {
  disableAllFiltering: swiftBool.optional(),
  sinceTimestamp: swiftInt.optional(),
});

/**
 * The runner's type for each command it has; the SDK relay commands (`request_sdk_*`) are not the real
 * runner's and have none. `get_sdk_capabilities` carries no fields beyond the envelope.
 */
export const RUNNER_SWIFT_TYPES: Partial<Record<RunnerCommand, SwiftRequestType>> = {
  request_hierarchy: hierarchy,
  request_hierarchy_if_stale: hierarchy,
  request_screenshot: type('RequestEnvelope.swift', '5ea94fc7d3d45ace1713e5eee7ea4d26a802e17b', { frameContext: swiftString.optional() }),
  request_tap_coordinates: type('RequestTapCoordinates.swift', '9975e7dd223b8c23555ac64966453e63afdbe06e', {
    x: swiftDouble,
    y: swiftDouble,
    duration: swiftInt.optional(),
    frameContext: swiftString.optional(),
    diagnostics: swiftBool.optional(),
  }),
  request_swipe: type('RequestSwipe.swift', '1b78fdb54b9294606b895606cdede1586cbf2aac', {
    x1: swiftDouble,
    y1: swiftDouble,
    x2: swiftDouble,
    y2: swiftDouble,
    duration: swiftInt.optional(),
    frameContext: swiftString.optional(),
    // `try? values.decode(Int.self, forKey: .timeoutMs)`: a value that is not an Int is dropped, not refused.
    timeoutMs: z.unknown().optional(),
    lockScreen: swiftBool.optional(),
  }),
  request_set_text: type('RequestSetText.swift', '70fd9ba5010bcc9aaed07d903a39de9eed1e9ada', {
    text: swiftString,
    resourceId: swiftString.optional(),
    frameContext: swiftString.optional(),
  }),
  request_append_text: type('RequestAppendText.swift', '5ea94fc7d3d45ace1713e5eee7ea4d26a802e17b', {
    text: swiftString,
    frameContext: swiftString.optional(),
  }),
  request_clear_text: type('RequestClearText.swift', '4e75ba2120615efcae935371f7d484906eabd5d7', { resourceId: swiftString.optional() }),
  request_ime_action: type('RequestImeAction.swift', '84408812c3f272b8316187a61c672fb5e9326156', {
    frameContext: swiftString.optional(),
    action: swiftString,
  }),
  request_press_key: type('RequestPressKey.swift', '5ea94fc7d3d45ace1713e5eee7ea4d26a802e17b', {
    key: swiftString,
    // Not optional: the field every older Parallax left out.
    modifiers: swiftStrings,
  }),
  request_launch_app: type('RequestLaunchApp.swift', '70fd9ba5010bcc9aaed07d903a39de9eed1e9ada', {
    bundleId: swiftString,
    coldBoot: swiftBool.optional(),
  }),
  get_sdk_capabilities: type('RequestEnvelope.swift', '5ea94fc7d3d45ace1713e5eee7ea4d26a802e17b', { frameContext: swiftString.optional() }),
};

/**
 * Why the real runner could not decode `raw` as `command`'s type, in the words of Swift's
 * `DecodingError` (keyNotFound / typeMismatch / valueNotFound); undefined when it decodes, or when the
 * command has no runner type.
 */
export function swiftDecodeError(command: RunnerCommand, raw: unknown): string | undefined {
  const swift = RUNNER_SWIFT_TYPES[command];
  if (!swift) return undefined;
  const parsed = swift.schema.safeParse(raw);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const key = issue?.path.join('.') ?? '';
  const record = raw as Record<string, unknown>;
  if (issue && issue.path.length === 1 && (record[key] === undefined || record[key] === null)) {
    return record[key] === null ? `valueNotFound: ${key} is null in ${swift.file}` : `keyNotFound: No value associated with key "${key}" (${swift.file})`;
  }
  return `typeMismatch: ${key} in ${swift.file}: ${issue?.message ?? 'invalid'}`;
}

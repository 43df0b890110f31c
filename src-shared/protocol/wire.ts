/**
 * Frames on the API's wire, sent once per renderer (docs/protocol.md#p-api-wire, docs/rules.md#r-perf-06).
 *
 * After an action the same after frame is in the `device.frame` event, the `device.action` event and the
 * `device.act` reply, and its `before` is the frame the renderer already has: at 50k nodes that was the
 * same 6 MiB three to five times. So the host, per connected renderer, sends an observation or a
 * screenshot object the first time as a definition `{$wire: id, value, drop?}` and every later time as a
 * reference `{$wire: id}`; the renderer's transport puts the value back before decoding with zod, so the
 * rest of the app keeps its types (ActionStep with frames).
 *
 * Only these places are interned, the same on both sides: a frame's `observation` and `screenshot`,
 * where the frame is the reply or event itself, one of the `before` / `after` of it, or the same inside
 * an array at the top (device.history). The host decides what the renderer keeps: a bounded set per
 * kind, and a definition names the ids it pushed out (`drop`), so the renderer never holds more and the
 * host never refers to what it dropped. A reference the renderer cannot resolve is a WireRefError.
 */
import { z } from 'zod';
import { isRecord } from '@shared/protocol/json';

export const WIRE_KEY = '$wire';

/**
 * Values the renderer keeps per connection, beside the frames the page itself holds: an observation of a
 * 50k-node screen is ~7 MiB of JSON. The current frame (the next action's before) and a step's after
 * and before (the history) need a few; more would cost memory for little.
 */
export const WIRE_CAPACITY = { observation: 4, screenshot: 8 } as const;
export type WireKind = keyof typeof WIRE_CAPACITY;

const WireIdSchema = z.string().min(1).max(40);
/** Read without walking `value` (z.unknown): the value is decoded by its method's schema afterwards. */
export const WireSlotSchema = z
  .object({
    [WIRE_KEY]: WireIdSchema,
    value: z.unknown().optional(),
    drop: z.array(WireIdSchema).max(64).optional(),
  })
  .strict();
export type WireSlot = z.infer<typeof WireSlotSchema>;

/** A reference the renderer cannot resolve (the host refers to a value this connection never kept). */
export class WireRefError extends Error {
  constructor(
    readonly kind: WireKind,
    readonly ref: string,
    readonly reason: 'unknown' | 'malformed',
  ) {
    super(reason === 'unknown' ? `the host refers to ${kind} ${ref}, which this window does not hold` : `a malformed ${kind} slot (${ref})`);
    this.name = 'WireRefError';
  }
}

/** Ids are unique in one host process, so a renderer that resets never mistakes an old id for a new one. */
let nextWireId = 1;

/** The host's side, one per connected renderer: which objects it already sent on this connection. */
export class WirePacker {
  private readonly ids = new WeakMap<object, string>();
  /** Ids the renderer holds, least recently used first. */
  private readonly held: Record<WireKind, Map<string, true>> = { observation: new Map(), screenshot: new Map() };

  /** Counts for the bench and the tests: definitions (values sent) and references (values not sent again). */
  readonly sent = { definitions: 0, references: 0 };

  slot(kind: WireKind, value: object): WireSlot {
    const held = this.held[kind];
    const known = this.ids.get(value);
    if (known !== undefined && held.has(known)) {
      held.delete(known);
      held.set(known, true);
      this.sent.references++;
      return { [WIRE_KEY]: known };
    }
    const id = `${kind[0]}${nextWireId++}`;
    this.ids.set(value, id);
    held.set(id, true);
    const drop: string[] = [];
    for (const oldest of held.keys()) {
      if (held.size <= WIRE_CAPACITY[kind]) break;
      held.delete(oldest);
      drop.push(oldest);
    }
    this.sent.definitions++;
    return { [WIRE_KEY]: id, value, ...(drop.length > 0 ? { drop } : {}) };
  }
}

/** The renderer's side, one per connection to a host: the values the host said it may refer to. */
export class WireUnpacker {
  private readonly held: Record<WireKind, Map<string, unknown>> = { observation: new Map(), screenshot: new Map() };

  /** A new connection (or a reset host side) starts empty. */
  clear(): void {
    this.held.observation.clear();
    this.held.screenshot.clear();
  }

  size(kind: WireKind): number {
    return this.held[kind].size;
  }

  resolve(kind: WireKind, raw: unknown): unknown {
    const parsed = WireSlotSchema.safeParse(raw);
    if (!parsed.success) throw new WireRefError(kind, String((raw as Record<string, unknown>)[WIRE_KEY]).slice(0, 40), 'malformed');
    const slot = parsed.data;
    const id = slot[WIRE_KEY];
    const held = this.held[kind];
    if (!('value' in slot)) {
      if (!held.has(id)) throw new WireRefError(kind, id, 'unknown');
      return held.get(id);
    }
    for (const dropped of slot.drop ?? []) held.delete(dropped);
    held.set(id, slot.value);
    // A host that never drops cannot make this window hold more than twice what it should.
    for (const oldest of held.keys()) {
      if (held.size <= 2 * WIRE_CAPACITY[kind]) break;
      held.delete(oldest);
    }
    return slot.value;
  }
}

type SlotOf = (kind: WireKind, value: unknown) => unknown;

function isSlot(value: unknown): boolean {
  return isRecord(value) && WIRE_KEY in value;
}

/** The frame with its observation and screenshot passed through `slotOf` (a copy; the input is not changed). */
function mapFrame(frame: unknown, slotOf: SlotOf): unknown {
  if (!isRecord(frame)) return frame;
  const observation = frame['observation'];
  const screenshot = frame['screenshot'];
  const mapObservation = isRecord(observation);
  const mapScreenshot = isRecord(screenshot);
  if (!mapObservation && !mapScreenshot) return frame;
  return {
    ...frame,
    ...(mapObservation ? { observation: slotOf('observation', observation) } : {}),
    ...(mapScreenshot ? { screenshot: slotOf('screenshot', screenshot) } : {}),
  };
}

/** A reply's result or an event's payload with each interned place passed through `slotOf`. */
function mapMessage(value: unknown, slotOf: SlotOf): unknown {
  if (Array.isArray(value)) return value.map((item) => mapMessage(item, slotOf));
  if (!isRecord(value)) return value;
  if ('observation' in value || 'screenshot' in value) return mapFrame(value, slotOf);
  if (isRecord(value['before']) || isRecord(value['after'])) {
    return {
      ...value,
      ...(isRecord(value['before']) ? { before: mapFrame(value['before'], slotOf) } : {}),
      ...(isRecord(value['after']) ? { after: mapFrame(value['after'], slotOf) } : {}),
    };
  }
  return value;
}

/** The host's wire form of a reply's result or an event's payload (docs/protocol.md#p-api-wire). */
export function packFrames(packer: WirePacker, value: unknown): unknown {
  return mapMessage(value, (kind, object) => (isRecord(object) && !isSlot(object) ? packer.slot(kind, object) : object));
}

/** The value the host meant, every reference resolved; throws WireRefError for one this side does not hold. */
export function unpackFrames(unpacker: WireUnpacker, value: unknown): unknown {
  return mapMessage(value, (kind, slot) => (isSlot(slot) ? unpacker.resolve(kind, slot) : slot));
}

/**
 * The call that empties a host's packer for this renderer (Electron's IPC, where no reconnect starts a
 * connection anew); the hosts answer it themselves, it never reaches the API.
 */
export const WIRE_RESET_METHOD = 'wire.reset';

/**
 * `schema`, remembering what each object it decoded became: the renderer's transport puts back the same
 * object for every reference to one definition, so a 50,000-node observation sent once is decoded once
 * (200–300 ms of zod each time otherwise), and every frame that refers to it holds the same decoded
 * value. A decoder never changes its input, and an input that failed is decoded again.
 */
export function decodedOnce<S extends z.ZodType>(schema: S): z.ZodType<z.output<S>, z.input<S>> {
  const decoded = new WeakMap<object, z.output<S>>();
  const once = z.unknown().transform((raw, ctx) => {
    const known = isRecord(raw) ? decoded.get(raw) : undefined;
    if (known !== undefined) return known;
    const result = schema.safeParse(raw);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    }
    if (isRecord(raw)) decoded.set(raw, result.data);
    return result.data;
  });
  // The input type is the schema's, so a writer of frames (the host) is still type-checked.
  return once as unknown as z.ZodType<z.output<S>, z.input<S>>;
}

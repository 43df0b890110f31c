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
import { applyTreePatch, TreePatchError, treePatch, type TreeRename } from './tree-patch';

export const WIRE_KEY = '$wire';

/**
 * Values the renderer keeps per connection, beside the frames the page itself holds: an observation of a
 * 50k-node screen is ~7 MiB of JSON. The current frame (the next action's before) and a step's after
 * and before (the history) need a few; more would cost memory for little.
 */
export const WIRE_CAPACITY = { observation: 4, screenshot: 8 } as const;
export type WireKind = keyof typeof WIRE_CAPACITY;

const WireIdSchema = z.string().min(1).max(40);

/**
 * An observation's capture identities and the view field that carries each (bridge-merge.ts, web-merge.ts):
 * a new capture renames it in every view it merged, so a patch names the rename once instead.
 */
const RENAMED_IDENTITIES = [
  ['captureIdentity', 'sdk-capture-identity'],
  ['webSnapshotId', 'web-snapshot-id'],
] as const;
/** Read without walking `value` (z.unknown): the value is decoded by its method's schema afterwards. */
export const WireSlotSchema = z
  .object({
    [WIRE_KEY]: WireIdSchema,
    value: z.unknown().optional(),
    drop: z.array(WireIdSchema).max(64).optional(),
    /** An observation whose view tree is `base`'s with `patch` applied (tree-patch.ts); `value` comes without it. */
    base: WireIdSchema.optional(),
    patch: z.unknown().optional(),
    /** Capture identities the base's views carry that the new observation's carry instead (TreeRename). */
    renames: z
      .array(
        z.tuple([
          z.string().refine((key) => RENAMED_IDENTITIES.some(([, field]) => field === key), 'not a capture identity field'),
          z.string().max(64),
          z.string().max(64),
        ]),
      )
      .max(RENAMED_IDENTITIES.length)
      .optional(),
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
  /**
   * The observation defined last per backend: the next one's tree goes as a patch of that tree while the
   * renderer holds it. Per backend, since a heavy screen's bridge read may time out: an observation with
   * the bridge merged and one without differ in nearly every view.
   */
  private readonly lastObservations = new Map<string, { id: string; value: Record<string, unknown> }>();

  /** Counts for the bench and the tests: definitions (values sent, `patched` of them as a tree patch) and references (values not sent again). */
  readonly sent = { definitions: 0, patched: 0, references: 0 };

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
    const patched = kind === 'observation' && isRecord(value) ? this.patched(value) : undefined;
    if (kind === 'observation' && isRecord(value)) this.lastObservations.set(backendOf(value), { id, value });
    if (patched) this.sent.patched++;
    return { [WIRE_KEY]: id, ...(patched ?? { value }), ...(drop.length > 0 ? { drop } : {}) };
  }

  /** `observation` as its fields and a patch of the last observation's tree, when that is held and the patch is one. */
  private patched(observation: Record<string, unknown>): Pick<WireSlot, 'value' | 'base' | 'patch' | 'renames'> | undefined {
    const last = this.lastObservations.get(backendOf(observation));
    if (!last || !this.held.observation.has(last.id)) return undefined;
    const tree = treeOf(observation);
    const baseTree = treeOf(last.value);
    if (tree === undefined || baseTree === undefined) return undefined;
    const renames = identityRenames(last.value, observation);
    const patch = treePatch(baseTree, tree, renames);
    if (!patch) return undefined;
    return { value: withTree(observation, undefined), base: last.id, patch, ...(renames.length > 0 ? { renames } : {}) };
  }
}

/** What an observation's views came from (a `backend` of the Observation schema), the key of its patch base. */
const backendOf = (observation: Record<string, unknown>): string => String(observation['backend'] ?? '');

/** The capture identities `next` carries where `base` carried others. */
function identityRenames(base: Record<string, unknown>, next: Record<string, unknown>): TreeRename[] {
  const renames: TreeRename[] = [];
  for (const [field, key] of RENAMED_IDENTITIES) {
    const [from, to] = [base[field], next[field]];
    if (typeof from === 'string' && typeof to === 'string' && from !== to) renames.push([key, from, to]);
  }
  return renames;
}

/** An observation's view tree (`viewHierarchy.hierarchy`), when it has one. */
function treeOf(observation: unknown): unknown {
  const hierarchy = isRecord(observation) ? observation['viewHierarchy'] : undefined;
  return isRecord(hierarchy) && isRecord(hierarchy['hierarchy']) ? hierarchy['hierarchy'] : undefined;
}

/** The observation with `tree` as its view tree (left out when undefined); the input is not changed. */
function withTree(observation: Record<string, unknown>, tree: unknown): Record<string, unknown> {
  const hierarchy = observation['viewHierarchy'] as Record<string, unknown>;
  const { hierarchy: _old, ...rest } = hierarchy;
  return { ...observation, viewHierarchy: tree === undefined ? rest : { ...rest, hierarchy: tree } };
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
    const value = slot.base === undefined ? slot.value : this.rebuilt(kind, slot, slot.base);
    for (const dropped of slot.drop ?? []) held.delete(dropped);
    held.set(id, value);
    // A host that never drops cannot make this window hold more than twice what it should.
    for (const oldest of held.keys()) {
      if (held.size <= 2 * WIRE_CAPACITY[kind]) break;
      held.delete(oldest);
    }
    return value;
  }

  /** A patched observation put back: its fields, and its base's tree with the patch applied (base's views shared). */
  private rebuilt(kind: WireKind, slot: WireSlot, base: string): unknown {
    const id = slot[WIRE_KEY];
    if (kind !== 'observation' || !isRecord(slot.value) || !isRecord(slot.value['viewHierarchy'])) throw new WireRefError(kind, id, 'malformed');
    if (!this.held.observation.has(base)) throw new WireRefError(kind, base, 'unknown');
    const baseTree = treeOf(this.held.observation.get(base));
    if (baseTree === undefined) throw new WireRefError(kind, id, 'malformed');
    try {
      return withTree(slot.value, applyTreePatch(baseTree, slot.patch, slot.renames ?? []));
    } catch (error) {
      if (error instanceof TreePatchError) throw new WireRefError(kind, id, 'malformed');
      throw error;
    }
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

/**
 * Frames cross the API's wire once per renderer (docs/rules.md#r-perf-06): the host's packer sends an
 * observation or a screenshot the first time and refers to it afterwards; the renderer's side puts it
 * back, drops what the host dropped, and refuses a reference it does not hold.
 */
import { describe, expect, it } from 'vitest';
import { apiMethods } from '@shared/api/api';
import { observation as healthyObservation } from '../support/observation';
import { packFrames, unpackFrames, WIRE_CAPACITY, WirePacker, WireRefError, WireUnpacker } from '@shared/protocol/wire';

const observation = (n: number) => ({ screenSize: { width: 390, height: 844 }, nodes: [{ id: `node-${n}` }] });
const screenshot = (n: number) => ({ format: 'png' as const, dataBase64: `png-${n}` });
const frame = (obs: object | null, shot: object | null) => ({ deviceId: 'device-1', observation: obs, screenshot: shot, receivedAt: 1 });

/** What went over the wire, as JSON text, and what the renderer made of it. */
function roundTrip(packer: WirePacker, unpacker: WireUnpacker, value: unknown): { text: string; value: unknown } {
  const text = JSON.stringify(packFrames(packer, value));
  return { text, value: unpackFrames(unpacker, JSON.parse(text)) };
}

describe('the API wire interning', () => {
  it('R-PERF-06: an action step whose before is the frame already sent and whose after is in the frame event carries neither observation again', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const before = frame(observation(1), screenshot(1));
    const after = frame(observation(2), screenshot(2));
    const step = { callId: 'call-1', before, after };

    const observed = roundTrip(packer, unpacker, before);
    expect(observed.value).toEqual(before);
    const pushed = roundTrip(packer, unpacker, after);
    expect(pushed.value).toEqual(after);
    const event = roundTrip(packer, unpacker, step);
    const reply = roundTrip(packer, unpacker, step);
    for (const copy of [event, reply]) {
      expect(copy.value).toEqual(step);
      expect(copy.text).not.toContain('node-1');
      expect(copy.text).not.toContain('node-2');
      expect(copy.text).not.toContain('png-2');
    }
    expect(packer.sent).toEqual({ definitions: 4, patched: 0, references: 8 });
  });

  it('R-PERF-06: a screenshot merged into the last frame keeps its observation a reference, and sends only the new picture', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const last = frame(observation(1), screenshot(1));
    roundTrip(packer, unpacker, last);
    const shot = screenshot(2);
    roundTrip(packer, unpacker, { deviceId: 'device-1', screenshot: shot, receivedAt: 2 });
    const merged = { ...last, screenshot: shot };
    const next = roundTrip(packer, unpacker, { callId: 'call-1', before: merged, after: null });
    expect(next.text).not.toContain('node-1');
    expect(next.text).not.toContain('png-2');
    expect(next.value).toEqual({ callId: 'call-1', before: merged, after: null });
  });

  it('R-PERF-06: the history reply (an array of steps) is packed step by step, and an old step without frames passes as it is', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const a = frame(observation(1), null);
    const b = frame(observation(2), null);
    const history = [
      { callId: 'call-0', before: null, after: null },
      { callId: 'call-1', before: a, after: b },
      { callId: 'call-2', before: b, after: a },
    ];
    const sent = roundTrip(packer, unpacker, history);
    expect(sent.value).toEqual(history);
    expect(sent.text.match(/node-1/g)).toHaveLength(1);
    expect(sent.text.match(/node-2/g)).toHaveLength(1);
  });

  it('R-PERF-06: past its capacity the host drops the least recently used value, tells the renderer, and sends it whole again when needed', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const first = observation(0);
    roundTrip(packer, unpacker, frame(first, null));
    for (let n = 1; n < WIRE_CAPACITY.observation; n++) roundTrip(packer, unpacker, frame(observation(n), null));
    expect(unpacker.size('observation')).toBe(WIRE_CAPACITY.observation);
    // Touched now, so it outlives the next one in.
    expect(roundTrip(packer, unpacker, frame(first, null)).text).not.toContain('node-0');
    const more = roundTrip(packer, unpacker, frame(observation(99), null));
    expect(more.text).toContain('"drop":["o');
    expect(unpacker.size('observation')).toBe(WIRE_CAPACITY.observation);
    expect(roundTrip(packer, unpacker, frame(first, null)).text).not.toContain('node-0');
    // The second one in was the least recently used: dropped on both sides, so it travels whole again.
    const again = roundTrip(packer, unpacker, frame(observation(1), null));
    expect(again.text).toContain('node-1');
  });

  it('R-PERF-06: a reference the renderer does not hold is a typed error naming it, never a frame without its tree', () => {
    const packer = new WirePacker();
    const shared = observation(1);
    packFrames(packer, frame(shared, null));
    const reference = JSON.parse(JSON.stringify(packFrames(packer, frame(shared, null)))) as unknown;
    const fresh = new WireUnpacker();
    expect(() => unpackFrames(fresh, reference)).toThrow(WireRefError);
    expect(() => unpackFrames(fresh, reference)).toThrow(/observation o\d+/);
    expect(() => unpackFrames(fresh, { deviceId: 'd', observation: { $wire: 7 }, screenshot: null })).toThrow(/malformed observation slot/);
    expect(() => unpackFrames(fresh, { deviceId: 'd', observation: { $wire: 'o1', extra: true }, screenshot: null })).toThrow(WireRefError);
  });

  it('R-PERF-06: a reconnect starts empty on both sides: a new packer sends every value whole, and a cleared unpacker holds none', () => {
    const shared = observation(1);
    const first = new WirePacker();
    const unpacker = new WireUnpacker();
    roundTrip(first, unpacker, frame(shared, screenshot(1)));
    unpacker.clear();
    expect(unpacker.size('observation') + unpacker.size('screenshot')).toBe(0);
    const second = new WirePacker();
    const resent = roundTrip(second, unpacker, frame(shared, null));
    expect(resent.text).toContain('node-1');
    expect(resent.value).toEqual(frame(shared, null));
  });

  it('R-PERF-06: packing never changes the host’s own objects (another renderer, the trace, the history share them)', () => {
    const packer = new WirePacker();
    const step = { callId: 'call-1', before: frame(observation(1), screenshot(1)), after: null };
    const copy = structuredClone(step);
    packFrames(packer, step);
    packFrames(packer, step);
    expect(step).toEqual(copy);
  });

  it('R-PERF-06: a value that is no frame passes untouched, whatever its keys', () => {
    const packer = new WirePacker();
    const devices = { devices: [{ id: 'device-1' }] };
    expect(packFrames(packer, devices)).toBe(devices);
    expect(packFrames(packer, null)).toBeNull();
    expect(packer.sent).toEqual({ definitions: 0, patched: 0, references: 0 });
  });

  it('R-PERF-06: a frame that refers to an observation sent before decodes to the same observation, without decoding it again', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const obs = healthyObservation({ viewHierarchy: { hierarchy: { className: 'UIView', text: 'only once' } } });
    const decode = (value: unknown) => apiMethods['device.observe'].output.parse(value);
    const first = decode(roundTrip(packer, unpacker, frame(obs, screenshot(1))).value);
    const again = decode(roundTrip(packer, unpacker, frame(obs, screenshot(2))).value);
    expect(again.observation?.viewHierarchy?.hierarchy?.text).toBe('only once');
    expect(again.observation).toBe(first.observation);
    expect(again.screenshot?.dataBase64).toBe('png-2');
    // Garbage is still refused, naming where, however often it comes.
    const bad = frame({ ...obs, updatedAt: 'soon' }, null);
    for (let n = 0; n < 2; n++) {
      const parsed = apiMethods['device.observe'].output.safeParse(bad);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['observation', 'updatedAt']);
    }
  });
});

describe('R-PERF-16: a changed tree crosses the wire as a patch of the last one', () => {
  const board = (picked: number) =>
    healthyObservation({
      viewHierarchy: {
        hierarchy: {
          className: 'XCUIElementTypeApplication',
          node: Array.from({ length: 2_000 }, (_, i) => ({ className: 'XCUIElementTypeCell', text: `Tile ${i}${i === picked ? ' selected' : ''}` })),
        },
      },
    });
  const decode = (value: unknown) => apiMethods['device.observe'].output.parse(value);

  it('R-PERF-16: the next observation carries only the views that changed, and the renderer decodes exactly the new observation', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const first = roundTrip(packer, unpacker, frame(board(-1), null));
    const picked = board(1_500);
    const next = roundTrip(packer, unpacker, frame(picked, null));
    expect(next.text).toContain('"base":"o');
    expect(next.text).toContain('Tile 1500 selected');
    expect(next.text).not.toContain('Tile 1499');
    expect(next.text.length).toBeLessThan(first.text.length / 20);
    expect(next.value).toEqual(frame(picked, null));
    expect(decode(next.value).observation).toEqual(decode(frame(picked, null)).observation);
    expect(packer.sent).toEqual({ definitions: 2, patched: 1, references: 0 });
    // Patched in turn: the third is a patch of the second, put back over the second's rebuilt tree.
    const third = roundTrip(packer, unpacker, frame(board(7), null));
    expect(third.text).toContain('"base":"o');
    expect(third.value).toEqual(frame(board(7), null));
  });

  it('R-PERF-16: a new capture of the bridge (every view naming it) crosses as one rename and the view that changed', () => {
    const captured = (capture: string, picked: number) =>
      healthyObservation({
        captureIdentity: capture,
        viewHierarchy: {
          hierarchy: {
            className: 'XCUIElementTypeApplication',
            node: Array.from({ length: 2_000 }, (_, i) => ({
              className: 'UICollectionViewCell',
              text: `Tile ${i}${i === picked ? ' selected' : ''}`,
              'sdk-capture-identity': capture,
            })),
          },
        },
      });
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const first = roundTrip(packer, unpacker, frame(captured('41', -1), null));
    const next = roundTrip(packer, unpacker, frame(captured('42', 9), null));
    expect(next.text).toContain('"renames":[["sdk-capture-identity","41","42"]]');
    expect(next.text.length).toBeLessThan(first.text.length / 20);
    expect(next.value).toEqual(frame(captured('42', 9), null));
    // A rename of any other field is refused: the slot is malformed.
    const bad = JSON.parse(next.text.replace('"renames":[["sdk-capture-identity"', '"renames":[["text"')) as unknown;
    expect(() => unpackFrames(new WireUnpacker(), bad)).toThrow(/malformed observation slot/);
  });

  it('R-PERF-16: the base is the last observation of the same backend: a read whose bridge timed out in between does not make the next whole', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    const sdk = (picked: number) => ({ ...board(picked), backend: 'sdk' as const });
    const xctest = {
      ...board(-1),
      backend: 'xctest' as const,
      viewHierarchy: { hierarchy: { className: 'XCUIElementTypeApplication', text: 'bridge timed out' } },
    };
    const first = roundTrip(packer, unpacker, frame(sdk(-1), null));
    roundTrip(packer, unpacker, frame(xctest, null));
    const next = roundTrip(packer, unpacker, frame(sdk(3), null));
    expect(next.text.length).toBeLessThan(first.text.length / 20);
    expect(next.value).toEqual(frame(sdk(3), null));
  });

  it('R-PERF-16: a base the renderer no longer holds is never patched against: the tree goes whole', () => {
    const packer = new WirePacker();
    const unpacker = new WireUnpacker();
    roundTrip(packer, unpacker, frame(board(-1), null));
    // Enough others defined since (without trees) that the board was dropped on both sides.
    for (let n = 0; n < WIRE_CAPACITY.observation; n++) roundTrip(packer, unpacker, frame(observation(n), null));
    const whole = roundTrip(packer, unpacker, frame(board(3), null));
    expect(whole.text).not.toContain('"base"');
    expect(whole.value).toEqual(frame(board(3), null));
  });

  it('R-PERF-16: a patch naming a base this window does not hold, or one that does not fit it, is a typed error, never a wrong tree', () => {
    const packer = new WirePacker();
    const host = new WireUnpacker();
    roundTrip(packer, host, frame(board(-1), null));
    const patched = JSON.parse(JSON.stringify(packFrames(packer, frame(board(5), null)))) as { observation: Record<string, unknown> };
    expect(() => unpackFrames(new WireUnpacker(), patched)).toThrow(/the host refers to observation o\d+, which this window does not hold/);
    const window = new WireUnpacker();
    const held = roundTrip(new WirePacker(), window, frame(board(-1), null));
    const base = /"\$wire":"(o\d+)"/.exec(held.text)?.[1];
    const misfit = { ...patched, observation: { ...patched.observation, base, patch: [[[5_000], { className: 'XCUIElementTypeCell' }]] } };
    expect(() => unpackFrames(window, misfit)).toThrow(WireRefError);
    expect(() => unpackFrames(window, misfit)).toThrow(/malformed observation slot/);
  });
});

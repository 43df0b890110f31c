/**
 * The renderer's WebSocket transport never gives up on an action before the host does
 * (docs/rules.md#r-act-05): an action call waits however long the host takes; other calls keep their
 * 30 s; a lost connection is said as such.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IpcTransport, WebSocketTransport, UNBOUNDED_METHODS } from '@renderer/api/transport';
import { stringifyJsonLossless } from '@shared/protocol/json';
import { MAX_API_FRAME_BYTES } from '@shared/api/api';

/** A stand-in for the browser's WebSocket: records what is sent, answers when told to. */
class FakeSocket {
  static OPEN = 1;
  static last: FakeSocket | undefined;
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.last = this;
    queueMicrotask(() => {
      this.readyState = FakeSocket.OPEN;
      this.onopen?.();
    });
  }
  send(text: string): void {
    this.sent.push(text);
  }
  close(code = 1000): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  reply(id: number, result: unknown): void {
    this.onmessage?.({ data: stringifyJsonLossless({ id, ok: true, result }) });
  }
}

const STEP = {
  callId: 'call-1',
  deviceId: 'device-1',
  request: { action: 'tap', target: { point: { x: 10, y: 20 } } },
  result: { success: true, outcome: 'done', warnings: [], target: { resolvedBy: 'point', point: { x: 10, y: 20 } }, timings: {}, requestsSent: 3 },
  startedAt: 1,
  before: null,
  after: null,
};

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal('WebSocket', FakeSocket);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the transport and an action that runs long', () => {
  it('R-ACT-05: device.act waits past any client timeout and settles with the host’s answer', async () => {
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api', callTimeoutMs: 30_000 });
    await vi.advanceTimersByTimeAsync(0);
    const settled = vi.fn();
    const call = transport.call('device.act', { deviceId: 'device-1', action: { action: 'tap', target: { point: { x: 10, y: 20 } } } });
    void call.then(settled, settled);
    await vi.advanceTimersByTimeAsync(90_000);
    expect(settled).not.toHaveBeenCalled();
    const id = (JSON.parse(FakeSocket.last!.sent[0]!) as { id: number }).id;
    FakeSocket.last!.reply(id, STEP);
    await expect(call).resolves.toMatchObject({ callId: 'call-1', result: { outcome: 'done' } });
    transport.close();
  });

  it('R-ACT-05: every call that runs an action is unbounded; any other call still gives up after its timeout', async () => {
    expect([...UNBOUNDED_METHODS].sort()).toEqual(['device.act', 'device.navigateBack', 'device.webAct']);
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api', callTimeoutMs: 30_000 });
    await vi.advanceTimersByTimeAsync(0);
    const list = transport.call('devices.list', {});
    const rejected = expect(list).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(30_001);
    await rejected;
    transport.close();
  });

  it('R-ACT-05: a lost connection ends a running action call as host_connection_lost, not as a timeout or a result', async () => {
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api', callTimeoutMs: 30_000, reconnectDelaysMs: [60_000] });
    await vi.advanceTimersByTimeAsync(0);
    const call = transport.call('device.act', { deviceId: 'device-1', action: { action: 'tap', target: { point: { x: 10, y: 20 } } } });
    await vi.advanceTimersByTimeAsync(40_000);
    const lost = expect(call).rejects.toMatchObject({ code: 'host_connection_lost' });
    FakeSocket.last!.close();
    await lost;
    transport.close();
  });
});

describe('the transport and the host’s frame limit', () => {
  it('R-HOST-01: a call larger than the host takes is refused in the page, naming its size, and the socket goes on', async () => {
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api', callTimeoutMs: 30_000 });
    await vi.advanceTimersByTimeAsync(0);
    const socket = FakeSocket.last!;
    // Multi-byte text: under the limit in characters, over it in UTF-8 bytes.
    const huge = transport.call('recording.recover', { folder: 'é'.repeat(MAX_API_FRAME_BYTES / 2 + 1) });
    await expect(huge).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(/^the call is 16\.0 MiB, more than the host takes in one message \(16\.0 MiB\)$/) as unknown,
    });
    expect(socket.sent).toEqual([]);
    const list = transport.call('devices.list', {});
    const id = (JSON.parse(socket.sent[0]!) as { id: number }).id;
    socket.reply(id, []);
    await expect(list).resolves.toEqual([]);
    expect(FakeSocket.last).toBe(socket);
    transport.close();
  });

  it('R-HOST-01: a socket the host closed for a message over its limit says so, and reconnects', async () => {
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api', callTimeoutMs: 30_000, reconnectDelaysMs: [100] });
    await vi.advanceTimersByTimeAsync(0);
    const first = FakeSocket.last!;
    first.close(1009);
    expect(transport.status()).toEqual({ state: 'lost', detail: expect.stringContaining('it refused a message larger than it takes') as unknown });
    await vi.advanceTimersByTimeAsync(200);
    expect(FakeSocket.last).not.toBe(first);
    expect(transport.status()).toEqual({ state: 'connected' });
    transport.close();
  });
});

describe('the transport and frames sent once (docs/rules.md#r-perf-06)', () => {
  const picture = { format: 'png', dataBase64: 'iVBORw0K' };
  const frame = (screenshot: unknown) => ({ deviceId: 'device-1', observation: null, screenshot, receivedAt: 5 });
  const event = (name: string, payload: unknown) => stringifyJsonLossless({ event: name, payload });

  it('R-PERF-06: a reference to a picture an earlier event defined decodes as the whole frame', async () => {
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api' });
    await vi.advanceTimersByTimeAsync(0);
    const frames: unknown[] = [];
    transport.on('device.frame', (f) => frames.push(f));
    const socket = FakeSocket.last!;
    socket.onmessage?.({ data: event('device.frame', frame({ $wire: 's1', value: picture })) });
    const call = transport.call('device.observe', { deviceId: 'device-1' });
    const id = (JSON.parse(socket.sent[0]!) as { id: number }).id;
    socket.reply(id, frame({ $wire: 's1' }));
    await expect(call).resolves.toEqual(frame(picture));
    expect(frames).toEqual([frame(picture)]);
    transport.close();
  });

  it('R-PERF-06: a reference this window does not hold fails the call as wire_unresolved and starts a new socket, which starts empty', async () => {
    const transport = new WebSocketTransport({ url: 'ws://127.0.0.1:1/api', reconnectDelaysMs: [10] });
    await vi.advanceTimersByTimeAsync(0);
    const statuses: string[] = [];
    transport.onStatus((s) => statuses.push(s.state));
    const first = FakeSocket.last!;
    first.onmessage?.({ data: event('device.frame', frame({ $wire: 's1', value: picture })) });
    const call = transport.call('device.observe', { deviceId: 'device-1' });
    first.reply((JSON.parse(first.sent[0]!) as { id: number }).id, frame({ $wire: 's9' }));
    await expect(call).rejects.toMatchObject({ code: 'wire_unresolved' });
    await vi.advanceTimersByTimeAsync(20);
    const second = FakeSocket.last!;
    expect(second).not.toBe(first);
    // The reconnect is what makes the page read everything again (subscribeHostEvents).
    expect(statuses).toEqual(['lost', 'connected']);
    // What the first socket defined is gone with it: the host of the new socket never sent s1.
    const frames: unknown[] = [];
    transport.on('device.frame', (f) => frames.push(f));
    second.onmessage?.({ data: event('device.frame', frame({ $wire: 's1' })) });
    expect(frames).toEqual([]);
    transport.close();
  });
});

describe('the Electron transport and frames sent once (docs/rules.md#r-perf-06)', () => {
  const picture = { format: 'png', dataBase64: 'iVBORw0K' };
  const frame = (screenshot: unknown) => ({ deviceId: 'device-1', observation: null, screenshot, receivedAt: 5 });

  /** A preload stand-in: answers calls from `answer` as the preload does, as the reply's JSON text (R-MEM-09), and lets the test push events. */
  function fakeBridge(answer: (method: string) => unknown) {
    const listeners = new Map<string, Set<(payload: unknown) => void>>();
    const calls: string[] = [];
    return {
      calls,
      push: (event: string, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload)),
      bridge: {
        call: (method: string) => {
          calls.push(method);
          return Promise.resolve(JSON.stringify(answer(method)));
        },
        on: (event: string, listener: (payload: unknown) => void) => {
          if (!listeners.has(event)) listeners.set(event, new Set());
          listeners.get(event)!.add(listener);
          return () => listeners.get(event)!.delete(listener);
        },
        pathForFile: () => '',
      },
    };
  }

  it('R-PERF-06: the page empties the host’s side first, keeps what every event defined (listened to or not), and resolves a reply’s reference', async () => {
    let reply: unknown = { ok: true, result: frame({ $wire: 's1' }) };
    const fake = fakeBridge((method) => (method === 'wire.reset' ? { ok: true, result: {} } : reply));
    const transport = new IpcTransport(fake.bridge);
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.calls).toEqual(['wire.reset']);
    // Nobody listens to device.action yet; its definition is kept all the same.
    fake.push('device.action', { callId: 'c', before: frame({ $wire: 's1', value: picture }), after: null });
    await expect(transport.call('device.observe', { deviceId: 'device-1' })).resolves.toEqual(frame(picture));

    // A reference it does not hold: the call fails as wire_unresolved, the host's side is emptied again,
    // and the status goes lost and back to connected, so the page reads everything again.
    const statuses: string[] = [];
    transport.onStatus((s) => statuses.push(s.state));
    reply = { ok: true, result: frame({ $wire: 's7' }) };
    await expect(transport.call('device.observe', { deviceId: 'device-1' })).rejects.toMatchObject({ code: 'wire_unresolved' });
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.calls.filter((m) => m === 'wire.reset')).toHaveLength(2);
    expect(statuses).toEqual(['lost', 'connected']);
    transport.close();
  });
});

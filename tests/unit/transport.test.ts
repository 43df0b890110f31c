/**
 * The renderer's WebSocket transport never gives up on an action before the host does
 * (docs/rules.md#r-act-05): an action call waits however long the host takes; other calls keep their
 * 30 s; a lost connection is said as such.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocketTransport, UNBOUNDED_METHODS } from '@renderer/api/transport';
import { stringifyJsonLossless } from '@shared/protocol/json';

/** A stand-in for the browser's WebSocket: records what is sent, answers when told to. */
class FakeSocket {
  static OPEN = 1;
  static last: FakeSocket | undefined;
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
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
  close(): void {
    this.readyState = 3;
    this.onclose?.();
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

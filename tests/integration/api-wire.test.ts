/**
 * Frames cross the web host's real API socket once (docs/rules.md#r-perf-06): after an action on the
 * demo device the after frame is in the `device.frame` event, the `device.action` event and the
 * `device.act` reply, and its before is the frame the page already has, yet each observation and each
 * screenshot travels once; what the page makes of the messages is still the full step.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { createApiService } from '@main/host/api';
import { startWebHost, type WebHost } from '@main/host/web-host';
import { openApiSocket, type ReceivedMessage } from '../support/api-socket';

let device: DemoDeviceHandle;
let manager: DeviceManager;
let host: WebHost;
let rendererDir: string;
let deviceId: string;

beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
  manager = new DeviceManager();
  deviceId = manager.connect(device.runnerUrl, { kind: 'demo', name: 'demo' }).id;
  await manager.connectionOf(deviceId).waitUntilConnected(10_000);
  // The runner pushes the screen right after it connects, and the host observes that push into a frame:
  // on a busy machine that frame could land in the middle of a test's action. Waited for here (the host's
  // own word: its current frame), with a wide ceiling that only catches a hang.
  await vi.waitFor(() => expect(manager.lastFrame(deviceId)).toBeDefined(), { timeout: 30_000, interval: 20 });
  rendererDir = await mkdtemp(join(tmpdir(), 'parallax-wire-'));
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>wire</title>');
  host = await startWebHost({ api: createApiService({ manager }, { host: 'web', version: 'test' }), rendererDir });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await manager?.closeAll();
  await device?.close();
  await rm(rendererDir, { recursive: true, force: true });
});

const socket = () => {
  const url = new URL(host.url);
  return openApiSocket(url.origin, url.search);
};
/** How many whole observations / screenshots the texts carry (each has one viewHierarchy / dataBase64). */
const copies = (messages: ReceivedMessage[], key: 'viewHierarchy' | 'dataBase64') =>
  messages.reduce((n, m) => n + (m.text.match(new RegExp(`"${key}":`, 'g'))?.length ?? 0), 0);
/**
 * The messages an action's call brought: its frame and action events and its reply. The host emits the
 * action's frame and its action event together, so its frame is the one right before the action event;
 * a live push's frame, which load may put anywhere among them, is no part of the action.
 */
const actionMessages = (received: ReceivedMessage[], from: number, replyId: number) => {
  const later = received.slice(from);
  return later.filter(
    (m, i) => m.what === 'device.action' || m.what === `reply ${replyId}` || (m.what === 'device.frame' && later[i + 1]?.what === 'device.action'),
  );
};

interface Step {
  callId: string;
  before: { observation: unknown; screenshot: unknown } | null;
  after: { observation: unknown; screenshot: unknown } | null;
}

describe('frames on the web host’s API socket', () => {
  it('R-PERF-06: one action sends its after observation and screenshot once, and its before not at all; the page still reads both frames whole', async () => {
    const { ws, call, received } = await socket();
    try {
      const observed = (await call('device.observe', { deviceId })).result as { observation: unknown; screenshot: unknown };
      // Live mode: a screenshot alone, which becomes the current frame's picture.
      const shot = (await call('device.screenshot', { deviceId })).result as { screenshot: unknown };
      expect(shot.screenshot).not.toBeNull();

      const from = received.length;
      const reply = await call('device.act', { deviceId, action: { action: 'tap', target: { point: { x: 20, y: 20 } } } });
      expect(reply.ok).toBe(true);
      const step = reply.result as Step;
      const messages = actionMessages(received, from, 3);
      expect(messages.map((m) => m.what)).toEqual(['device.frame', 'device.action', 'reply 3']);
      // Before: the after frame went out three times and the before twice (5 observations, 5 pictures).
      expect(copies(messages, 'viewHierarchy')).toBe(1);
      expect(copies(messages, 'dataBase64')).toBe(1);

      // What the page decodes: the before is the frame it showed (its tree, the live picture), the after
      // is the one the event brought, in the event and the reply alike.
      expect(step.before?.observation).toEqual(observed.observation);
      expect(step.before?.screenshot).toEqual(shot.screenshot);
      expect(step.after?.observation).toBeTruthy();
      expect(messages[0]!.value).toEqual(step.after);
      expect(messages[1]!.value).toEqual(step);

      // The next action's before is that after: again one observation on the wire, the new one.
      const next = received.length;
      const second = await call('device.act', { deviceId, action: { action: 'tap', target: { point: { x: 20, y: 20 } } } });
      const secondStep = second.result as Step;
      expect(copies(actionMessages(received, next, 4), 'viewHierarchy')).toBe(1);
      expect(secondStep.before).toEqual(step.after);
    } finally {
      ws.close();
    }
  }, 60_000);

  it('R-PERF-06: a new socket (a reload) starts empty: the history comes with every frame whole, equal to what the first page read', async () => {
    const first = await socket();
    let steps: Step[];
    try {
      const reply = await first.call('device.act', { deviceId, action: { action: 'tap', target: { point: { x: 20, y: 20 } } } });
      expect(reply.ok).toBe(true);
      steps = (await first.call('device.history', { deviceId })).result as Step[];
    } finally {
      first.ws.close();
    }
    const second = await socket();
    try {
      const history = await second.call('device.history', { deviceId });
      const message = second.received.find((m) => m.what.startsWith('reply'))!;
      const framed = steps.filter((s) => s.after !== null);
      expect(framed.length).toBeGreaterThan(0);
      // Every distinct observation once: a step's after is the next step's before.
      expect(copies([message], 'viewHierarchy')).toBeGreaterThan(0);
      expect(copies([message], 'viewHierarchy')).toBeLessThanOrEqual(framed.length + 1);
      expect(history.result).toEqual(steps);
    } finally {
      second.ws.close();
    }
  }, 60_000);
});

/**
 * Contract: every runner request Parallax sends decodes as the real runner's Swift type
 * (src-demo/runner/swift-types.ts, docs/protocol.md#p-runner-swift-types). The frames are the ones the
 * real dispatcher and observer put on the socket, caught by a forwarding proxy on the way to the demo
 * device; the demo refuses what a runner type cannot decode, field by field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { z } from 'zod';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { RUNNER_SWIFT_TYPES, swiftDecodeError } from '@demo/runner/swift-types';
import { isRunnerCommand, type RunnerCommand } from '@shared/protocol/runner';
import { RunnerClient } from '@main/runner/client';
import { Observer } from '@main/runner/observer';
import { Dispatcher } from '@main/runner/dispatch/dispatcher';
import { admin } from '../support/demo-admin';

let device: DemoDeviceHandle;
let proxy: Server;
let client: RunnerClient;
let dispatcher: Dispatcher;
let observer: Observer;
/** Every frame the client sent, parsed, in order. */
const sent: Record<string, unknown>[] = [];

/** Forwards each socket to the demo runner and keeps a copy of what the client sends. */
async function startProxy(target: string): Promise<string> {
  proxy = createServer();
  const wss = new WebSocketServer({ server: proxy });
  wss.on('connection', (inbound) => {
    const outbound = new WebSocket(target);
    const queue: string[] = [];
    outbound.on('open', () => queue.splice(0).forEach((f) => outbound.send(f)));
    outbound.on('message', (data) => inbound.send(data.toString()));
    outbound.on('close', () => inbound.close());
    inbound.on('message', (data) => {
      const frame = data.toString();
      sent.push(JSON.parse(frame) as Record<string, unknown>);
      if (outbound.readyState === WebSocket.OPEN) outbound.send(frame);
      else queue.push(frame);
    });
    inbound.on('close', () => outbound.close());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return `ws://127.0.0.1:${(proxy.address() as AddressInfo).port}/ws`;
}

const framesOf = (command: RunnerCommand) => sent.filter((f) => f.type === command);

beforeAll(async () => {
  device = await startDemoDevice({ port: 0 });
  client = new RunnerClient(await startProxy(device.runnerUrl));
  client.start();
  await client.waitUntilConnected();
  observer = new Observer(client);
  dispatcher = new Dispatcher(client, observer);

  // Without the SDK every input goes through XCTest: the runner's own commands, each at least once.
  await admin(device.adminUrl, '/reset', { screen: 'login', faults: ['sdk-absent'] });
  await observer.observe({ screenshot: true });
  await dispatcher.tap({ action: 'tap', target: { id: 'login.username' } });
  await dispatcher.sendKeys({ action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'type', text: 'alice' }] });
  await dispatcher.sendKeys({ action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'replace', text: 'bob' }] });
  await dispatcher.sendKeys({ action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'tab' }] });
  await dispatcher.sendKeys({ action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'ime', imeAction: 'done' }] });
  await dispatcher.tap({ action: 'longPress', target: { id: 'login.submit' }, durationMs: 600 });
  await dispatcher.dispatch({ action: 'launch', relaunch: false });
  await admin(device.adminUrl, '/reset', { screen: 'feed', faults: ['sdk-absent'] });
  await dispatcher.swipe({ action: 'swipe', edge: 'left', start: { x: 1, y: 400 }, end: { x: 250, y: 400 } });
}, 120_000);

afterAll(async () => {
  await client?.close();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await device?.close();
});

/** The runner commands Parallax sends to a runner that lists request_hierarchy (the demo does). */
const SENT_COMMANDS: RunnerCommand[] = [
  'request_hierarchy',
  'request_screenshot',
  'request_tap_coordinates',
  'request_swipe',
  'request_append_text',
  'request_clear_text',
  'request_ime_action',
  'request_press_key',
  'request_launch_app',
  'get_sdk_capabilities',
];

describe('R-WIRE-13: each request Parallax sends decodes as the runner’s Swift type', () => {
  it.each(SENT_COMMANDS)('%s', (command) => {
    const frames = framesOf(command);
    expect(frames.length, `${command} was sent`).toBeGreaterThan(0);
    for (const frame of frames) expect(swiftDecodeError(command, frame), JSON.stringify(frame)).toBeUndefined();
  });

  it('request_press_key carries modifiers, a list of strings, on every press (RequestPressKey.swift: `modifiers: [String]`)', () => {
    for (const frame of framesOf('request_press_key')) expect(frame).toMatchObject({ key: 'tab', modifiers: [] });
  });

  it('durations and coordinates travel as numbers the runner reads: duration a whole Int, x/y any Double', () => {
    for (const frame of [...framesOf('request_tap_coordinates'), ...framesOf('request_swipe')]) {
      expect(Number.isInteger(frame.duration)).toBe(true);
    }
  });

  it('every command Parallax sent is a runner command with a Swift type, or an SDK relay command (no runner type)', () => {
    const types = new Set(sent.map((f) => String(f.type)));
    for (const type of types) {
      expect(isRunnerCommand(type), type).toBe(true);
      if (!type.startsWith('request_sdk_')) expect(RUNNER_SWIFT_TYPES[type as RunnerCommand], type).toBeDefined();
    }
    // request_set_text is in the runner but never sent: typing appends after a clear (send-keys.ts keyPayload).
    expect(types.has('request_set_text')).toBe(false);
  });
});

/** The fields a Swift type declares without `?`. */
function requiredFields(command: RunnerCommand): string[] {
  const schema = RUNNER_SWIFT_TYPES[command]?.schema as z.ZodObject<z.ZodRawShape> | undefined;
  if (!schema) return [];
  return Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);
}

const VALID: Record<string, Record<string, unknown>> = {
  request_tap_coordinates: { x: 10, y: 10, duration: 0 },
  request_swipe: { x1: 10, y1: 400, x2: 200, y2: 400, duration: 200 },
  request_set_text: { text: 'a' },
  request_append_text: { text: 'a' },
  request_ime_action: { action: 'done' },
  request_press_key: { key: 'tab', modifiers: [] },
  request_launch_app: { bundleId: 'com.parallax.demo' },
};

describe('R-WIRE-13: the demo refuses what the runner’s Swift type cannot decode', () => {
  const cases = Object.entries(VALID).flatMap(([command, payload]) =>
    requiredFields(command as RunnerCommand).map((field) => ({ command: command as RunnerCommand, field, payload })),
  );

  it.each(cases)('$command without $field: keyNotFound naming the field and its Swift file', async ({ command, field, payload }) => {
    const { [field]: _dropped, ...rest } = payload;
    const reply = await client.request(command, rest as never, { timeoutMs: 5000 });
    expect(reply.success).toBe(false);
    expect(reply.error).toContain(`keyNotFound: No value associated with key "${field}" (${RUNNER_SWIFT_TYPES[command]?.file})`);
  });

  it('a fractional duration is a typeMismatch (the runner’s `duration: Int?`), a tap without one is a tap', async () => {
    const fractional = await client.request('request_tap_coordinates', { x: 10, y: 10, duration: 0.5 }, { timeoutMs: 5000 });
    expect(fractional).toMatchObject({ success: false });
    expect(fractional.error).toMatch(/^typeMismatch: duration in RequestTapCoordinates\.swift/);
    const bare = await client.request('request_tap_coordinates', { x: 10, y: 10 } as never, { timeoutMs: 5000 });
    expect(bare).toMatchObject({ type: 'tap_coordinates_result', success: true });
  });

  it('modifiers must be strings: `[1]` is a typeMismatch, `["shift"]` decodes', async () => {
    const numbers = await client.request('request_press_key', { key: 'tab', modifiers: [1] } as never, { timeoutMs: 5000 });
    expect(numbers.error).toMatch(/^typeMismatch: modifiers\.0 in RequestPressKey\.swift/);
    expect(swiftDecodeError('request_press_key', { type: 'request_press_key', key: 'tab', modifiers: ['shift'] })).toBeUndefined();
  });
});

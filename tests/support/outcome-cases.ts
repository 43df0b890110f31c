/**
 * Every fault of the demo device (src-demo/phone/faults.ts), each provoked by one action, with the outcome
 * class the one table must give it (docs/rules.md#r-act-01). Shared by the integration test that checks
 * them (tests/integration/outcomes.test.ts) and the bench that tallies them (bench/outcomes.bench.ts),
 * through the CLI and through the web host's API.
 */
import WebSocket from 'ws';
import type { ActionRequest, ActionResult, OutcomeClass } from '@shared/protocol/action';
import { ApiServerMessageSchema } from '@shared/api/api';
import { ActionStepSchema, type ActionStep } from '@shared/protocol/device';
import { unpackFrames, WireUnpacker } from '@shared/protocol/wire';
import { parseJsonLossless } from '@shared/protocol/json';
import { runActionCommand } from '@main/cli/actions';
import { FAULT_NAMES } from '@demo/index';
import { outcomeClassOf } from '@shared/act/verdict';
import { RUNNER_COMMANDS } from '@shared/protocol/runner';
import { admin, untilQuiet } from './demo-admin';
import type { FrameWatch } from './frame-watch';

export interface OutcomeCase {
  /** The fault as the admin endpoint takes it (`name` or `name=value`). */
  fault: string;
  screen: 'login' | 'feed' | 'checkout';
  /** The same action, as the CLI takes it and as the API takes it. */
  cli: readonly string[];
  request: ActionRequest;
  /** One class for both paths, or one per path where they meet the fault at different requests. */
  expected: OutcomeClass | { readonly cli: OutcomeClass; readonly ui: OutcomeClass };
  /** What the case shows, in a few words. */
  why: string;
}

const submit = { cli: ['tap', '--id', 'login.submit'], request: { action: 'tap', target: { id: 'login.submit' } } } satisfies Partial<OutcomeCase>;
const placeOrder = { cli: ['tap', '--text', 'Place order'], request: { action: 'tap', target: { text: 'Place order' } } } satisfies Partial<OutcomeCase>;
const pointTap = { cli: ['tap', '--point', '201,355'], request: { action: 'tap', target: { point: { x: 201, y: 355 } } } } satisfies Partial<OutcomeCase>;
const typeQa = { cli: ['type', '--text-to-type', 'qa'], request: { action: 'sendKeys', steps: [{ kind: 'type', text: 'qa' }] } } satisfies Partial<OutcomeCase>;

/** Faults that leave work running after the case (a slow read, an executor still going): wait it out. */
const LINGERING = /^(xctest-slow|bridge-slow|bridge-action-slow)/;

/**
 * Faults that leave a connected host's discovery saying the bridge (or every web view) is unavailable: that
 * answer stands for UNAVAILABLE_RECHECK_MS before it is asked again (src-main/runner/observer.ts, R-DISC-13),
 * and the admin reset that starts the next case relaunches the app behind the host's back, so nothing would
 * tell the host the app registered again: the next case would tap through XCTest on a quick machine and
 * through the bridge on a slow one. After one of these a UI-path case puts the app back without the fault
 * and relaunches it through the host (`relaunch`), which drops what the host cached (R-LIFE-06).
 */
const LEAVES_UNAVAILABLE = /^(sdk-absent|sdk-too-old|bridge-unregistered|bridge-malformed|web-unregistered|web-disallowed-origin|web-process-terminated)/;

/** After a case, until what it left running on the device has finished (the device's own word: its stats' `busy`). */
export async function settleAfter(adminUrl: string, c: OutcomeCase): Promise<void> {
  if (LINGERING.test(c.fault)) await untilQuiet(adminUrl);
}

/** The class a path must see. */
export function expectedFor(c: OutcomeCase, path: 'cli' | 'ui'): OutcomeClass {
  return typeof c.expected === 'string' ? c.expected : c.expected[path];
}

export const OUTCOME_CASES: readonly OutcomeCase[] = [
  { fault: 'xctest-ax-error', screen: 'login', ...submit, expected: 'refused', why: 'no tree to find the target in: only the read was sent' },
  { fault: 'xctest-sparse', screen: 'login', ...submit, expected: 'done', why: 'the bridge supplies the controls' },
  { fault: 'xctest-slow=1500', screen: 'login', ...submit, expected: 'done', why: 'slow, but it answers' },
  { fault: 'scroll-glide=1500', screen: 'login', ...submit, expected: 'done', why: 'a tap swipes nothing: the glide changes nothing' },
  { fault: 'perf-cpu-spin', screen: 'login', ...submit, expected: 'done', why: 'a busy app still takes the tap' },
  { fault: 'perf-memory-growth', screen: 'login', ...submit, expected: 'done', why: 'a growing app still takes the tap' },
  { fault: 'sdk-absent', screen: 'login', ...submit, expected: 'done', why: 'plain XCTest' },
  { fault: 'sdk-too-old', screen: 'login', ...submit, expected: 'done', why: 'plain XCTest' },
  { fault: 'bridge-unregistered', screen: 'login', ...submit, expected: 'done', why: 'plain XCTest' },
  { fault: 'bridge-malformed', screen: 'login', ...submit, expected: 'done', why: 'plain XCTest' },
  { fault: 'bridge-coordinate-space=window', screen: 'login', ...submit, expected: 'done', why: 'not merged: XCTest stands in' },
  { fault: 'bridge-slow=2500', screen: 'login', ...submit, expected: 'done', why: 'the read fell back: XCTest stands in' },
  { fault: 'bridge-action-slow=2300', screen: 'login', ...submit, expected: 'mayHaveRun', why: 'the bridge answered after the budget (bad_reply)' },
  { fault: 'bridge-reject=stale_observation', screen: 'login', ...submit, expected: 'notRun', why: 'a check before acting' },
  { fault: 'bridge-reject=action_queue_overloaded', screen: 'login', ...submit, expected: 'notRun', why: 'the queue refused it' },
  { fault: 'bridge-reject=action_cancelled', screen: 'login', ...submit, expected: 'mayHaveRun', why: 'cancelled after it was accepted' },
  { fault: 'bridge-reject=unsupported_gesture', screen: 'login', ...submit, expected: 'mayHaveRun', why: 'a host’s own reason (action_rejected)' },
  { fault: 'bridge-reject=unsupported_action', screen: 'login', ...submit, expected: 'done', why: 'no bridge form: XCTest stands in' },
  { fault: 'bridge-success-form', screen: 'login', ...submit, expected: 'done', why: 'the spec’s {success} form' },
  { fault: 'app-inactive', screen: 'login', ...submit, expected: 'done', why: 'the fresh read got app_not_active, so XCTest stands in (R-TAP-08)' },
  { fault: 'capture-identity-base=18446744073709551000', screen: 'login', ...submit, expected: 'done', why: 'identities above 2^53' },
  { fault: 'web-process-terminated', screen: 'checkout', ...placeOrder, expected: 'refused', why: 'the page is blank: nothing to click' },
  { fault: 'web-disallowed-origin', screen: 'checkout', ...placeOrder, expected: 'done', why: 'no snapshot merged: XCTest clicks' },
  { fault: 'web-duplicate-id', screen: 'checkout', ...placeOrder, expected: 'done', why: 'the duplicates are dropped' },
  { fault: 'web-redact', screen: 'checkout', ...placeOrder, expected: 'done', why: 'values redacted' },
  { fault: 'web-two-webviews', screen: 'checkout', ...placeOrder, expected: 'refused', why: 'the promo web view pushes the button out of view: not found' },
  { fault: 'web-unregistered', screen: 'checkout', ...placeOrder, expected: 'done', why: 'no web read: XCTest clicks' },
  { fault: 'web-no-snapshot', screen: 'checkout', ...placeOrder, expected: 'done', why: 'no snapshot: XCTest clicks' },
  { fault: 'web-max-bytes=2000', screen: 'checkout', ...placeOrder, expected: 'done', why: 'the snapshot is too large: XCTest clicks' },
  { fault: 'web-max-elements=3', screen: 'checkout', ...placeOrder, expected: 'done', why: 'the button is cut off the snapshot: XCTest clicks' },
  {
    fault: 'runner-drop-next',
    screen: 'login',
    ...submit,
    expected: 'refused',
    why: 'the action meets it on its read, having sent nothing (a CLI connection observes no push first: R-CLI-02)',
  },
  {
    fault: 'runner-garbage',
    screen: 'login',
    ...submit,
    expected: 'refused',
    why: 'the action meets it on its read, having sent nothing (a CLI connection observes no push first: R-CLI-02)',
  },
  { fault: 'runner-drop-at=request_tap_coordinates', screen: 'login', ...pointTap, expected: 'mayHaveRun', why: 'the tap went out and the connection dropped' },
  {
    fault: 'runner-garbage-at=request_tap_coordinates',
    screen: 'login',
    ...pointTap,
    expected: 'mayHaveRun',
    why: 'the tap’s reply cannot be read (bad_reply)',
  },
  {
    fault: 'runner-error-reply=request_tap_coordinates',
    screen: 'login',
    ...pointTap,
    expected: 'notRun',
    why: 'the runner’s error reply, requestId null: it ran nothing',
  },
  {
    fault: 'runner-deadline=request_tap_coordinates',
    screen: 'login',
    ...pointTap,
    expected: 'mayHaveRun',
    why: 'completed after its deadline: outcome indeterminate',
  },
  { fault: 'runner-drop-at=request_append_text', screen: 'login', ...typeQa, expected: 'mayHaveRun', why: 'the typing went out and the connection dropped' },
];

/** Every fault the demo device has is covered. */
/**
 * Test gates, not faults a device has: `xctest-read-hold` holds a read until the page changes, so an
 * action on a still screen would wait for it forever (docs/rules.md#r-perf-10); its own test opens it.
 * `runner-stale-push` sends a push before each read's answer, which no action's outcome depends on (R-PERF-07).
 * `runner-action-reply-slow` holds an action's answer until its test clears it, so the device's push of the
 * action's change is sent while the action runs (e2e/api-wire, R-PERF-06).
 */
const TEST_GATES: ReadonlySet<string> = new Set(['xctest-read-hold', 'runner-stale-push', 'runner-action-reply-slow']);

/**
 * Faults of the in-app AppReveal server, which no case here meets (they run through the runner, the demo's
 * AppReveal off): `appreveal-action-slow` has its own test over AppReveal's port,
 * tests/integration/appreveal-late-answer.test.ts (docs/rules.md#r-ar-35).
 */
const APPREVEAL_FAULTS: ReadonlySet<string> = new Set(['appreveal-action-slow']);

export function uncoveredFaults(): string[] {
  const covered = new Set(OUTCOME_CASES.map((c) => c.fault.split('=')[0]));
  return FAULT_NAMES.filter((name) => !covered.has(name) && !TEST_GATES.has(name) && !APPREVEAL_FAULTS.has(name));
}

/** The runner's socket faults are one-shot: they hit whatever request comes next. */
const ONE_SHOT = /^runner-/;

/**
 * Puts the device on the case's screen with its fault. A one-shot fault is set only once the screen has
 * settled and a connected host (`host`: what its connection has observed) holds the relaunched frame, its
 * push observed, so the case's action meets the fault and the host's push pass does not.
 */
export async function resetDevice(adminUrl: string, c: OutcomeCase, host?: FrameWatch): Promise<void> {
  const oneShot = ONE_SHOT.test(c.fault);
  await admin(adminUrl, '/reset', { screen: c.screen, faults: oneShot ? [] : [c.fault] });
  if (!oneShot) return;
  await (host ? host.until(adminUrl) : untilQuiet(adminUrl));
  await admin(adminUrl, '/faults', { add: [c.fault] });
}

/** Runs the case's command line in-process (the same code `bin/parallax.mjs` runs) and reads its --json result. */
export async function viaCli(runnerUrl: string, c: OutcomeCase): Promise<ActionResult> {
  const lines: string[] = [];
  const errors: string[] = [];
  const [command, ...args] = c.cli;
  await runActionCommand(command as 'tap', ['--device', runnerUrl, ...args, '--json'], { log: (l) => lines.push(l), error: (l) => errors.push(l) });
  if (lines.length === 0) throw new Error(`parallax ${c.cli.join(' ')} printed no result: ${errors.join(' ')}`);
  return parseJsonLossless(lines.join('\n')) as ActionResult;
}

/** A WebSocket to the web host's API, as the renderer holds one. */
export async function apiClient(hostUrl: string): Promise<{ call(method: string, params: unknown): Promise<unknown>; close(): void }> {
  const url = new URL(hostUrl);
  const ws = new WebSocket(`ws://${url.host}/api?token=${url.searchParams.get('token') ?? ''}`, { origin: url.origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  // Every message in order, events too: a reply may refer to a frame an event carried (docs/protocol.md#p-api-wire).
  const unpacker = new WireUnpacker();
  ws.on('message', (data: WebSocket.RawData) => {
    const message = ApiServerMessageSchema.parse(parseJsonLossless(data.toString()));
    if (!('id' in message)) {
      unpackFrames(unpacker, message.payload);
      return;
    }
    const result = message.ok ? unpackFrames(unpacker, message.result) : undefined;
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    if (message.ok) entry.resolve(result);
    else entry.reject(new Error(`${message.error.code}: ${message.error.message}`));
  });
  return {
    call: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** The case's action through the web host's API, as the UI sends it (device.act), and its result. */
export async function viaWebHost(api: { call(method: string, params: unknown): Promise<unknown> }, deviceId: string, c: OutcomeCase): Promise<ActionResult> {
  return ActionStepSchema.parse(await api.call('device.act', { deviceId, action: c.request })).result;
}

/** The runner commands that only read the device (every other one acts on it). */
export const READ_COMMANDS: ReadonlySet<string> = new Set([
  'request_hierarchy',
  'request_hierarchy_if_stale',
  'request_screenshot',
  'get_sdk_capabilities',
  'request_sdk_observation',
  'request_sdk_web_snapshot',
]);

/** The commands that act on the device: every command but the reads. */
export const ACTION_COMMANDS = RUNNER_COMMANDS.filter((command) => !READ_COMMANDS.has(command));

/** A cold relaunch of the app on screen through the web host's API, as the device header's Relaunch sends it (R-LIFE-01). */
export async function relaunchViaWebHost(api: { call(method: string, params: unknown): Promise<unknown> }, deviceId: string): Promise<ActionStep> {
  return ActionStepSchema.parse(await api.call('device.act', { deviceId, action: { action: 'launch', relaunch: true } }));
}

/**
 * Runs one case on the device through `path` (`act`), and says what is wrong with it: a class other than
 * the table's, or an action command that went out more than once meanwhile (R-ACT-04, the device's own
 * counts). `host` is the connected host's watch on the UI path, and `relaunch` relaunches the app through
 * that host (`relaunchViaWebHost`): after a case that leaves the host's discovery saying unavailable.
 */
export async function checkCase(
  adminUrl: string,
  path: 'cli' | 'ui',
  c: OutcomeCase,
  act: () => Promise<ActionResult>,
  host?: FrameWatch,
  relaunch?: () => Promise<ActionStep>,
): Promise<string[]> {
  const counts = async () => (await admin<{ requests: Record<string, number> }>(adminUrl, '/stats')).requests;
  await resetDevice(adminUrl, c, host);
  const before = await counts();
  const result = await act();
  const after = await counts();
  await settleAfter(adminUrl, c);
  const wrong: string[] = [];
  if (path === 'ui' && LEAVES_UNAVAILABLE.test(c.fault)) {
    if (!host || !relaunch) throw new Error(`a UI case after ${c.fault} needs the host's frame watch and a relaunch through it`);
    // The app without the fault (the admin's, unseen by the host), then launched anew through the host:
    // the observation after the relaunch probes again and finds the bridge (R-LIFE-06).
    await admin(adminUrl, '/reset', { screen: 'login', faults: [] });
    const { result: relaunched, after: launchedFrame } = await relaunch();
    if (!relaunched.success) wrong.push(`${path} ${c.fault}: the relaunch after it failed (${relaunched.failureReason ?? '?'})`);
    // The frame after the relaunch says what the host now believes: the bridge is there, or it kept a stale answer.
    const bridge = launchedFrame?.observation?.bridge;
    if (bridge?.available !== true) wrong.push(`${path} ${c.fault}: after the relaunch the host still says the bridge is ${JSON.stringify(bridge)}`);
    await host.until(adminUrl);
  }
  const cls = outcomeClassOf(result);
  if (cls !== expectedFor(c, path)) wrong.push(`${path} ${c.fault}: ${cls} (${result.failureReason ?? 'ok'}), expected ${expectedFor(c, path)}: ${c.why}`);
  for (const command of ACTION_COMMANDS) {
    const n = (after[command] ?? 0) - (before[command] ?? 0);
    if (n > 1) wrong.push(`${path} ${c.fault}: ${command} went out ${n} times`);
  }
  return wrong;
}

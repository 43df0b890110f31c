/**
 * What the runner does for each command (docs/protocol.md#p-runner-commands): XCTest reads of the screen,
 * real input on the rendered page, and the SDK relay. Returns reply objects; the socket is
 * runner-server.ts's job.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { HierarchyUpdate, RunnerCommand, RunnerRequest, ViewHierarchy } from '@shared/protocol/runner';
import { RESULT_TYPES, RUNNER_COMMAND_GROUPS } from '@shared/protocol/runner';
import { playwrightKey } from '@demo/phone/app-page';
import type { DemoDevice } from '@demo/device/demo-device';
import { holdFor } from '@demo/base/fault-hold';
import { STALE_FRAME_ERROR } from '@demo/phone/frame-context';
import type { FrameState } from '@demo/phone/screen-monitor';
import { axErrorMessage, DEMO_BUNDLE_ID, projectHierarchy } from '@demo/phone/xctest-projection';

/** How long a screenshot waits, once taken, for the re-read that names its frame. */
const STAMP_WAIT_MS = 200;
/** A swipe sent without `duration` (the runner's `duration: Int?`): the demo's own stroke length. */
const DEFAULT_SWIPE_MS = 300;

/** The commands this runner serves, as listed in its `connected` push. */
export const SUPPORTED_COMMANDS: readonly RunnerCommand[] = [
  'get_sdk_capabilities',
  'request_append_text',
  'request_clear_text',
  'request_hierarchy',
  'request_hierarchy_if_stale',
  'request_ime_action',
  'request_launch_app',
  'request_press_key',
  'request_screenshot',
  'request_sdk_action',
  'request_sdk_observation',
  'request_sdk_web_action',
  'request_sdk_web_snapshot',
  'request_set_text',
  'request_swipe',
  'request_tap_coordinates',
];
export const SUPPORTED_FEATURES = ['display_cutout_info'];

/**
 * The commands that act on the app, whose answers `runner-action-reply-slow` holds: the doctor's action group
 * (what Parallax sends to act) with typing's replace and the bridge's two actions. Named, not the rest, so a
 * read added later is never held.
 */
const ACTIONS: ReadonlySet<RunnerCommand> = new Set<RunnerCommand>([
  ...RUNNER_COMMAND_GROUPS.act,
  'request_set_text',
  'request_sdk_action',
  'request_sdk_web_action',
]);

/** Per-connection memory: what request_hierarchy_if_stale may serve again. */
export interface ConnectionState {
  lastServed?: { generation: number; data: ViewHierarchy; frameContext: string };
}

type Reply = Record<string, unknown> & { type: string };

/** An XCTest read of a frame: the hierarchy, or the AX failure XCTest reports for it. */
export type XctestRead = { ok: true; data: ViewHierarchy } | { ok: false; error: string };

/**
 * A hostile screen fails both ways a Bluesky-class app does: the recursive (raw, unfiltered) capture
 * fails with its AX error (docs/rules.md#r-str-09), and the regular capture degrades to the application
 * root (R-QUA-02).
 */
export function readAsXctest(device: DemoDevice, frame: FrameState, options: { raw?: boolean } = {}): XctestRead {
  const hostile = frame.capture.native.hostile;
  if (device.faults.has('xctest-ax-error') || (hostile && options.raw)) {
    return { ok: false, error: axErrorMessage(hostile ?? 'kAXErrorIllegalArgument') };
  }
  const sparse = device.faults.has('xctest-sparse') || hostile !== null;
  // Projected once per capture and form: a push and a reply for the same frame of a 50,000-view screen
  // each cost 130 ms of projection otherwise. Only the read time differs (the hierarchy is never changed).
  let forms = projections.get(frame.capture);
  if (!forms) projections.set(frame.capture, (forms = new Map()));
  let data = forms.get(sparse);
  if (!data) forms.set(sparse, (data = projectHierarchy(frame.capture, { sparse })));
  return { ok: true, data: { ...data, updatedAt: Date.now() } };
}

const projections = new WeakMap<FrameState['capture'], Map<boolean, ViewHierarchy>>();

/** The hierarchy_update push for a frame. */
export function hierarchyPush(device: DemoDevice, frame: FrameState): HierarchyUpdate {
  const read = readAsXctest(device, frame);
  const timestamp = Date.now();
  return read.ok
    ? { type: 'hierarchy_update', data: read.data, frameContext: frame.token, timestamp }
    : { type: 'hierarchy_update', error: read.error, frameContext: frame.token, timestamp };
}

export class RunnerCommands {
  constructor(private readonly device: DemoDevice) {}

  /** Never throws: a failure inside a command is that command's `success: false` reply. */
  async handle(request: RunnerRequest, connection: ConnectionState): Promise<Reply> {
    const started = Date.now();
    const resultType = RESULT_TYPES[request.type][0] ?? 'error';
    let body: Reply;
    try {
      body = await this.dispatch(request, connection);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      body =
        request.type === 'request_screenshot'
          ? { type: 'screenshot_error', success: false, error: message }
          : { type: resultType, success: false, error: message };
    }
    // The input is done (the device reads and pushes its change as it does any); the answer waits, as a busy runner's does.
    if (ACTIONS.has(request.type)) await holdFor(this.device.faults, 'runner-action-reply-slow');
    const totalTimeMs = Date.now() - started;
    return {
      ...body,
      requestId: request.requestId,
      timestamp: Date.now(),
      success: body.success ?? true,
      totalTimeMs,
      perfTiming: { name: 'total', durationMs: totalTimeMs, children: [{ name: `handleRequest:${request.type}`, durationMs: totalTimeMs }] },
    };
  }

  /**
   * The picture now, not after the views are read again: on a heavy screen a re-read takes seconds, and a
   * picture held behind it would be that old (docs/rules.md#r-perf-05). It carries the frame context of
   * the screen when the monitor knows it: the last read when nothing changed since, or the re-read that
   * starts after the capture if it ends within STAMP_WAIT_MS (not waited for when the last read took
   * longer); otherwise it goes unstamped
   * (docs/protocol.md#p-frame-context), since which frame it shows is not known yet.
   */
  private async screenshot(): Promise<Reply> {
    const { monitor, app } = this.device;
    const data = await app.screenshot();
    // A change waiting to be read when the capture ends is on the picture: the read after it names it.
    // Not waited for when reads take longer than the wait (a heavy screen): the picture goes unstamped
    // at once rather than STAMP_WAIT_MS later (docs/rules.md#r-perf-10).
    if (!monitor.knownWithin(STAMP_WAIT_MS)) return { type: 'screenshot', success: true, format: 'png', data, rotation: 0 };
    const read = (monitor.dirty ? monitor.refresh() : monitor.current()).catch(() => undefined);
    const frame = await Promise.race([read, sleep(STAMP_WAIT_MS).then(() => undefined)]);
    return { type: 'screenshot', success: true, format: 'png', data, rotation: 0, ...(frame ? { frameContext: frame.token } : {}) };
  }

  private async dispatch(request: RunnerRequest, connection: ConnectionState): Promise<Reply> {
    const { device } = this;
    switch (request.type) {
      case 'request_hierarchy':
      case 'request_hierarchy_if_stale':
        return this.hierarchy(request.type === 'request_hierarchy_if_stale', connection, request.disableAllFiltering === true);
      case 'request_screenshot':
        return this.screenshot();
      case 'request_tap_coordinates':
        return this.gesture(request, 'tap_coordinates_result', () => device.app.tap(request.x, request.y, request.duration ?? 0));
      case 'request_swipe':
        return this.gesture(request, 'swipe_result', async () => {
          await device.app.swipe(request.x1, request.y1, request.x2, request.y2, request.duration ?? DEFAULT_SWIPE_MS);
          const glide = device.faults.number('scroll-glide') ?? 0;
          if (glide > 0) await device.app.glide(request.x2, request.y2, Math.sign(request.y1 - request.y2) * 6, glide);
        });
      case 'request_set_text':
      case 'request_append_text':
      case 'request_clear_text':
        return this.text(request);
      case 'request_ime_action':
        return this.gesture(request, 'ime_action_result', async () => {
          if (!(await device.app.focusedField())) return 'No keyboard is shown: no text field is focused';
          await device.app.pressKey(request.action === 'next' ? 'Tab' : 'Enter');
          return undefined;
        });
      case 'request_press_key': {
        const key = playwrightKey(request.key);
        if (!key) return { type: 'press_key_result', success: false, error: `Unsupported key: ${request.key}` };
        return this.gesture(request, 'press_key_result', () => device.app.pressKey(key));
      }
      case 'request_launch_app': {
        if (request.bundleId !== DEMO_BUNDLE_ID) return { type: 'launch_app_result', success: false, error: `App not installed: ${request.bundleId}` };
        if (request.coldBoot) await device.relaunch();
        return { type: 'launch_app_result', success: true };
      }
      case 'get_sdk_capabilities': {
        const probe = await device.relay.capabilities();
        return probe.ok
          ? { type: 'sdk_capabilities_result', success: true, ...probe.payload }
          : { type: 'sdk_capabilities_result', success: false, error: probe.error };
      }
      case 'request_sdk_observation':
        return relayReply('sdk_observation_result', await device.relay.observation());
      case 'request_sdk_action':
        return relayReply('sdk_action_result', await device.relay.action(request.actionJson, request.timeoutMs));
      case 'request_sdk_web_snapshot':
        return relayReply('sdk_web_snapshot_result', await device.relay.webSnapshot(request.webViewId));
      case 'request_sdk_web_action':
        return relayReply('sdk_web_action_result', await device.relay.webAction(request.webViewId, request.actionJson, request.timeoutMs));
    }
  }

  private async hierarchy(ifStale: boolean, connection: ConnectionState, raw: boolean): Promise<Reply> {
    const { monitor, faults } = this.device;
    const cached = connection.lastServed;
    // Nothing has changed since this client's last read: serve it again without a capture.
    if (ifStale && !raw && cached && !monitor.dirty && (await monitor.current()).generation === cached.generation) {
      return { type: 'hierarchy_update', success: true, data: cached.data, frameContext: cached.frameContext, servedFromCache: true };
    }
    // The grind ends early when the fault is cleared: a test holds a read that long, then lets it go.
    await holdFor(faults, 'xctest-slow');
    const frame = await monitor.refresh();
    const read = readAsXctest(this.device, frame, { raw });
    if (!read.ok) return { type: 'hierarchy_update', success: false, error: read.error, frameContext: frame.token };
    if (!raw) connection.lastServed = { generation: frame.generation, data: read.data, frameContext: frame.token };
    return { type: 'hierarchy_update', success: true, data: read.data, frameContext: frame.token, servedFromCache: false };
  }

  /**
   * Runs an input after the stale-frame check: a request that names a frame context the screen has moved
   * past is refused before anything touches the screen. `run` may return an error text instead.
   */
  private async gesture(request: RunnerRequest, type: string, run: () => Promise<string | undefined | void>): Promise<Reply> {
    if (request.frameContext !== undefined) {
      const frame = await this.device.monitor.refresh();
      if (frame.token !== request.frameContext) return { type, success: false, error: STALE_FRAME_ERROR };
    }
    const error = await run();
    return error ? { type, success: false, error } : { type, success: true };
  }

  private text(request: Extract<RunnerRequest, { type: 'request_set_text' | 'request_append_text' | 'request_clear_text' }>): Promise<Reply> {
    const { app } = this.device;
    const type = request.type === 'request_set_text' ? 'set_text_result' : request.type === 'request_append_text' ? 'append_text_result' : 'clear_text_result';
    return this.gesture(request, type, async () => {
      if (request.resourceId !== undefined) {
        const center = await app.centerOf(request.resourceId);
        if (!center) return `Element not found: ${request.resourceId}`;
        const focused = await app.focusedField();
        // Tapping a field that already has focus would move its caret; XCTest taps only to focus.
        if (!focused || focused.kind !== 'native' || focused.axId !== request.resourceId) await app.tap(center.x, center.y);
      }
      const field = await app.focusedField();
      if (!field) return 'No focused text field';
      if (request.type === 'request_set_text') await app.replaceText(request.text);
      else if (request.type === 'request_append_text') await app.appendText(request.text, field.multiline);
      else await app.replaceText('');
      return undefined;
    });
  }
}

/** Relay payloads carry `failure` for typed failures; `success` says whether the relay got a result. */
function relayReply(type: string, payload: Record<string, unknown>): Reply {
  return { type, success: payload.failure === undefined, ...payload };
}

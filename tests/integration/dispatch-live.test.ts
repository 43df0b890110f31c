/**
 * sendKeys while something else observes the device, as the app's live mode does: a RunnerConnection
 * observes every hierarchy_update push (XCTest tree, bridge capture, web snapshot, screenshot) while the
 * dispatcher types. Each command must either land and be verified by read-back, or fail closed with a
 * typed reason; an accepted action whose text went nowhere is the failure this file guards against.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionResult, TargetSelector } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { RunnerConnection } from '@main/devices/runner-connection';
import { admin } from '../support/demo-admin';
import { watchFrames, type FrameWatch } from '../support/frame-watch';

let device: DemoDeviceHandle;
let conn: RunnerConnection;
/** What the connection has observed of the demo's screen. */
let frames: FrameWatch;

async function reset(screen: string): Promise<void> {
  const res = await fetch(`${device.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen, faults: [] }) });
  if (res.status !== 200) throw new Error(`admin /reset: ${res.status}`);
}

const nodes = (root: UiNode | undefined) => (root ? flattenTree(root).map((f) => f.node) : []);
const lastTree = () => conn.dispatcher.lastFrame?.observation?.viewHierarchy?.hierarchy;
const describeFailure = (r: ActionResult) => `${r.failureReason ?? ''} ${r.warnings.join(' | ')}`;

async function replace(target: TargetSelector, text: string): Promise<ActionResult> {
  const { result } = await conn.act({ action: 'sendKeys', target, steps: [{ kind: 'replace', text }] });
  return result;
}

beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
  conn = new RunnerConnection('demo', device.runnerUrl);
  frames = watchFrames(conn);
  conn.start();
  await conn.waitUntilConnected();
}, 60_000);

afterAll(async () => {
  await conn?.close();
  await device?.close();
});

describe('sendKeys with live observation running', () => {
  it('replaces the native login.username twice through the bridge, each verified by read-back', async () => {
    await reset('login');
    await conn.observe({});
    const passes = () => conn.pushPasses.observed + conn.pushPasses.superseded;
    const passesBefore = passes();
    for (const text of ['user0@example.com', 'user1@example.com', 'user2@example.com']) {
      const result = await replace({ id: 'login.username' }, text);
      expect(result.success, describeFailure(result)).toBe(true);
      expect(result.backend).toBe('sdk');
      const field = nodes(lastTree()).find((n) => n['sdk-element-id'] === 'login.username');
      expect(field?.text).toBe(text);
    }
    // The pushes came meanwhile, each waiting at the gate for its pass: this is the concurrent case, not a
    // quiet device. A pass observes the push or, older than an action's after read, drops it (R-PERF-07).
    expect(passes()).toBeGreaterThan(passesBefore);
  }, 30_000);

  it('replaces the Checkout web email field twice through the web view, each verified by read-back', async () => {
    await reset('checkout');
    await conn.observe({});
    for (const text of ['qa0@parallax.test', 'qa1@parallax.test']) {
      const result = await replace({ text: 'Email' }, text);
      expect(result.success, describeFailure(result)).toBe(true);
      expect(result.backend).toBe('sdk');
      const field = nodes(lastTree()).find((n) => n['web-role'] === 'input' && n['content-desc'] === 'Email');
      expect(field?.text).toBe(text);
    }
  }, 30_000);

  it('screenshots taken together by two observers leave later taps landing where they were sent', async () => {
    await reset('login');
    // Two observers' screenshots in flight at once (live mode's loop and an action's observation).
    await Promise.all([conn.screenshot(), conn.screenshot(), conn.screenshot()]);
    for (const text of ['alice', 'bob']) {
      const result = await replace({ id: 'login.username' }, text);
      expect(result.success, describeFailure(result)).toBe(true);
      expect(nodes(lastTree()).find((n) => n['sdk-element-id'] === 'login.username')?.text).toBe(text);
    }
  }, 30_000);
});

describe('pushes during an action', () => {
  /**
   * Until every push that came during the last action has been observed or dropped: an action waits for
   * the reads admitted before it (docs/rules.md#r-gate-01), and a push's pass is one of them. An assert
   * reads and sends nothing to the app.
   */
  const pushesObserved = async () => {
    const { result } = await conn.act({ action: 'assert', target: { id: 'tab.feed' }, check: 'visible' });
    expect(result.success, describeFailure(result)).toBe(true);
  };
  const setFaults = async (faults: string[]) => {
    await admin(device.adminUrl, '/faults', { faults });
  };
  /** The demo's frame tokens count its screen's frames: `<app run>:<n>:<hash>`. */
  const frameNumber = (frameContext: string | undefined) => Number(/:(\d+):/.exec(frameContext ?? '')?.[1] ?? NaN);
  /** The action done, the frames the connection shows while `settle` runs that are older than its after frame. */
  async function olderFramesWhile({ result, after }: Awaited<ReturnType<RunnerConnection['act']>>, settle: () => Promise<void>): Promise<string[]> {
    expect(result.success, describeFailure(result)).toBe(true);
    const afterNumber = frameNumber(after?.hierarchyFrameContext);
    expect(afterNumber).not.toBeNaN();
    const older: string[] = [];
    const onFrame = (frame: { hierarchyFrameContext?: string }) => {
      if (frameNumber(frame.hierarchyFrameContext) < afterNumber) older.push(`${frame.hierarchyFrameContext} after ${after?.hierarchyFrameContext}`);
    };
    conn.on('frame', onFrame);
    try {
      await settle();
    } finally {
      conn.off('frame', onFrame);
    }
    return older;
  }

  it('R-PERF-07: a push that arrived before the observation after is not observed after the action: no frame older than the after frame follows it', async () => {
    await reset('feed');
    await conn.observe({});
    const stale: string[] = [];
    for (let i = 0; i < 4; i++) {
      const swiped = await conn.act({ action: 'swipe', start: { x: 200, y: i % 2 ? 300 : 600 }, end: { x: 200, y: i % 2 ? 600 : 300 } });
      // The scroll settles and the pushes it made are observed (or not) meanwhile.
      stale.push(
        ...(await olderFramesWhile(swiped, async () => {
          await frames.until(device.adminUrl);
          await pushesObserved();
        })),
      );
    }
    // The screen showed the action's after frame, and then only what came after it.
    expect(stale).toEqual([]);
  }, 60_000);

  it('R-PERF-07: a push of an older frame that reaches the host after the observation after was sent, before its answer, is not observed after the action (the demo gate runner-stale-push)', async () => {
    await reset('login');
    await conn.observe({});
    const stale: string[] = [];
    const dropped = conn.pushPasses.superseded;
    for (const tab of ['tab.feed', 'tab.login', 'tab.feed']) {
      // Every hierarchy read of the action is answered right after a push of an older frame: what a busy
      // machine does now and then, here every time, whatever the machine's speed. A tab's XCTest tap
      // moves the screen to a new frame at no cost the machine's load could push past a budget.
      await setFaults(['runner-stale-push']);
      const tapped = await conn.act({ action: 'tap', target: { id: tab } }, { xctestOnly: true });
      stale.push(
        ...(await olderFramesWhile(tapped, async () => {
          await setFaults([]);
          await pushesObserved();
        })),
      );
    }
    expect(stale).toEqual([]);
    // The gate's pushes came, and were dropped rather than observed.
    expect(conn.pushPasses.superseded).toBeGreaterThan(dropped);
  }, 60_000);
});

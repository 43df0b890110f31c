/**
 * sendKeys while something else observes the device, as the app's live mode does: a RunnerConnection
 * observes every hierarchy_update push (XCTest tree, bridge capture, web snapshot, screenshot) while the
 * dispatcher types. Each command must either land and be verified by read-back, or fail closed with a
 * typed reason; an accepted action whose text went nowhere is the failure this file guards against.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionResult } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { RunnerConnection } from '@main/runner/connection';

let device: DemoDeviceHandle;
let conn: RunnerConnection;
let pushFrames = 0;

async function reset(screen: string): Promise<void> {
  const res = await fetch(`${device.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen, faults: [] }) });
  if (res.status !== 200) throw new Error(`admin /reset: ${res.status}`);
}

const nodes = (root: UiNode | undefined) => (root ? flattenTree(root).map((f) => f.node) : []);
const lastTree = () => conn.dispatcher.lastFrame?.observation?.viewHierarchy?.hierarchy;
const describeFailure = (r: ActionResult) => `${r.failureReason ?? ''} ${r.warnings.join(' | ')}`;

async function replace(target: Record<string, unknown>, text: string): Promise<ActionResult> {
  const { result } = await conn.act({ action: 'sendKeys', target, steps: [{ kind: 'replace', text }] });
  return result;
}

beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
  conn = new RunnerConnection('demo', device.runnerUrl);
  conn.on('frame', () => pushFrames++);
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
    const framesBefore = pushFrames;
    for (const text of ['user0@example.com', 'user1@example.com', 'user2@example.com']) {
      const result = await replace({ id: 'login.username' }, text);
      expect(result.success, describeFailure(result)).toBe(true);
      expect(result.backend).toBe('sdk');
      const field = nodes(lastTree()).find((n) => n['sdk-element-id'] === 'login.username');
      expect(field?.text).toBe(text);
    }
    // The pushes were observed meanwhile: this is the concurrent case, not a quiet device.
    expect(pushFrames).toBeGreaterThan(framesBefore);
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

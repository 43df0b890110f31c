/**
 * Every target reaches an AppReveal app as an element, or the action is refused (docs/rules.md#r-ar-34,
 * issue 24). iOS AppReveal's `type_text` types into `element_id` when it is given and into the first
 * responder when it is not, and `scroll` scrolls `container_id` or the first scroll view it finds
 * (UnlikeOtherAI/AppReveal iOS/Sources/AppReveal/Interaction/InteractionEngine.swift `type`, `scroll`;
 * MCPServer/MCPTools.swift type_text, scroll): a text or a point sent as no element would type into
 * whatever has focus. Over the demo's iOS AppReveal port; the field values read with AppReveal's own
 * get_elements, not through Parallax.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { runActionCommand } from '@main/cli/actions';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
const values = async () =>
  Object.fromEntries(((await host.rawTool('get_elements')).elements as Array<{ id: string; value: string }>).map((e) => [e.id, e.value]));
const bullets = (n: number) => '\u2022'.repeat(n);

async function loginDevice() {
  await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
  const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
  await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
  const act = async (action: ActionRequest) => (await host.services.manager.act(device.id, action)).result as ActionResult;
  // The password field has the focus: anything typed with no element goes there.
  expect(await act({ action: 'tap', target: { id: 'login.password' } })).toMatchObject({ success: true });
  return { act, close: () => host.services.manager.disconnect(device.id) };
}

const typeAt = (target: ActionRequest & { action: 'sendKeys' } extends { target?: infer T } ? T : never, text: string): ActionRequest => ({
  action: 'sendKeys',
  target,
  steps: [{ kind: 'type', text }],
});

describe('R-AR-34: a text, point or picked-node target is typed into as the app’s element, found on a fresh read', () => {
  it('R-AR-34: typed at the text "Username" while the password field has the focus: into the username field, and the result names it', async () => {
    const { act, close } = await loginDevice();
    try {
      const typed = await act(typeAt({ text: 'Username' }, 'bob'));
      expect(typed).toMatchObject({
        success: true,
        outcome: 'done',
        target: { resolvedBy: 'text', selector: 'Username', elementId: 'login.username', label: 'Username' },
      });
      expect(await values()).toMatchObject({ 'login.username': 'bob', 'login.password': '' });
      // The command line says where the keys went, as the issue's `type --text Username` did not.
      const lines: string[] = [];
      const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
      const code = await runActionCommand('type', ['--device', host.demo.appRevealUrl ?? '', '--text', 'Username', '--text-to-type', 'ob'], out);
      expect(code, lines.join('\n')).toBe(0);
      expect(lines[0]).toMatch(/^type "Username" · login\.username: ok backend=appreveal requests=1/);
      expect(await values()).toMatchObject({ 'login.username': 'bobob', 'login.password': '' });
    } finally {
      await close();
    }
  });

  it('R-AR-34: typed at a point on the username field: into it, by its id', async () => {
    const { act, close } = await loginDevice();
    try {
      // login.username's frame is 16,222,370,44 (get_elements).
      const typed = await act(typeAt({ point: { x: 201, y: 244 } }, 'ada'));
      expect(typed).toMatchObject({ success: true, target: { resolvedBy: 'point', elementId: 'login.username', label: 'Username' } });
      expect(await values()).toMatchObject({ 'login.username': 'ada', 'login.password': '' });
    } finally {
      await close();
    }
  });

  it('R-AR-34: a picked node is typed into by its id; one without an id, a text no element has: refused, nothing sent', async () => {
    const { act, close } = await loginDevice();
    try {
      const picked: UiNode = { 'resource-id': 'login.username', className: 'textField', bounds: { left: 16, top: 222, right: 386, bottom: 266 } };
      expect(await act(typeAt({ node: picked }, 'eve'))).toMatchObject({ success: true, target: { resolvedBy: 'node', elementId: 'login.username' } });
      const anonymous: UiNode = { className: 'textField', bounds: { left: 16, top: 266, right: 386, bottom: 310 } };
      const noId = await act(typeAt({ node: anonymous }, 'lost-1'));
      expect(noId).toMatchObject({ success: false, failureReason: 'target_not_found', mayHaveRun: false, requestsSent: 0, outcome: 'refused' });
      expect(noId.warnings.join(' ')).toMatch(/no AppReveal id: nothing was sent/);
      const noText = await act(typeAt({ text: 'Email address' }, 'lost-2'));
      expect(noText).toMatchObject({ success: false, failureReason: 'target_not_found', requestsSent: 0, outcome: 'refused' });
      expect(noText.warnings.join(' ')).toMatch(/no element of the app has the text "Email address": nothing was sent/);
      // A point on the Sign In button (16,330,370,50) holds no text field: refused, not typed into the focus.
      const onButton = await act(typeAt({ point: { x: 201, y: 355 } }, 'lost-3'));
      expect(onButton).toMatchObject({ success: false, failureReason: 'target_not_found', requestsSent: 0, outcome: 'refused' });
      expect(onButton.warnings.join(' ')).toMatch(/no text field of the app is at 201, 355: nothing was sent/);
      // Nothing went to the focused password field either.
      expect(await values()).toMatchObject({ 'login.username': 'eve', 'login.password': '' });
      expect(await act(typeAt({ id: 'login.password' }, 'pw'))).toMatchObject({ success: true });
      expect(await values()).toMatchObject({ 'login.password': bullets(2) });
    } finally {
      await close();
    }
  });

  it('R-AR-34: a swipe on the feed’s list by a point scrolls that list, named by its id', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'feed' });
    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
    try {
      const visible = async () =>
        ((await host.rawTool('get_elements')).elements as Array<{ id: string; visible: string }>).filter((e) => e.visible === 'true').map((e) => e.id);
      const before = await visible();
      const step = await host.services.manager.act(device.id, {
        action: 'swipe',
        container: { point: { x: 60, y: 600 } },
        start: { x: 60, y: 600 },
        end: { x: 60, y: 300 },
      });
      expect(step.result, JSON.stringify(step.result)).toMatchObject({ success: true, target: { resolvedBy: 'point', elementId: 'feed.list' } });
      const moved = await visible();
      expect(moved).not.toEqual(before);
      // A picked cell (no scroll view itself: Element not scrollable, were it sent) scrolls the list it is in.
      const cell: UiNode = {
        'resource-id': moved.find((id) => id.startsWith('feed.cell.'))!,
        className: 'cell',
        bounds: { left: 0, top: 400, right: 402, bottom: 472 },
      };
      const again = await host.services.manager.act(device.id, {
        action: 'swipe',
        container: { node: cell },
        start: { x: 60, y: 440 },
        end: { x: 60, y: 200 },
      });
      expect(again.result, JSON.stringify(again.result)).toMatchObject({ success: true, target: { resolvedBy: 'node', elementId: 'feed.list' } });
      expect(await visible()).not.toEqual(moved);
    } finally {
      await host.services.manager.disconnect(device.id);
    }
  });
});

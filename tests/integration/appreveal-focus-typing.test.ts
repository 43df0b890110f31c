/**
 * Typing with no field named, on the demo's iOS AppReveal over its real port (docs/rules.md#r-ar-29).
 * iOS AppReveal types into `UIResponder.currentFirstResponder` when `type_text` has no element_id
 * (UnlikeOtherAI/AppReveal iOS/Sources/AppReveal/Interaction/InteractionEngine.swift `type`) and says which
 * view that is only through get_view_tree's `isEditing` of each UITextField (Elements/ElementInventory.swift
 * dumpNode). Parallax reads that, types into that field by its id and says which; where the app says no
 * field is editing, nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
const rawTool = host.rawTool;
const values = async () => Object.fromEntries(((await rawTool('get_elements')).elements as Array<{ id: string; value: string }>).map((e) => [e.id, e.value]));

describe('R-AR-29: the demo’s iOS get_view_tree says which UITextField is editing, as dumpNode writes isEditing', () => {
  it('no field is editing on a fresh login screen; the tapped one is, and only it', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const editing = async () =>
      ((await rawTool('get_view_tree')).views as Array<Record<string, unknown>>).filter((v) => 'isEditing' in v).map((v) => [v.accessibilityId, v.isEditing]);
    expect(await editing()).toEqual([
      ['login.username', false],
      ['login.password', false],
    ]);
    await rawTool('tap_element', { element_id: 'login.password' });
    expect(await editing()).toEqual([
      ['login.username', false],
      ['login.password', true],
    ]);
  });
});

describe('R-AR-29: typing with no field named types only where the app says focus is, and says which', () => {
  it('nothing editing: refused, nothing sent; the username tapped: typed there by its id, and the result names it', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
    const act = async (action: ActionRequest) => (await host.services.manager.act(device.id, action)).result as ActionResult;
    const type = (text: string): ActionRequest => ({ action: 'sendKeys', steps: [{ kind: 'type', text }] });

    const refused = await act(type('nowhere'));
    expect(refused).toMatchObject({ success: false, failureReason: 'target_not_found', mayHaveRun: false, requestsSent: 0, outcome: 'refused' });
    expect(refused.warnings.join(' ')).toMatch(/no text field in focus.*nothing was sent/);
    expect(Object.values(await values())).not.toContain('nowhere');

    await act({ action: 'tap', target: { id: 'login.username' } });
    const typed = await act(type('ada'));
    expect(typed).toMatchObject({ success: true, outcome: 'done', target: { resolvedBy: 'keyboardFocus', elementId: 'login.username', label: 'Username' } });
    expect(typed.warnings.join(' ')).toMatch(/typed into “Username” \(login\.username\), the field the app says has focus/);
    expect(await values()).toMatchObject({ 'login.username': 'ada', 'login.password': '' });

    // Focus moves to the password field: the next untargeted typing goes there, and is a secret there.
    await act({ action: 'tap', target: { id: 'login.password' } });
    const secret = await act(type('pw-123'));
    expect(secret).toMatchObject({ success: true, target: { resolvedBy: 'keyboardFocus', elementId: 'login.password' } });
    expect(await values()).toMatchObject({ 'login.username': 'ada', 'login.password': '\u2022'.repeat(6) });
    const kept = host.services.manager.history(device.id).at(-1);
    expect(JSON.stringify(kept)).not.toContain('pw-123');
    await host.services.manager.disconnect(device.id);
  }, 120_000);
});

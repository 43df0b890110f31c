/**
 * The demo device's pure parts, without a browser: fault parsing, the XCTest projection, frame
 * context tokens and the observation bridge's node tree.
 */
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema } from '@shared/protocol/runner';
import type { NativeNode, ScreenCapture } from '@demo/phone/capture-model';
import { Faults, parseFault } from '@demo/phone/faults';
import { FrameTracker } from '@demo/phone/frame-context';
import { buildObservation } from '@demo/sdk/observation-bridge';
import { projectHierarchy, truncateBounds } from '@demo/phone/xctest-projection';

const node = (cls: string, rect: [number, number, number, number], extra: Partial<NativeNode> = {}): NativeNode => ({
  cls,
  rect,
  enabled: true,
  focused: false,
  selected: false,
  children: [],
  ...extra,
});

function capture(children: NativeNode[], web: ScreenCapture['web'] = {}): ScreenCapture {
  return {
    native: {
      screen: 'login',
      hostile: null,
      chrome: { 'status-bar': [0, 0, 402, 62], cutout: [138, 11, 126, 37], 'home-indicator': [0, 840, 402, 34] },
      safeArea: { top: 62, bottom: 34 },
      statusBarVisible: true,
      viewport: { width: 402, height: 874 },
      root: node('XCUIApplication', [0, 0, 402, 874], { label: 'Parallax Demo', children }),
    },
    web,
    takenAt: 1,
  };
}

describe('faults', () => {
  it('parses names and values, and refuses anything else', () => {
    expect(parseFault('xctest-sparse')).toEqual({ ok: true, name: 'xctest-sparse', value: true });
    expect(parseFault('xctest-slow=250')).toEqual({ ok: true, name: 'xctest-slow', value: '250' });
    expect(parseFault('capture-identity-base=18446744073709551615')).toMatchObject({ ok: true, value: '18446744073709551615' });
    expect(parseFault('capture-identity-base=18446744073709551616').ok).toBe(false);
    expect(parseFault('bridge-reject=action_cancelled')).toMatchObject({ ok: true, value: 'action_cancelled' });
    // A host executor may answer any reason word (docs/protocol.md#p-action-result); not just anything.
    expect(parseFault('bridge-reject=unsupported_gesture')).toMatchObject({ ok: true, value: 'unsupported_gesture' });
    expect(parseFault('bridge-reject=Not A Word!').ok).toBe(false);
    expect(parseFault('runner-drop-at=request_tap_coordinates')).toMatchObject({ ok: true, value: 'request_tap_coordinates' });
    expect(parseFault('runner-drop-at=request_teleport').ok).toBe(false);
    expect(parseFault('bridge-coordinate-space=window')).toMatchObject({ ok: true, value: 'window' });
    expect(parseFault('xctest-slow').ok).toBe(false);
    expect(parseFault('sdk-absent=3').ok).toBe(false);
    expect(parseFault('teleport').ok).toBe(false);
  });

  it('changes all or nothing, and one-shot faults clear when consumed', () => {
    const faults = new Faults(['web-redact']);
    expect(() => faults.apply({ add: ['xctest-sparse', 'bogus'] })).toThrow(/bogus/);
    expect(faults.list()).toEqual(['web-redact']);
    faults.apply({ replace: ['runner-garbage', 'xctest-slow=5'] });
    expect(faults.list()).toEqual(['xctest-slow=5', 'runner-garbage']);
    expect(faults.consume('runner-garbage')).toBe(true);
    expect(faults.consume('runner-garbage')).toBe(false);
    expect(faults.list()).toEqual(['xctest-slow=5']);
  });
});

describe('XCTest projection', () => {
  it('truncates each edge like the runner', () => {
    expect(truncateBounds([16.7, 119.9, 133.39, 41])).toEqual({ left: 16, top: 119, right: 150, bottom: 160 });
    expect(truncateBounds([-120.5, 738.2, 642, 272])).toEqual({ left: -120, top: 738, right: 521, bottom: 1010 });
  });

  it('builds UIElementInfo with string booleans, bullets for secure values, web leaves without ids', () => {
    const view = capture(
      [
        node('UITextField', [16, 222, 370, 44], { id: 'user', editable: true, value: '', placeholder: 'Email', label: 'Username' }),
        node('UISecureTextField', [16, 266, 370, 44], { id: 'pw', editable: true, secure: true, value: 'abc', focused: true }),
        node('UIButton', [16, 330, 370, 50], { id: 'passkey', label: 'Passkey', enabled: false }),
        node('WKWebView', [0, 116, 402, 675], { webViewId: 'checkout', contentOrigin: [0, 116] }),
      ],
      {
        checkout: {
          url: 'https://checkout.parallax.test/checkout.html',
          title: 'Checkout',
          viewport: { width: 402, height: 675, scrollY: 0 },
          leaves: [{ kind: 'textfield', rect: [16, 105.38, 370, 38], enabled: true, focused: false, label: 'Full name', value: 'Zed' }],
        },
      },
    );
    const data = projectHierarchy(view, { now: 5 });
    expect(ViewHierarchySchema.safeParse(data).success).toBe(true);
    const [user, pw, passkey, web] = data.hierarchy?.node ?? [];
    expect(user).toMatchObject({ className: 'UITextField', text: 'Email', 'hint-text': 'Email', 'content-desc': 'Username', focusable: 'true' });
    expect(pw).toMatchObject({ className: 'UISecureTextField', text: '•••', password: 'true', focused: 'true' });
    expect(passkey).toMatchObject({ enabled: 'false', clickable: 'true' });
    expect(web?.node?.[0]).toMatchObject({
      className: 'UITextField',
      text: 'Zed',
      'content-desc': 'Full name',
      bounds: { left: 16, top: 221, right: 386, bottom: 259 },
    });
    expect(web?.node?.[0]?.['resource-id']).toBeUndefined();
    expect(data.insets?.safeArea).toEqual({ top: 62, left: 0, bottom: 34, right: 0 });
    expect(projectHierarchy(view, { sparse: true }).hierarchy?.node).toBeUndefined();
  });
});

describe('frame context', () => {
  it('moves the generation only when the screen changes', () => {
    const tracker = new FrameTracker();
    const a = capture([node('UILabel', [0, 0, 10, 10], { label: 'a' })]);
    const b = capture([node('UILabel', [0, 0, 10, 10], { label: 'b' })]);
    expect(tracker.update(a)).toBe(true);
    const first = tracker.token;
    expect(first).toMatch(/^[0-9A-F-]{36}:1:[0-9a-f]{16}$/);
    expect(tracker.update({ ...a, takenAt: 99 })).toBe(false);
    expect(tracker.token).toBe(first);
    expect(tracker.update(b)).toBe(true);
    expect(tracker.token.split(':')[1]).toBe('2');
  });
});

describe('observation bridge nodes', () => {
  it('uses accessibility identifiers as ids, keeps secure values out, shifts non-screen spaces', () => {
    const view = capture([
      node('UIButton', [16, 330, 370, 50], { id: 'submit', label: 'Sign In' }),
      node('UISecureTextField', [16, 266, 370, 44], { id: 'pw', editable: true, secure: true, value: 'abc' }),
      node('UILabel', [16, 900, 100, 20], { label: 'off screen' }),
    ]);
    const screen = buildObservation(view.native);
    expect(screen.index.get('submit')?.node).toMatchObject({
      role: 'button',
      label: 'Sign In',
      bounds: { left: 16, top: 330, right: 386, bottom: 380 },
      visible: true,
    });
    expect(screen.index.get('pw')?.node.value).toBeUndefined();
    expect([...screen.index.values()].find((e) => e.node.label === 'off screen')?.node.visible).toBe(false);
    expect(buildObservation(view.native, 62).index.get('submit')?.node.bounds.top).toBe(268);
  });
});

import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { ObservationSnapshotSchema, WebSnapshotSchema } from '@shared/protocol/sdk';
import { flattenTree } from '@shared/model/tree';
import { mergeBridgeSnapshot, mergeWebRead } from '@shared/observe';
import { xctestTwinOf } from '@shared/model/node';
import { xctestAttributes } from '@shared/selectors';
import { diffTrees } from '@shared/compare/diff';

const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
const find = (root: UiNode, test: (n: UiNode) => boolean) => flattenTree(root).find((f) => test(f.node))?.node;

describe('Observe: the XCTest node a merged node stands for', () => {
  const xctest: UiNode = {
    className: 'XCUIApplication',
    bounds: rect(0, 0, 402, 874),
    node: [
      {
        className: 'UIView',
        'resource-id': 'screen.login',
        bounds: rect(0, 0, 402, 874),
        node: [
          { className: 'UIButton', role: 'button', 'resource-id': 'login.submit', text: 'Sign In', bounds: rect(20, 340, 382, 388) },
          { className: 'UIImageView', role: 'image', bounds: rect(20, 400, 60, 440) },
        ],
      },
      { className: 'WKWebView', bounds: rect(0, 450, 402, 700), node: [{ className: 'UILabel', text: 'Hello', bounds: rect(0, 450, 100, 470) }] },
    ],
  };
  const snapshot = ObservationSnapshotSchema.parse({
    captureIdentity: '7',
    orientation: 'portrait',
    coordinateSpace: 'screen',
    bounds: rect(0, 0, 402, 874),
    capabilities: [],
    root: {
      id: 'root',
      role: 'application',
      bounds: rect(0, 0, 402, 874),
      children: [
        {
          id: 'screen.login',
          role: 'other',
          bounds: rect(0, 0, 402, 874),
          children: [
            { id: 'submit-button', role: 'button', label: 'Sign In', bounds: rect(20, 340, 382, 388) },
            { id: 'avatar', role: 'image', bounds: rect(20, 400, 60, 440) },
            { id: 'promo', role: 'button', label: 'Only the bridge', bounds: rect(20, 800, 382, 840) },
          ],
        },
        { id: 'web', role: 'webView', bounds: rect(0, 450, 402, 700) },
      ],
    },
  });
  const merged = mergeBridgeSnapshot(xctest, snapshot).root;

  it('R-QA-06: a bridge node that replaced an XCTest leaf keeps that leaf\u2019s identity and label as extras', () => {
    const submit = find(merged, (n) => n['sdk-element-id'] === 'submit-button')!;
    expect(submit.extras).toMatchObject({
      'xctest.twin': 'replaced',
      'xctest.resource-id': 'login.submit',
      'xctest.text': 'Sign In',
      'xctest.className': 'UIButton',
    });
    // XCTest saw the id the bridge does not report: a selector by it works in plain XCTest.
    expect(xctestAttributes(submit)).toMatchObject({ identifier: 'login.submit', label: 'Sign In', xcuiType: 'XCUIElementTypeButton' });
  });

  it('R-QA-06: a bridge node beside the XCTest container it describes is its kept twin (same frame and id, or type) — kept as reported by the raw strategy', () => {
    const raw = mergeBridgeSnapshot(xctest, snapshot, { keepXctestTwins: true }).root;
    expect(xctestTwinOf(find(raw, (n) => n['sdk-element-id'] === 'screen.login')!)).toMatchObject({
      kind: 'kept',
      node: { 'resource-id': 'screen.login', className: 'UIView' },
    });
    expect(xctestTwinOf(find(raw, (n) => n['sdk-element-id'] === 'web')!)).toMatchObject({ kind: 'kept', node: { className: 'WKWebView' } });
  });

  it('R-OBS-09: merged, the XCTest container folds into the bridge node that describes it, which then stands for it (replaced)', () => {
    expect(xctestTwinOf(find(merged, (n) => n['sdk-element-id'] === 'screen.login')!)).toMatchObject({
      kind: 'replaced',
      node: { 'resource-id': 'screen.login', className: 'UIView' },
    });
    expect(find(merged, (n) => n.className === 'UIView')).toBeUndefined();
    // The web view's XCTest leaf the bridge does not report moves under the bridge's web view.
    const web = find(merged, (n) => n['sdk-element-id'] === 'web')!;
    expect(xctestTwinOf(web)).toMatchObject({ kind: 'replaced', node: { className: 'WKWebView' } });
    expect(web.node?.map((n) => n.text)).toEqual(['Hello']);
  });

  it('R-QA-06: a bridge node XCTest never reported has no twin, and XCTest sees nothing of it; an anonymous leaf of its type and frame is its twin', () => {
    const promo = find(merged, (n) => n['sdk-element-id'] === 'promo')!;
    expect(xctestTwinOf(promo)).toBeUndefined();
    expect(xctestAttributes(promo)).toBeNull();
    // An anonymous XCTest leaf (no id, no label) with the bridge node's frame and type is that element.
    expect(xctestTwinOf(find(merged, (n) => n['sdk-element-id'] === 'avatar')!)).toMatchObject({ kind: 'replaced', node: { className: 'UIImageView' } });
    expect(find(merged, (n) => n.className === 'UIImageView')).toBeUndefined();
  });

  it('R-QA-06: a DOM element merged over an XCTest leaf records the leaf as what XCTest saw', () => {
    const screen: UiNode = { className: 'XCUIApplication', bounds: rect(0, 0, 400, 800), node: [xctest.node![1]!] };
    const web = WebSnapshotSchema.parse({
      snapshotId: 's1',
      documentId: 'd1',
      url: 'https://shop.example/',
      elements: [
        { id: 'e1', role: 'heading', label: 'Hello', bounds: [0, 0, 100, 20], enabled: true, visible: true, focused: false },
        { id: 'e2', role: 'button', label: 'Chat', bounds: [300, 0, 100, 20], enabled: true, visible: true, focused: false },
      ],
    });
    const result = mergeWebRead(screen, {
      kind: 'reply',
      reply: {
        available: true,
        webViews: [{ webViewId: 'w', url: 'https://shop.example/', allowedOrigins: ['https://shop.example'], contentProcessAvailable: true }],
        snapshot: web,
      },
    });
    const hello = find(result.root, (n) => n['web-element-id'] === 'e1')!;
    expect(xctestTwinOf(hello)).toMatchObject({ kind: 'replaced', node: { className: 'UILabel', text: 'Hello' } });
    expect(xctestAttributes(find(result.root, (n) => n['web-element-id'] === 'e2')!)).toBeNull();
  });
});

describe('Compare: one element, one difference', () => {
  const leaf: UiNode = { className: 'UILabel', role: 'text', text: 'Your order', bounds: rect(16, 132, 386, 162) };
  const field: UiNode = {
    className: 'UITextField',
    role: 'textfield',
    'content-desc': 'Email',
    text: 'you@example.com',
    'hint-text': 'you@example.com',
    bounds: rect(16, 200, 386, 240),
  };
  const xctestOnly: UiNode = {
    className: 'XCUIApplication',
    bounds: rect(0, 0, 402, 874),
    node: [
      {
        className: 'UIView',
        'resource-id': 'screen.checkout',
        bounds: rect(0, 0, 402, 874),
        node: [{ className: 'WKWebView', bounds: rect(0, 116, 402, 791), node: [leaf] }],
      },
      field,
    ],
  };
  const bridge = ObservationSnapshotSchema.parse({
    captureIdentity: '3',
    orientation: 'portrait',
    coordinateSpace: 'screen',
    bounds: rect(0, 0, 402, 874),
    capabilities: [],
    root: {
      id: 'root',
      role: 'application',
      bounds: rect(0, 0, 402, 874),
      children: [
        {
          id: 'screen.checkout',
          role: 'other',
          bounds: rect(0, 0, 402, 874),
          children: [{ id: 'WKWebView@0', role: 'webView', bounds: rect(0, 116, 402, 791) }],
        },
        { id: 'email', role: 'textField', label: 'Email', bounds: rect(16, 200, 386, 240) },
      ],
    },
  });
  const withBridge = mergeBridgeSnapshot(xctestOnly, bridge).root;
  const web = WebSnapshotSchema.parse({
    snapshotId: 's2',
    documentId: 'd',
    url: 'https://shop.example/',
    elements: [{ id: 'e2', role: 'heading', label: 'Your order', bounds: [16, 16, 370, 30], enabled: true, visible: true, focused: false }],
  });
  const sdkBacked = mergeWebRead(withBridge, {
    kind: 'reply',
    reply: {
      available: true,
      webViews: [{ webViewId: 'checkout', url: 'https://shop.example/', allowedOrigins: [], contentProcessAvailable: true }],
      snapshot: web,
    },
  }).root;
  const diff = diffTrees(xctestOnly, sdkBacked);

  it('R-QA-12: a DOM element merged over an XCTest leaf is one identity added, not also a value change', () => {
    const dom = flattenTree(sdkBacked).find((f) => f.node['web-element-id'] === 'e2')!;
    expect(diff.differences.filter((d) => d.sdkKey === dom.key).map((d) => d.class)).toEqual(['identity_added']);
  });

  it('R-QA-12: bridge nodes beside the XCTest containers they describe add their identity, they are not nodes of their own', () => {
    expect(diff.summary.only_sdk).toBe(0);
    const details = diff.differences.filter((d) => d.class === 'identity_added').map((d) => d.detail);
    expect(details.some((d) => d.includes('sdk-element-id="screen.checkout"'))).toBe(true);
    expect(details.some((d) => d.includes('sdk-element-id="WKWebView@0"'))).toBe(true);
  });

  it('R-QA-12: an empty field XCTest reads as its placeholder has no value, as the bridge says: no change', () => {
    expect(diff.summary.value_changed).toBe(0);
    expect(diff.summary.text_changed).toBe(0);
  });
});

/**
 * R-OBS-09: one element, one row. The merged view folds each XCTest node a bridge node describes into
 * that node; the raw strategy (and an XCTest-only read, which merges nothing) keeps everything as reported.
 * The shapes below are the demo's Feed and Checkout screens as XCTest and the bridge report them.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { ObservationSnapshotSchema } from '@shared/protocol/sdk';
import { flattenTree } from '@shared/model/tree';
import { isWebView, nodeSource, xctestTwinOf } from '@shared/model/node';
import { mergeBridgeSnapshot } from '@shared/observe';
import { pickStackAt } from '@shared/inspect';
import { xctestAttributes } from '@shared/selectors';

const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
const app = (children: UiNode[]): UiNode => ({ className: 'XCUIApplication', text: 'Demo', bounds: rect(0, 0, 402, 874), node: children });
const snapshot = (children: unknown[]) =>
  ObservationSnapshotSchema.parse({
    captureIdentity: '9',
    orientation: 'portrait',
    coordinateSpace: 'screen',
    bounds: rect(0, 0, 402, 874),
    capabilities: [],
    root: { id: 'root', role: 'application', bounds: rect(0, 0, 402, 874), children },
  });

// Feed: a screen, a list, a cell with an anonymous image, a label and a button; a tab bar; the keyboard.
const keyboard: UiNode = {
  className: 'UIKeyboard',
  bounds: rect(0, 600, 402, 874),
  node: [{ className: 'UIButton', text: 'return', bounds: rect(300, 800, 400, 850) }],
};
const xctestFeed = app([
  {
    className: 'UIView',
    'resource-id': 'screen.feed',
    bounds: rect(0, 0, 402, 874),
    node: [
      {
        className: 'UICollectionView',
        'resource-id': 'feed.list',
        scrollable: 'true',
        bounds: rect(0, 116, 402, 874),
        extras: { hiddenContentBelow: 'true' },
        node: [
          {
            className: 'UICollectionViewCell',
            'resource-id': 'feed.cell.9',
            bounds: rect(0, 116, 402, 188),
            node: [
              { className: 'UIImageView', bounds: rect(16, 129, 60, 173) },
              { className: 'UILabel', text: 'Post 9', bounds: rect(72, 132, 342, 152) },
              { className: 'UIButton', 'resource-id': 'feed.like.9', text: 'Like Post 9', bounds: rect(342, 129, 386, 173) },
              // XCTest alone reports this one (a badge the app's bridge leaves out).
              { className: 'UILabel', text: 'New', bounds: rect(300, 120, 340, 130) },
            ],
          },
        ],
      },
    ],
  },
  {
    className: 'UITabBar',
    'resource-id': 'Tab Bar',
    bounds: rect(0, 791, 402, 874),
    node: [{ className: 'UIButton', 'resource-id': 'tab.feed', text: 'Feed', bounds: rect(80, 791, 160, 840) }],
  },
  keyboard,
]);
const bridgeFeed = snapshot([
  {
    id: 'screen.feed',
    role: 'other',
    bounds: rect(0, 0, 402, 874),
    children: [
      {
        id: 'feed.list',
        role: 'collectionView',
        bounds: rect(0, 116, 402, 874),
        children: [
          {
            id: 'feed.cell.9',
            role: 'cell',
            bounds: rect(0, 116, 402, 188),
            children: [
              { id: 'UIImageView@0.1.0', role: 'image', bounds: rect(16, 129, 60, 173) },
              { id: 'UILabel@0.1.1', role: 'staticText', label: 'Post 9', bounds: rect(72, 132, 342, 152) },
              { id: 'feed.like.9', role: 'button', label: 'Like Post 9', bounds: rect(342, 129, 386, 173) },
            ],
          },
        ],
      },
    ],
  },
  {
    id: 'Tab Bar',
    role: 'tabBar',
    bounds: rect(0, 791, 402, 874),
    children: [{ id: 'tab.feed', role: 'button', label: 'Feed', bounds: rect(80, 791, 160, 840) }],
  },
]);

const nodes = (root: UiNode) => flattenTree(root).map((f) => f.node);
const xctestNodes = (root: UiNode) => nodes(root).filter((n) => nodeSource(n) === 'xctest');
const byId = (root: UiNode, id: string) => nodes(root).filter((n) => n['resource-id'] === id);

describe('R-OBS-09: one element, one row', () => {
  const merged = mergeBridgeSnapshot(xctestFeed, bridgeFeed).root;
  const raw = mergeBridgeSnapshot(xctestFeed, bridgeFeed, { keepXctestTwins: true }).root;

  const table: { element: string; id: string }[] = [
    { element: 'the screen container', id: 'screen.feed' },
    { element: 'the scrolling list', id: 'feed.list' },
    { element: 'a cell', id: 'feed.cell.9' },
    { element: 'the tab bar', id: 'Tab Bar' },
    { element: 'a button (a duplicate leaf)', id: 'feed.like.9' },
  ];
  for (const row of table) {
    it(`R-OBS-09: ${row.element} is one row, the bridge's, standing for XCTest's (${row.id})`, () => {
      const rows = byId(merged, row.id);
      expect(rows).toHaveLength(1);
      expect(nodeSource(rows[0]!)).toBe('sdkBridge');
      expect(xctestTwinOf(rows[0]!)?.kind).toBe('replaced');
      // The raw strategy keeps XCTest's container beside it (a leaf is a duplicate either way).
      expect(byId(raw, row.id).length).toBe(row.id === 'feed.like.9' ? 1 : 2);
    });
  }

  it('R-OBS-09: the folded row carries both sources: the bridge role and XCTest\u2019s type, id and the projection\u2019s marks', () => {
    const list = byId(merged, 'feed.list')[0]!;
    expect(list.className).toBe('collectionView');
    expect(list.scrollable).toBe('true');
    expect(list.extras).toMatchObject({ 'sdk.source': 'sdkBridge', 'xctest.className': 'UICollectionView', hiddenContentBelow: 'true' });
    expect(xctestAttributes(list)).toMatchObject({ identifier: 'feed.list', xcuiType: 'XCUIElementTypeCollectionView' });
  });

  it('R-OBS-09: an anonymous XCTest image folds into the bridge image of its frame and type', () => {
    const images = nodes(merged).filter((n) => n.bounds?.left === 16 && n.bounds.top === 129);
    expect(images).toHaveLength(1);
    expect(xctestTwinOf(images[0]!)?.node.className).toBe('UIImageView');
  });

  it('R-OBS-09: what only XCTest reports stays, under the bridge node its XCTest parent folded into', () => {
    const cell = byId(merged, 'feed.cell.9')[0]!;
    const badge = (cell.node ?? []).find((n) => n.text === 'New');
    expect(badge).toBeDefined();
    expect(nodeSource(badge!)).toBe('xctest');
  });

  it('R-OBS-02, R-OBS-09: system UI the bridge does not describe (the keyboard) stays as XCTest reported it', () => {
    expect(merged.node).toContain(keyboard);
    expect(xctestNodes(merged).map((n) => n.className)).toEqual(['XCUIApplication', 'UILabel', 'UIKeyboard', 'UIButton']);
  });

  it('R-OBS-09: a click on the like button stacks each element once (button, cell, list, screen, application)', () => {
    const stack = pickStackAt(flattenTree(merged), 360, 150).map((f) => f.node['resource-id'] ?? f.node.className);
    expect(stack).toEqual(['feed.like.9', 'feed.cell.9', 'feed.list', 'screen.feed', 'XCUIApplication']);
    const rawStack = pickStackAt(flattenTree(raw), 360, 150).map((f) => f.node['resource-id'] ?? f.node.className);
    expect(rawStack.length).toBeGreaterThan(stack.length);
  });

  it('R-OBS-09: an XCTest container two bridge nodes could describe (same frame, no id or label) folds into neither', () => {
    const xctest = app([
      { className: 'UIView', bounds: rect(0, 100, 402, 200), node: [{ className: 'UILabel', text: 'Only XCTest', bounds: rect(0, 100, 100, 120) }] },
    ]);
    const bridge = snapshot([
      { id: 'a', role: 'other', bounds: rect(0, 100, 402, 200) },
      { id: 'b', role: 'other', bounds: rect(0, 100, 402, 200) },
    ]);
    const out = mergeBridgeSnapshot(xctest, bridge).root;
    expect(xctestNodes(out).map((n) => n.className)).toEqual(['XCUIApplication', 'UIView', 'UILabel']);
  });

  it('R-OBS-09: the input XCTest tree is not modified by the fold', () => {
    const copy = JSON.stringify(xctestFeed);
    mergeBridgeSnapshot(xctestFeed, bridgeFeed);
    expect(JSON.stringify(xctestFeed)).toBe(copy);
  });

  it('R-OBS-09: a WKWebView folded into the bridge\u2019s web view leaves that node the web view (the DOM merges under it)', () => {
    const xctest = app([
      { className: 'WKWebView', bounds: rect(0, 116, 402, 791), node: [{ className: 'UILabel', text: 'Your order', bounds: rect(16, 132, 386, 162) }] },
    ]);
    const bridge = snapshot([{ id: 'WKWebView@0.1', role: 'webView', bounds: rect(0, 116, 402, 791) }]);
    const folded = mergeBridgeSnapshot(xctest, bridge).root;
    expect(
      nodes(folded)
        .filter(isWebView)
        .map((n) => n['resource-id']),
    ).toEqual(['WKWebView@0.1']);
    const kept = mergeBridgeSnapshot(xctest, bridge, { keepXctestTwins: true }).root;
    // Kept beside it, XCTest's WKWebView is the one web view.
    expect(
      nodes(kept)
        .filter(isWebView)
        .map((n) => n.className),
    ).toEqual(['WKWebView']);
  });
});

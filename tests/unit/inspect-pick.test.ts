/**
 * The picking rule (docs/rules.md#r-pick): what a finger at a point hits, on trees shaped like the demo's
 * merged Feed (a bridge snapshot merged in place beside the XCTest tree it describes, a list scrolled
 * under a navigation bar and a tab bar) and Checkout (DOM elements under their web view).
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { actionTargetAt, pickStackAt, scrollContainerAt, topmostAt } from '@shared/inspect';

const b = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
const SCREEN = { width: 402, height: 874 };
const sdk = (id: string, className: string, bounds: ReturnType<typeof b>, over: Partial<UiNode> = {}): UiNode => ({
  className,
  'resource-id': id,
  bounds,
  clickable: 'true',
  'sdk-element-id': id,
  'sdk-capture-identity': '7',
  extras: { 'sdk.source': 'sdkBridge' },
  ...over,
});

/** The XCTest side of a scrolled Feed: a list under a navigation bar, a row and its image under the tab bar. */
const xctestFeed = (): UiNode[] => [
  {
    className: 'UIView',
    'resource-id': 'screen.feed',
    bounds: b(0, 0, 402, 874),
    node: [
      { className: 'UINavigationBar', 'resource-id': 'Feed', bounds: b(0, 62, 402, 116) },
      {
        className: 'UICollectionView',
        'resource-id': 'feed.list',
        scrollable: 'true',
        bounds: b(0, 116, 402, 874),
        node: [
          // Scrolled up under the navigation bar: outside the list, clipped away.
          { className: 'UICollectionViewCell', 'resource-id': 'feed.cell.8', clickable: 'true', bounds: b(0, 44, 402, 116) },
          {
            className: 'UICollectionViewCell',
            'resource-id': 'feed.cell.9',
            clickable: 'true',
            bounds: b(0, 116, 402, 188),
            node: [{ className: 'UIImageView', bounds: b(16, 129, 60, 173) }],
          },
          {
            className: 'UICollectionViewCell',
            'resource-id': 'feed.cell.19',
            clickable: 'true',
            bounds: b(0, 760, 402, 868),
            node: [{ className: 'UIImageView', bounds: b(16, 772, 60, 816) }],
          },
        ],
      },
    ],
  },
  {
    className: 'UITabBar',
    'resource-id': 'Tab Bar',
    bounds: b(0, 791, 402, 874),
    node: [{ className: 'UIButton', 'resource-id': 'tab.login', text: 'Login', clickable: 'true', bounds: b(0, 792, 80, 841) }],
  },
];

const xctestOnly = (): UiNode => ({ className: 'XCUIApplication', bounds: b(0, 0, 402, 874), node: xctestFeed() });

/** The same screen with the bridge merged in place, first under the root (bridge-merge.ts). */
const merged = (): UiNode => ({
  className: 'XCUIApplication',
  bounds: b(0, 0, 402, 874),
  node: [
    sdk('screen.feed', 'other', b(0, 0, 402, 874), {
      node: [
        sdk('Feed', 'navigationBar', b(0, 62, 402, 116)),
        sdk('feed.list', 'collectionView', b(0, 116, 402, 874), {
          scrollable: 'true',
          node: [
            sdk('feed.cell.8', 'cell', b(0, 44, 402, 116), { node: [sdk('UILabel@8', 'staticText', b(72, 60, 342, 80), { 'content-desc': 'Post 8' })] }),
            sdk('feed.cell.19', 'cell', b(0, 760, 402, 868), {
              node: [sdk('UIImageView@19', 'image', b(16, 772, 60, 816)), sdk('UILabel@19', 'staticText', b(72, 775, 342, 795), { 'content-desc': 'Post 19' })],
            }),
          ],
        }),
      ],
    }),
    sdk('Tab Bar', 'tabBar', b(0, 791, 402, 874), { node: [sdk('tab.login', 'button', b(0, 792, 80, 841), { 'content-desc': 'Login' })] }),
    // What XCTest keeps after the merge: containers and the leaves the bridge does not describe.
    ...xctestFeed().map((n) => (n.className === 'UITabBar' ? { ...n, node: [] } : n)),
  ],
});

const keyOf = (root: UiNode, x: number, y: number) => topmostAt(flattenTree(root), x, y, { screen: SCREEN });
const idAt = (root: UiNode, x: number, y: number) => keyOf(root, x, y)?.node['resource-id'];

describe('picking: what a finger at a point hits', () => {
  it('R-PICK-01: a row scrolled out of its list is not there, and nothing is off the screen', () => {
    const root = xctestOnly();
    // (100, 90) lies on the scrolled-up row's frame, but the list clips it: the navigation bar is there.
    expect(idAt(root, 100, 90)).toBe('Feed');
    expect(pickStackAt(flattenTree(root), 100, 90).map((f) => f.node['resource-id'])).not.toContain('feed.cell.8');
    expect(keyOf(root, 403, 100)).toBeNull();
    expect(keyOf(root, 100, -1)).toBeNull();
  });

  it('R-PICK-02: a tab bar drawn after the list lies over the row and the image under it', () => {
    const root = xctestOnly();
    // The image (16…60, 772…816) reaches under the tab bar and is smaller than the tab button; the smallest-first rule picked it.
    expect(idAt(root, 30, 800)).toBe('tab.login');
    // Over the tab bar's own background, the tab bar, not the row beneath it.
    expect(idAt(root, 30, 860)).toBe('Tab Bar');
    // Above the tab bar the row's image is really there.
    expect(keyOf(root, 30, 780)?.node.className).toBe('UIImageView');
  });

  it('R-PICK-03: with the bridge merged, the bridge tab button (inside the XCTest tab bar) wins over the cell image under it', () => {
    const root = merged();
    expect(idAt(root, 30, 800)).toBe('tab.login');
    expect(keyOf(root, 30, 800)?.node['sdk-element-id']).toBe('tab.login');
    // Of twins (same frame), the one an action can name.
    expect(keyOf(root, 200, 100)?.node['sdk-element-id']).toBe('Feed');
    // A bridge label inside the XCTest cell lies on it.
    expect(keyOf(root, 100, 780)?.node['content-desc']).toBe('Post 19');
    // …and the same label reaching under the tab bar is covered by it.
    expect(keyOf(root, 100, 793)?.node['sdk-element-id']).toBe('Tab Bar');
  });

  it('R-PICK-03: XCTest content the bridge does not describe (an alert) lies over the bridge’s nodes', () => {
    const root = merged();
    root.node!.push({
      className: 'XCUIElementTypeAlert',
      bounds: b(40, 300, 362, 600),
      node: [{ className: 'UIButton', text: 'OK', clickable: 'true', bounds: b(60, 540, 342, 580) }],
    });
    expect(keyOf(root, 200, 560)?.node.text).toBe('OK');
    expect(keyOf(root, 200, 400)?.node.className).toBe('XCUIElementTypeAlert');
  });

  it('R-PICK-03: a DOM element inside its web view wins over the web view, XCTest or bridge', () => {
    const dom: UiNode = {
      className: 'UITextField',
      role: 'textfield',
      'content-desc': 'Full name',
      bounds: b(16, 221, 386, 259),
      'web-view-id': 'checkout',
      'web-element-id': 'e5',
      'web-snapshot-id': 's2',
      'web-document-id': 'd1',
      'web-role': 'input',
      extras: { 'sdk.source': 'sdkWebBridge' },
    };
    const root: UiNode = {
      className: 'XCUIApplication',
      bounds: b(0, 0, 402, 874),
      node: [
        sdk('screen.checkout', 'other', b(0, 0, 402, 874), { node: [sdk('WKWebView@0.0.1', 'webView', b(0, 116, 402, 791))] }),
        {
          className: 'UIView',
          'resource-id': 'screen.checkout',
          bounds: b(0, 0, 402, 874),
          node: [{ className: 'WKWebView', bounds: b(0, 116, 402, 791), node: [dom] }],
        },
      ],
    };
    expect(keyOf(root, 100, 240)?.node['web-element-id']).toBe('e5');
  });

  it('R-PICK-04: the stack is the topmost node first, then the rest smallest first', () => {
    const stack = pickStackAt(flattenTree(xctestOnly()), 30, 800, { screen: SCREEN });
    expect(stack[0]?.node['resource-id']).toBe('tab.login');
    const rest = stack.slice(1).map((f) => f.node.className);
    expect(rest[0]).toBe('UIImageView');
    expect(rest.at(-1)).toBe('XCUIApplication');
  });

  it('R-PICK-04: a node the legend hides is not picked, but still clips what lies in it', () => {
    const flat = flattenTree(xctestOnly());
    const pickable = (f: { node: UiNode }) => f.node.className !== 'UICollectionView';
    expect(pickStackAt(flat, 100, 90, { pickable }).map((f) => f.node['resource-id'])).not.toContain('feed.cell.8');
  });

  it('R-PICK-05: a click acts on the control a finger hits, as its bridge twin; a container of controls is not one', () => {
    const root = merged();
    const flat = flattenTree(root);
    expect(actionTargetAt(flat, 30, 820, { screen: SCREEN })?.node['sdk-element-id']).toBe('tab.login');
    // On the row's background (no control there) a tap is a tap at the point.
    expect(actionTargetAt(flat, 380, 770, { screen: SCREEN })).toBeNull();
    // An XCTest image with no identity inside an XCTest cell: the cell is the control, and its bridge twin is what is named.
    const plain = flattenTree(xctestOnly());
    expect(actionTargetAt(plain, 30, 150)?.node['resource-id']).toBe('feed.cell.9');
  });

  it('R-PICK-05: a drag scrolls the list the finger is on, never one under a tab bar', () => {
    const flat = flattenTree(merged());
    expect(scrollContainerAt(flat, 200, 500)?.node['sdk-element-id']).toBe('feed.list');
    expect(scrollContainerAt(flat, 30, 820)).toBeNull();
  });
});

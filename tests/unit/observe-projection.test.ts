import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode, type ViewHierarchy } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { HIDDEN_CONTENT_ABOVE, HIDDEN_CONTENT_BELOW, projectRaw, projectVisible, qualityVerdict, RawHierarchyTooLargeError } from '@shared/observe';
import { SDK_SOURCE_KEY } from '@shared/model/node';

const here = dirname(fileURLToPath(import.meta.url));

function golden(file: string): ViewHierarchy {
  const recorded = JSON.parse(readFileSync(resolve(here, '../../resources/recordings/settings-tap-general', file), 'utf8')) as {
    response: { data: unknown };
  };
  return ViewHierarchySchema.parse(recorded.response.data);
}

const W = 402;
const H = 874;
const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
const app = (children: UiNode[]): ViewHierarchy => ({
  screenWidth: W,
  screenHeight: H,
  hierarchy: { className: 'XCUIApplication', bounds: rect(0, 0, W, H), node: children },
});
const ids = (root: UiNode | undefined) =>
  root
    ? flattenTree(root)
        .map((f) => f.node['resource-id'])
        .filter((id) => id !== undefined)
    : [];

/** A list of `rows` 44-point cells in a scroll view above a tab bar, the shape that node budgets break. */
function longList(rows: number): ViewHierarchy {
  const cells: UiNode[] = [];
  for (let i = 0; i < rows; i++) {
    cells.push({
      className: 'UITableViewCell',
      'resource-id': `row${i}`,
      clickable: 'true',
      bounds: rect(0, 100 + i * 44, W, 144 + i * 44),
      node: [{ className: 'UILabel', text: `Row ${i}`, bounds: rect(16, 110 + i * 44, 300, 134 + i * 44) }],
    });
  }
  return app([
    { className: 'UITableView', 'resource-id': 'list', scrollable: 'true', bounds: rect(0, 100, W, 790), node: cells },
    {
      className: 'UITabBar',
      'resource-id': 'tabs',
      bounds: rect(0, 790, W, H),
      node: ['Home', 'Search', 'Profile'].map((t, i) => ({
        className: 'UIButton',
        role: 'button',
        'resource-id': `tab${t}`,
        text: t,
        clickable: 'true',
        bounds: rect(i * 134, 790, i * 134 + 134, 840),
      })),
    },
  ]);
}

describe('visible strategy', () => {
  it('R-STR-02: the golden Settings hierarchy projects visible without losing the bottom search bar', () => {
    const h = golden('0008-request_hierarchy_if_stale.json');
    const projected = projectVisible(h).hierarchy!;
    const searchBar = flattenTree(projected).find((f) => f.node.className === 'UISearchBar');
    expect(searchBar?.node).toMatchObject({ role: 'textfield', 'hint-text': 'Search' });
    expect(flattenTree(projected).find((f) => f.node['resource-id'] === 'Dictate')).toBeDefined();
    // Every node of this screen is on it (the Screen Time cell straddles the bottom edge), so nothing is lost.
    expect(flattenTree(projected)).toHaveLength(flattenTree(h.hierarchy!).length);
    expect(ids(projected)).toContain('com.apple.settings.screenTime');
  });

  it('R-STR-05: no node-count cutoff — a bottom tab bar after a 5,000-row list stays', () => {
    const projected = projectVisible(longList(5000)).hierarchy!;
    const kept = ids(projected);
    expect(kept).toEqual(expect.arrayContaining(['tabs', 'tabHome', 'tabSearch', 'tabProfile']));
    expect(kept).toContain('row0');
    expect(kept).not.toContain('row4999');
    expect(kept.filter((id) => id.startsWith('row'))).toHaveLength(16); // rows 0–15 overlap 100..790
  });

  it('R-STR-03: a node inside a scroll container counts only when it intersects both the app viewport and the nearest visible scroll container', () => {
    const projected = projectVisible(
      app([
        {
          className: 'UIScrollView',
          scrollable: 'true',
          bounds: rect(0, 200, W, 400),
          node: [
            { className: 'UILabel', 'resource-id': 'inside', text: 'a', bounds: rect(0, 250, 100, 280) },
            // On screen, but outside its scroll container's frame: scrolled out of the container.
            { className: 'UILabel', 'resource-id': 'clippedByContainer', text: 'b', bounds: rect(0, 450, 100, 480) },
            // Level with its container, but off screen to the right.
            { className: 'UILabel', 'resource-id': 'offViewport', text: 'c', bounds: rect(500, 250, 600, 280) },
          ],
        },
        { className: 'UILabel', 'resource-id': 'outsideAnyScroll', text: 'd', bounds: rect(0, 450, 100, 480) },
      ]),
    ).hierarchy;
    expect(ids(projected)).toEqual(['inside', 'outsideAnyScroll']);
  });

  it('R-STR-03: a nested scroll container narrows the clip: its content is visible only where it overlaps every enclosing container', () => {
    const projected = projectVisible(
      app([
        {
          className: 'UIScrollView',
          'resource-id': 'outer',
          scrollable: 'true',
          bounds: rect(0, 0, W, 400),
          node: [
            {
              className: 'UICollectionView',
              'resource-id': 'carousel',
              scrollable: 'true',
              bounds: rect(0, 350, W, 500),
              node: [
                { className: 'UIButton', 'resource-id': 'visibleCard', clickable: 'true', bounds: rect(0, 360, 100, 390) },
                { className: 'UIButton', 'resource-id': 'belowOuter', clickable: 'true', bounds: rect(0, 420, 100, 480) },
              ],
            },
          ],
        },
      ]),
    ).hierarchy;
    expect(ids(projected)).toEqual(['outer', 'carousel', 'visibleCard']);
  });

  it('R-STR-04: offscreen descendants set hiddenContentAbove / hiddenContentBelow on their scroll container instead of being emitted', () => {
    const list: UiNode = {
      className: 'UITableView',
      'resource-id': 'list',
      scrollable: 'true',
      bounds: rect(0, 100, W, 700),
      node: [
        { className: 'UILabel', 'resource-id': 'above', text: 'x', bounds: rect(0, 40, W, 90) },
        { className: 'UILabel', 'resource-id': 'shown', text: 'y', bounds: rect(0, 300, W, 340) },
        { className: 'UILabel', 'resource-id': 'below', text: 'z', bounds: rect(0, 720, W, 760) },
      ],
    };
    const projected = projectVisible(app([list])).hierarchy!;
    const container = flattenTree(projected).find((f) => f.node['resource-id'] === 'list')!.node;
    expect(container.extras).toEqual({ [HIDDEN_CONTENT_ABOVE]: 'true', [HIDDEN_CONTENT_BELOW]: 'true' });
    expect(ids(projected)).toEqual(['list', 'shown']);
    // The hint lands only on the container that owns the hidden content.
    const onlyBelow = projectVisible(longList(100)).hierarchy!;
    expect(flattenTree(onlyBelow).find((f) => f.node['resource-id'] === 'list')!.node.extras).toEqual({ [HIDDEN_CONTENT_BELOW]: 'true' });
  });

  it('decision: a WKWebView clips its content like a scroll container — a page element below the web view is not visible, and says so on the web view', () => {
    const projected = projectVisible(
      app([
        {
          className: 'WKWebView',
          'resource-id': 'web',
          bounds: rect(0, 116, W, 791),
          node: [
            { className: 'UILabel', 'resource-id': 'shown', text: 'Your order', bounds: rect(16, 132, 386, 162) },
            // On screen, under the tab bar: below the fold of the page, not on the screen a user sees.
            { className: 'UILabel', 'resource-id': 'belowFold', text: 'Payment', bounds: rect(16, 807, 386, 832) },
          ],
        },
      ]),
    ).hierarchy!;
    expect(ids(projected)).toEqual(['web', 'shown']);
    expect(flattenTree(projected).find((f) => f.node['resource-id'] === 'web')!.node.extras).toEqual({ [HIDDEN_CONTENT_BELOW]: 'true' });
  });

  it('R-STR-02: visible ancestors are kept — a wrapper without a frame of its own holds its visible child', () => {
    const projected = projectVisible(
      app([
        {
          className: 'UIView',
          'resource-id': 'zeroWrapper',
          bounds: rect(0, 0, 0, 0),
          node: [{ className: 'UIButton', 'resource-id': 'ok', clickable: 'true', bounds: rect(10, 10, 90, 50) }],
        },
      ]),
    ).hierarchy;
    expect(ids(projected)).toEqual(['zeroWrapper', 'ok']);
  });

  it('R-STR-02: the input tree is not modified and an unchanged subtree is shared', () => {
    const h = longList(50);
    const before = JSON.stringify(h);
    const projected = projectVisible(h).hierarchy!;
    expect(JSON.stringify(h)).toBe(before);
    expect(projected.node![1]).toBe(h.hierarchy!.node![1]); // the tab bar, wholly visible
  });

  it('R-STR-02: a hierarchy that is only an error passes through untouched', () => {
    const failed: ViewHierarchy = { error: 'kAXErrorIllegalArgument' };
    expect(projectVisible(failed)).toBe(failed);
  });
});

describe('raw strategy', () => {
  it('R-STR-08: raw keeps the whole tree, offscreen nodes included', () => {
    const h = longList(200);
    const raw = projectRaw(h, { maxBytes: 10_000_000 });
    expect(raw.ok && raw.hierarchy).toBe(h);
  });

  it('R-STR-08: a raw tree too large to carry fails with an explicit typed error, never a silent truncation', () => {
    const raw = projectRaw(longList(5000), { maxBytes: 100_000 });
    expect(raw.ok).toBe(false);
    if (!raw.ok) {
      expect(raw.error).toBeInstanceOf(RawHierarchyTooLargeError);
      expect(raw.error.code).toBe('raw_too_large');
      expect(raw.error.bytes).toBeGreaterThan(100_000);
    }
  });
});

describe('R-QUA-01: quality verdict', () => {
  const table: { rule: string; name: string; xctest: ViewHierarchy | undefined; merged?: UiNode; verdict: string; reason: string }[] = [
    { rule: 'R-QUA-02', name: 'an application root alone is sparse, not an empty screen', xctest: app([]), verdict: 'sparse', reason: 'application_root_only' },
    {
      rule: 'R-QUA-02',
      name: 'root + only non-interactive wrappers is sparse',
      xctest: app([{ className: 'UIWindow', bounds: rect(0, 0, W, H), node: [{ className: 'UIView', 'resource-id': 'container', bounds: rect(0, 0, W, H) }] }]),
      verdict: 'sparse',
      reason: 'non_interactive_wrappers_only',
    },
    { rule: 'R-QUA-01', name: 'a tree with controls is healthy', xctest: longList(3), verdict: 'healthy', reason: 'xctest_tree' },
    {
      rule: 'R-QUA-03',
      name: 'recovered when XCTest was sparse but the SDK bridge supplied the controls',
      xctest: app([]),
      merged: { className: 'XCUIApplication', node: [{ className: 'button', clickable: 'true', extras: { [SDK_SOURCE_KEY]: 'sdkBridge' } }] },
      verdict: 'recovered',
      reason: 'sdk_bridge_supplied_controls',
    },
    {
      rule: 'R-QUA-03',
      name: 'recovered when the web snapshot supplied the controls',
      xctest: app([{ className: 'WKWebView', bounds: rect(0, 0, W, H) }]),
      merged: {
        className: 'XCUIApplication',
        node: [{ className: 'WKWebView', node: [{ className: 'button', 'content-desc': 'Go', extras: { [SDK_SOURCE_KEY]: 'sdkWebBridge' } }] }],
      },
      verdict: 'recovered',
      reason: 'web_bridge_supplied_controls',
    },
    {
      rule: 'R-QUA-01',
      name: 'a real AX failure (kAXErrorIllegalArgument) is preserved as ax_failure, not an empty tree',
      xctest: { error: 'Error kAXErrorIllegalArgument getting snapshot' },
      verdict: 'sparse',
      reason: 'ax_failure',
    },
    {
      rule: 'R-QUA-02',
      name: 'another hierarchy error is named as such',
      xctest: { error: 'application is not running' },
      verdict: 'sparse',
      reason: 'hierarchy_error',
    },
    { rule: 'R-QUA-02', name: 'no hierarchy at all', xctest: undefined, verdict: 'sparse', reason: 'hierarchy_unavailable' },
  ];
  for (const row of table) {
    it(`${row.rule}: ${row.name}`, () => {
      expect(qualityVerdict({ xctest: row.xctest, merged: row.merged })).toEqual({ verdict: row.verdict, reason: row.reason });
    });
  }
});

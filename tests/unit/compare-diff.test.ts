import { describe, expect, it } from 'vitest';
import { DIFF_CLASSES, diffTrees, filterDifferences, intersectionOverUnion } from '@shared/compare/diff';
import { differencesAt, keysOn, pairIndex, partnerOf, summaryText } from '@shared/compare/sides';
import type { UiNode } from '@shared/protocol/runner';
import { goldenRoot } from '../support/golden';

const loadGolden = () => goldenRoot();

const golden = loadGolden();

function at(root: UiNode, key: string): UiNode {
  let node = root;
  for (const part of key.split('.').slice(1)) {
    const child = node.node?.[Number(part)];
    if (!child) throw new Error(`no node at ${key}`);
    node = child;
  }
  return node;
}

function parentOf(root: UiNode, key: string): { parent: UiNode; index: number } {
  const cut = key.lastIndexOf('.');
  return { parent: at(root, key.slice(0, cut)), index: Number(key.slice(cut + 1)) };
}

// Keys in the golden Settings screen (checked below, so a changed fixture fails loudly, not subtly).
const APPLE_ACCOUNT_LABEL = '0.1.1.0.1';
const CAMERA_BUTTON = '0.1.7.0';
const SCREEN_TIME_BUTTON = '0.1.11.0';
const SCROLL_BAR = '0.1.12';
const SEARCH_BAR = '0.2';

/** An SDK-backed observation of the same moment, as the bridge merge would produce it, with one of each change. */
function sdkBackedCopy(): UiNode {
  const sdk = structuredClone(golden);
  // A bridge node replaced the XCTest leaf (same place, same label; role mapped onto className).
  const { parent, index } = parentOf(sdk, APPLE_ACCOUNT_LABEL);
  const leaf = at(sdk, APPLE_ACCOUNT_LABEL);
  parent.node![index] = {
    className: 'text',
    role: 'text',
    'content-desc': 'Apple Account',
    'resource-id': 'account.title',
    'test-tag': 'account.title',
    'sdk-element-id': 'account.title',
    'sdk-capture-identity': '18446744073709551615',
    extras: { 'sdk.source': 'sdkBridge' },
    bounds: { ...leaf.bounds! },
  };
  // Moved.
  const camera = at(sdk, CAMERA_BUTTON);
  camera.bounds = { ...camera.bounds!, left: camera.bounds!.left + 4, right: camera.bounds!.right + 4 };
  // Text changed.
  at(sdk, SCREEN_TIME_BUTTON).text = 'Screen Time, 2 hours today';
  // Value changed.
  at(sdk, SEARCH_BAR).value = 'wifi';
  // Only in XCTest: the scroll bar is gone.
  const bar = parentOf(sdk, SCROLL_BAR);
  bar.parent.node!.splice(bar.index, 1);
  // Only in the SDK-backed tree: a bridge node with no XCTest counterpart.
  sdk.node!.push({
    className: 'button',
    role: 'button',
    'content-desc': 'Share',
    'resource-id': 'share',
    'test-tag': 'share',
    'sdk-element-id': 'share',
    extras: { 'sdk.source': 'sdkBridge' },
    bounds: { left: 340, top: 70, right: 390, bottom: 110 },
  });
  return sdk;
}

describe('diffTrees on the golden Settings screen', () => {
  it('finds the fixture where the cases expect it', () => {
    expect(at(golden, APPLE_ACCOUNT_LABEL).text).toBe('Apple Account');
    expect(at(golden, CAMERA_BUTTON).text).toBe('Camera');
    expect(at(golden, SCREEN_TIME_BUTTON).text).toBe('Screen Time');
    expect(at(golden, SCROLL_BAR).text).toBe('Vertical scroll bar, 2 pages');
    expect(at(golden, SEARCH_BAR).className).toBe('UISearchBar');
  });

  it('pairs an identical copy node for node, with no differences', () => {
    const diff = diffTrees(golden, structuredClone(golden));
    expect(diff.nodes).toEqual({ xctest: 54, sdk: 54 });
    expect(diff.differences).toEqual([]);
    expect(diff.pairs).toHaveLength(54);
    // Eleven "chevron.forward" images share one id: each pairs with the one in the same place.
    for (const pair of diff.pairs) expect(pair.sdkKey).toBe(pair.xctestKey);
    for (const cls of DIFF_CLASSES) expect(diff.summary[cls]).toBe(0);
  });

  it('detects each class of difference exactly once', () => {
    const diff = diffTrees(golden, sdkBackedCopy());
    expect(diff.summary).toEqual({
      only_xctest: 1,
      only_sdk: 1,
      text_changed: 1,
      value_changed: 1,
      geometry_changed: 1,
      identity_added: 1,
    });
    const one = (cls: (typeof DIFF_CLASSES)[number]) => {
      const found = filterDifferences(diff, cls);
      expect(found).toHaveLength(1);
      return found[0]!;
    };
    expect(one('identity_added')).toMatchObject({ xctestKey: APPLE_ACCOUNT_LABEL, sdkKey: APPLE_ACCOUNT_LABEL });
    expect(one('identity_added').detail).toContain('sdk-element-id="account.title"');
    expect(one('geometry_changed')).toMatchObject({ xctestKey: CAMERA_BUTTON, sdkKey: CAMERA_BUTTON });
    expect(one('geometry_changed').detail).toContain('moved by (+4, +0)');
    expect(one('text_changed')).toMatchObject({ xctestKey: SCREEN_TIME_BUTTON, sdkKey: SCREEN_TIME_BUTTON });
    expect(one('text_changed').detail).toBe('text "Screen Time" → "Screen Time, 2 hours today"');
    expect(one('value_changed')).toMatchObject({ xctestKey: SEARCH_BAR, sdkKey: SEARCH_BAR });
    expect(one('value_changed').detail).toBe('value (none) → "wifi"');
    expect(one('only_xctest')).toEqual({ class: 'only_xctest', xctestKey: SCROLL_BAR, detail: 'UIView "Vertical scroll bar, 2 pages"' });
    expect(one('only_sdk')).toEqual({ class: 'only_sdk', sdkKey: '0.3', detail: 'button "Share"' });
    const bridgePair = diff.pairs.find((p) => p.xctestKey === APPLE_ACCOUNT_LABEL);
    expect(bridgePair?.by).toBe('label');
  });

  it('pairs by box overlap when both identity and label changed', () => {
    const sdk = structuredClone(golden);
    const key = '0.1.1.0.2'; // "Sign in to access your iCloud data, ..."
    const { parent, index } = parentOf(sdk, key);
    const b = at(sdk, key).bounds!;
    parent.node![index] = {
      className: 'text',
      'content-desc': 'Sign in to iCloud',
      'sdk-element-id': 'account.subtitle',
      extras: { 'sdk.source': 'sdkBridge' },
      bounds: { left: b.left, top: b.top + 2, right: b.right - 10, bottom: b.bottom },
    };
    const diff = diffTrees(golden, sdk);
    expect(diff.pairs.find((p) => p.xctestKey === key)).toEqual({ xctestKey: key, sdkKey: key, by: 'overlap' });
    expect(diff.summary).toMatchObject({ only_xctest: 0, only_sdk: 0, text_changed: 1, geometry_changed: 1, identity_added: 1 });
  });

  it('leaves boxes that overlap less than IoU 0.5 unpaired', () => {
    const sdk = structuredClone(golden);
    const key = '0.1.1.0.2';
    const b = at(sdk, key).bounds!;
    const w = b.right - b.left;
    const { parent, index } = parentOf(sdk, key);
    // Shifted by 60% of its width: IoU is 0.4 / 1.6 = 0.25.
    parent.node![index] = {
      className: 'text',
      'content-desc': 'Somewhere else',
      bounds: { ...b, left: b.left + Math.round(w * 0.6), right: b.right + Math.round(w * 0.6) },
    };
    const diff = diffTrees(golden, sdk);
    expect(diff.summary.only_xctest).toBe(1);
    expect(diff.summary.only_sdk).toBe(1);
  });

  it('tells apart a repeated label by class', () => {
    const x: UiNode = {
      className: 'XCUIApplication',
      'view-id': 'root',
      bounds: { left: 0, top: 0, right: 400, bottom: 800 },
      node: [
        { className: 'UIButton', text: 'Search', bounds: { left: 0, top: 0, right: 100, bottom: 40 } },
        { className: 'UISearchBar', text: 'Search', bounds: { left: 0, top: 700, right: 400, bottom: 740 } },
      ],
    };
    const s = structuredClone(x);
    s.node!.reverse();
    s.node![0]!.bounds = { left: 0, top: 600, right: 400, bottom: 640 }; // the search bar moved up
    const diff = diffTrees(x, s);
    expect(diff.pairs).toContainEqual({ xctestKey: '0.0', sdkKey: '0.1', by: 'label' });
    expect(diff.pairs).toContainEqual({ xctestKey: '0.1', sdkKey: '0.0', by: 'label' });
    expect(diff.summary.geometry_changed).toBe(1);
  });

  it('reports a web identity added to an XCTest leaf inside a web view', () => {
    const leaf = { className: 'XCUIElementTypeTextField', 'resource-id': 'email', text: 'Email', bounds: { left: 10, top: 100, right: 390, bottom: 140 } };
    const x: UiNode = {
      className: 'XCUIApplication',
      bounds: { left: 0, top: 0, right: 400, bottom: 800 },
      node: [{ className: 'WKWebView', 'view-id': 'wv', bounds: { left: 0, top: 50, right: 400, bottom: 800 }, node: [leaf] }],
    };
    const s = structuredClone(x);
    Object.assign(s.node![0]!.node![0]!, {
      'web-view-id': 'checkout',
      'web-snapshot-id': 's7',
      'web-element-id': '12',
      'web-document-id': 'd3',
      'web-role': 'input',
      role: 'textfield',
      extras: { 'sdk.source': 'sdkWebBridge' },
    });
    const diff = diffTrees(x, s);
    const found = filterDifferences(diff, 'identity_added');
    expect(found).toHaveLength(1);
    expect(found[0]!.detail).toMatch(/^web identity: .*web-element-id="12"/);
    expect(diff.differences).toHaveLength(1);
  });

  it('does not call a redacted value a change', () => {
    const x: UiNode = { className: 'XCUIApplication', node: [{ 'resource-id': 'pw', 'content-desc': 'Password', text: '••••', password: 'true' }] };
    const s: UiNode = { className: 'XCUIApplication', node: [{ 'resource-id': 'pw', 'content-desc': 'Password', 'value-redacted': 'true' }] };
    expect(diffTrees(x, s).differences).toEqual([]);
  });

  it('computes IoU', () => {
    expect(intersectionOverUnion({ left: 0, top: 0, right: 10, bottom: 10 }, { left: 0, top: 0, right: 10, bottom: 10 })).toBe(1);
    expect(intersectionOverUnion({ left: 0, top: 0, right: 10, bottom: 10 }, { left: 5, top: 0, right: 15, bottom: 10 })).toBeCloseTo(1 / 3);
    expect(intersectionOverUnion({ left: 0, top: 0, right: 10, bottom: 10 }, { left: 10, top: 0, right: 20, bottom: 10 })).toBe(0);
  });
});

describe('diffTrees at scale', () => {
  /** A list screen: rows of cells with a label, a value and a chevron; no ids, so labels and boxes do the work. */
  function listScreen(rows: number, shift: number, label: (i: number) => string): UiNode {
    const cells: UiNode[] = [];
    for (let i = 0; i < rows; i++) {
      const top = i * 44 + shift;
      cells.push({
        className: 'UITableViewCell',
        bounds: { left: 0, top, right: 400, bottom: top + 44 },
        node: [
          { className: 'UILabel', text: label(i), bounds: { left: 16, top: top + 12, right: 200, bottom: top + 32 } },
          { className: 'UILabel', text: 'On', bounds: { left: 300, top: top + 12, right: 340, bottom: top + 32 } },
          { className: 'UIImageView', 'resource-id': 'chevron.forward', bounds: { left: 360, top: top + 16, right: 367, bottom: top + 28 } },
        ],
      });
    }
    return { className: 'XCUIApplication', bounds: { left: 0, top: 0, right: 400, bottom: rows * 44 }, node: cells };
  }

  // How fast is the bench's to say (`npm run bench -- diff`), never a test's: a wall-clock bound here failed
  // on a loaded machine (docs/rules.md#r-suite-01).
  it('diffs two 5,000-node trees and pairs everything that only moved', () => {
    const x = listScreen(1250, 0, (i) => `Row ${i}`);
    const s = listScreen(1250, 2, (i) => (i % 100 === 0 ? `Row ${i} (edited)` : `Row ${i}`));
    const diff = diffTrees(x, s);
    expect(diff.nodes.xctest).toBe(5001);
    expect(diff.summary.only_xctest).toBe(0);
    expect(diff.summary.only_sdk).toBe(0);
    expect(diff.summary.text_changed).toBe(13);
  });
});

describe('reading a diff from one side (the Compare view)', () => {
  // The SDK-backed copy with its children reversed: a pair's keys differ, so a lookup that returned the
  // key it was given (or the wrong direction's map) would be caught.
  function reversedCopy(): UiNode {
    const sdk = sdkBackedCopy();
    sdk.node!.reverse();
    return sdk;
  }

  it('maps a selected node to its partner in both directions, and an unpaired one to null', () => {
    const sdk = reversedCopy();
    const diff = diffTrees(golden, sdk);
    const index = pairIndex(diff.pairs);
    const moved = diff.pairs.filter((p) => p.xctestKey !== p.sdkKey);
    expect(moved.length).toBeGreaterThan(10);
    for (const pair of diff.pairs) {
      expect(partnerOf(index, 'xctest', pair.xctestKey)).toBe(pair.sdkKey);
      expect(partnerOf(index, 'sdk', pair.sdkKey)).toBe(pair.xctestKey);
    }
    // The Camera button is the same element on both sides, wherever the reversal put it.
    const camera = partnerOf(index, 'xctest', CAMERA_BUTTON)!;
    expect(camera).not.toBe(CAMERA_BUTTON);
    expect(at(sdk, camera).text).toBe('Camera');
    const onlyXctest = filterDifferences(diff, 'only_xctest')[0]!.xctestKey!;
    const onlySdk = filterDifferences(diff, 'only_sdk')[0]!.sdkKey!;
    expect(partnerOf(index, 'xctest', onlyXctest)).toBeNull();
    expect(partnerOf(index, 'sdk', onlySdk)).toBeNull();
    expect(partnerOf(index, 'xctest', '0.999')).toBeNull();
  });

  it('names the nodes of one class on each side, and the differences of one node', () => {
    const diff = diffTrees(golden, reversedCopy());
    const onlySdk = filterDifferences(diff, 'only_sdk');
    expect(keysOn(onlySdk, 'sdk')).toEqual(new Set([onlySdk[0]!.sdkKey]));
    expect(keysOn(onlySdk, 'xctest').size).toBe(0);
    const geometry = filterDifferences(diff, 'geometry_changed');
    expect(keysOn(geometry, 'xctest')).toEqual(new Set([CAMERA_BUTTON]));

    // The Apple Account label gained a bridge identity and nothing else; the camera only moved.
    const index = pairIndex(diff.pairs);
    expect(differencesAt(diff, 'xctest', APPLE_ACCOUNT_LABEL).map((d) => d.class)).toEqual(['identity_added']);
    const cameraOnSdk = partnerOf(index, 'xctest', CAMERA_BUTTON)!;
    expect(differencesAt(diff, 'sdk', cameraOnSdk).map((d) => d.class)).toEqual(['geometry_changed']);
    // An XCTest key is not looked up among SDK-backed keys.
    expect(differencesAt(diff, 'sdk', CAMERA_BUTTON)).toEqual([]);
  });

  it('sums a summary up in words, only the classes that occur, in class order', () => {
    expect(summaryText({ only_xctest: 0, only_sdk: 12, text_changed: 0, value_changed: 0, geometry_changed: 2, identity_added: 24 })).toBe(
      '12 only in SDK-backed, 2 position or size changed, 24 identity added',
    );
    expect(summaryText({ only_xctest: 0, only_sdk: 0 })).toBe('no differences');
  });
});

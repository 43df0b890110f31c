/**
 * The pure helpers behind the observation UI: sources and their filter, the backend line, the quality
 * banner, error lines, hidden-content marks, safe-area regions, layout-warning titles, capture stamps
 * (UInt64 digits kept exactly) and the merged attributes.
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '@shared/protocol/device';
import { FrameSchema } from '@shared/protocol/device';
import { observation } from '../support/observation';
import { parseJsonLossless } from '@shared/protocol/json';
import type { LayoutWarning } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import {
  backendLine,
  emptyObservationReasons,
  frameStamps,
  frameMismatch,
  hiddenContentMarks,
  insetsOf,
  layoutWarningSummary,
  layoutWarningTitle,
  nodeAttributes,
  nodesShownIn,
  observationErrorLine,
  pickableAmong,
  qualityBanner,
  safeAreaRegions,
  shortContext,
  sourceCounts,
  sourceOutcomeText,
  timingsLine,
} from '@shared/inspect';
import { nodeSource } from '@shared/model/node';
import { indexTree } from '@shared/model/tree';

const node = (fields: Record<string, unknown>, children: UiNode[] = []): UiNode =>
  ({ ...fields, ...(children.length > 0 ? { node: children } : {}) }) as unknown as UiNode;

const root = node({ className: 'XCUIApplication', bounds: { left: 0, top: 0, right: 402, bottom: 874 } }, [
  node({ className: 'tabBar', extras: { 'sdk.source': 'sdkBridge' }, bounds: { left: 0, top: 791, right: 402, bottom: 874 } }),
  node(
    {
      className: 'UICollectionView',
      scrollable: 'true',
      extras: { hiddenContentAbove: 'true', hiddenContentBelow: 'true' },
      bounds: { left: 0, top: 116, right: 402, bottom: 874 },
    },
    [node({ className: 'UILabel', extras: { 'sdk.source': 'sdkWebBridge' }, bounds: { left: 16, top: 132, right: 386, bottom: 162 } })],
  ),
  node({ className: 'UIView', extras: { 'sdk.source': 'somethingElse' } }),
]);

describe('node sources', () => {
  const tree = indexTree(root);

  it('reads extras["sdk.source"], anything else being XCTest', () => {
    expect(tree.nodes.map((f) => nodeSource(f.node))).toEqual(['xctest', 'sdkBridge', 'xctest', 'sdkWebBridge', 'xctest']);
    expect(nodeSource(node({ extras: null }))).toBe('xctest');
  });

  it('counts and filters by source', () => {
    expect(sourceCounts(tree.nodes)).toEqual({ xctest: 3, sdkBridge: 1, sdkWebBridge: 1 });
    expect(nodesShownIn(tree.nodes, new Set())).toBe(tree.nodes);
    expect(nodesShownIn(tree.nodes, new Set(['sdkWebBridge', 'xctest'] as const)).map((f) => f.key)).toEqual(['0.0']);
  });

  it('R-PERF-08: picks among the shown nodes with one key set per filtered list, none when nothing is hidden', () => {
    expect(pickableAmong(tree.nodes, tree.nodes)).toBeUndefined();
    const shown = nodesShownIn(tree.nodes, new Set(['sdkWebBridge', 'xctest'] as const));
    const pickable = pickableAmong(shown, tree.nodes);
    // The App's pick stack and the Screen's hover ask for the same list: they get the same test, built once.
    expect(pickableAmong(shown, tree.nodes)).toBe(pickable);
    expect(tree.nodes.filter((flat) => pickable?.(flat)).map((f) => f.key)).toEqual(['0.0']);
    expect(pickableAmong([...shown], tree.nodes)).not.toBe(pickable);
  });
});

describe('the frame header', () => {
  it('says which backend served the observation, why it fell back, and "XCTest only" without one', () => {
    expect(backendLine(observation({ backend: 'sdk' }))).toBe('backend: sdk');
    expect(backendLine(observation({ backend: 'xctest', fallbackReason: 'unavailable' }))).toBe('backend: xctest · fallback: unavailable');
    expect(backendLine(observation({ backend: 'xctest' }))).toBe('backend: xctest');
    expect(backendLine(observation())).toBe('backend: XCTest only');
    expect(backendLine(null)).toBe('backend: XCTest only');
  });

  it('banners a recovered or sparse verdict, never a healthy one', () => {
    expect(qualityBanner({ verdict: 'healthy', reason: 'xctest_tree' })).toBeNull();
    expect(qualityBanner(undefined)).toBeNull();
    expect(qualityBanner({ verdict: 'recovered', reason: 'sdk_bridge_supplied_controls' })).toMatchObject({
      verdict: 'recovered',
      title: 'Recovered',
      text: expect.stringContaining('SDK bridge supplied the controls'),
    });
    expect(qualityBanner({ verdict: 'sparse', reason: 'ax_failure' })?.text).toContain('accessibility');
  });

  it('writes one line per error and a few words per source outcome', () => {
    expect(observationErrorLine({ stage: 'web', code: 'web_failure', message: 'failed', failure: 'app_not_active' })).toBe(
      'web · web_failure: failed (app_not_active)',
    );
    expect(observationErrorLine({ stage: 'xctest', code: 'ax_failure', message: 'kAX' })).toBe('xctest · ax_failure: kAX');
    expect(sourceOutcomeText({ status: 'merged', reason: 'merged', nodes: 11 })).toBe('merged, 11 nodes');
    expect(sourceOutcomeText({ status: 'not_merged', reason: 'coordinate_space_window' })).toBe('not merged: coordinate_space_window');
    expect(sourceOutcomeText({ status: 'not_read', reason: 'flag_off' })).toBe('not read: flag_off');
    expect(sourceOutcomeText(undefined)).toBe('not read');
  });

  it('summarises timings, total first', () => {
    expect(timingsLine({ xctest: 18.3, screenshot: 139.2, merge: 0.45, total: 158.5 })).toBe('total 159 ms · xctest 18 · screenshot 139 · merge 0.5');
    expect(timingsLine(undefined)).toBe('');
  });
});

describe('overlay marks', () => {
  it('marks scroll containers with hidden content, once per side', () => {
    const marks = hiddenContentMarks(indexTree(root).nodes);
    expect(marks).toEqual([
      { nodeKey: '0.1', direction: 'above', bounds: { left: 0, top: 116, right: 402, bottom: 874 } },
      { nodeKey: '0.1', direction: 'below', bounds: { left: 0, top: 116, right: 402, bottom: 874 } },
    ]);
  });

  it('shades each non-zero inset once, and each cutout', () => {
    const insets = {
      safeArea: { top: 62, left: 0, bottom: 34, right: 0 },
      displayCutoutInfo: { classification: 'dynamic_island', bounds: [{ left: 138, top: 11, right: 264, bottom: 48 }] },
    };
    expect(safeAreaRegions(insets, 402, 874)).toEqual([
      { side: 'top', rect: { left: 0, top: 0, right: 402, bottom: 62 } },
      { side: 'bottom', rect: { left: 0, top: 840, right: 402, bottom: 874 } },
      { side: 'cutout', rect: { left: 138, top: 11, right: 264, bottom: 48 } },
    ]);
    const landscape = safeAreaRegions({ safeArea: { top: 0, left: 62, bottom: 21, right: 62 } }, 874, 402);
    expect(landscape.map((r) => r.side)).toEqual(['bottom', 'left', 'right']);
    expect(landscape[1]?.rect).toEqual({ left: 0, top: 0, right: 62, bottom: 381 });
    expect(safeAreaRegions(null, 402, 874)).toEqual([]);
    expect(safeAreaRegions(insets, 0, 874)).toEqual([]);
  });

  it('takes the observation insets, else the hierarchy insets, else its system insets', () => {
    const systemInsets = { top: 1, left: 0, bottom: 2, right: 0 };
    expect(insetsOf(observation({ viewHierarchy: { systemInsets } as never }))).toEqual({ safeArea: systemInsets });
    expect(insetsOf(null)).toBeNull();
  });

  it('titles a layout warning with its overflow and inset', () => {
    const warning: LayoutWarning = {
      nodeKey: '0.0.0.2',
      side: 'cutout',
      region: 'displayCutout',
      severity: 'error',
      overflowPx: 32,
      insetPx: 48,
      bounds: { left: 161, top: 16, right: 241, bottom: 52 },
      caption: 'edges.island',
    };
    expect(layoutWarningTitle(warning)).toBe('error · edges.island: cutout — overflowPx 32 into the display cutout, insetPx 48');
    const summary = layoutWarningSummary(
      observation({ layoutWarnings: { scope: 'full', warnings: [warning, { ...warning, severity: 'advisory', advisory: 'edgeToEdgeBackground' }] } }),
    );
    expect(summary).toEqual({ error: 1, warning: 0, advisory: 1, total: 2, scope: 'full' });
  });
});

describe('capture stamps', () => {
  const wire = `{"deviceId":"d","receivedAt":5,"hierarchyFrameContext":"S:2:50458a321bafa1ae",
    "screenshot":{"format":"png","dataBase64":"","frameContext":"S:2:50458a321bafa1ae"},
    "observation":{"updatedAt":1,"updatedAtSource":"device","layoutWarnings":{"scope":"full","warnings":[]},"errors":[],
      "quality":{"verdict":"healthy","reason":"xctest_tree"},"strategy":"visible","timings":{},"sources":{},
      "captureIdentity":18446744073709551001,"webSnapshotId":"s2","viewHierarchy":{"hierarchy":{"className":"X"}}}}`;

  it('keeps every digit of a UInt64 capture identity from the wire to the stamp', () => {
    const frame: Frame = FrameSchema.parse(parseJsonLossless(wire));
    const stamp = frameStamps(frame);
    expect(stamp).toEqual({
      captureIdentity: '18446744073709551001',
      treeContext: 'S:2:50458a321bafa1ae',
      shotContext: 'S:2:50458a321bafa1ae',
      webSnapshotId: 's2',
      agreement: 'same',
    });
    expect(String(Number(stamp.captureIdentity))).not.toBe(stamp.captureIdentity);
    expect(frameMismatch(frame)).toBe(false);
  });

  it('tells two moments apart, and a missing stamp from either', () => {
    const frame: Frame = FrameSchema.parse(parseJsonLossless(wire));
    const other = { ...frame, screenshot: { ...frame.screenshot!, frameContext: 'S:3:aa' } };
    expect(frameStamps(other).agreement).toBe('different');
    expect(frameMismatch(other)).toBe(true);
    const unstamped = { ...frame, screenshot: null };
    expect(frameStamps(unstamped).agreement).toBe('unstamped');
    expect(frameMismatch(unstamped)).toBe(false);
    expect(frameStamps(undefined)).toEqual({ agreement: 'unstamped' });
  });

  it('shortens a frame context for the header', () => {
    expect(shortContext('7CD7F7BB-E248-4AFC-9B3C-FF23D7E27B51:2:50458a321bafa1ae')).toBe('2:50458a32');
    expect(shortContext('abc')).toBe('abc');
    expect(shortContext('0123456789abcdefghij')).toBe('…89abcdefghij');
  });
});

describe('merged attributes', () => {
  it('lists what the merge added, as sent, after the node own attributes', () => {
    const rows = nodeAttributes(
      node({
        className: 'UISecureTextField',
        'value-redacted': 'true',
        'web-origin': 'https://checkout.parallax.test',
        'web-element-id': 'e8',
        'sdk-capture-identity': '18446744073709551001',
        'sdk-element-id': 'checkout.password',
        extras: { 'sdk.source': 'sdkWebBridge' },
      }),
    );
    const merged = rows.filter((r) => r.group === 'merged');
    expect(merged).toEqual([
      { name: 'sdk-element-id', value: 'checkout.password', group: 'merged' },
      { name: 'sdk-capture-identity', value: '18446744073709551001', group: 'merged' },
      { name: 'web-element-id', value: 'e8', group: 'merged' },
      { name: 'web-origin', value: 'https://checkout.parallax.test', group: 'merged' },
      { name: 'value-redacted', value: 'true', group: 'merged' },
    ]);
    expect(rows.findIndex((r) => r.group === 'merged')).toBe(rows.findIndex((r) => r.name === 'children') + 1);
    expect(rows.filter((r) => r.name === 'web-origin')).toHaveLength(1);
  });
});

describe('R-AR-31: an empty observation is an error with its reasons', () => {
  const quality = { verdict: 'sparse' as const, reason: 'appreveal_no_elements' as const };
  const leaf = { className: 'AppRevealScreen' };
  it('a root without a child, or no tree at all, is empty and says why; one node below the root is not', () => {
    expect(emptyObservationReasons({ quality, errors: [], viewHierarchy: { hierarchy: leaf } as never })).toEqual([
      'The app answered get_elements with no elements.',
    ]);
    expect(
      emptyObservationReasons({
        quality,
        errors: [{ stage: 'appreveal', code: 'appreveal_failed', message: 'get_screen failed' }] as never,
        viewHierarchy: undefined as never,
      }),
    ).toEqual(['The app answered get_elements with no elements.', 'no element tree was read', 'appreveal · appreveal_failed: get_screen failed']);
    expect(
      emptyObservationReasons({ quality, errors: [], viewHierarchy: { hierarchy: { ...leaf, node: [{ className: 'button' }] } } as never }),
    ).toBeUndefined();
  });
});

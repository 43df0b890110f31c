/**
 * The observe-scope REGION transform and its co-scoped layout warnings (docs/rules.md#r-lay-08, #r-lay-10).
 * The cases are AutoMobile's own (kaeawc/auto-mobile,
 * test/features/observe/output/ObserveScopeExperiments.test.ts: its `androidFixture` geometry, "scopeToRegion"
 * and "co-scopes layoutWarnings (issue #5074)"), on Parallax's observation.
 */
import { describe, expect, it } from 'vitest';
import { ObservationSchema, type Observation } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { ObserveRegionError, parseObserveRegion, scopeToRegion } from '@shared/observe';
import { flattenTree } from '@shared/model/tree';
import { androidObservation, androidTree, HEADER_B, ITEM_2_B, NAV_BAR_B, STATUS_BAR_B, warningAt } from '../support/scope-fixture';

/** AutoMobile's fixture, its chrome named plainly. */
const fixture = (fields: Partial<Observation> = {}): Observation => androidObservation(androidTree(), fields);

const ids = (o: Observation) => flattenTree(o.viewHierarchy!.hierarchy!).flatMap((f) => (f.node['resource-id'] ? [f.node['resource-id']] : []));
const keyOf = (o: Observation, id: string) => flattenTree(o.viewHierarchy!.hierarchy!).find((f) => f.node['resource-id'] === id)?.key;
const TOP_HALF = { x1: 0, y1: 0, x2: 1, y2: 0.5 };
const WHOLE = { x1: 0, y1: 0, x2: 1, y2: 1 };

describe('scopeToRegion', () => {
  it('R-LAY-10: without a box the content rectangle (screen minus systemInsets) drops the chrome that only touches it', () => {
    const result = scopeToRegion(fixture());
    expect(result.observeScope.regionPx).toEqual({ left: 0, top: 80, right: 1080, bottom: 2300 });
    expect(ids(result)).not.toContain('status_bar');
    expect(ids(result)).not.toContain('navigation_bar');
    expect(ids(result)).toContain('header');
    expect(result.observeScope).toMatchObject({ applied: ['region'], nodesBefore: 9, nodesAfter: 7 });
    expect(ObservationSchema.safeParse(result).success).toBe(true);
  });

  it('R-LAY-10: a normalized box crops to the top half, keeping what reaches into it', () => {
    const result = scopeToRegion(fixture(), TOP_HALF);
    expect(result.observeScope.regionPx).toEqual({ left: 0, top: 0, right: 1080, bottom: 1200 });
    expect(ids(result)).toEqual(['status_bar', 'header', 'list']);
    // The pruned tree's keys are its own: the list is still the header's next sibling.
    expect(keyOf(result, 'list')).toBe('0.1.1');
  });

  it('R-LAY-10: a node without bounds is never geometrically excluded', () => {
    const o = fixture();
    (o.viewHierarchy!.hierarchy!.node as UiNode[]).push({ 'resource-id': 'boundless' });
    expect(ids(scopeToRegion(o, { x1: 0, y1: 0, x2: 0.1, y2: 0.1 }))).toContain('boundless');
  });

  it('R-LAY-10: a crop that keeps every node is not applied; without a screen size nothing is placed', () => {
    expect(scopeToRegion(fixture(), WHOLE).observeScope).toMatchObject({ applied: [], nodesBefore: 9, nodesAfter: 9 });
    const unsized = scopeToRegion(fixture({ screenSize: undefined }), TOP_HALF);
    expect(unsized.observeScope).toEqual({ applied: [], nodesBefore: 9, nodesAfter: 9 });
    expect(ids(unsized)).toContain('navigation_bar');
  });

  it('R-LAY-10: pure: the observation given is not changed', () => {
    const o = fixture({ layoutWarnings: { scope: 'full', warnings: [warningAt('0.1.0', HEADER_B), warningAt('0.2', NAV_BAR_B)] } });
    const before = JSON.stringify(o);
    scopeToRegion(o, TOP_HALF);
    expect(JSON.stringify(o)).toBe(before);
  });

  it('R-LAY-10: the focused element follows its node, and leaves with it', () => {
    const focused = (nodeKey: string) => ({ nodeKey, source: 'xctest' as const, node: {} });
    expect(scopeToRegion(fixture({ focusedElement: focused('0.2') }), TOP_HALF).focusedElement).toBeUndefined();
    expect(scopeToRegion(fixture({ focusedElement: focused('0.1.0') }), TOP_HALF).focusedElement?.nodeKey).toBe('0.1.0');
  });
});

describe('parseObserveRegion', () => {
  it('R-LAY-10: four fractions x1,y1,x2,y2, else a typed error naming the flag', () => {
    expect(parseObserveRegion('0, 0, 1, 0.5')).toEqual(TOP_HALF);
    for (const bad of ['0,0,1', '0,0,1,x', '0,0,1.5,1', '0.5,0,0.5,1', '', '0,0,,1']) {
      expect(() => parseObserveRegion(bad)).toThrow(ObserveRegionError);
    }
    expect(() => parseObserveRegion('0,0,1')).toThrow(/--observe-region/);
  });
});

describe('R-LAY-08: layout warnings co-scoped with the region', () => {
  it('R-LAY-08: a warning whose element falls outside the crop is dropped and the list becomes scoped', () => {
    const o = fixture({ layoutWarnings: { scope: 'full', warnings: [warningAt('0.1.0', HEADER_B), warningAt('0.2', NAV_BAR_B)] } });
    const { layoutWarnings } = scopeToRegion(o, TOP_HALF);
    expect(layoutWarnings).toEqual({ scope: 'scoped', warnings: [expect.objectContaining({ nodeKey: '0.1.0', bounds: HEADER_B })] });
  });

  it('R-LAY-08: a kept warning names its element by its key in the pruned tree', () => {
    // The content rectangle drops the status bar (0.0), so the app's subtree moves up one place.
    const o = fixture({ layoutWarnings: { scope: 'full', warnings: [warningAt('0.0', STATUS_BAR_B), warningAt('0.1.1.1', ITEM_2_B)] } });
    const result = scopeToRegion(o);
    expect(result.layoutWarnings.warnings.map((w) => w.nodeKey)).toEqual(['0.0.1.1']);
    expect(flattenTree(result.viewHierarchy!.hierarchy!).find((f) => f.key === '0.0.1.1')?.node.text).toBe('Item 2');
  });

  it('R-LAY-08: a truncated list becomes scoped and drops its stale total when scoping removes warnings', () => {
    const o = fixture({ layoutWarnings: { scope: 'truncated', total: 137, warnings: [warningAt('0.1.0', HEADER_B), warningAt('0.2', NAV_BAR_B)] } });
    const { layoutWarnings } = scopeToRegion(o, TOP_HALF);
    expect(layoutWarnings.scope).toBe('scoped');
    expect(layoutWarnings.total).toBeUndefined();
    expect(layoutWarnings.warnings).toHaveLength(1);
  });

  it('R-LAY-08: when every warning survives and nothing is pruned, scope and total stand', () => {
    const o = fixture({ layoutWarnings: { scope: 'truncated', total: 137, warnings: [warningAt('0.1.0', HEADER_B)] } });
    expect(scopeToRegion(o, WHOLE).layoutWarnings).toEqual({ scope: 'truncated', total: 137, warnings: [warningAt('0.1.0', HEADER_B)] });
  });

  it('R-LAY-08: a truncated list becomes scoped once the tree was pruned, even when every shown warning survives', () => {
    // A capped-away warning may belong to a pruned node: the total no longer describes what is shown.
    const o = fixture({ layoutWarnings: { scope: 'truncated', total: 137, warnings: [warningAt('0.1.0', HEADER_B)] } });
    expect(scopeToRegion(o, TOP_HALF).layoutWarnings).toEqual({ scope: 'scoped', warnings: [warningAt('0.1.0', HEADER_B)] });
  });

  it('R-LAY-08: a full list whose warnings all survive a pruning crop stays full', () => {
    const o = fixture({ layoutWarnings: { scope: 'full', warnings: [warningAt('0.1.0', HEADER_B)] } });
    expect(scopeToRegion(o, TOP_HALF).layoutWarnings.scope).toBe('full');
  });
});

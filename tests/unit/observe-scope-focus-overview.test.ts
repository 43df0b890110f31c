/**
 * The FOCUS and OVERVIEW observe-scopes, their composition with REGION, and the co-scoped layout warnings
 * and accessibility findings (docs/rules.md#r-scope-01..05, #r-lay-08). The cases are AutoMobile's own
 * (kaeawc/auto-mobile test/features/observe/output/ObserveScopeExperiments.test.ts @8cca70b: its
 * package-qualified `androidFixture`, "scopeToFocus", "toOverview", "applyObserveScopeExperiments" and
 * "co-scopes layoutWarnings (issue #5074)"), on Parallax's observation.
 */
import { describe, expect, it } from 'vitest';
import { ObservationSchema, type Observation } from '@shared/protocol/observation';
import type { AccessibilityAudit, A11yFinding } from '@shared/protocol/accessibility';
import type { UiNode } from '@shared/protocol/runner';
import { ObserveRegionError, parseObserveFocus, scopeAudit, scopeObservation } from '@shared/observe';
import { flattenTree } from '@shared/model/tree';
import { androidObservation, androidTree, HEADER_B, ITEM_2_B, STATUS_BAR_B, warningAt, type Bounds } from '../support/scope-fixture';

const SYSUI = 'com.android.systemui';
const APP = 'com.example.app';
const STATUS_BAR = `${SYSUI}:id/status_bar`;
const NAV_BAR = `${SYSUI}:id/navigation_bar`;
const HEADER = `${APP}:id/header`;
const LIST = `${APP}:id/list`;
const IDS = { statusBar: STATUS_BAR, header: HEADER, list: LIST, navBar: NAV_BAR };
/** AutoMobile's fixture, its chrome by package-qualified ids, in the foreground app's window. */
const tree = (): UiNode => androidTree(IDS);

function fixture(root: UiNode = tree(), fields: Partial<Observation> = {}): Observation {
  return androidObservation(root, {
    activeWindow: { bundleId: APP },
    viewHierarchy: { packageName: APP, hierarchy: root } as Observation['viewHierarchy'],
    ...fields,
  });
}

const nodes = (o: Observation) => (o.viewHierarchy?.hierarchy ? flattenTree(o.viewHierarchy.hierarchy) : []);
const ids = (o: Observation) => nodes(o).flatMap((f) => (f.node['resource-id'] ? [f.node['resource-id']] : []));
const texts = (o: Observation) => nodes(o).flatMap((f) => (f.node.text ? [f.node.text] : []));
const byId = (o: Observation, id: string) => nodes(o).find((f) => f.node['resource-id'] === id);
const keyIn = (root: UiNode, id: string) => flattenTree(root).find((f) => f.node['resource-id'] === id || f.node.text === id)!.key;

describe('R-SCOPE-01: FOCUS, foreground app', () => {
  it('R-SCOPE-01: drops identifiable foreign chrome (by resource-id package) and says so', () => {
    const out = scopeObservation(fixture(), { focus: true }).observation;
    expect(out.observeScope.focus).toEqual({ by: 'foreground-app', matched: true, packageName: APP });
    expect(ids(out).some((id) => id.startsWith(SYSUI))).toBe(false);
    expect(ids(out)).toEqual(expect.arrayContaining([HEADER, LIST]));
    expect(out.observeScope.applied).toEqual(['focus']);
    expect(out.observeScope.nodesBefore).toBe(9);
    expect(out.observeScope.nodesAfter).toBe(7);
  });

  it('R-SCOPE-01: keeps id-less app leaves (never drops content for lacking an id)', () => {
    expect(texts(scopeObservation(fixture(), { focus: true }).observation)).toEqual(expect.arrayContaining(['Item 1', 'Item 2']));
  });

  it('R-SCOPE-01: keeps android: framework ids (app content, not chrome), drops a dotted foreign IME subtree', () => {
    const root = tree();
    (root.node as UiNode[]).push(
      {
        'resource-id': 'android:id/content',
        bounds: { left: 0, top: 300, right: 1080, bottom: 500 },
        node: [
          { 'resource-id': `${APP}:id/ok`, text: 'OK', bounds: { left: 0, top: 300, right: 200, bottom: 500 } },
          { 'resource-id': 'android:id/button1', text: 'Cancel', bounds: { left: 200, top: 300, right: 400, bottom: 500 } },
        ],
      } as UiNode,
      { 'resource-id': 'com.google.android.inputmethod.latin:id/keyboard', bounds: { left: 0, top: 1800, right: 1080, bottom: 2300 } },
    );
    const kept = ids(scopeObservation(fixture(root), { focus: true }).observation);
    expect(kept).toEqual(expect.arrayContaining(['android:id/content', 'android:id/button1', `${APP}:id/ok`]));
    expect(kept.some((id) => id.startsWith('com.google.android.inputmethod') || id.startsWith(SYSUI))).toBe(false);
  });

  it('R-SCOPE-01: a no-op on iOS identifiers with a colon (undotted prefix) and on a tree without qualified ids', () => {
    const ios = {
      className: 'Application',
      node: [
        { 'resource-id': 'row:0', text: 'First', bounds: { left: 0, top: 0, right: 400, bottom: 100 } },
        { 'resource-id': 'section:2:cell:1', text: 'Second', bounds: { left: 0, top: 100, right: 400, bottom: 200 } },
      ],
    } as UiNode;
    const out = scopeObservation(fixture(ios, { viewHierarchy: { packageName: 'com.example.iosapp', hierarchy: ios } as Observation['viewHierarchy'] }), {
      focus: true,
    }).observation;
    expect(out.observeScope.focus?.matched).toBe(false);
    expect(out.observeScope.applied).toEqual([]);
    expect(out.observeScope.nodesAfter).toBe(3);
    expect(ids(out)).toContain('row:0');
  });

  it('R-SCOPE-01: without a foreground app nothing is pruned (matched false, no package)', () => {
    const o = fixture(tree(), { activeWindow: undefined, viewHierarchy: { hierarchy: tree() } as Observation['viewHierarchy'] });
    expect(scopeObservation(o, { focus: true }).observation.observeScope.focus).toEqual({ by: 'foreground-app', matched: false });
  });
});

describe('R-SCOPE-02: FOCUS, anchor', () => {
  it('R-SCOPE-02: by resource-id keeps only the matched subtree, rooted at it', () => {
    const out = scopeObservation(fixture(), { focus: { resourceId: LIST } }).observation;
    expect(out.observeScope.focus).toEqual({ by: 'anchor', matched: true });
    expect(out.viewHierarchy!.hierarchy!['resource-id']).toBe(LIST);
    expect(out.observeScope.nodesAfter).toBe(3); // list + 2 items
  });

  it('R-SCOPE-02: by substring text keeps the matching node’s subtree', () => {
    const out = scopeObservation(fixture(), { focus: { text: 'Titl' } }).observation;
    expect(out.viewHierarchy!.hierarchy!['resource-id']).toBe(HEADER);
  });

  it('R-SCOPE-02: an unmatched anchor leaves the tree untouched', () => {
    const out = scopeObservation(fixture(), { focus: { resourceId: 'does-not-exist' } }).observation;
    expect(out.observeScope).toMatchObject({ applied: [], nodesBefore: 9, nodesAfter: 9, focus: { by: 'anchor', matched: false } });
  });

  it('R-SCOPE-02: --observe-focus takes app, id:… or text:…, else a typed error naming the flag', () => {
    expect(parseObserveFocus('app')).toBe(true);
    expect(parseObserveFocus('id:login.button')).toEqual({ resourceId: 'login.button' });
    expect(parseObserveFocus('text:Sign in')).toEqual({ text: 'Sign in' });
    for (const bad of ['', 'id:', 'label:x', 'login']) expect(() => parseObserveFocus(bad), bad).toThrow(ObserveRegionError);
    expect(() => parseObserveFocus('x')).toThrow(/--observe-focus/);
  });
});

describe('R-SCOPE-03: OVERVIEW', () => {
  it('R-SCOPE-03: keeps structural nodes, drops anonymous leaves and counts what went below a kept node', () => {
    const out = scopeObservation(fixture(), { overview: true }).observation;
    expect(ids(out)).toEqual(expect.arrayContaining([LIST, HEADER]));
    const list = byId(out, LIST)!.node as UiNode & { node?: unknown };
    expect(list.node).toBeUndefined(); // both id-less rows collapsed
    expect(list.omittedDescendants).toBe(2);
    // The anonymous View leaf goes too: the LinearLayout counts 3 (two rows and the View).
    expect(out.viewHierarchy!.hierarchy!.node).toBeDefined();
    expect(out.observeScope).toMatchObject({ applied: ['overview'], nodesBefore: 9, nodesAfter: 6 });
    // The decoded observation keeps the count (it is a field of the schema, not dropped on the wire).
    expect((byId(ObservationSchema.parse(out), LIST)!.node as { omittedDescendants?: number }).omittedDescendants).toBe(2);
  });

  it('R-SCOPE-03: keeps id-less but addressable leaves (clickable / content-desc)', () => {
    const root = tree();
    ((root.node as UiNode[])[1]!.node as UiNode[]).push({
      clickable: 'true',
      'content-desc': 'Add item',
      bounds: { left: 0, top: 2100, right: 200, bottom: 2200 },
    });
    const out = scopeObservation(fixture(root), { overview: true }).observation;
    expect(nodes(out).map((f) => f.node['content-desc'])).toContain('Add item');
  });

  it('R-SCOPE-03: strips non-structural attributes from a kept node, keeping bounds and the SDK source mark', () => {
    const root = tree();
    const header = (root.node as UiNode[])[1]!.node as UiNode[];
    header[0] = { ...header[0]!, value: 'v', extras: { 'sdk.source': 'sdkBridge', other: 'x' } };
    const kept = byId(scopeObservation(fixture(root), { overview: true }).observation, HEADER)!.node;
    expect(kept.text).toBeUndefined();
    expect(kept.value).toBeUndefined();
    expect(kept.bounds).toEqual(HEADER_B);
    expect(kept.extras).toEqual({ 'sdk.source': 'sdkBridge' });
  });

  it('R-SCOPE-03: always applied, even when no node goes', () => {
    const leaf = { 'resource-id': 'only', text: 'x', bounds: HEADER_B } as UiNode;
    expect(scopeObservation(fixture(leaf), { overview: true }).observation.observeScope.applied).toEqual(['overview']);
  });
});

describe('R-SCOPE-04: composition', () => {
  it('R-SCOPE-04: focus, region and overview run in that order, each at most once; pure', () => {
    const o = fixture();
    const before = JSON.stringify(o);
    const out = scopeObservation(o, { focus: true, region: true, overview: true }).observation;
    const order = ['focus', 'region', 'overview'];
    const at = out.observeScope.applied.map((k) => order.indexOf(k));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(new Set(out.observeScope.applied).size).toBe(out.observeScope.applied.length);
    expect(out.observeScope.applied).toContain('overview');
    expect(out.observeScope.regionPx).toEqual({ left: 0, top: 80, right: 1080, bottom: 2300 });
    expect(JSON.stringify(o)).toBe(before);
    expect(() => ObservationSchema.parse(out)).not.toThrow();
  });

  it('R-SCOPE-04: nothing asked is nothing done: the tree whole, observeScope empty', () => {
    const out = scopeObservation(fixture(), {}).observation;
    expect(out.observeScope).toEqual({ applied: [], nodesBefore: 9, nodesAfter: 9 });
  });
});

describe('R-LAY-08: layout warnings co-scoped with FOCUS and OVERVIEW', () => {
  const root = tree();
  const k = (id: string) => keyIn(root, id);

  it('R-LAY-08: FOCUS drops a warning for pruned foreign chrome; the kept one names its node anew', () => {
    const o = fixture(root, { layoutWarnings: { scope: 'full', warnings: [warningAt(k(STATUS_BAR), STATUS_BAR_B), warningAt(k(HEADER), HEADER_B)] } });
    const out = scopeObservation(o, { focus: true }).observation;
    expect(out.layoutWarnings.scope).toBe('scoped');
    expect(out.layoutWarnings.warnings.map((w) => w.bounds)).toEqual([HEADER_B]);
    expect(byId(out, HEADER)!.key).toBe(out.layoutWarnings.warnings[0]!.nodeKey);
  });

  it('R-LAY-08: OVERVIEW alone retains warnings, a collapsed leaf’s at the kept ancestor standing for it; scope stays full', () => {
    const o = fixture(root, { layoutWarnings: { scope: 'full', warnings: [warningAt(k(HEADER), HEADER_B), warningAt(k('Item 2'), ITEM_2_B)] } });
    const out = scopeObservation(o, { overview: true }).observation;
    expect(out.layoutWarnings.scope).toBe('full');
    expect(out.layoutWarnings.warnings.map((w) => w.bounds)).toEqual([HEADER_B, ITEM_2_B]);
    expect(out.layoutWarnings.warnings[1]!.nodeKey).toBe(byId(out, LIST)!.key);
  });

  it('R-LAY-08: an anchor keeps only its subtree’s warnings (the sibling’s goes)', () => {
    const o = fixture(root, {
      layoutWarnings: { scope: 'truncated', total: 137, warnings: [warningAt(k(HEADER), HEADER_B), warningAt(k('Item 2'), ITEM_2_B)] },
    });
    const out = scopeObservation(o, { focus: { resourceId: LIST } }).observation;
    expect(out.layoutWarnings).toEqual({ scope: 'scoped', warnings: [warningAt('0.1', ITEM_2_B)] });
  });

  it('R-SCOPE-04: the focused element follows its node, and leaves when OVERVIEW collapses it', () => {
    const o = fixture(root, { focusedElement: { nodeKey: k('Item 2'), source: 'xctest', node: { text: 'Item 2' } } });
    expect(scopeObservation(o, { focus: { resourceId: LIST } }).observation.focusedElement?.nodeKey).toBe('0.1');
    expect(scopeObservation(o, { overview: true }).observation.focusedElement).toBeUndefined();
  });
});

describe('R-SCOPE-05: accessibility findings co-scoped', () => {
  const root = tree();
  const finding = (id: string, bounds: Bounds, severity: A11yFinding['severity'] = 'warning'): A11yFinding => ({
    rule: 'R-A11Y-03',
    kind: 'hitRegion',
    severity,
    nodeKey: keyIn(root, id),
    element: { id, source: 'xctest' },
    bounds,
    message: 'small',
    evidence: {},
    fix: 'grow it',
    fingerprint: `R-A11Y-03|${id}`,
  });
  const audit = (violations: A11yFinding[], truncated?: AccessibilityAudit['truncated']): AccessibilityAudit => ({
    violations,
    summary: {
      total: truncated?.total ?? violations.length,
      bySeverity: { error: 1, warning: violations.length - 1, info: 0 },
      byKind: { elementDetection: 0, sufficientElementDescription: 0, hitRegion: violations.length, contrast: 0, trait: 0, textClipped: 0 },
      notEvaluated: [],
    },
    ...(truncated ? { truncated } : {}),
  });

  it('R-SCOPE-05: a finding of a pruned node goes, the kept ones name their node in the scoped tree, the summary counts them', () => {
    const scoped = scopeObservation(fixture(root), { focus: true });
    const out = scopeAudit(audit([finding(STATUS_BAR, STATUS_BAR_B, 'error'), finding(HEADER, HEADER_B)]), scoped);
    expect(out.violations.map((f) => f.element.id)).toEqual([HEADER]);
    expect(out.violations[0]!.nodeKey).toBe(byId(scoped.observation, HEADER)!.key);
    expect(out.summary).toMatchObject({ total: 1, bySeverity: { error: 0, warning: 1, info: 0 }, byKind: { hitRegion: 1, contrast: 0 } });
  });

  it('R-SCOPE-05: every finding kept: the summary stands; a capped audit of a pruned tree loses its stale total', () => {
    const scoped = scopeObservation(fixture(root), { focus: true });
    const whole = audit([finding(HEADER, HEADER_B, 'error'), finding(LIST, HEADER_B)]);
    expect(scopeAudit(whole, scoped).summary).toEqual(whole.summary);
    const capped = scopeAudit(audit([finding(HEADER, HEADER_B, 'error'), finding(LIST, HEADER_B)], { total: 600, omitted: 598 }), scoped);
    expect(capped.truncated).toBeUndefined();
    expect(capped.summary.total).toBe(2);
    // OVERVIEW alone prunes nothing: a collapsed row's finding stays, at the list standing for it, and the cap stands.
    const overview = scopeObservation(fixture(root), { overview: true });
    const kept = scopeAudit(audit([finding(HEADER, HEADER_B, 'error'), finding('Item 2', ITEM_2_B)], { total: 600, omitted: 598 }), overview);
    expect(kept.truncated).toEqual({ total: 600, omitted: 598 });
    expect(kept.violations[1]!.nodeKey).toBe(byId(overview.observation, LIST)!.key);
  });
});

/**
 * `parallax observe --observe-focus / --observe-overview` on the demo device (docs/rules.md#r-scope-01..05): the
 * real command over the demo's real ports. An anchor roots the tree at its element and the audit's findings
 * are co-scoped with it; the skeleton keeps every layout warning at a node of the returned tree; the foreground
 * app's FOCUS finds no foreign chrome on iOS (no dotted `package:id/…` identifiers) and says so.
 */
import { describe, expect, it } from 'vitest';
import { ObservationSchema, type Observation } from '@shared/protocol/observation';
import { flattenTree } from '@shared/model/tree';
import { admin } from '../support/demo-admin';
import { useCliOverDemo } from '../support/host-over-demo';

const cli = useCliOverDemo();

async function observe(...extra: string[]): Promise<Observation> {
  const { code, stdout, stderr } = await cli.parallax('observe', '--device', cli.demo.runnerUrl, '--json', ...extra);
  expect(code, stderr).toBe(0);
  return ObservationSchema.parse(JSON.parse(stdout));
}
/** A margin, not a bound: the command line starts a process per observe on a shared machine. */
const SLOW = 240_000;
const nodesOf = (o: Observation) => new Map(flattenTree(o.viewHierarchy!.hierarchy!).map((f) => [f.key, f.node]));

describe('parallax observe with the FOCUS and OVERVIEW observe-scopes on the demo device', () => {
  it(
    'R-SCOPE-02, R-SCOPE-05: an anchor roots the tree at its element; the audit keeps only its findings, each at a node of the returned tree',
    async () => {
      await admin(cli.demo.adminUrl, '/screen', { screen: 'access' });
      const whole = await observe('--accessibility-audit');
      const ids = new Set(whole.accessibilityAudit!.violations.map((f) => f.element.id));
      expect(ids).toContain('access.gear');
      expect(ids.size).toBeGreaterThan(1);

      const gear = await observe('--accessibility-audit', '--observe-focus', 'id:access.gear');
      expect(gear.observeScope).toMatchObject({ applied: ['focus'], focus: { by: 'anchor', matched: true } });
      expect(gear.viewHierarchy!.hierarchy!['resource-id']).toBe('access.gear');
      const audit = gear.accessibilityAudit!;
      expect(audit.violations.length).toBeGreaterThan(0);
      expect(audit.summary.total).toBe(audit.violations.length);
      const nodes = nodesOf(gear);
      for (const f of audit.violations) {
        expect(f.element.id, f.rule).toBe('access.gear');
        expect(nodes.get(f.nodeKey)?.bounds, f.rule).toEqual(f.bounds);
      }
      expect(audit.summary.total).toBeLessThan(whole.accessibilityAudit!.summary.total);
    },
    SLOW,
  );

  it(
    'R-SCOPE-03, R-LAY-08: the skeleton keeps every layout warning of the Edges screen, each at a node still returned',
    async () => {
      await admin(cli.demo.adminUrl, '/screen', { screen: 'edges' });
      const whole = await observe();
      const overview = await observe('--observe-overview');
      expect(overview.observeScope!.applied).toEqual(['overview']);
      expect(overview.layoutWarnings.scope).toBe(whole.layoutWarnings.scope);
      expect(overview.layoutWarnings.warnings.map((w) => `${w.caption} ${w.side}`)).toEqual(whole.layoutWarnings.warnings.map((w) => `${w.caption} ${w.side}`));
      const nodes = nodesOf(overview);
      for (const w of overview.layoutWarnings.warnings) expect(nodes.has(w.nodeKey), `${w.caption} ${w.side}`).toBe(true);
      // No text survives the skeleton: only structural attributes are kept.
      expect([...nodes.values()].some((n) => n.text !== undefined)).toBe(false);
    },
    SLOW,
  );

  it(
    'R-SCOPE-03: on the Feed screen every XCTest node carries an identifier, so the skeleton keeps each one and only trims it',
    async () => {
      // What the peer's rule gives on iOS: the runner names every element (its identifier, else a generated
      // one like `UILabel@0.0.1`), and an addressable node is structural, so nothing collapses.
      await admin(cli.demo.adminUrl, '/screen', { screen: 'feed' });
      const whole = await observe();
      const overview = await observe('--observe-overview');
      expect(overview.observeScope).toMatchObject({ applied: ['overview'], nodesBefore: nodesOf(whole).size, nodesAfter: nodesOf(whole).size });
      const kept = [...nodesOf(overview).values()];
      expect(kept.every((n) => n.omittedDescendants === undefined && n.text === undefined && n.value === undefined)).toBe(true);
      // Identity stays: the same identifiers and labels, in the same places.
      const identity = (o: Observation) => [...nodesOf(o).values()].map((n) => `${n['resource-id']}|${n['content-desc'] ?? ''}`);
      expect(identity(overview)).toEqual(identity(whole));
    },
    SLOW,
  );

  it(
    'R-SCOPE-01: the foreground app’s FOCUS on iOS prunes nothing and says so (matched false, the app named)',
    async () => {
      const app = await observe('--observe-focus', 'app');
      expect(app.observeScope).toMatchObject({ applied: [], focus: { by: 'foreground-app', matched: false, packageName: app.activeWindow!.bundleId } });
      expect(app.observeScope!.nodesAfter).toBe(app.observeScope!.nodesBefore);
    },
    SLOW,
  );

  it(
    'R-SCOPE-02: a focus that is no anchor is refused on the command line (exit 2, naming the flag)',
    async () => {
      const { code, stderr } = await cli.parallax('observe', '--device', cli.demo.runnerUrl, '--json', '--observe-focus', 'label:x');
      expect(code).toBe(2);
      expect(stderr).toContain('--observe-focus');
    },
    SLOW,
  );
});

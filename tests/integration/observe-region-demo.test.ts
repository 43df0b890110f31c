/**
 * `parallax observe --observe-region` on the demo device's Edges screen (docs/rules.md#r-lay-08, #r-lay-10):
 * the real command over the demo's real ports, the returned tree cropped and the layout warnings co-scoped
 * with it, each kept warning naming a node of the returned tree.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ObservationSchema, type Observation } from '@shared/protocol/observation';
import { flattenTree } from '@shared/model/tree';
import { admin } from '../support/demo-admin';
import { useCliOverDemo } from '../support/host-over-demo';

const cli = useCliOverDemo();
const parallax = cli.parallax;
beforeAll(async () => {
  await admin(cli.demo.adminUrl, '/screen', { screen: 'edges' });
}, 60_000);

async function observe(...extra: string[]): Promise<Observation> {
  const { code, stdout, stderr } = await parallax('observe', '--device', cli.demo.runnerUrl, '--json', ...extra);
  expect(code, stderr).toBe(0);
  return ObservationSchema.parse(JSON.parse(stdout));
}

const captions = (o: Observation) => new Set(o.layoutWarnings.warnings.map((w) => `${w.caption} ${w.side}`));

describe('parallax observe --observe-region on the demo Edges screen', () => {
  it('R-LAY-08, R-LAY-10: the top half keeps the status-bar and cutout warnings, drops the home indicator one, and says scoped', async () => {
    const whole = await observe();
    expect(whole.observeScope).toBeUndefined();
    expect(captions(whole)).toContain('edges.home bottom');

    const top = await observe('--observe-region', '0,0,1,0.5');
    expect(top.observeScope).toMatchObject({
      applied: ['region'],
      regionPx: { left: 0, top: 0, right: whole.screenSize!.width, bottom: whole.screenSize!.height / 2 },
    });
    expect(top.observeScope!.nodesAfter).toBeLessThan(top.observeScope!.nodesBefore);
    expect(top.layoutWarnings.scope).toBe('scoped');
    expect(top.layoutWarnings.total).toBeUndefined();
    expect(captions(top)).toContain('edges.close top');
    expect(captions(top)).toContain('edges.island cutout');
    expect(captions(top)).not.toContain('edges.home bottom');
    // Every kept warning names a node of the returned tree, at the bounds it was found at.
    const byKey = new Map(flattenTree(top.viewHierarchy!.hierarchy!).map((f) => [f.key, f.node]));
    for (const w of top.layoutWarnings.warnings) expect(byKey.get(w.nodeKey)?.bounds, `${w.caption} ${w.side}`).toEqual(w.bounds);
    const ids = [...byKey.values()].map((n) => n['resource-id']);
    expect(ids).not.toContain('edges.home');
  });

  it('R-LAY-10: a region that is no box of the screen is refused on the command line (exit 2, naming the flag)', async () => {
    const { code, stderr } = await parallax('observe', '--device', cli.demo.runnerUrl, '--json', '--observe-region', '0,0,2,1');
    expect(code).toBe(2);
    expect(stderr).toContain('--observe-region');
  });
});

import { describe, expect, it } from 'vitest';
import { UiNodeSchema, type UiNode } from '@shared/protocol/runner';
import { ObservationSnapshotSchema, type ObservationSnapshot } from '@shared/protocol/sdk';
import { decodeWith } from '@shared/protocol/errors';
import { flattenTree } from '@shared/model/tree';
import { mergeBridgeRead, mergeBridgeSnapshot, type BridgeRead } from '@shared/observe';
import { SDK_SOURCE_KEY } from '@shared/model/node';

const BIG = '18446744073709551000'; // above 2^53: a JS number would round it
const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });

const xctest = (children: UiNode[]): UiNode => ({ className: 'XCUIApplication', bounds: rect(0, 0, 402, 874), node: children });
const keyboard: UiNode = {
  className: 'UIKeyboard',
  'resource-id': 'keyboard',
  bounds: rect(0, 600, 402, 874),
  node: [{ className: 'UIButton', text: 'return', clickable: 'true', bounds: rect(300, 800, 400, 850) }],
};

function snapshot(overrides: Partial<ObservationSnapshot> = {}, rootChildren: unknown[] = []): ObservationSnapshot {
  return ObservationSnapshotSchema.parse({
    captureIdentity: '41',
    orientation: 'portrait',
    coordinateSpace: 'screen',
    bounds: rect(0, 0, 402, 874),
    root: { id: 'root', role: 'window', bounds: rect(0, 0, 402, 874), children: rootChildren },
    capabilities: [],
    ...overrides,
  });
}
const reply = (snap: ObservationSnapshot | undefined, failure?: string): BridgeRead => ({
  kind: 'reply',
  reply: { available: failure !== 'bridge_unavailable', ...(failure ? { failure: failure as never } : {}), ...(snap ? { snapshot: snap } : {}) },
});
const byId = (root: UiNode, id: string) => flattenTree(root).find((f) => f.node['sdk-element-id'] === id || f.node['resource-id'] === id)?.node;

describe('Observe: native bridge attribute mapping', () => {
  const snap = snapshot({ captureIdentity: '41' }, [
    { id: 'submit', role: 'button', label: 'Submit order', value: 'ready', bounds: { left: 20.7, top: 700.2, right: 380.9, bottom: 744.5 } },
    { id: 'email', role: 'textField', label: 'Email', value: 'a@b.c', bounds: rect(20, 200, 380, 240), focused: true },
    { id: 'disabled', role: 'button', label: 'Later', enabled: false, bounds: rect(20, 300, 380, 340) },
    {
      id: 'ghost',
      role: 'button',
      label: 'Hidden',
      visible: false,
      bounds: rect(20, 400, 380, 440),
      children: [{ id: 'shown-child', role: 'text', label: 'inner', bounds: rect(30, 410, 90, 430) }],
    },
  ]);
  const merged = mergeBridgeSnapshot(xctest([keyboard]), snap).root;

  it('R-OBS-03: id → resource-id and test-tag, label → content-desc, value → text, role → class', () => {
    expect(byId(merged, 'submit')).toMatchObject({
      'resource-id': 'submit',
      'test-tag': 'submit',
      'content-desc': 'Submit order',
      text: 'ready',
      className: 'button',
    });
  });

  it('R-OBS-03: enabled nodes are clickable; a disabled one is not and says enabled false', () => {
    expect(byId(merged, 'submit')).toMatchObject({ clickable: 'true' });
    const disabled = byId(merged, 'disabled')!;
    expect(disabled.clickable).toBeUndefined();
    expect(disabled.enabled).toBe('false');
  });

  it('R-OBS-04: bridge nodes carry sdk-element-id, sdk-capture-identity and extras sdk.source sdkBridge', () => {
    expect(byId(merged, 'submit')).toMatchObject({ 'sdk-element-id': 'submit', 'sdk-capture-identity': '41', extras: { [SDK_SOURCE_KEY]: 'sdkBridge' } });
  });

  it('R-OBS-03: bridge bounds are truncated to whole points, as the runner truncates XCTest frames', () => {
    expect(byId(merged, 'submit')!.bounds).toEqual(rect(20, 700, 380, 744));
  });

  it('R-OBS-03: only visible bridge nodes map; a visible child of an invisible node moves up to its nearest mapped ancestor', () => {
    expect(byId(merged, 'ghost')).toBeUndefined();
    const root = byId(merged, 'root')!;
    expect(root.node!.map((n) => n['sdk-element-id'])).toEqual(['submit', 'email', 'disabled', 'shown-child']);
  });

  it('decision: a native text-entry role reports role textfield (field detection), its SDK role stays the class', () => {
    expect(byId(merged, 'email')).toMatchObject({ className: 'textField', role: 'textfield', focused: 'true' });
    expect(byId(merged, 'submit')!.role).toBeUndefined();
  });

  it('R-OBS-02: merged in place under the XCUIApplication node, so system UI and the keyboard stay observable', () => {
    expect(merged.className).toBe('XCUIApplication');
    expect(merged.node!.map((n) => n['resource-id'])).toEqual(['root', 'keyboard']);
    expect(byId(merged, 'keyboard')!.node).toHaveLength(1);
  });

  it('R-OBS-04: a merged tree still decodes with the runner node schema', () => {
    expect(UiNodeSchema.safeParse(merged).success).toBe(true);
  });

  it('R-OBS-02: a snapshot whose root is the application itself merges its children in place — no second application node', () => {
    const appRooted = ObservationSnapshotSchema.parse({
      captureIdentity: '7',
      orientation: 'portrait',
      coordinateSpace: 'screen',
      bounds: rect(0, 0, 402, 874),
      root: {
        id: 'XCUIApplication@0',
        role: 'application',
        label: 'Demo',
        bounds: rect(0, 0, 402, 874),
        children: [
          { id: 'screen', role: 'other', bounds: rect(0, 0, 402, 874), children: [{ id: 'go', role: 'button', label: 'Go', bounds: rect(20, 300, 380, 340) }] },
          { id: 'tabs', role: 'tabBar', bounds: rect(0, 791, 402, 874) },
        ],
      },
      capabilities: [],
    });
    const result = mergeBridgeSnapshot(xctest([keyboard]), appRooted);
    expect(result.root.className).toBe('XCUIApplication');
    expect(result.root.node!.map((n) => n['resource-id'])).toEqual(['screen', 'tabs', 'keyboard']);
    expect(flattenTree(result.root).filter((f) => /application/i.test(f.node.className ?? ''))).toHaveLength(1);
    expect(byId(result.root, 'XCUIApplication@0')).toBeUndefined();
    expect(result.nodes).toBe(3);
  });

  it('decision: a bridge scroll container (collectionView, scrollView, tableView) is scrollable, so what it holds stays scrollable content', () => {
    const scrolling = mergeBridgeSnapshot(
      xctest([]),
      snapshot({}, [
        { id: 'list', role: 'collectionView', bounds: rect(0, 116, 402, 874), children: [{ id: 'row', role: 'cell', bounds: rect(0, 44, 402, 116) }] },
        { id: 'page', role: 'scrollView', bounds: rect(0, 116, 402, 874) },
        { id: 'table', role: 'tableView', bounds: rect(0, 116, 402, 874) },
        { id: 'plain', role: 'other', bounds: rect(0, 116, 402, 874) },
      ]),
    ).root;
    expect(['list', 'page', 'table', 'plain', 'row'].map((id) => byId(scrolling, id)!.scrollable)).toEqual(['true', 'true', 'true', undefined, undefined]);
  });

  it('decision: a bridge node standing for a scrollable XCTest container (same bounds, same id) is scrollable whatever its role', () => {
    const list: UiNode = {
      className: 'UICollectionView',
      'resource-id': 'feed',
      scrollable: 'true',
      bounds: rect(0, 116, 402, 874),
      node: [{ className: 'UILabel', text: 'Row', bounds: rect(0, 120, 402, 160) }],
    };
    const merged = mergeBridgeSnapshot(
      xctest([list]),
      snapshot({}, [
        { id: 'feed', role: 'group', bounds: rect(0, 116, 402, 874) },
        { id: 'other', role: 'group', bounds: rect(0, 116, 402, 874) },
      ]),
    ).root;
    const bridgeFeed = flattenTree(merged).find((f) => f.node['sdk-element-id'] === 'feed')!.node;
    expect(bridgeFeed.scrollable).toBe('true');
    expect(byId(merged, 'other')!.scrollable).toBeUndefined();
  });
});

describe('Observe: XCTest duplicates of bridge nodes', () => {
  const bridgeChildren = [
    { id: 'save', role: 'button', label: 'Save', bounds: rect(20, 700, 380, 744) },
    { id: 'title', role: 'text', label: 'Profile', bounds: rect(16, 100, 200, 140) },
  ];
  const table: { name: string; leaf: UiNode; removed: boolean }[] = [
    {
      name: 'the same bounds and the same label (runner label in text)',
      leaf: { className: 'UIButton', text: 'Save', bounds: rect(20, 700, 380, 744) },
      removed: true,
    },
    {
      name: 'the same bounds and the same label (content-desc)',
      leaf: { className: 'UILabel', 'content-desc': 'Profile', bounds: rect(16, 100, 200, 140) },
      removed: true,
    },
    {
      name: 'the same bounds and the same id',
      leaf: { className: 'UIButton', 'resource-id': 'save', text: 'Store', bounds: rect(20, 700, 380, 744) },
      removed: true,
    },
    { name: 'the same label but other bounds', leaf: { className: 'UIButton', text: 'Save', bounds: rect(20, 701, 380, 744) }, removed: false },
    { name: 'the same bounds but another label and id', leaf: { className: 'UIButton', text: 'Cancel', bounds: rect(20, 700, 380, 744) }, removed: false },
  ];
  for (const row of table) {
    it(`R-OBS-05: an XCTest leaf with ${row.name} ${row.removed ? 'is removed as a duplicate' : 'stays'}`, () => {
      const before = xctest([{ className: 'UIWindow', bounds: rect(0, 0, 402, 874), node: [row.leaf] }]);
      const { root, duplicatesRemoved } = mergeBridgeSnapshot(before, snapshot({}, bridgeChildren));
      expect(duplicatesRemoved).toBe(row.removed ? 1 : 0);
      // Wherever the fold put it (the UIWindow folds into the bridge's window), the leaf is there or gone.
      expect(flattenTree(root).some((f) => f.node === row.leaf)).toBe(!row.removed);
    });
  }

  it('R-OBS-05: only leaves are duplicates — an XCTest container with the same bounds and label stays (the raw strategy keeps it as reported)', () => {
    const container: UiNode = {
      className: 'UIButton',
      text: 'Save',
      bounds: rect(20, 700, 380, 744),
      node: [{ className: 'UIImageView', bounds: rect(30, 710, 50, 730) }],
    };
    const { root, duplicatesRemoved } = mergeBridgeSnapshot(xctest([container]), snapshot({}, bridgeChildren), { keepXctestTwins: true });
    expect(duplicatesRemoved).toBe(0);
    expect(root.node).toContain(container);
  });

  it('R-OBS-05: the input XCTest tree is not modified by the merge', () => {
    const before = xctest([{ className: 'UIButton', text: 'Save', bounds: rect(20, 700, 380, 744) }]);
    const copy = JSON.stringify(before);
    mergeBridgeSnapshot(before, snapshot({}, bridgeChildren));
    expect(JSON.stringify(before)).toBe(copy);
  });
});

describe('Observe: when the bridge snapshot is merged', () => {
  const base = xctest([keyboard]);

  it('R-OBS-06: a screen-space snapshot is merged and reports backend sdk', () => {
    const out = mergeBridgeRead(base, reply(snapshot({}, [{ id: 'a', role: 'button', bounds: rect(0, 0, 10, 10) }])));
    expect(out).toMatchObject({ merged: true, backend: 'sdk', reason: 'merged', captureIdentity: '41', nodes: 2 });
    expect(out.fallbackReason).toBeUndefined();
  });

  const unmerged: { name: string; read: BridgeRead | undefined; reason: string }[] = [
    { name: 'a coordinateSpace of window', read: reply(snapshot({ coordinateSpace: 'window' })), reason: 'coordinate_space_window' },
    { name: 'a coordinateSpace of view', read: reply(snapshot({ coordinateSpace: 'view' })), reason: 'coordinate_space_view' },
    { name: 'a timeout (the bridge did not answer)', read: { kind: 'timeout' }, reason: 'timeout' },
    { name: 'no answer at all', read: undefined, reason: 'no_answer' },
    { name: 'a bad_reply failure', read: reply(undefined, 'bad_reply'), reason: 'bad_reply' },
    { name: 'a bridge_unavailable failure', read: reply(undefined, 'bridge_unavailable'), reason: 'bridge_unavailable' },
    { name: 'a reply without a snapshot', read: reply(undefined), reason: 'no_snapshot' },
  ];
  for (const row of unmerged) {
    it(`R-OBS-06: ${row.name} is not merged: backend xctest, fallbackReason unavailable, XCTest tree unchanged`, () => {
      const out = mergeBridgeRead(base, row.read);
      expect(out).toMatchObject({ merged: false, backend: 'xctest', fallbackReason: 'unavailable', reason: row.reason });
      expect(out.root).toBe(base);
      expect(out.captureIdentity).toBeUndefined();
    });
  }

  it('R-OBS-04: a capture identity above 2^53 is carried digit for digit onto every bridge node', () => {
    const decoded = decodeWith(
      ObservationSnapshotSchema,
      `{"captureIdentity":${BIG},"orientation":"portrait","coordinateSpace":"screen","bounds":{"left":0,"top":0,"right":402,"bottom":874},"root":{"id":"r","role":"window","bounds":{"left":0,"top":0,"right":402,"bottom":874},"children":[{"id":"b","role":"button","bounds":{"left":1,"top":2,"right":3,"bottom":4}}]},"capabilities":[]}`,
    );
    if (!decoded.ok) throw decoded.error;
    const out = mergeBridgeRead(base, reply(decoded.value));
    expect(out.captureIdentity).toBe(BIG);
    expect(byId(out.root, 'b')!['sdk-capture-identity']).toBe(BIG);
    expect(byId(out.root, 'r')!['sdk-capture-identity']).toBe(BIG);
  });
});

describe('Observe: a bridge snapshot deeper than the pipeline walks', () => {
  it('R-LIM-02: a snapshot 5,000 levels deep merges, every node kept, the deepest moved up under level 1,000', () => {
    const depth = 5_000;
    let deepest: Record<string, unknown> = { id: `n${depth}`, role: 'button', label: 'Deepest', bounds: rect(10, 10, 60, 40), children: [] };
    for (let level = depth - 1; level >= 1; level--) deepest = { id: `n${level}`, role: 'group', bounds: rect(0, 0, 402, 874), children: [deepest] };
    const merged = mergeBridgeRead(xctest([]), reply(snapshot({}, [deepest])));
    expect(merged.merged).toBe(true);
    expect(merged.nodes).toBe(depth + 1);
    const nodes = flattenTree(merged.root);
    const ids = new Set(nodes.map((f) => f.node['sdk-element-id']).filter((id) => id !== undefined));
    expect(ids.size).toBe(depth + 1);
    const leaf = nodes.find((f) => f.node['sdk-element-id'] === `n${depth}`)!;
    expect(leaf.node.text ?? leaf.node['content-desc']).toBe('Deepest');
    expect(leaf.depth).toBeLessThanOrEqual(1_001);
  });
});

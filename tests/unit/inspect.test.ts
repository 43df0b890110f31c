import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { goldenRoot } from '../support/golden';
import { cycleIndex, nodeAttributes, nodeCaption, nodesAt, searchNodes } from '@shared/inspect';
import { ancestorKeys, flattenTree, indexTree, isSameOrDescendant, nodeAtKey, parentKeyOf, visibleRows } from '@shared/model/tree';
import { nodeFlag } from '@shared/model/node';

const loadRoot = (file: string): UiNode => goldenRoot(file);

const root = loadRoot('0008-request_hierarchy_if_stale.json');

function label(n: UiNode): string {
  const r = n as Record<string, unknown>;
  return `${String(r['className'])}:${String(r['text'] ?? r['resource-id'] ?? '')}`;
}

describe('node keys and flattening', () => {
  it('keys every node by its index path, in pre-order', () => {
    const flat = flattenTree(root);
    expect(flat[0]).toMatchObject({ key: '0', depth: 0, parentKey: null, order: 0 });
    expect(flat[1]).toMatchObject({ key: '0.0', depth: 1, parentKey: '0' });
    expect(flat[2]).toMatchObject({ key: '0.0.0', depth: 2, parentKey: '0.0' });
    expect(flat[3]).toMatchObject({ key: '0.1', depth: 1 });
    expect(new Set(flat.map((f) => f.key)).size).toBe(flat.length);
    expect(flat.map((f) => f.order)).toEqual(flat.map((_, i) => i));
  });

  it('finds a node again from its key', () => {
    const general = nodeAtKey(root, '0.1.3.0');
    expect(general?.['resource-id']).toBe('com.apple.settings.general');
    expect(nodeAtKey(root, '0')).toBe(root);
    expect(nodeAtKey(root, '0.9')).toBeUndefined();
    expect(nodeAtKey(root, '1')).toBeUndefined();
    expect(nodeAtKey(root, '0.x')).toBeUndefined();
    const index = indexTree(root);
    expect(index.byKey.get('0.1.3.0')?.node).toBe(general);
    expect(indexTree(null).nodes).toEqual([]);
  });

  it('walks keys up and down', () => {
    expect(ancestorKeys('0.1.3.0')).toEqual(['0', '0.1', '0.1.3']);
    expect(ancestorKeys('0')).toEqual([]);
    expect(parentKeyOf('0.1.3')).toBe('0.1');
    expect(parentKeyOf('0')).toBeNull();
    expect(isSameOrDescendant('0.1.3.0', '0.1')).toBe(true);
    expect(isSameOrDescendant('0.11', '0.1')).toBe(false);
  });

  it('tolerates a node without children and a lone child object', () => {
    const leaf = { className: 'UILabel', bounds: { left: 0, top: 0, right: 1, bottom: 1 } } as unknown as UiNode;
    expect(flattenTree(leaf).map((f) => f.key)).toEqual(['0']);
    const lone = { className: 'UIView', node: leaf } as unknown as UiNode;
    expect(flattenTree(lone).map((f) => f.key)).toEqual(['0', '0.0']);
  });
});

describe('visibleRows', () => {
  it('hides what lies below a collapsed node, and only that', () => {
    const flat = flattenTree(root);
    expect(visibleRows(flat, new Set())).toHaveLength(flat.length);
    const rows = visibleRows(flat, new Set(['0.1', '0.0.0'])).map((f) => f.key);
    expect(rows).toEqual(['0', '0.0', '0.0.0', '0.1', '0.2', '0.2.0', '0.2.1']);
    expect(visibleRows(flat, new Set(['0'])).map((f) => f.key)).toEqual(['0']);
  });
});

describe('nodesAt: the pick stack under a point', () => {
  it('picks the General row smallest first at (201, 406), deeper first on ties', () => {
    const stack = nodesAt(root, 201, 406);
    expect(stack.map((f) => f.key)).toEqual(['0.1.3.0', '0.1.3', '0.1', '0']);
    expect(stack.map((f) => label(f.node))).toEqual(['UIButton:General', 'UITableViewCell:', 'UICollectionView:', 'XCUIApplication:Settings']);
    expect(stack[0]?.node['resource-id']).toBe('com.apple.settings.general');
  });

  it('puts a small icon above its row', () => {
    const stack = nodesAt(root, 40, 400);
    expect(stack.map((f) => f.key)).toEqual(['0.1.3.0.0', '0.1.3.0', '0.1.3', '0.1', '0']);
  });

  it('gives a shared edge to the row below (half-open bounds)', () => {
    expect(nodesAt(root, 201, 432)[0]?.node['resource-id']).toBe('com.apple.settings.accessibility');
    expect(nodesAt(root, 201, 431)[0]?.node['resource-id']).toBe('com.apple.settings.general');
  });

  it('R-PICK-01: finds nothing off the screen, nor a row scrolled out of its list', () => {
    expect(nodesAt(root, 500, 500)).toEqual([]);
    // The row reaches past the list's frame there, but the list clips it: a finger cannot touch it.
    expect(nodesAt(root, -10, 900)).toEqual([]);
    expect(nodesAt(root, 201, 406, { screen: { width: 402, height: 874 } }).length).toBeGreaterThan(0);
    expect(nodesAt(root, 201, 900, { screen: { width: 402, height: 874 } })).toEqual([]);
  });

  it('cycles through a stack in both directions', () => {
    expect(cycleIndex(0, 1, 4)).toBe(1);
    expect(cycleIndex(3, 1, 4)).toBe(0);
    expect(cycleIndex(0, -1, 4)).toBe(3);
    expect(cycleIndex(2, 1, 0)).toBe(0);
  });
});

describe('searchNodes', () => {
  it('finds the General row by a lower-case word', () => {
    const hits = searchNodes(root, 'general');
    expect(hits.map((h) => h.key)).toEqual(['0.1.3.0']);
    expect(hits[0]?.node['resource-id']).toBe('com.apple.settings.general');
    expect(hits[0]?.fields).toEqual(['resource-id', 'view-id', 'text']);
  });

  it('matches ids, labels, classes and roles case-insensitively, in document order', () => {
    expect(searchNodes(root, 'SETTINGS.CAMERA').map((h) => h.key)).toEqual(['0.1.7.0']);
    expect(searchNodes(root, 'chevron').length).toBe(11); // content-desc of every row's chevron
    expect(searchNodes(root, 'uitableviewcell').map((h) => h.key)).toEqual(Array.from({ length: 11 }, (_, i) => `0.1.${i + 1}`));
    expect(searchNodes(root, 'textfield').map((h) => h.key)).toEqual(['0.2']);
    expect(searchNodes(root, '  dictate ').map((h) => h.key)).toEqual(['0.2.0']);
  });

  it('matches nothing for an empty query or an unknown word', () => {
    expect(searchNodes(root, '')).toEqual([]);
    expect(searchNodes(root, '   ')).toEqual([]);
    expect(searchNodes(root, 'no such thing')).toEqual([]);
  });
});

describe('nodeAttributes', () => {
  it('lists the General button with its identity, bounds and flags', () => {
    const rows = nodeAttributes(nodeAtKey(root, '0.1.3.0')!);
    const byName = Object.fromEntries(rows.map((r) => [r.name, r.value]));
    expect(byName).toMatchObject({
      className: 'UIButton',
      role: 'button',
      text: 'General',
      'resource-id': 'com.apple.settings.general',
      bounds: '[16,380][386,432] 370×52',
      clickable: 'true',
      children: '2',
    });
    expect(rows[0]?.name).toBe('className');
    expect(rows.some((r) => r.name === 'node')).toBe(false);
  });

  it('shows actions and hint text of the search bar', () => {
    const byName = Object.fromEntries(nodeAttributes(nodeAtKey(root, '0.2')!).map((r) => [r.name, r.value]));
    expect(byName['actions']).toBe('set_text, clear_text');
    expect(byName['hint-text']).toBe('Search');
  });

  it('reads string booleans with the protocol defaults and shows extras', () => {
    const node = { className: 'X', enabled: 'false', extras: { 'sdk.source': 'sdkBridge' } } as unknown as UiNode;
    expect(nodeFlag(node, 'enabled')).toBe(false);
    expect(nodeFlag({} as UiNode, 'enabled')).toBe(true);
    expect(nodeFlag({} as UiNode, 'clickable')).toBe(false);
    const rows = nodeAttributes(node);
    expect(rows).toContainEqual({ name: 'extras.sdk.source', value: 'sdkBridge' });
    expect(rows).toContainEqual({ name: 'enabled', value: 'false' });
  });

  it('captions a node by id, then label, then text', () => {
    expect(nodeCaption(nodeAtKey(root, '0.1.3.0')!)).toBe('com.apple.settings.general');
    expect(nodeCaption(nodeAtKey(root, '0.0.0')!)).toBe('Settings');
  });
});

/**
 * The selectors panel's cheap path (docs/rules.md#r-perf-11): the index made lazily, and each generated
 * selector answered by its form from the index's value maps, give exactly what reading every selector
 * back and evaluating it over every node gives (the same suggestions, in the same order, with the same
 * counts), on generated trees of XCTest, SDK bridge and DOM nodes, twins included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { SDK_SOURCE_KEY, withXctestTwin } from '@shared/model/node';
import {
  evaluateIn,
  indexScreen,
  parseSelector,
  recheckSuggestions,
  selectorsByEvaluation,
  selectorsFor,
  suggestionText,
  viewOf,
  type SelectorSuggestion,
} from '@shared/selectors';

/** Values that collide, need quoting or escaping in some syntax, or read back trimmed. */
const VALUE = fc.constantFrom('Save', 'save', ' Save', 'Tile 1', 'a.b', 'a"b', "it's", `a"'b`, 'x\ny', '(1+1)*', 'e5', 'Board', '--x', 'a\\b');
const CLASS = fc.constantFrom(
  'UIButton',
  'UILabel',
  'UIView',
  'UITextField',
  'UICollectionViewCell',
  'UIImageView',
  'XCUIElementTypeAny',
  'button',
  'UISecureTextField',
);
const BOUNDS = fc.constantFrom(
  { left: 0, top: 0, right: 10, bottom: 10 },
  { left: 0, top: 0, right: 20, bottom: 20 },
  { left: 5, top: 5, right: 10, bottom: 10 },
);

const SPEC = fc.record(
  {
    className: CLASS,
    role: fc.constantFrom('button', 'text', 'textfield', 'listitem'),
    'resource-id': VALUE,
    text: VALUE,
    'content-desc': VALUE,
    value: VALUE,
    'hint-text': VALUE,
    'sdk-element-id': VALUE,
    'web-element-id': VALUE,
    bounds: BOUNDS,
    /** Who reports it; a bridge or DOM node may stand for an XCTest node (replaced), or beside one (kept). */
    source: fc.constantFrom('xctest', 'xctest', 'xctest', 'sdkBridge', 'sdkWebBridge'),
    twin: fc.constantFrom('none', 'replaced', 'kept'),
    /** What a bridge or DOM node standing for an XCTest node says of itself. */
    own: fc.record({ text: VALUE, 'resource-id': VALUE, role: fc.constantFrom('button', 'text') }, { requiredKeys: [] }),
    parent: fc.nat(),
  },
  { requiredKeys: ['className', 'source', 'twin', 'own', 'parent'] },
);

/** A tree from a list of node specs, each under an earlier one; a kept twin comes with the XCTest node it stands beside. */
function buildTree(specs: readonly (typeof SPEC extends fc.Arbitrary<infer T> ? T : never)[], bridgeRoot: boolean): UiNode {
  const made: UiNode[] = [];
  const children = new Map<number, UiNode[]>();
  const add = (node: UiNode, parent: number) => {
    made.push(node);
    if (parent >= 0) children.set(parent, [...(children.get(parent) ?? []), node]);
  };
  add(bridgeRoot ? { className: 'UIView', extras: { [SDK_SOURCE_KEY]: 'sdkBridge' } } : { className: 'XCUIApplication', text: 'Board' }, -1);
  for (const spec of specs) {
    const { source, twin, parent, own, ...fields } = spec;
    const node: UiNode = { ...fields } as UiNode;
    const under = parent % made.length;
    if (source === 'xctest' || twin === 'none') {
      add(source === 'xctest' ? node : { ...node, extras: { [SDK_SOURCE_KEY]: source } }, under);
      continue;
    }
    const bridge: UiNode = { className: 'button', ...own, bounds: node.bounds, 'sdk-element-id': 'b1', extras: { [SDK_SOURCE_KEY]: source } } as UiNode;
    if (twin === 'kept') add(node, under);
    add(withXctestTwin(bridge, node, twin), under);
  }
  // Children attached after the fact: each node object is the one in `made`.
  const attach = (node: UiNode, i: number): UiNode => {
    const list = children.get(i);
    return list ? { ...node, node: list.map((c) => attach(c, made.indexOf(c))) } : node;
  };
  return attach(made[0]!, 0);
}

const TREE = fc.tuple(fc.array(SPEC, { minLength: 1, maxLength: 24 }), fc.boolean()).map(([specs, bridgeRoot]) => buildTree(specs, bridgeRoot));

/**
 * The evaluator reads every XPath suggestion back through the XPath engine over WDA's page source
 * (docs/rules.md#r-hand-08), about 80 µs per element and step: these two properties take over a minute on
 * a busy machine, so they get a wide margin rather than fewer runs.
 */
const EVALUATOR_TIMEOUT = 300_000;

/** What a pasted selector finds: read back and evaluated over every node, in the view its suggestion is for. */
function evaluated(root: UiNode, s: SelectorSuggestion): string[] {
  const parsed = parseSelector(suggestionText(s), s.syntax);
  const screen = indexScreen(root);
  return evaluateIn(parsed, screen, s.visibleTo === 'xctest' ? viewOf(parsed) : 'merged').map((i) => screen.nodes[i]!.key);
}

describe('R-PERF-11: the selectors panel answers from the index the way the evaluator does', () => {
  it('R-PERF-11: the index finds every node by its key and names every node by it, as flattening the tree does', () => {
    fc.assert(
      fc.property(TREE, (root) => {
        const flat = flattenTree(root);
        const screen = indexScreen(root);
        expect(flat.map((f) => screen.indexOf(f.key))).toEqual(flat.map((_, i) => i));
        expect(flat.map((_, i) => screen.keyOf(i))).toEqual(flat.map((f) => f.key));
        expect(flat.map((_, i) => screen.flatNode(i))).toEqual(flat);
        expect(screen.nodes).toEqual(flat);
        for (const key of ['', '1', '0.', '0.-1', '0.01', `0.${flat.length}`, '0.0.0.0.0.0.0.0.0.9', 'x'])
          expect(screen.indexOf(key), key).toBe(screen.byKey.get(key));
      }),
      { numRuns: 150 },
    );
  });

  it('R-PERF-11: every node gets the suggestions, order and counts that evaluating each selector over every node gives', { timeout: EVALUATOR_TIMEOUT }, () => {
    fc.assert(
      fc.property(TREE, (root) => {
        for (const { key } of flattenTree(root)) {
          // A fresh copy for each path, so neither is helped by what the other built on the index.
          const fast = selectorsFor(structuredClone(root), key);
          expect(fast, key).toEqual(selectorsByEvaluation(structuredClone(root), key));
        }
      }),
      { numRuns: 150 },
    );
  });

  it(
    'R-PERF-11: a list kept while the screen changes finds on the newer tree what its selectors, evaluated there, find',
    { timeout: EVALUATOR_TIMEOUT },
    () => {
      fc.assert(
        fc.property(TREE, TREE, (before, after) => {
          for (const { key } of flattenTree(before)) {
            const list = selectorsFor(before, key);
            const checks = recheckSuggestions(after, list);
            list.forEach((s, i) => {
              const found = evaluated(after, s);
              expect(checks[i], `${key} ${s.syntax} ${s.selector}`).toEqual({ found, findsTarget: found.length === 1 && found[0] === s.target });
            });
          }
        }),
        { numRuns: 100 },
      );
    },
  );

  it('R-PERF-11: an identifier too long for a Maestro pattern gets its other selectors, not an error', () => {
    const id = `row.${'x'.repeat(600)}`;
    const root: UiNode = { className: 'XCUIApplication', node: [{ className: 'UIButton', 'resource-id': id, text: 'Go' }] };
    for (const list of [selectorsFor(root, '0.0'), selectorsByEvaluation(root, '0.0')]) {
      expect(list.some((s) => s.syntax === 'maestro' && s.basis === 'identifier')).toBe(false);
      expect(list.find((s) => s.syntax === 'xcuitest')?.selector).toBe(`app.buttons["${id}"]`);
      expect(list.find((s) => s.syntax === 'maestro')?.selector).toBe("text: 'Go'");
    }
  });
});

/**
 * Maestro selectors mean in Maestro what Parallax says (docs/rules.md#r-hand-01). The cases come from
 * Maestro's own code (Orchestra.kt `buildFilter` / `REGEX_OPTIONS`, Filters.kt, IOSDriver.kt
 * `mapViewHierarchy`); `maestroReference` below is a port of those functions over the tree as
 * Maestro's iOS driver maps it, written apart from src-shared so the generator is held to Maestro's
 * algorithm, not to its own evaluator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { indexScreen, selectorsFor, trySelector } from '@shared/selectors';
import { formatMaestroFlowMapping, parseMaestroSelector } from '@shared/selectors/maestro';
import type { ScreenView } from '@shared/selectors/screen';
import { hardLabelsRoot } from '../support/hard-labels';

const DEMO = join(__dirname, '..', 'fixtures', 'demo-observations');
function demoRoot(screen: string): UiNode {
  return ViewHierarchySchema.parse(JSON.parse(readFileSync(join(DEMO, `${screen}.json`), 'utf8'))).hierarchy!;
}

// ---- Maestro, ported from its source -----------------------------------------------------------------

interface TreeNode {
  i: number;
  attributes: { text: string; hintText: string; accessibilityText: string; 'resource-id'?: string };
  y: number;
  x: number;
  children: TreeNode[];
}

/** IOSDriver.kt mapViewHierarchy over what XCTest reports (the XCTest view of the screen); the title is empty on iOS elements. */
function maestroTree(view: ScreenView, i: number): TreeNode {
  const e = view.attributesOf(i)!;
  return {
    i,
    attributes: {
      accessibilityText: e.label ?? '',
      text: e.value ?? '',
      hintText: e.placeholderValue ?? '',
      ...(e.identifier !== undefined ? { 'resource-id': e.identifier } : {}),
    },
    y: Math.trunc(e.frame?.y ?? Number.MAX_SAFE_INTEGER),
    x: Math.trunc(e.frame?.x ?? Number.MAX_SAFE_INTEGER),
    children: view.children(i).map((c) => maestroTree(view, c)),
  };
}
const aggregate = (n: TreeNode): TreeNode[] => [n, ...n.children.flatMap(aggregate)];

interface ReferenceSelector {
  id?: string;
  text?: string;
  index?: number;
  childOf?: ReferenceSelector;
}

/**
 * Orchestra.kt `resolveParentHierarchy`: the grandparent first (its own childOf), then the first node
 * the parent's filter gives over that hierarchy's aggregate() (`firstOrNull`; with no index the filter
 * ends in clickableFirst, which keeps the order on iOS); null when either finds nothing.
 */
function resolveParent(roots: TreeNode[], selector: ReferenceSelector): TreeNode | null {
  const within = selector.childOf ? resolveParent(roots, selector.childOf) : null;
  if (selector.childOf && !within) return null;
  const scope = within ? [within] : roots;
  const first = maestroReference(scope, { ...selector, childOf: undefined })[0];
  return first === undefined ? null : (scope.flatMap(aggregate).find((n) => n.i === first) ?? null);
}

/**
 * Orchestra.kt buildFilter + Filters.kt, for `id`, `text`, `index` and `childOf`. With childOf, Orchestra.kt
 * `findElement` searches `filterFunc(parentHierarchy.aggregate())`: the parent and its subtree only. Every
 * match is returned, so a caller sees when the first Maestro would take is a guess.
 */
function maestroReference(roots: TreeNode[], selector: ReferenceSelector): number[] {
  if (selector.childOf) {
    const parent = resolveParent(roots, selector.childOf);
    return parent ? maestroReference([parent], { ...selector, childOf: undefined }) : [];
  }
  const flags = RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL | RE2JS.MULTILINE; // Orchestra.kt REGEX_OPTIONS
  const filters: ((n: TreeNode) => boolean)[] = [];
  if (selector.text !== undefined) {
    const re = RE2JS.compile(selector.text, flags);
    const pattern = selector.text;
    // Filters.kt textMatches: text, hintText or accessibilityText, each by textAttributeMatches.
    const attributeMatches = (value: string) => {
      const stripped = value.replace(/\n/g, ' ');
      return re.matches(value) || pattern === value || re.matches(stripped) || pattern === stripped;
    };
    filters.push((n) => [n.attributes.text, n.attributes.hintText, n.attributes.accessibilityText].some(attributeMatches));
  }
  if (selector.id !== undefined) {
    const re = RE2JS.compile(selector.id, flags);
    filters.push((n) => {
      const v = n.attributes['resource-id'];
      return v !== undefined && (re.matches(v) || re.matches(v.slice(v.lastIndexOf('/') + 1)));
    });
  }
  const matches = (n: TreeNode) => filters.every((f) => f(n));
  const deepest = (nodes: TreeNode[]): TreeNode[] =>
    nodes.filter(matches).map((n) => {
      const kids = deepest(n.children);
      return kids[kids.length - 1] ?? n;
    });
  const found = [...new Set(deepest(roots.flatMap(aggregate)))];
  if (selector.index === undefined) return found.map((n) => n.i);
  const sorted = [...found].sort((a, b) => a.y - b.y || a.x - b.x);
  const picked = sorted[selector.index];
  return picked ? [picked.i] : [];
}

/**
 * What Maestro finds, as nodes of `root`: over the tree XCTest itself reported (a bridge container kept
 * beside its XCTest twin gives the twin its XCTest children back, screen.ts `xctestReported`), which
 * is the hierarchy Maestro's iOS driver reads.
 */
function maestroFinds(root: UiNode, selectorText: string): number[] {
  const screen = indexScreen(root);
  const reported = screen.xctestReported();
  const view = reported ? reported.screen.xctest : screen.xctest;
  const tops = view.children(-1).map((i) => maestroTree(view, i));
  const found = maestroReference(tops, parseMaestroSelector(selectorText));
  return reported ? found.map((i) => reported.origin[i]!) : found;
}

const labelOf = (root: UiNode, i: number) => {
  const e = indexScreen(root).xctest.attributesOf(i)!;
  return e.label ?? e.placeholderValue;
};
const keyByText = (root: UiNode, text: string, nth = 0) => flattenTree(root).filter((f) => f.node['text'] === text)[nth]!.key;
const tried = (root: UiNode, text: string) => {
  const result = trySelector(text, root, 'maestro');
  if (!result.ok) throw result.error;
  return result.matches.map((k) => flattenTree(root).find((f) => f.key === k)!.node['text']);
};

describe('R-HAND-01: Maestro selectors by Maestro rules', () => {
  it('R-HAND-01: text and id ignore case (REGEX_OPTIONS IGNORE_CASE): SIGN IN finds both, id save finds Save and SAVE', () => {
    const root = hardLabelsRoot();
    expect(tried(root, "text: 'SIGN IN'")).toEqual(['Sign In', 'SIGN IN']);
    expect(tried(root, "id: 'save'")).toEqual(['Save', 'Save changes']);
    // So neither label alone is a Maestro selector for either: the generator says index.
    const suggestions = selectorsFor(root, keyByText(root, 'SIGN IN')).filter((s) => s.syntax === 'maestro');
    expect(suggestions.map((s) => s.selector)).toEqual(["id: 'signin\\.button'", "text: 'SIGN IN'\nindex: 1"]);
  });

  it('R-HAND-01: a line feed is matched as a space (Filters.kt textAttributeMatches) and . matches it (DOT_MATCHES_ALL)', () => {
    const root = hardLabelsRoot();
    expect(tried(root, "text: 'Hello World'")).toEqual(['Hello\nWorld', 'Hello World']);
    expect(tried(root, "text: 'Line.one.line two'")).toEqual(['Line one\nline two']);
    expect(tried(root, "text: '^line two$'")).toEqual([]); // MULTILINE, but matches() needs the whole text
    expect(tried(root, "text: 'Line one$\\s^line two'")).toEqual(['Line one\nline two']);
  });

  it('R-HAND-01: the pattern equal to the text matches even when it is not a valid match of itself (pattern == value)', () => {
    const root = hardLabelsRoot();
    expect(tried(root, "text: 'Price \\(USD\\) \\$5\\.00\\?'")).toEqual(['Price (USD) $5.00?']);
    expect(tried(root, "text: 'a+b [x] {y} ^z|w'")).toEqual(['a+b [x] {y} ^z|w']);
  });

  it('R-HAND-01: text is matched against the label, the value and the placeholder (IOSDriver.kt mapViewHierarchy, Filters.kt textMatches)', () => {
    const root = hardLabelsRoot();
    expect(tried(root, "text: 'you@example\\.com'")).toEqual(['Email']);
    expect(tried(root, "text: 'Email'")).toEqual(['Email']);
    expect(tried(root, "text: 'Search posts'")).toHaveLength(1);
    expect(tried(root, "id: 'email'")).toEqual(['Email']); // the id after its last '/'
  });

  it('R-HAND-01: only the deepest match counts (deepestMatchingElement): the cell and its label "Post 12" are one match, the label', () => {
    const root = hardLabelsRoot();
    expect(tried(root, "text: 'Post 12'")).toEqual(['Post 12']);
    const found = trySelector("text: 'Post 12'", root, 'maestro');
    expect(found.ok && flattenTree(root).find((f) => f.key === found.matches[0])!.node['className']).toBe('UILabel');
    expect(tried(root, "text: 'Post 12'\nindex: 1")).toEqual([]);
    // Only direct children are descended into: a label under a plain view beside its cell is a second match.
    expect(tried(root, "text: 'Post 13'")).toHaveLength(2);
    // The cell is never offered a text selector Maestro would resolve to its label.
    const cell = selectorsFor(root, keyByText(root, 'Post 12', 0)).filter((s) => s.syntax === 'maestro');
    expect(cell.map((s) => s.selector)).toEqual(["id: 'cell\\.12'"]);
  });

  it('R-HAND-01: index counts in screen order, top then left (INDEX_COMPARATOR), not tree order', () => {
    const root = hardLabelsRoot();
    const leftOk = keyByText(root, 'OK', 1);
    const maestro = selectorsFor(root, leftOk).filter((s) => s.syntax === 'maestro');
    expect(maestro[0]!.selector).toBe("text: 'OK'\nindex: 0");
    expect(maestro[0]!.of).toBe(3); // and "ok" ignoring case
    expect(tried(root, "text: 'OK'\nindex: 0")).toEqual(['OK']);
  });

  it('R-HAND-06: a pattern that backtracks exponentially is matched in linear time, and a lookaround is refused with its reason', () => {
    // 31 characters took the page's RegExp 34.5 s; 48 would take it about four years, so a backtracking
    // engine ends this test by its timeout, whatever the machine's speed (docs/rules.md#r-suite-01).
    const root: UiNode = { className: 'XCUIApplication', node: [{ className: 'UILabel', text: 'a'.repeat(48) }] } as UiNode;
    expect(tried(root, "text: '(a+)+b'")).toEqual([]);
    const refused = trySelector("text: '(?=a)a'", root, 'maestro');
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.reason).toMatch(/lookaround/);
  });

  const screens: [string, () => UiNode][] = [
    ...['login', 'feed', 'checkout', 'hostile', 'edges'].map((s) => [`demo ${s}`, () => demoRoot(s)] as [string, () => UiNode]),
    ['hard labels', hardLabelsRoot],
  ];

  it('R-HAND-01: every Maestro selector generated on every demo screen and the hard labels finds, by the port of Maestro, exactly its target', () => {
    let right = 0;
    let total = 0;
    let childOf = 0;
    const wrong: string[] = [];
    for (const [name, load] of screens) {
      const root = load();
      const screen = indexScreen(root);
      for (const f of flattenTree(root)) {
        for (const s of selectorsFor(root, f.key)) {
          if (s.syntax !== 'maestro' || s.visibleTo !== 'xctest') continue;
          total++;
          if (s.selector.includes('\nchildOf:')) childOf++;
          const found = maestroFinds(root, s.selector);
          if (found.length === 1 && screen.keyOf(found[0]!) === s.target) right++;
          else wrong.push(`${name} ${f.key} ${JSON.stringify(s.selector)} → ${found.map((i) => labelOf(root, i)).join(', ')}`);
        }
      }
    }
    console.log(`R-HAND-01 Maestro: ${right} of ${total} generated selectors right by Maestro's rules (${childOf} with childOf)`);
    expect(wrong).toEqual([]);
    expect(total).toBeGreaterThan(50);
    expect(childOf).toBeGreaterThanOrEqual(3);
  });
});

describe('R-HAND-06: nothing typed can freeze the page', () => {
  const root: UiNode = { className: 'XCUIApplication', node: [{ className: 'UILabel', text: 'a'.repeat(31) }] } as UiNode;
  it.each([
    ['a 3.8 KB nested XPath', '//*[' + 'not('.repeat(700) + 'true()' + ')'.repeat(700) + ']'],
    ['parentheses around a path', '('.repeat(1500) + '//*' + ')'.repeat(1500)],
    ['a predicate nested in a class chain', '**/*[`' + '('.repeat(200) + "label == 'a'" + ')'.repeat(200) + '`]'],
  ])('R-HAND-06: %s is refused with its depth before it is read', (_name, text) => {
    const result = trySelector(text, root);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.reason).toMatch(/nests \d+ levels deep; at most 64 are read/);
  });

  // `root` is 31 characters: a backtracking engine runs past the test's timeout (docs/rules.md#r-suite-01).
  it('R-HAND-06: an NSPredicate MATCHES and LIKE that backtrack exponentially run in linear time', () => {
    for (const text of ["-ios predicate string: label MATCHES '(a+)+b'", "-ios predicate string: label LIKE '*a*a*a*a*a*a*a*a*a*a*b'"]) {
      const result = trySelector(text, root);
      expect(result.ok && result.matches).toEqual([]);
    }
  });
});

describe('R-HAND-14: childOf, label and css as Maestro reads and runs them', () => {
  const root = demoRoot('feed');
  const ids = (text: string) => {
    const result = trySelector(text, root, 'maestro');
    if (!result.ok) throw result.error;
    const view = indexScreen(root);
    return result.matches.map((k) => view.nodes[view.byKey.get(k)!]!.node['resource-id']);
  };

  it('R-HAND-14: childOf searches inside the parent it names (Orchestra.kt findElement / resolveParentHierarchy): one Like of twelve', () => {
    expect(ids("id: 'feed\\.like\\..*'").length).toBeGreaterThan(1);
    expect(ids("id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\.12'")).toEqual(['feed.like.12']);
    // The flow-mapping form reads the same (YamlElementSelectorUnion).
    expect(ids("text: 'Like.*'\nchildOf: {id: 'feed\\.cell\\.12'}")).toEqual(['feed.like.12']);
    // As a command's block, the way a flow writes it.
    expect(ids("- tapOn:\n    text: 'Like.*'\n    childOf:\n      id: 'feed\\.cell\\.12'")).toEqual(['feed.like.12']);
  });

  it('R-HAND-14: the parent is the FIRST element its selector finds (`parentFilter(...).firstOrNull()`), by its index when it has one', () => {
    // The first cell XCTest reports, in document order (clickableFirst keeps it on iOS).
    const first = ids("id: 'feed\\.cell\\..*'")[0]!;
    expect(ids("id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'")).toEqual([first.replace('cell', 'like')]);
    // index in screen order (Filters.index after INDEX_COMPARATOR): the third cell from the top.
    const third = ids("id: 'feed\\.cell\\..*'\nindex: 2")[0]!;
    expect(third).not.toBe(first);
    expect(ids("id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'\n  index: 2")).toEqual([third.replace('cell', 'like')]);
  });

  it('R-HAND-14: the parent searched is its aggregate(), the parent itself included; no parent, nothing found', () => {
    expect(ids("id: 'feed\\.cell\\.12'\nchildOf:\n  id: 'feed\\.cell\\.12'")).toEqual(['feed.cell.12']);
    expect(ids("id: 'feed\\.like\\..*'\nchildOf:\n  id: 'nowhere'")).toEqual([]);
  });

  it('R-HAND-14: a childOf string is a text selector, and its deepest match is the parent: "Post 12" is the label, which holds no button', () => {
    expect(ids("id: 'feed\\.like\\..*'\nchildOf: 'Post 12'")).toEqual([]);
  });

  it('R-HAND-14: a childOf of a childOf resolves the grandparent first (resolveParentHierarchy recurses on selector.childOf)', () => {
    const first = ids("id: 'feed\\.cell\\..*'")[0]!.replace('cell', 'like');
    expect(ids("id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'\n  childOf:\n    id: 'feed\\.list'")).toEqual([first]);
    expect(ids("id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'\n  childOf:\n    id: 'nowhere'")).toEqual([]);
  });

  it("R-HAND-14: label names the step, not the element (YamlFluentCommand passes it to the command); css is the web driver's DOM, refused on iOS", () => {
    expect(ids("id: 'feed\\.like\\.12'\nlabel: 'Like the twelfth post'")).toEqual(['feed.like.12']);
    const css = trySelector("css: '#like'", root, 'maestro');
    expect(css.ok).toBe(false);
    if (!css.ok) expect(css.error.message).toMatch(/^Maestro: css selectors are for Maestro web flows, not an iOS app/);
    const empty = trySelector("id: 'x'\nchildOf:", root, 'maestro');
    expect(empty.ok).toBe(false);
  });

  it('R-HAND-14: the reference port resolves childOf as Orchestra.kt does, and agrees with the try box on the cases above', () => {
    const cases = [
      "id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\.12'",
      "id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'",
      "id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'\n  index: 2",
      "id: 'feed\\.cell\\.12'\nchildOf:\n  id: 'feed\\.cell\\.12'",
      "id: 'feed\\.like\\..*'\nchildOf: 'Post 12'",
      "id: 'feed\\.like\\..*'\nchildOf:\n  id: 'feed\\.cell\\..*'\n  childOf:\n    id: 'feed\\.list'",
      "id: 'feed\\.like\\..*'\nchildOf:\n  id: 'nowhere'",
    ];
    const screen = indexScreen(root);
    for (const text of cases) {
      const tried = trySelector(text, root, 'maestro');
      expect(tried.ok && tried.matches, text).toEqual(maestroFinds(root, text).map((i) => screen.keyOf(i)));
    }
    expect(maestroFinds(root, cases[0]!).map((i) => screen.xctest.attributesOf(i)!.identifier)).toEqual(['feed.like.12']);
  });
});

describe('R-HAND-14: childOf in generated Maestro selectors', () => {
  const root = hardLabelsRoot();
  const screen = indexScreen(root);
  const replies = flattenTree(root).filter((f) => f.node['text'] === 'Reply');
  const maestroOf = (key: string) => selectorsFor(root, key).filter((s) => s.syntax === 'maestro');

  it('R-HAND-14: a Reply with no id of its own is found inside its thread, named by id: childOf before index', () => {
    expect(replies).toHaveLength(5);
    const [, second] = replies;
    const list = maestroOf(second!.key);
    expect(list.map((s) => s.selector)).toEqual(["text: 'Reply'\nchildOf:\n  id: 'thread\\.2'", "text: 'Reply'\nindex: 1"]);
    expect(list[0]!.of).toBe(5);
    expect(list[0]!.note).toBe('5 elements match without childOf; inside the parent it names, only this one');
    // Read back as Maestro reads it, it finds exactly that Reply, by the try box and by the port of Orchestra.kt.
    const tried = trySelector(list[0]!.selector, root, 'maestro');
    expect(tried.ok && tried.matches).toEqual([second!.key]);
    expect(maestroFinds(root, list[0]!.selector).map((i) => screen.keyOf(i))).toEqual([second!.key]);
  });

  it('R-HAND-14: a parent with no id is named by its label, when the label finds it alone (deepest match: the cell, its Reply does not match)', () => {
    const third = replies[2]!;
    expect(maestroOf(third.key)[0]!.selector).toBe("text: 'Reply'\nchildOf:\n  text: 'Thread three'");
  });

  it('R-HAND-14: a thread holding two Replies tells neither apart: no childOf, the index alone', () => {
    for (const f of replies.slice(3)) expect(maestroOf(f.key).map((s) => s.selector)).toEqual([expect.stringMatching(/^text: 'Reply'\nindex: [34]$/)]);
  });

  it('R-HAND-14: a parent whose own selector is not unique is never named (Maestro would take its first match): the label under a view in cell "Post 13"', () => {
    const label = flattenTree(root).find((f) => f.node['text'] === 'Post 13' && f.node.className === 'UILabel')!;
    expect(maestroOf(label.key).some((s) => s.selector.includes('childOf'))).toBe(false);
  });
});

describe('R-HAND-15: the try box reads a Maestro selector with a YAML parser, as YamlCommandReader reads a flow', () => {
  const root = hardLabelsRoot();
  const replies = flattenTree(root).filter((f) => f.node['text'] === 'Reply');
  const found = (text: string) => {
    const result = trySelector(text, root, 'maestro');
    if (!result.ok) throw result.error;
    return result.matches;
  };
  const refusal = (text: string) => {
    const result = trySelector(text, root, 'maestro');
    return result.ok ? 'accepted' : result.error.message;
  };

  it('R-HAND-15: a flow mapping nests as YAML nests it: childOf with its own index, on one line (what the single-line box can hold)', () => {
    expect(found("{text: 'Reply', childOf: {id: 'thread\\.2'}}")).toEqual([replies[1]!.key]);
    // Two keys inside the nested mapping: its comma is the inner mapping's, not the outer one's.
    expect(found("{text: Reply, childOf: {text: 'Thread four', index: 0}}")).toEqual(replies.slice(3).map((f) => f.key));
    expect(found("{text: 'Reply', index: 1, childOf: {id: 'thread\\.2'}}")).toEqual([]);
  });

  it('R-HAND-15: YAML forms a hand-written reader missed: a block scalar, an alias, a comment, a command that names its selector under element', () => {
    expect(found('text: >-\n  Reply\nchildOf:\n  id: thread\\.1')).toEqual([replies[0]!.key]);
    expect(found("childOf: &t {id: 'thread\\.2'}\ntext: Reply # the second thread's")).toEqual([replies[1]!.key]);
    expect(found('- scrollUntilVisible:\n    element:\n      text: Reply\n      childOf: {id: thread\\.1}\n    direction: DOWN')).toEqual([replies[0]!.key]);
    // The shorthand: a command's string is its text (YamlFluentCommand), a childOf's string too.
    expect(found("- tapOn: 'Thread three'")).toHaveLength(1);
    expect(found("text: Reply\nchildOf: 'Thread three'")).toEqual([replies[2]!.key]);
  });

  it('R-HAND-15: every generated Maestro selector, written as one flow mapping (what Try puts in the one-line box), reads back as the same selector', () => {
    let checked = 0;
    for (const screenRoot of [...['login', 'feed', 'checkout', 'hostile', 'edges'].map(demoRoot), root]) {
      for (const f of flattenTree(screenRoot)) {
        for (const s of selectorsFor(screenRoot, f.key)) {
          if (s.syntax !== 'maestro') continue;
          const selector = parseMaestroSelector(s.selector);
          const line = formatMaestroFlowMapping(selector);
          expect(line, s.selector).not.toContain('\n');
          expect(parseMaestroSelector(line), s.selector).toEqual(selector);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('R-HAND-15: what YAML or Maestro refuses is refused with the reason and where', () => {
    expect(refusal("id: 'login.submit")).toBe('Maestro: a single-quoted value is not closed (at character 18)');
    expect(refusal('text: Reply\ntext: OK')).toBe('Maestro: a key is written twice (at character 13)');
    expect(refusal('text: a: b')).toMatch(/^Maestro: not valid YAML: Nested mappings are not allowed in compact mappings \(at character 7\)$/);
    expect(refusal('text: [Reply]')).toBe('Maestro: text needs a value (at character 7)');
    expect(refusal('{txet: Reply}')).toBe(
      'Maestro: "txet" is not a Maestro selector key (id, text, index, enabled, checked, focused, selected) (at character 2)',
    );
    expect(refusal('- tapOn: a\n- tapOn: b')).toBe('Maestro: a selector is one command, not a list of 2 (at character 1)');
    expect(refusal('index: -1\ntext: Reply')).toBe('Maestro: index must be a whole number from 0, not "-1" (at character 8)');
  });
});

/**
 * What a generated selector asks, as a question about the index's columns (docs/rules.md#r-perf-11).
 *
 * The selectors panel checks some thirty selectors for one node; each, read back and evaluated by the
 * evaluator a pasted selector goes through, is a walk over every node's attribute record (3–13 ms on
 * 50,000 nodes). Every selector the generator writes is one of a few shapes (an attribute equal to a
 * value, of one type, in one scope, perhaps at a position), so it carries that shape beside its text
 * and is answered from maps of each column's values (or of each type) built once per tree: looking at
 * only the nodes holding its value, it finds the same nodes in the same order, which the unit tests
 * hold to the evaluator's answer on generated trees (`selectorsByEvaluation`).
 */
import { ID_FIELDS, selectorMatches, TEXT_FIELDS } from '@shared/model/match';
import type { ColumnName, ScreenIndex, ScreenView, ViewName } from './screen';
import { oneElementPerPair } from './query';
import { escapeRegex } from './maestro';
import { compileMaestroPattern, maestroFind, maestroLiteralCandidates, warmMaestroMaps, type MaestroQuery } from './maestro-match';

/** The attribute a selector compares with its value, as its tool reads it (docs/selectors.md#s-attributes). */
export type FormAttribute =
  | 'identifier'
  | 'label'
  | 'placeholderValue'
  /** Appium's `name`: the identifier, else the label. */
  | 'name'
  /** XCUITest's subscript: identifier, label, value or placeholder. */
  | 'identifying'
  /** Maestro's `text`: label, value or placeholder. */
  | 'text';

export type SelectorForm =
  | {
      kind: 'element';
      /**
       * Where matches are looked for: every member of the view (Maestro, Appium's accessibility id and
       * predicate, XPath's `//`); below the application (an XCUITest query from `app`); a class chain's
       * `**` from the application (every member when the application is not in the view).
       */
      scope: 'members' | 'xcuitest' | 'chain';
      /** The raw XCUIElement.ElementType the match must have. */
      type?: number;
      test?: { attribute: FormAttribute; value: string };
      /** Which match, 0-based, in document order (`index:`, `.element(boundBy:)`, `[n]`). */
      position?: number;
    }
  /**
   * A Maestro `id:` / `text:` of an escaped literal, with `index:` when needed, or inside the parent a
   * `childOf:` of the same kind names, answered by Maestro's own rules (maestro-match.ts: case ignored,
   * the one text Maestro reads, deepest match, screen order, the parent's subtree).
   */
  | { kind: 'maestro'; key: 'id' | 'text'; value: string; position?: number; childOf?: MaestroLiteral }
  /** The Parallax CLI's `--id` / `--text`, resolved on the merged tree as the dispatcher resolves them. */
  | { kind: 'parallax'; flag: '--id' | '--text'; value: string };

/** A Maestro `id:` / `text:` of an escaped literal, as a generated selector writes it. */
export interface MaestroLiteral {
  key: 'id' | 'text';
  value: string;
}

/** The columns in which a node must hold the value to pass the test (a superset: the test decides). */
const COLUMNS: Record<FormAttribute, readonly ColumnName[]> = {
  identifier: ['identifier'],
  label: ['label'],
  placeholderValue: ['placeholderValue'],
  name: ['identifier', 'label'],
  identifying: ['identifier', 'label', 'value', 'placeholderValue'],
  text: ['label', 'value', 'placeholderValue'],
};

function passes(view: ScreenView, i: number, test: { attribute: FormAttribute; value: string }): boolean {
  const { identifier, label, value, placeholderValue } = view.columns;
  const v = test.value;
  switch (test.attribute) {
    case 'identifier':
      return identifier[i] === v;
    case 'label':
      return label[i] === v;
    case 'placeholderValue':
      return placeholderValue[i] === v;
    case 'name':
      return (identifier[i] ?? label[i]) === v;
    case 'identifying':
      return identifier[i] === v || label[i] === v || value[i] === v || placeholderValue[i] === v;
    case 'text':
      return label[i] === v || value[i] === v || placeholderValue[i] === v;
  }
}

/** The range of pre-order indices a scope covers in `view` (its members in it are the candidates). */
function scopeRange(view: ScreenView, scope: 'members' | 'xcuitest' | 'chain'): [number, number] {
  const n = view.size;
  if (scope === 'members' || (scope === 'chain' && !view.has(0))) return [0, n];
  if (scope === 'chain') return [1, view.subtreeEnd(0)];
  // An XCUITest query starts at the application, or at the view's first top-level element; the first
  // member in document order is that element, since its ancestors in the view would come before it.
  let start = 0;
  while (start < n && !view.has(start)) start++;
  return start >= n ? [0, 0] : [start + 1, view.subtreeEnd(start)];
}

/** The members that can pass: those holding the value in a column the test reads, else those of the type. */
function candidates(view: ScreenView, form: Extract<SelectorForm, { kind: 'element' }>): readonly number[] {
  if (form.test) {
    const lists = COLUMNS[form.test.attribute].map((column) => view.withValue(column, form.test!.value)).filter((l) => l.length > 0);
    if (lists.length <= 1) return lists[0] ?? [];
    return [...new Set(lists.flat())].sort((a, b) => a - b);
  }
  if (form.type !== undefined) return view.ofType(form.type);
  return view.members();
}

/** The first place in the sorted `list` holding `value` or more. */
function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The nodes (pre-order indices, document order) the selector of this form finds in `viewName` of `screen`. */
export function matchForm(form: SelectorForm, screen: ScreenIndex, viewName: ViewName): number[] {
  if (form.kind === 'parallax') return matchParallax(form, screen);
  if (viewName === 'xctest') {
    // As evaluateIn: on the tree XCTest reported, when the merge moved some of it (docs/rules.md#r-hand-10).
    const reported = screen.xctestReported();
    if (reported) return matchForm(form, reported.screen, 'xctest').map((j) => reported.origin[j]!);
  }
  if (form.kind === 'maestro') {
    const found = matchMaestro(form, screen[viewName]);
    return viewName === 'merged' ? oneElementPerPair(found, screen) : found;
  }
  const view = screen[viewName];
  const list = candidates(view, form);
  const [from, to] = scopeRange(view, form.scope);
  const lo = lowerBound(list, from);
  const hi = lowerBound(list, to);
  let picked: number[];
  if (!form.test) {
    // Every candidate is a member of the type (or of the view): the scope and the position decide, so
    // a type with 40,000 members costs two binary searches.
    picked = form.position === undefined ? list.slice(lo, hi) : lo + form.position < hi ? [list[lo + form.position]!] : [];
  } else {
    const types = view.columns.type;
    const found: number[] = [];
    for (let k = lo; k < hi; k++) {
      const i = list[k]!;
      if (!view.has(i) || (form.type !== undefined && types[i] !== form.type) || !passes(view, i, form.test)) continue;
      found.push(i);
      if (form.position !== undefined && found.length > form.position) break;
    }
    picked = form.position === undefined ? found : found[form.position] === undefined ? [] : [found[form.position]!];
  }
  return viewName === 'merged' ? oneElementPerPair(picked, screen) : picked;
}

/** A literal's query, and the members that can match it (a superset, in document order). */
function literalQuery(view: ScreenView, literal: MaestroLiteral): { q: MaestroQuery; candidates: readonly number[] } {
  const source = escapeRegex(literal.value);
  const pattern = compileMaestroPattern(source);
  return {
    q: literal.key === 'id' ? { id: pattern } : { text: pattern },
    candidates: maestroLiteralCandidates(view, literal.key, literal.value, source),
  };
}

function matchMaestro(form: Extract<SelectorForm, { kind: 'maestro' }>, view: ScreenView): number[] {
  const own = literalQuery(view, form);
  const q: MaestroQuery = { ...own.q };
  if (form.position !== undefined) q.index = form.position;
  if (!form.childOf) return maestroFind(view, q, own.candidates);
  // maestroFind looks for the parent and then the element among the same candidates: both lists, in
  // document order (the subtree it searches is cut to them, and only they can match either query).
  const parent = literalQuery(view, form.childOf);
  q.childOf = parent.q;
  return maestroFind(
    view,
    q,
    [...new Set([...own.candidates, ...parent.candidates])].sort((a, b) => a - b),
  );
}

function matchParallax(form: Extract<SelectorForm, { kind: 'parallax' }>, screen: ScreenIndex): number[] {
  const fields = form.flag === '--id' ? ID_FIELDS : TEXT_FIELDS;
  // The dispatcher's resolution over the nodes holding the value exactly (a text selector matches case
  // aside only when none does: then it is asked of every node).
  const holding = screen.withField(fields, form.value).map((i) => screen.flatNode(i));
  const nodes = holding.length > 0 || form.flag === '--id' ? holding : screen.nodes;
  const selector = form.flag === '--id' ? { id: form.value } : { text: form.value };
  return selectorMatches(selector, screen.root, nodes).map((f) => f.order);
}

/**
 * What answering forms on this tree reads (both views' columns, then their value maps and type lists,
 * then the CLI flags' field maps), as steps of a few milliseconds each on 50,000 nodes, so a caller can
 * run them in tasks of their own before the suggestions' (docs/rules.md#r-perf-11).
 */
export function formSteps(screenOf: () => ScreenIndex): (() => void)[] {
  const views = () => [screenOf().xctest, screenOf().merged];
  return [
    () => views().forEach((view) => view.columns),
    () => views().forEach(warmMaestroMaps),
    () =>
      views().forEach((view) => {
        for (const column of ['identifier', 'label', 'value', 'placeholderValue'] as const) view.withValue(column, '');
        view.ofType(0);
      }),
    () => {
      screenOf().withField(ID_FIELDS, '');
      screenOf().withField(TEXT_FIELDS, '');
    },
  ];
}

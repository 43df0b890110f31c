/**
 * How Maestro finds an element on iOS, rule by rule from its own code (docs/selectors.md#s-maestro-rules,
 * docs/rules.md#r-hand-01). Each rule is encoded here once; the selectors panel's uniqueness check
 * (form.ts), the try box (query.ts) and the trace exports all ask these functions.
 *
 * Sources (mobile-dev-inc/maestro):
 * - `maestro-orchestra/src/main/java/maestro/orchestra/Orchestra.kt`, `buildFilter` and the companion
 *   object's `REGEX_OPTIONS = setOf(IGNORE_CASE, DOT_MATCHES_ALL, MULTILINE)`;
 * - `maestro-client/src/main/java/maestro/Filters.kt`: `INDEX_COMPARATOR` (l. 32), `textMatches`
 *   (the text, hintText and accessibilityText attributes, each as `textAttributeMatches`, l. 61–70),
 *   `idMatches` (l. 83), `index`, `deepestMatchingElement`;
 * - `maestro-client/src/main/java/maestro/drivers/IOSDriver.kt`, `mapViewHierarchy`: `accessibilityText`
 *   is the label, `text` the title else the value, `hintText` the placeholder, `resource-id` the
 *   identifier. (Older drivers, `parseXCUIElementNode`, kept only the first non-empty of title, label,
 *   value, placeholder: a subset, so a selector unique under today's rule is unique under both.)
 */
import { RE2JS } from 're2js';
import { MAX_PATTERN_LENGTH, SelectorError } from './errors';
import type { ElementAttributes } from './element';
import type { ScreenView } from './screen';

// Orchestra.kt, companion object: `REGEX_OPTIONS = setOf(RegexOption.IGNORE_CASE,
// RegexOption.DOT_MATCHES_ALL, RegexOption.MULTILINE)`, used for both `textRegex` and `idRegex` in
// `buildFilter`. Kotlin's Regex adds UNICODE_CASE to IGNORE_CASE, so case folds beyond ASCII too.
// re2js (linear time, docs/rules.md#r-hand-06) takes the same three flags.
const REGEX_FLAGS = RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL | RE2JS.MULTILINE;

/** A Maestro `text:` or `id:` pattern, compiled as Maestro compiles it. */
export interface MaestroPattern {
  source: string;
  re: RE2JS;
}

export function compileMaestroPattern(source: string): MaestroPattern {
  if (source.length > MAX_PATTERN_LENGTH) throw new SelectorError('maestro', `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    return { source, re: RE2JS.compile(source, REGEX_FLAGS) };
  } catch (error) {
    const backtracking = /\\[1-9]|\(\?<?[=!]/.test(source);
    throw new SelectorError(
      'maestro',
      backtracking
        ? `${JSON.stringify(source)} uses a backreference or lookaround: Maestro (Java) accepts it, but the try box matches in linear time and does not evaluate it`
        : `${JSON.stringify(source)} is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/**
 * The strings Maestro's `text:` is matched against (IOSDriver.kt `mapViewHierarchy`, Filters.kt
 * `textMatches`): the label (accessibilityText), the value (text, the title being empty on iOS
 * elements) and the placeholder (hintText); a match on any of them is a match.
 */
export function maestroTexts(e: Pick<ElementAttributes, 'label' | 'value' | 'placeholderValue'>): string[] {
  const out: string[] = [];
  for (const v of [e.label, e.value, e.placeholderValue]) if (v !== undefined && !out.includes(v)) out.push(v);
  return out;
}

/**
 * Filters.kt `textAttributeMatches` (l. 61–70): the pattern matches the whole text, or the pattern IS
 * the text, and the same again with every line feed replaced by a space (`value.replace('\n', ' ')`).
 */
export function maestroTextMatches(p: MaestroPattern, text: string | undefined): boolean {
  if (text === undefined) return false;
  if (p.re.matches(text) || p.source === text) return true;
  const stripped = text.replaceAll('\n', ' ');
  return stripped !== text && (p.re.matches(stripped) || p.source === stripped);
}

/**
 * Filters.kt `idMatches` (l. 83): the pattern matches the whole resource-id, or the part after its last
 * `/` (`value.substringAfterLast('/')`); no line-feed folding and no literal fallback for ids.
 */
export function maestroIdMatches(p: MaestroPattern, identifier: string | undefined): boolean {
  if (identifier === undefined) return false;
  if (p.re.matches(identifier)) return true;
  const slash = identifier.lastIndexOf('/');
  return slash >= 0 && p.re.matches(identifier.slice(slash + 1));
}

/** What one Maestro selector asks of a single node (Orchestra.kt `buildFilter`'s basic filters, intersected). */
export interface MaestroQuery {
  id?: MaestroPattern;
  text?: MaestroPattern;
  enabled?: boolean;
  checked?: boolean;
  focused?: boolean;
  selected?: boolean;
  index?: number;
  /** The parent to search within (Orchestra.kt `findElement`'s `selector.childOf`). */
  childOf?: MaestroQuery;
}

export function maestroNodeMatches(q: MaestroQuery, e: ElementAttributes): boolean {
  if (q.id && !maestroIdMatches(q.id, e.identifier)) return false;
  if (q.text && !maestroTexts(e).some((t) => maestroTextMatches(q.text!, t))) return false;
  if (q.enabled !== undefined && e.enabled !== q.enabled) return false;
  if (q.checked !== undefined && e.checked !== q.checked) return false;
  if (q.focused !== undefined && e.hasFocus !== q.focused) return false;
  if (q.selected !== undefined && e.selected !== q.selected) return false;
  return true;
}

/**
 * Filters.kt `deepestMatchingElement`: each match is replaced by the last of its direct children that
 * also matches, recursively (`matchingChildren.lastOrNull() ?: it`), and the result is a set
 * (`Filters.intersect` collects `toSet()`): a cell and its label "Post 12" are one match, the label.
 */
export function maestroDeepest(view: ScreenView, matches: readonly number[], test: (i: number) => boolean): number[] {
  const out = new Set<number>();
  for (const m of matches) {
    let current = m;
    for (;;) {
      const kids = view.children(current);
      let last = -1;
      for (let k = kids.length - 1; k >= 0; k--)
        if (test(kids[k]!)) {
          last = kids[k]!;
          break;
        }
      if (last < 0) break;
      current = last;
    }
    out.add(current);
  }
  return [...out];
}

/**
 * Filters.kt `INDEX_COMPARATOR` (l. 32) and `index`: `index: n` is the n-th match sorted by the top of
 * its bounds, then its left (as whole points, `frame.x.toInt()`; no bounds sorts last), ties in the
 * order found (Kotlin's sort is stable).
 */
export function maestroScreenOrder(view: ScreenView, matches: readonly number[]): number[] {
  const key = (i: number) => {
    const frame = view.attributesOf(i)?.frame;
    return frame ? [Math.trunc(frame.y), Math.trunc(frame.x)] : [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
  };
  const keyed = matches.map((i, order) => ({ i, order, k: key(i) }));
  keyed.sort((a, b) => a.k[0]! - b.k[0]! || a.k[1]! - b.k[1]! || a.order - b.order);
  return keyed.map((x) => x.i);
}

/**
 * What Maestro finds for the query among `candidates` (every node that can match, in document order,
 * Maestro's `aggregate()` order): the deepest matches, then `index:` in screen order. Without an index
 * Maestro taps the first (`clickableFirst`, which on iOS keeps the order): every match is returned so
 * the caller can say it is ambiguous.
 */
export function maestroFind(view: ScreenView, q: MaestroQuery, candidates: readonly number[]): number[] {
  if (q.childOf) {
    // Orchestra.kt `resolveParentHierarchy` (mobile-dev-inc/maestro 024c6b6, after `findElement`): the
    // parent's own childOf first, then the FIRST element the parent's filter gives (its index, else
    // clickableFirst, which keeps the order on iOS) becomes the hierarchy searched: its `aggregate()`,
    // the parent itself and every node under it, in document order. No parent, nothing found.
    const parent = maestroFind(view, q.childOf, candidates)[0];
    if (parent === undefined) return [];
    const inside = new Set(candidates);
    return maestroFind(
      view,
      { ...q, childOf: undefined },
      subtree(view, parent).filter((i) => inside.has(i)),
    );
  }
  const test = (i: number) => {
    const e = view.attributesOf(i);
    return e !== null && maestroNodeMatches(q, e);
  };
  const deepest = maestroDeepest(view, candidates.filter(test), test);
  if (q.index === undefined) return deepest;
  const picked = maestroScreenOrder(view, deepest)[q.index];
  return picked === undefined ? [] : [picked];
}

/** `TreeNode.aggregate()`: the node and its descendants, depth first, in document order. */
function subtree(view: ScreenView, root: number): number[] {
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    out.push(i);
    const kids = view.children(i);
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
  }
  return out;
}

/**
 * A key under which two strings that match each other as escaped literals under IGNORE_CASE share a
 * bucket (a superset: the compiled pattern decides), so the panel looks only at the nodes that can.
 */
export function maestroFoldKey(text: string): string {
  if (/^[\u0000-\u007f]*$/.test(text)) return text.toLowerCase();
  let out = '';
  for (const c of text) {
    const upper = c.toUpperCase();
    out += upper.length === c.length ? upper.toLowerCase() : c.toLowerCase();
  }
  return out;
}

interface FoldedMaps {
  id: Map<string, number[]>;
  text: Map<string, number[]>;
}
const foldedMaps = new WeakMap<ScreenView, FoldedMaps>();

function add(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [i]);
  else if (list[list.length - 1] !== i) list.push(i);
}

/** Per view, its members by the folded identifier (and its part after the last `/`) and the folded Maestro text (and it with line feeds as spaces). */
function folded(view: ScreenView): FoldedMaps {
  let maps = foldedMaps.get(view);
  if (!maps) {
    const { identifier, label, value, placeholderValue } = view.columns;
    const id = new Map<string, number[]>();
    const text = new Map<string, number[]>();
    for (let i = 0; i < view.size; i++) {
      const ident = identifier[i];
      if (ident !== undefined) {
        add(id, maestroFoldKey(ident), i);
        const slash = ident.lastIndexOf('/');
        if (slash >= 0) add(id, maestroFoldKey(ident.slice(slash + 1)), i);
      }
      for (const t of [label[i], value[i], placeholderValue[i]]) {
        if (t === undefined) continue;
        add(text, maestroFoldKey(t), i);
        if (t.includes('\n')) add(text, maestroFoldKey(t.replaceAll('\n', ' ')), i);
      }
    }
    maps = { id, text };
    foldedMaps.set(view, maps);
  }
  return maps;
}

/** Builds the folded maps of a view ahead of the first question (the panel's warm-up steps, docs/rules.md#r-perf-11). */
export function warmMaestroMaps(view: ScreenView): void {
  folded(view);
}

/**
 * The members that can match `pattern`, an escaped literal `value` as the generator writes it (the
 * regex matches `value` ignoring case; the literal fallback matches the pattern's own text), in
 * document order. A superset: `maestroFind` decides.
 */
export function maestroLiteralCandidates(view: ScreenView, key: 'id' | 'text', value: string, pattern: string): number[] {
  const map = folded(view)[key];
  const lists = [map.get(maestroFoldKey(value)), key === 'text' && pattern !== value ? map.get(maestroFoldKey(pattern)) : undefined].filter(
    (l): l is number[] => l !== undefined,
  );
  if (lists.length <= 1) return lists[0] ?? [];
  return [...new Set(lists.flat())].sort((a, b) => a - b);
}

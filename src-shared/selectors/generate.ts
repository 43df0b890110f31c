/**
 * The selectors that find a node (docs/selectors.md#s-generate), in Maestro, XCUITest, Appium and the
 * Parallax CLI, each checked on the observation it came from and kept only when it finds exactly this
 * element. Each is read back as a pasted selector is (so a selector that does not read back is never
 * offered) and answered from the index's columns by its form (form.ts): what the evaluator a pasted
 * selector goes through answers, which `selectorsByEvaluation` computes the slow way for the tests
 * (docs/rules.md#r-perf-11).
 *
 * Ranked by robustness: an accessibility identifier before a label, a label before a placeholder, a
 * type alone last; a position (`index:`, `.element(boundBy:)`, `[n]`) only when nothing without one is
 * unique; within Appium, accessibility id, predicate, class chain, then XPath. A selector built from
 * what only the SDK bridge or the DOM reports is marked with that source: plain XCTest, and so Maestro
 * and Appium, will not find it.
 */
import type { UiNode } from '@shared/protocol/runner';
import { hidesText, nodeSource } from '@shared/model/node';
import type { NodeKey } from '@shared/model/tree';
import { SELECTOR_SYNTAXES, type SelectorSyntax } from './errors';
import { elementTypeInfo } from '@shared/model/element-type';
import type { ElementAttributes, Visibility } from './element';
import { escapeRegex, formatMaestroSelector, maestroQuery, type MaestroSelector } from './maestro';
import { maestroScreenOrder } from './maestro-match';
import { predicateString } from './predicate';
import { chainPredicate } from './class-chain';
import { xpathString } from './xpath';
import { swiftString } from './xcuitest';
import { evaluateIn, parseSelector, viewOf, type ParsedSelector } from './query';
import { indexScreen, type ScreenIndex, type ViewName } from './screen';
import { formSteps, matchForm, type FormAttribute, type MaestroLiteral, type SelectorForm } from './form';
import { ID_FIELDS, TEXT_FIELDS } from '@shared/model/match';

/** What a selector identifies the element by. */
export type SelectorBasis = 'identifier' | 'label' | 'placeholder' | 'type';

export interface SelectorSuggestion {
  syntax: SelectorSyntax;
  /** `id`, `text` (Maestro); `subscript`, `predicate`, `type` (XCUITest); the Appium strategy; `--id`, `--text`. */
  strategy: string;
  /** What to paste: the Maestro selector lines, the Swift expression, the Appium value (its strategy apart), the CLI flag. */
  selector: string;
  basis: SelectorBasis;
  /** What it matches on this observation: always 1, the element it came from. */
  count: number;
  /** Set when a position was needed: how many matched without it. */
  of?: number;
  /** Who can find it: XCTest (and so every tool), or only the SDK bridge / the DOM. */
  visibleTo: Visibility;
  /** Lower is more robust; comparable across syntaxes. */
  robustness: number;
  /** The node it finds: this node, or the XCTest node beside it when the bridge node is its twin. */
  target: NodeKey;
  note?: string;
}

const BASIS_SCORE: Record<SelectorBasis, number> = { identifier: 0, label: 10, placeholder: 20, type: 30 };
const POSITION_PENALTY = 5;
/** Inside a named parent: less robust than the element's own id or text, more than a position (which any element added before it moves). */
const CHILD_OF_PENALTY = 3;
/** How far up a Maestro selector looks for a parent to name (the nearest ones scope tightest). */
const CHILD_OF_ANCESTORS = 24;
const BRIDGE_PENALTY = 100;

interface Context {
  screen: ScreenIndex;
  out: SelectorSuggestion[];
  /** Answer each selector with the evaluator a pasted selector goes through, not by its form (the reference). */
  byEvaluation: boolean;
}

/**
 * Reads `text` back (in `syntax`) and reports whether it finds exactly `target` in `view`, and with
 * how many matches: by its form, or by evaluating what was read. A selector that does not read back,
 * or whose pattern does not compile, finds nothing.
 */
function check(ctx: Context, syntax: SelectorSyntax, text: string, form: SelectorForm, view: ViewName, target: number): { unique: boolean; matches: number[] } {
  let matches: number[];
  try {
    const parsed: ParsedSelector = parseSelector(text, syntax);
    // A Maestro pattern compiles when it is evaluated: too long a one is no selector either.
    if (parsed.strategy === 'maestro') maestroQuery(parsed.maestro);
    matches = ctx.byEvaluation ? evaluateIn(parsed, ctx.screen, view) : matchForm(form, ctx.screen, view);
  } catch {
    return { unique: false, matches: [] };
  }
  return { unique: matches.length === 1 && matches[0] === target, matches };
}

function appiumCheck(ctx: Context, strategy: string, value: string, form: SelectorForm, view: ViewName, target: number) {
  return check(ctx, 'appium', `${strategy}: ${value}`, form, view, target);
}

/** The form a suggestion was checked by, to check it again on a newer tree the same way. */
const formOf = new WeakMap<SelectorSuggestion, SelectorForm>();

interface Basis {
  basis: SelectorBasis;
  value: string;
}

/** What an element can be identified by, most robust first. A secret field's value is never one. */
function bases(e: ElementAttributes): Basis[] {
  const out: Basis[] = [];
  if (e.identifier !== undefined) out.push({ basis: 'identifier', value: e.identifier });
  if (e.label !== undefined) out.push({ basis: 'label', value: e.label });
  if (e.placeholderValue !== undefined && e.placeholderValue !== e.label) out.push({ basis: 'placeholder', value: e.placeholderValue });
  return out;
}

function push(ctx: Context, s: Omit<SelectorSuggestion, 'count' | 'target'> & { targetIndex: number; form: SelectorForm }): void {
  const { targetIndex, form, ...rest } = s;
  if (ctx.out.some((o) => o.syntax === rest.syntax && o.selector === rest.selector && o.strategy === rest.strategy)) return;
  const suggestion: SelectorSuggestion = { ...rest, count: 1, target: ctx.screen.keyOf(targetIndex) };
  formOf.set(suggestion, form);
  ctx.out.push(suggestion);
}

const typeRaw = (e: ElementAttributes) => elementTypeInfo(e.type).raw;

function positionNote(of: number): string {
  return `${of} elements match without the position, which changes when elements are added or moved`;
}

// ---- Per syntax -------------------------------------------------------------------------------------

function maestro(ctx: Context, e: ElementAttributes, view: ViewName, target: number, visibleTo: Visibility, penalty: number, note?: string): void {
  // Maestro matches `text:` against the label, value and placeholder alike (maestro-match.ts `maestroTexts`).
  for (const { basis, value } of bases(e)) {
    const key = basis === 'identifier' ? 'id' : 'text';
    const base: MaestroSelector = key === 'id' ? { id: escapeRegex(value) } : { text: escapeRegex(value) };
    // Answered by Maestro's own matching rules (maestro-match.ts, docs/rules.md#r-hand-01).
    const form: SelectorForm = { kind: 'maestro', key, value };
    const first = check(ctx, 'maestro', formatMaestroSelector(base), form, view, target);
    const robustness = BASIS_SCORE[basis] + penalty;
    if (first.unique) {
      push(ctx, {
        syntax: 'maestro',
        strategy: key,
        selector: formatMaestroSelector(base),
        basis,
        visibleTo,
        robustness,
        targetIndex: target,
        form,
        ...(note ? { note } : {}),
      });
      continue;
    }
    if (!first.matches.includes(target)) continue;
    const scoped = maestroChildOf(ctx, view, target, base, form);
    if (scoped) {
      push(ctx, {
        syntax: 'maestro',
        strategy: key,
        selector: formatMaestroSelector(scoped.selector),
        basis,
        of: first.matches.length,
        visibleTo,
        robustness: robustness + CHILD_OF_PENALTY,
        targetIndex: target,
        form: scoped.form,
        note: note ?? `${first.matches.length} elements match without childOf; inside the parent it names, only this one`,
      });
    }
    // `index:` counts in screen order (top, then left), as Maestro sorts its matches.
    const index = maestroScreenOrder(ctx.screen[view], first.matches).indexOf(target);
    const indexed = { ...base, index };
    const indexedForm: SelectorForm = { ...form, position: index };
    if (check(ctx, 'maestro', formatMaestroSelector(indexed), indexedForm, view, target).unique) {
      push(ctx, {
        syntax: 'maestro',
        strategy: key,
        selector: formatMaestroSelector(indexed),
        basis,
        of: first.matches.length,
        visibleTo,
        robustness: robustness + POSITION_PENALTY,
        targetIndex: target,
        form: indexedForm,
        note: note ?? positionNote(first.matches.length),
      });
    }
  }
}

/**
 * The element's own `id:` / `text:` inside the nearest ancestor that a selector of its own finds alone,
 * where that makes it unique: Maestro searches only the first element the `childOf` selector finds and
 * its subtree, the parent included (Orchestra.kt `findElement`'s childOf branch,
 * `filterFunc(it.aggregate()).firstOrNull()`, and `resolveParentHierarchy`,
 * `parentFilter(grandparentHierarchy.aggregate()).firstOrNull()`, mobile-dev-inc/maestro 024c6b6; run
 * here by maestro-match.ts `maestroFind`). The parent must be unique itself, so "first" is never a
 * guess; its deepest-match rule applies as to any selector (a cell whose label repeats its text is
 * found as the label, and is not offered).
 */
function maestroChildOf(
  ctx: Context,
  view: ViewName,
  target: number,
  base: MaestroSelector,
  form: Extract<SelectorForm, { kind: 'maestro' }>,
): { selector: MaestroSelector; form: SelectorForm } | undefined {
  const v = ctx.screen[view];
  let a = v.parent[target]!;
  for (let n = 0; a >= 0 && n < CHILD_OF_ANCESTORS; n++, a = v.parent[a]!) {
    const e = v.attributesOf(a);
    if (!e) continue;
    for (const { basis, value } of bases(e)) {
      const parent: MaestroLiteral = { key: basis === 'identifier' ? 'id' : 'text', value };
      const parentSelector: MaestroSelector = parent.key === 'id' ? { id: escapeRegex(value) } : { text: escapeRegex(value) };
      if (!check(ctx, 'maestro', formatMaestroSelector(parentSelector), { kind: 'maestro', ...parent }, view, a).unique) continue;
      const selector: MaestroSelector = { ...base, childOf: parentSelector };
      const scopedForm: SelectorForm = { ...form, childOf: parent };
      if (check(ctx, 'maestro', formatMaestroSelector(selector), scopedForm, view, target).unique) return { selector, form: scopedForm };
      // The nearest unique parent holds other matches too: one further up holds at least as many.
      return undefined;
    }
  }
  return undefined;
}

function xcuitest(ctx: Context, e: ElementAttributes, view: ViewName, target: number, visibleTo: Visibility, penalty: number, note?: string): void {
  const info = elementTypeInfo(e.type);
  if (info.query === '' || info.name === 'Any') return;
  const query = `app.${info.query}`;
  const type = info.raw;
  const add = (strategy: string, selector: string, basis: SelectorBasis, form: SelectorForm, extra: { of?: number; position?: boolean } = {}) =>
    push(ctx, {
      syntax: 'xcuitest',
      strategy,
      selector,
      basis,
      visibleTo,
      robustness: BASIS_SCORE[basis] + penalty + (extra.position ? POSITION_PENALTY : 0) + (strategy === 'predicate' ? 1 : 0),
      targetIndex: target,
      form,
      ...(extra.of !== undefined ? { of: extra.of } : {}),
      ...(note ? { note } : extra.of !== undefined ? { note: positionNote(extra.of) } : {}),
    });
  for (const { basis, value } of bases(e)) {
    const literal = swiftString(value);
    const subscript = `${query}[${literal}]`;
    const subForm: SelectorForm = { kind: 'element', scope: 'xcuitest', type, test: { attribute: 'identifying', value } };
    const sub = check(ctx, 'xcuitest', subscript, subForm, view, target);
    if (sub.unique) add('subscript', subscript, basis, subForm);
    // The subscript matches any identifying property; a predicate on the one attribute is narrower.
    const attribute = basis === 'identifier' ? 'identifier' : basis === 'label' ? 'label' : 'placeholderValue';
    const predicate = `NSPredicate(format: "${attribute} == %@", ${literal})`;
    const single = `${query}.element(matching: ${predicate})`;
    const predForm: SelectorForm = { kind: 'element', scope: 'xcuitest', type, test: { attribute, value } };
    const pred = check(ctx, 'xcuitest', single, predForm, view, target);
    if (pred.unique) {
      if (!sub.unique) add('predicate', single, basis, predForm);
      else if (basis === 'label') add('predicate', single, basis, predForm);
      continue;
    }
    if (sub.unique) continue;
    const index = pred.matches.indexOf(target);
    if (index < 0) continue;
    const bound = `${query}.matching(${predicate}).element(boundBy: ${index})`;
    const boundForm: SelectorForm = { ...predForm, position: index };
    if (check(ctx, 'xcuitest', bound, boundForm, view, target).unique) add('predicate', bound, basis, boundForm, { of: pred.matches.length, position: true });
  }
  if (visibleTo === 'xctest') {
    const allForm: SelectorForm = { kind: 'element', scope: 'xcuitest', type };
    const all = check(ctx, 'xcuitest', `${query}.element`, allForm, view, target);
    if (all.unique) add('type', `${query}.element`, 'type', allForm);
    else {
      const index = all.matches.indexOf(target);
      const bound = `${query}.element(boundBy: ${index})`;
      const boundForm: SelectorForm = { ...allForm, position: index };
      if (index >= 0 && check(ctx, 'xcuitest', bound, boundForm, view, target).unique)
        add('type', bound, 'type', boundForm, { of: all.matches.length, position: true });
    }
  }
}

function appium(ctx: Context, e: ElementAttributes, view: ViewName, target: number, visibleTo: Visibility, penalty: number, note?: string): void {
  const type = e.xcuiType;
  const raw = typeRaw(e);
  const add = (strategy: string, selector: string, basis: SelectorBasis, order: number, form: SelectorForm, of?: number) =>
    push(ctx, {
      syntax: 'appium',
      strategy,
      selector,
      basis,
      visibleTo,
      robustness: BASIS_SCORE[basis] + penalty + order + (of !== undefined ? POSITION_PENALTY : 0),
      targetIndex: target,
      form,
      ...(of !== undefined ? { of } : {}),
      ...(note ? { note } : of !== undefined ? { note: positionNote(of) } : {}),
    });
  const name = e.identifier ?? e.label;
  if (name !== undefined) {
    // The driver compares the value as sent, its surrounding spaces aside (query.ts parseAppiumSelector).
    const form: SelectorForm = { kind: 'element', scope: 'members', test: { attribute: 'name', value: name.trim() } };
    if (appiumCheck(ctx, 'accessibility id', name, form, view, target).unique)
      add('accessibility id', name, e.identifier !== undefined ? 'identifier' : 'label', 0, form);
  }
  const attributeTests: { basis: SelectorBasis; attribute: '' | Extract<FormAttribute, 'name' | 'label' | 'placeholderValue'>; value: string }[] = [];
  if (e.identifier !== undefined) attributeTests.push({ basis: 'identifier', attribute: 'name', value: e.identifier });
  if (e.label !== undefined) attributeTests.push({ basis: 'label', attribute: 'label', value: e.label });
  if (e.placeholderValue !== undefined && e.placeholderValue !== e.label)
    attributeTests.push({ basis: 'placeholder', attribute: 'placeholderValue', value: e.placeholderValue });
  if (visibleTo === 'xctest') attributeTests.push({ basis: 'type', attribute: '', value: '' });
  for (const { basis, attribute, value } of attributeTests) {
    const test = attribute === '' ? {} : { test: { attribute, value } };
    const condition = attribute === '' ? '' : `${attribute} == ${predicateString(value)}`;
    const predicate = condition === '' ? `type == ${predicateString(type)}` : `type == ${predicateString(type)} AND ${condition}`;
    const predForm: SelectorForm = { kind: 'element', scope: 'members', type: raw, ...test };
    if (appiumCheck(ctx, '-ios predicate string', predicate, predForm, view, target).unique) add('-ios predicate string', predicate, basis, 1, predForm);
    const chain = `**/${type}${condition === '' ? '' : chainPredicate(condition)}`;
    // A class chain's XCUIElementTypeAny is any type (class-chain.ts), as `*` is.
    const chainForm: SelectorForm = { kind: 'element', scope: 'chain', ...(e.type === 'Any' ? {} : { type: raw }), ...test };
    const chained = appiumCheck(ctx, '-ios class chain', chain, chainForm, view, target);
    if (chained.unique) add('-ios class chain', chain, basis, 2, chainForm);
    else {
      const position = chained.matches.indexOf(target);
      const indexed = `${chain}[${position + 1}]`;
      const indexedForm: SelectorForm = { ...chainForm, position };
      if (position >= 0 && appiumCheck(ctx, '-ios class chain', indexed, indexedForm, view, target).unique)
        add('-ios class chain', indexed, basis, 2, indexedForm, chained.matches.length);
    }
    const literal = attribute === '' ? '' : xpathString(value);
    if (literal === undefined) continue;
    const xpath = `//${type}${attribute === '' ? '' : `[@${attribute}=${literal}]`}`;
    // `//` from the document: every member of the view.
    const xpathForm: SelectorForm = { kind: 'element', scope: 'members', type: raw, ...test };
    const found = appiumCheck(ctx, 'xpath', xpath, xpathForm, view, target);
    if (found.unique) add('xpath', xpath, basis, 3, xpathForm);
    else {
      const position = found.matches.indexOf(target);
      const indexed = `(${xpath})[${position + 1}]`;
      const indexedForm: SelectorForm = { ...xpathForm, position };
      if (position >= 0 && appiumCheck(ctx, 'xpath', indexed, indexedForm, view, target).unique)
        add('xpath', indexed, basis, 3, indexedForm, found.matches.length);
    }
  }
}

/** A shell word that reads back as `text`. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

function parallax(ctx: Context, node: UiNode, i: number, xctestSeen: ElementAttributes | undefined): void {
  const raw = node as Record<string, unknown>;
  const source = nodeSource(node);
  const partner = ctx.screen.partner[i]!;
  const accepts = (matches: number[]) => matches.length === 1 && (matches[0] === i || matches[0] === partner);
  const ids = new Set<string>();
  for (const name of ID_FIELDS) {
    const value = raw[name];
    if (typeof value === 'string' && value !== '') ids.add(value);
  }
  const texts = new Set<string>();
  for (const name of TEXT_FIELDS) {
    const value = raw[name];
    if (typeof value === 'string' && value !== '' && !(name !== 'content-desc' && hidesText(node))) texts.add(value);
  }
  const seenAs = (basis: SelectorBasis, value: string) =>
    basis === 'identifier'
      ? value === xctestSeen?.identifier
      : xctestSeen !== undefined && [xctestSeen.label, xctestSeen.value, xctestSeen.placeholderValue].includes(value);
  const flags: [strategy: '--id' | '--text', basis: SelectorBasis, values: Set<string>][] = [
    ['--id', 'identifier', ids],
    ['--text', 'label', texts],
  ];
  for (const [strategy, basis, values] of flags) {
    for (const value of values) {
      // node:util parseArgs (the CLI's parser) refuses `--text -5%` as an option missing its value and
      // asks for `--text=-5%`: a value that starts with a dash is joined to its flag (docs/rules.md#r-hand-05).
      const selector = value.startsWith('-') ? `${strategy}=${shellQuote(value)}` : `${strategy} ${shellQuote(value)}`;
      const form: SelectorForm = { kind: 'parallax', flag: strategy, value };
      const { matches } = check(ctx, 'parallax', selector, form, 'merged', i);
      if (!accepts(matches)) continue;
      const visibleTo: Visibility = source === 'xctest' || seenAs(basis, value) ? 'xctest' : source;
      push(ctx, {
        syntax: 'parallax',
        strategy,
        selector,
        basis,
        visibleTo,
        robustness: BASIS_SCORE[basis] + (visibleTo === 'xctest' ? 0 : BRIDGE_PENALTY),
        targetIndex: matches[0]!,
        form,
      });
    }
  }
}

const SOURCE_NOTES: Record<Exclude<Visibility, 'xctest'>, string> = {
  sdkBridge: 'only the SDK bridge reports this: plain XCTest, and so Maestro and Appium, will not find it',
  sdkWebBridge: "only the web view's DOM reports this: plain XCTest, and so Maestro and Appium, will not find it",
};

/** The attributes `e` has that `seen` (what XCTest reports) does not, for the bridge-only selectors. */
function onlyMerged(e: ElementAttributes, seen: ElementAttributes | undefined): ElementAttributes | undefined {
  if (!seen) return e;
  const out: ElementAttributes = { ...e };
  let any = false;
  for (const name of ['identifier', 'label', 'placeholderValue'] as const) {
    const values = [seen.identifier, seen.label, seen.value, seen.placeholderValue];
    if (out[name] !== undefined && values.includes(out[name])) delete out[name];
    else if (out[name] !== undefined) any = true;
  }
  return any ? out : undefined;
}

/**
 * The selectors that find the node at `key` on `root`, most robust first within each syntax (syntaxes
 * in the order Maestro, XCUITest, Appium, Parallax CLI). Empty when the key is not in the tree.
 */
export function selectorsFor(root: UiNode, key: NodeKey): SelectorSuggestion[] {
  return generate(root, key, false);
}

/**
 * Indexing `root` and building what `selectorsFor` reads on it, as steps of a few milliseconds each on
 * 50,000 nodes, for a caller that runs them in tasks of their own before the suggestions'
 * (docs/rules.md#r-perf-11).
 */
export function selectorSteps(root: UiNode): (() => void)[] {
  // The index is cached per root: the first step makes it, the others find it.
  return [() => void indexScreen(root), ...formSteps(() => indexScreen(root))];
}

/**
 * The same list, each selector answered by the evaluator a pasted selector goes through rather than
 * by its form: the definition `selectorsFor` is held to (tests), and the approach before its forms (bench).
 */
export function selectorsByEvaluation(root: UiNode, key: NodeKey): SelectorSuggestion[] {
  return generate(root, key, true);
}

function generate(root: UiNode, key: NodeKey, byEvaluation: boolean): SelectorSuggestion[] {
  const screen = indexScreen(root);
  const i = screen.indexOf(key);
  if (i === undefined) return [];
  const ctx: Context = { screen, out: [], byEvaluation };
  const node = screen.node[i]!;
  const source = nodeSource(node);

  // Where XCTest has this element: the node itself, or the XCTest node a bridge twin stands beside.
  const partner = screen.partner[i]!;
  const xi = screen.xctest.has(i) ? i : partner >= 0 && screen.xctest.has(partner) ? partner : -1;
  const seen = xi >= 0 ? (screen.xctest.attributesOf(xi) ?? undefined) : undefined;
  if (seen) {
    const note = xi !== i ? `XCTest reports this element as the ${seen.xcuiType} beside it (${screen.keyOf(xi)})` : undefined;
    maestro(ctx, seen, 'xctest', xi, 'xctest', 0, note);
    xcuitest(ctx, seen, 'xctest', xi, 'xctest', 0, note);
    appium(ctx, seen, 'xctest', xi, 'xctest', 0, note);
  }
  if (source !== 'xctest') {
    const own = onlyMerged(screen.merged.attributesOf(i)!, seen);
    if (own) {
      const note = SOURCE_NOTES[source];
      maestro(ctx, own, 'merged', i, source, BRIDGE_PENALTY, note);
      xcuitest(ctx, own, 'merged', i, source, BRIDGE_PENALTY, note);
      appium(ctx, own, 'merged', i, source, BRIDGE_PENALTY, note);
    }
  }
  parallax(ctx, node, i, seen);

  const order = (s: SelectorSyntax) => SELECTOR_SYNTAXES.indexOf(s);
  const list = ctx.out.sort((a, b) => order(a.syntax) - order(b.syntax) || a.robustness - b.robustness);
  madeOn.set(list, root);
  return list;
}

/**
 * The tree each list of suggestions was made on: each was kept because it finds exactly its target
 * there, so rechecking it on that same tree needs no second evaluation over every node
 * (docs/rules.md#r-perf-08).
 */
const madeOn = new WeakMap<readonly SelectorSuggestion[], UiNode>();

/** The most robust selector of one syntax that XCTest can see, if any. */
export function bestXctestSelector(root: UiNode, key: NodeKey, syntax: SelectorSyntax): SelectorSuggestion | undefined {
  return selectorsFor(root, key).find((s) => s.syntax === syntax && s.visibleTo === 'xctest');
}

/** What one suggestion finds on an observation. */
export interface SuggestionCheck {
  /** The nodes it finds, in the view it was made for (XCTest's, or the merged tree for a bridge-only one). */
  found: NodeKey[];
  /** It finds exactly the element it was made for. */
  findsTarget: boolean;
}

/**
 * The suggestions made for a node, evaluated again on `root` (the same observation, or a newer one), each
 * in the view it was made for: what each finds now, so a list kept while the screen changes shows which
 * of its selectors still find exactly that element (docs/rules.md#r-qa-21).
 */
export function recheckSuggestions(root: UiNode, suggestions: readonly SelectorSuggestion[]): SuggestionCheck[] {
  if (madeOn.get(suggestions) === root) return suggestions.map((s) => ({ found: [s.target], findsTarget: true }));
  const screen = indexScreen(root);
  return suggestions.map((s) => {
    const form = formOf.get(s);
    let found: number[];
    if (form) {
      // Its form answers what evaluating its text answers (docs/rules.md#r-perf-11).
      found = matchForm(form, screen, s.syntax === 'parallax' || s.visibleTo !== 'xctest' ? 'merged' : 'xctest');
    } else {
      let parsed: ParsedSelector;
      try {
        parsed = parseSelector(suggestionText(s), s.syntax);
      } catch {
        return { found: [], findsTarget: false };
      }
      found = evaluateIn(parsed, screen, s.visibleTo === 'xctest' ? viewOf(parsed) : 'merged');
    }
    const keys = found.map((i) => screen.keyOf(i));
    return { found: keys, findsTarget: keys.length === 1 && keys[0] === s.target };
  });
}

/** A suggestion as the text `parseSelector` reads back (an Appium value with its strategy in front). */
export function suggestionText(s: Pick<SelectorSuggestion, 'syntax' | 'strategy' | 'selector'>): string {
  return s.syntax === 'appium' ? `${s.strategy}: ${s.selector}` : s.selector;
}

/**
 * Appium's `-ios class chain` (docs/selectors.md#s-class-chain,
 * https://appium.github.io/appium-xcuitest-driver/latest/reference/ios-class-chain/): `/`-separated
 * steps, each an element type (`XCUIElementTypeButton`, `*` for any) with optional `` [`predicate`] ``,
 * `[$predicate$]` (has a descendant matching) and `[n]` positions (1-based, negative from the end),
 * applied in the order written. A step selects among the children of everything the previous step
 * selected, or among their descendants after `**`; the first step starts at the application.
 */
import { SelectorError } from './errors';
import { elementTypeByName, type ElementTypeName } from '@shared/model/element-type';
import { parsePredicate, type Predicate } from './predicate';
import type { ScreenView } from './screen';

type Filter = { kind: 'predicate'; test: Predicate } | { kind: 'contains'; test: Predicate } | { kind: 'position'; n: number };

interface ChainStep {
  descendant: boolean;
  type: ElementTypeName;
  filters: Filter[];
}

export interface ClassChain {
  steps: ChainStep[];
}

function fail(reason: string, at?: number): never {
  throw new SelectorError('appium', `class chain: ${reason}`, at);
}

/** Reads a class chain, or throws a SelectorError saying why it is not one. */
export function parseClassChain(text: string): ClassChain {
  const steps: ChainStep[] = [];
  let i = 0;
  let descendant = false;
  const source = text.trim();
  if (source === '') fail('the chain is empty');
  while (i < source.length) {
    if (source.startsWith('**/', i)) {
      if (descendant) fail('"**/" twice in a row', i);
      descendant = true;
      i += 3;
      continue;
    }
    const m = /^(XCUIElementType[A-Za-z]+|\*)/.exec(source.slice(i));
    if (!m) fail(`expected an element type (XCUIElementTypeButton) or *, found ${JSON.stringify(source.slice(i, i + 20))}`, i);
    let type: ElementTypeName = 'Any';
    if (m[1] !== '*') {
      const info = elementTypeByName(m[1]!);
      // WDA's FBElementTypeTransformer reads a type name it does not know as XCUIElementTypeOther, not an error (docs/rules.md#r-hand-09).
      type = info && info.xcuiName === m[1] ? info.name : 'Other';
    }
    i += m[0].length;
    const filters: Filter[] = [];
    while (source[i] === '[') {
      const open = i;
      const mark = source[i + 1];
      // FBClassChainQueryParser.m: a step's position is its last filter, and it has at most one.
      if (filters.some((f) => f.kind === 'position'))
        fail(mark === '`' || mark === '$' ? 'a predicate after the position: WebDriverAgent takes [n] last' : 'two positions in one step', open);
      if (mark === '`' || mark === '$') {
        // The predicate runs to the closing mark followed by "]"; a doubled mark inside is a literal one.
        let j = i + 2;
        let body = '';
        for (;;) {
          if (j >= source.length) fail(`a ${mark === '`' ? 'backtick' : '$'} predicate is not closed`, open);
          if (source[j] === mark && source[j + 1] === mark) {
            body += mark;
            j += 2;
            continue;
          }
          if (source[j] === mark && source[j + 1] === ']') break;
          body += source[j];
          j++;
        }
        const test = parsePredicate(body, [], 'appium');
        filters.push({ kind: mark === '`' ? 'predicate' : 'contains', test });
        i = j + 2;
        continue;
      }
      const pos = /^\[(-?\d+)\]/.exec(source.slice(i));
      if (!pos) fail('a step takes [`predicate`], [$predicate$] or [n]', open);
      const n = Number(pos[1]);
      if (n === 0) fail('positions start at 1 (or -1 for the last)', open);
      filters.push({ kind: 'position', n });
      i += pos[0].length;
    }
    steps.push({ descendant, type, filters });
    descendant = false;
    if (i >= source.length) break;
    if (source[i] !== '/') fail(`expected "/" between steps, found ${JSON.stringify(source[i])}`, i);
    i++;
    if (i >= source.length) fail('the chain ends with "/"', i - 1);
  }
  if (descendant) fail('"**/" must be followed by a step');
  return { steps };
}

/** The elements (node indices, document order) the chain selects in `view`. */
export function evaluateClassChain(chain: ClassChain, view: ScreenView): number[] {
  // Nothing above the application: the chain starts with the application's children (or descendants).
  let current = view.has(0) ? [0] : [-1];
  for (const step of chain.steps) {
    let candidates: number[];
    if (step.descendant) candidates = view.descendantsOf(current);
    else {
      candidates = [];
      for (const p of current) candidates.push(...view.children(p));
      candidates.sort((a, b) => a - b);
    }
    candidates = candidates.filter((i) => step.type === 'Any' || view.attrs[i]!.type === step.type);
    for (const filter of step.filters) {
      if (filter.kind === 'predicate') candidates = candidates.filter((i) => filter.test(view.attrs[i]!));
      else if (filter.kind === 'contains') {
        const prefix = new Int32Array(view.attrs.length + 1);
        for (let j = 0; j < view.attrs.length; j++) prefix[j + 1] = prefix[j]! + (view.attrs[j] !== null && filter.test(view.attrs[j]!) ? 1 : 0);
        candidates = candidates.filter((i) => prefix[view.subtreeEnd(i)]! - prefix[i + 1]! > 0);
      } else {
        const at = filter.n > 0 ? filter.n - 1 : candidates.length + filter.n;
        candidates = candidates[at] === undefined ? [] : [candidates[at]!];
      }
    }
    current = candidates;
    if (current.length === 0) break;
  }
  return current;
}

/** A predicate for a class chain step: backticks, with a backtick inside doubled. */
export function chainPredicate(predicate: string): string {
  return `[\`${predicate.replaceAll('`', '``')}\`]`;
}

/**
 * Maestro selectors (docs/selectors.md#s-maestro, https://docs.maestro.dev/api-reference/selectors):
 * `id` (the accessibility identifier) and `text` (the label, value or placeholder) are regular
 * expressions matched against the whole value, `index` is 0-based among the matches, and the state keys
 * `enabled`, `checked`, `focused`, `selected` narrow them. Maestro reads the screen through XCTest, so
 * a Maestro selector is a question about the XCTest view.
 *
 * Read from a selector block (`id: 'x'` / `index: 1` lines), a flow mapping (`{id: x, index: 1}`) or a
 * flow line with its command (`- tapOn: 'Sign in'`, `- tapOn:` followed by the block).
 */
import { SelectorError } from './errors';
import { compileMaestroPattern, type MaestroQuery } from './maestro-match';

// ---- YAML scalars -----------------------------------------------------------------------------------

// Characters a single-quoted YAML scalar cannot carry as is: controls and line breaks (YAML 1.1, which
// Maestro's parser speaks, also breaks lines at NEL, U+2028 and U+2029), BOM and non-characters, and
// surrogates, which only the escaped form can keep intact.
// The bidirectional controls too (docs/rules.md#r-show-01): escaped, the flow reads as the label is, not reordered.
const NEEDS_ESCAPES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;
const ESCAPE_AFTER_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff\ufffe\uffff]/g;

/** A YAML quoted scalar that reads back as exactly `text`. */
export function yamlString(text: string): string {
  if (!NEEDS_ESCAPES.test(text)) return `'${text.replaceAll("'", "''")}'`;
  // YAML's double-quoted escapes include JSON's (\" \\ \n \t \uXXXX), so JSON.stringify is a valid
  // starting point; it leaves DEL, C1 controls and the Unicode line breaks raw, so those are escaped too.
  return JSON.stringify(text).replace(ESCAPE_AFTER_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Maestro's text and id selectors are regular expressions (Java syntax) matched against the whole value. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

// ---- The selector -----------------------------------------------------------------------------------

export interface MaestroSelector {
  id?: string;
  text?: string;
  index?: number;
  enabled?: boolean;
  checked?: boolean;
  focused?: boolean;
  selected?: boolean;
  /** Search only inside the first element this selector finds (Orchestra.kt `resolveParentHierarchy`). */
  childOf?: MaestroSelector;
}

const STATE_KEYS = ['enabled', 'checked', 'focused', 'selected'] as const;
const SELECTOR_KEYS = new Set<string>(['id', 'text', 'index', ...STATE_KEYS]);
/** Maestro keys that exist but need what an observation does not hold, or are not about which element. */
const UNSUPPORTED: Record<string, string> = {
  point: 'a point names a place on the screen, not an element',
  below: 'relative selectors (below, above, leftOf, rightOf, containsChild) are not evaluated here',
  above: 'relative selectors (below, above, leftOf, rightOf, containsChild) are not evaluated here',
  leftOf: 'relative selectors (below, above, leftOf, rightOf, containsChild) are not evaluated here',
  rightOf: 'relative selectors (below, above, leftOf, rightOf, containsChild) are not evaluated here',
  containsChild: 'relative selectors (below, above, leftOf, rightOf, containsChild) are not evaluated here',
  containsDescendants: 'containsDescendants is not evaluated here',
  width: 'width, height and tolerance are not evaluated here',
  height: 'width, height and tolerance are not evaluated here',
  tolerance: 'width, height and tolerance are not evaluated here',
  traits: 'traits are not evaluated here',
  // Orchestra.kt `buildFilter` (024c6b6): `Filters.css(maestro, it)` asks the web driver's DOM; an iOS
  // app's hierarchy has no CSS to match.
  css: 'css selectors are for Maestro web flows, not an iOS app',
};
/** Commands (and the keys of commands) whose value is a selector. */
const COMMANDS = new Set([
  'tapOn',
  'doubleTapOn',
  'longPressOn',
  'assertVisible',
  'assertNotVisible',
  'copyTextFrom',
  'scrollUntilVisible',
  'extendedWaitUntil',
  'element',
  'from',
  'visible',
  'notVisible',
]);
// `label` names the step in Maestro's output (YamlFluentCommand.kt passes it to the command, not to
// ElementSelector), so it changes nothing about which element is found.
const IGNORED = new Set(['optional', 'label', 'retryTapIfNoChange', 'waitToSettleTimeoutMs', 'repeat', 'delay', 'waitUntilVisible']);

function fail(reason: string, at: number): never {
  throw new SelectorError('maestro', reason, at);
}

function unquote(raw: string, at: number): string {
  const text = raw.trim();
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2) throw new SelectorError('maestro', 'a single-quoted value is not closed', at);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new SelectorError('maestro', `${text} is not a valid double-quoted value`, at);
    }
  }
  // A plain scalar ends before a comment.
  return text.replace(/\s+#.*$/, '').trim();
}

/** `{a: 1, b: 'x, y'}` into its pairs (commas inside quotes kept). */
function flowPairs(body: string, at: number): [string, string][] {
  const parts: string[] = [];
  let quote: string | null = null;
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      current += c;
      if (c === quote) {
        if (quote === "'" && body[i + 1] === "'") current += body[++i]!;
        else quote = null;
      } else if (c === '\\' && quote === '"') current += body[++i] ?? '';
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    if (c === ',') {
      parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  if (quote) throw new SelectorError('maestro', 'a quoted value is not closed', at);
  if (current.trim() !== '') parts.push(current);
  return parts.map((part) => {
    const colon = part.indexOf(':');
    if (colon < 0) throw new SelectorError('maestro', `${JSON.stringify(part.trim())} is not a key: value pair`, at);
    return [part.slice(0, colon).trim(), part.slice(colon + 1)];
  });
}

function toSelector(pairs: readonly [string, string][], at: number): MaestroSelector {
  const selector: MaestroSelector = {};
  for (const [key, raw] of pairs) {
    if (UNSUPPORTED[key]) throw new SelectorError('maestro', UNSUPPORTED[key]!, at);
    if (IGNORED.has(key)) continue;
    if (key === 'childOf') {
      // YamlElementSelectorUnion: a mapping is a selector, a string the text shorthand.
      const value = raw.trim();
      selector.childOf = value.startsWith('{')
        ? toSelector(flowPairs(value.endsWith('}') ? value.slice(1, -1) : fail('a flow mapping is not closed with }', at), at), at)
        : { text: unquote(raw, at) };
      continue;
    }
    if (!SELECTOR_KEYS.has(key))
      throw new SelectorError('maestro', `${JSON.stringify(key)} is not a Maestro selector key (id, text, index, enabled, checked, focused, selected)`, at);
    const value = unquote(raw, at);
    if (key === 'id' || key === 'text') {
      if (value === '') throw new SelectorError('maestro', `${key} is empty`, at);
      selector[key] = value;
    } else if (key === 'index') {
      if (!/^\d+$/.test(value)) throw new SelectorError('maestro', `index must be a whole number from 0, not ${JSON.stringify(value)}`, at);
      selector.index = Number(value);
    } else {
      if (value !== 'true' && value !== 'false') throw new SelectorError('maestro', `${key} must be true or false, not ${JSON.stringify(value)}`, at);
      selector[key as (typeof STATE_KEYS)[number]] = value === 'true';
    }
  }
  if (selector.id === undefined && selector.text === undefined && STATE_KEYS.every((k) => selector[k] === undefined)) {
    throw new SelectorError('maestro', 'the selector names no id, text or state');
  }
  return selector;
}

/** Reads a Maestro selector, or throws a SelectorError saying why it is not one. */
export function parseMaestroSelector(input: string): MaestroSelector {
  const lines = input
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*-\s+/, (m) => ' '.repeat(m.length)))
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  return selectorOfLines(lines);
}

const indentOf = (line: string) => line.length - line.trimStart().length;

function selectorOfLines(lines: readonly string[]): MaestroSelector {
  if (lines.length === 0) throw new SelectorError('maestro', 'the selector is empty');
  const pairs: [string, string][] = [];
  let parent: MaestroSelector | undefined;
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const m = /^([A-Za-z][\w]*)\s*:(.*)$/.exec(line);
    if (!m) {
      if (line.startsWith('{')) {
        if (!line.endsWith('}')) throw new SelectorError('maestro', 'a flow mapping is not closed with }', offset);
        pairs.push(...flowPairs(line.slice(1, -1), offset));
        offset += lines[i]!.length + 1;
        continue;
      }
      throw new SelectorError('maestro', `${JSON.stringify(line)} is not a key: value line`, offset);
    }
    const [, key, rest] = m as unknown as [string, string, string];
    const value = rest.trim();
    if (key === 'childOf' && value === '') {
      // A block under childOf: the lines indented deeper than it are the parent's selector.
      const block: string[] = [];
      const base = indentOf(lines[i]!);
      while (i + 1 < lines.length && indentOf(lines[i + 1]!) > base) block.push(lines[++i]!);
      if (block.length === 0) throw new SelectorError('maestro', 'childOf names no selector', offset);
      if (parent) throw new SelectorError('maestro', 'childOf is written twice', offset);
      parent = selectorOfLines(block);
      offset += lines[i]!.length + 1;
      continue;
    }
    if (COMMANDS.has(key)) {
      // A command (tapOn, longPressOn, assertVisible, …): its value is the selector.
      if (value === '') {
        offset += lines[i]!.length + 1;
        continue;
      }
      if (value.startsWith('{')) {
        if (!value.endsWith('}')) throw new SelectorError('maestro', 'a flow mapping is not closed with }', offset);
        pairs.push(...flowPairs(value.slice(1, -1), offset));
      } else pairs.push(['text', value]);
    } else pairs.push([key, rest]);
    offset += lines[i]!.length + 1;
  }
  const selector = toSelector(pairs, 0);
  if (parent) selector.childOf = parent;
  return selector;
}

/** The selector compiled as Maestro compiles it (maestro-match.ts); `index` is applied by `maestroFind`. */
export function maestroQuery(selector: MaestroSelector): MaestroQuery {
  const q: MaestroQuery = {};
  if (selector.id !== undefined) q.id = compileMaestroPattern(selector.id);
  if (selector.text !== undefined) q.text = compileMaestroPattern(selector.text);
  for (const key of STATE_KEYS) if (selector[key] !== undefined) q[key] = selector[key];
  if (selector.index !== undefined) q.index = selector.index;
  if (selector.childOf) q.childOf = maestroQuery(selector.childOf);
  return q;
}

/** The selector as the lines under a command (`- tapOn:`), one key per line. */
export function formatMaestroSelector(selector: MaestroSelector): string {
  const lines: string[] = [];
  if (selector.id !== undefined) lines.push(`id: ${yamlString(selector.id)}`);
  if (selector.text !== undefined) lines.push(`text: ${yamlString(selector.text)}`);
  if (selector.index !== undefined) lines.push(`index: ${selector.index}`);
  for (const key of STATE_KEYS) if (selector[key] !== undefined) lines.push(`${key}: ${String(selector[key])}`);
  // The parent as a block under `childOf:` (YamlElementSelectorUnion reads a mapping as a selector).
  if (selector.childOf)
    lines.push(
      'childOf:',
      ...formatMaestroSelector(selector.childOf)
        .split('\n')
        .map((line) => `  ${line}`),
    );
  return lines.join('\n');
}

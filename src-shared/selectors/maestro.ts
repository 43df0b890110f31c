/**
 * Maestro selectors (docs/selectors.md#s-maestro, https://docs.maestro.dev/api-reference/selectors):
 * `id` (the accessibility identifier) and `text` (the label, value or placeholder) are regular
 * expressions matched against the whole value, `index` is 0-based among the matches, and the state keys
 * `enabled`, `checked`, `focused`, `selected` narrow them. Maestro reads the screen through XCTest, so
 * a Maestro selector is a question about the XCTest view.
 *
 * Read by a YAML parser from a selector block (`id: 'x'` / `index: 1` lines), a flow mapping
 * (`{id: x, index: 1}`) or a flow line with its command (`- tapOn: 'Sign in'`, `- tapOn:` followed by
 * the block).
 */
import { isMap, isScalar, isSeq, parseDocument, type Node, type Scalar, type YAMLError, type YAMLMap } from 'yaml';
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

function fail(reason: string, at: number | undefined): never {
  throw new SelectorError('maestro', reason, at);
}

const startOf = (node: Node | null | undefined): number | undefined => node?.range?.[0];
const isNull = (node: Node | null | undefined): boolean => node == null || (isScalar(node) && node.value === null);

/** What a YAML error means for a selector, in words; the position is where the parser stopped. */
function yamlReason(error: YAMLError): string {
  if (error.code === 'MISSING_CHAR' && error.message.includes("'quote")) return 'a single-quoted value is not closed';
  if (error.code === 'MISSING_CHAR' && error.message.includes('"quote')) return 'a double-quoted value is not closed';
  if (error.code === 'DUPLICATE_KEY') return 'a key is written twice';
  return `not valid YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
}

// Jackson reads a scalar into a String field as written (`text: 123` is "123"), as the flow reader does.
function scalarText(node: Scalar): string {
  return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
}

/** YamlElementSelectorUnion: a mapping is a selector, a string the text shorthand. */
function selectorUnion(node: Node | null, where: string, at: number | undefined): MaestroSelector {
  if (isNull(node)) fail(`${where} names no selector`, at);
  if (isScalar(node)) return textShorthand(node);
  if (isMap(node)) return selectorOfMap(node);
  return fail(`${where} is a text or a selector mapping`, startOf(node));
}

function textShorthand(node: Scalar): MaestroSelector {
  const text = scalarText(node);
  if (text === '') fail('text is empty', startOf(node));
  return { text };
}

/** YamlElementSelector's keys, each read as Jackson reads its type (YamlElementSelector.kt). */
function selectorOfMap(map: YAMLMap): MaestroSelector {
  const selector: MaestroSelector = {};
  for (const pair of map.items) {
    const keyNode = pair.key as Node | null;
    const key = isScalar(keyNode) ? String(keyNode.value) : '';
    const at = startOf(keyNode);
    const value = pair.value as Node | null;
    if (UNSUPPORTED[key]) fail(UNSUPPORTED[key]!, at);
    if (IGNORED.has(key)) continue;
    if (key === 'childOf') {
      selector.childOf = selectorUnion(value, 'childOf', at);
      continue;
    }
    if (!SELECTOR_KEYS.has(key)) fail(`${JSON.stringify(key)} is not a Maestro selector key (id, text, index, enabled, checked, focused, selected)`, at);
    if (!isScalar(value) || value.value === null) fail(`${key} needs a value`, startOf(value) ?? at);
    const text = scalarText(value);
    if (key === 'id' || key === 'text') {
      if (text === '') fail(`${key} is empty`, startOf(value));
      selector[key] = text;
    } else if (key === 'index') {
      if (!/^\d+$/.test(text.trim())) fail(`index must be a whole number from 0, not ${JSON.stringify(text)}`, startOf(value));
      selector.index = Number(text.trim());
    } else {
      if (text !== 'true' && text !== 'false') fail(`${key} must be true or false, not ${JSON.stringify(text)}`, startOf(value));
      selector[key as (typeof STATE_KEYS)[number]] = text === 'true';
    }
  }
  if (selector.id === undefined && selector.text === undefined && STATE_KEYS.every((k) => selector[k] === undefined)) {
    fail('the selector names no id, text or state', startOf(map));
  }
  return selector;
}

/** The selector inside a command's parameters: the command's own (tapOn), or the one it names (scrollUntilVisible's element). */
const NESTED_SELECTOR = ['element', 'from', 'visible', 'notVisible'];

/**
 * Reads a Maestro selector with a YAML parser (the `yaml` package, as YamlCommandReader reads a flow with
 * Jackson's YAML): selector lines, a flow mapping (`{text: 'Reply', childOf: {id: 'thread'}}`), a
 * command with its selector (`tapOn: 'Sign In'`, the text shorthand; `- tapOn:` and its block), or throws
 * a SelectorError saying why it is not one.
 */
export function parseMaestroSelector(input: string): MaestroSelector {
  if (input.trim() === '') fail('the selector is empty', undefined);
  const doc = parseDocument(input, { uniqueKeys: true });
  const error = doc.errors[0];
  if (error) fail(yamlReason(error), error.pos[0]);
  let node = doc.contents as Node | null;
  // A flow line: a list of one command.
  if (isSeq(node)) {
    if (node.items.length !== 1) fail(`a selector is one command, not a list of ${node.items.length}`, startOf(node));
    node = node.items[0] as Node | null;
  }
  if (isMap(node) && node.items.length >= 1) {
    const first = node.items[0]!;
    const name = isScalar(first.key) ? String(first.key.value) : '';
    if (COMMANDS.has(name)) {
      // A command: its value is the selector (a string is its text), or holds it under a key of its own.
      if (node.items.length > 1)
        fail(
          `${name} is followed by ${JSON.stringify(String((node.items[1]!.key as Scalar).value))} outside its parameters`,
          startOf(node.items[1]!.key as Node),
        );
      const value = first.value as Node | null;
      if (isMap(value)) {
        const nested = value.items.find((p) => isScalar(p.key) && NESTED_SELECTOR.includes(String(p.key.value)));
        if (nested) return selectorUnion(nested.value as Node | null, String((nested.key as Scalar).value), startOf(nested.key as Node));
      }
      return selectorUnion(value, name, startOf(first.key as Node));
    }
  }
  if (!isMap(node)) fail('a Maestro selector is key: value lines or a {…} mapping', startOf(node));
  return selectorOfMap(node);
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

/**
 * The selector as one YAML flow mapping (`{text: 'Reply', childOf: {id: 'thread\\.2'}}`), which reads
 * back as the same selector: what a one-line box (the try box is an input, which drops line breaks) can hold.
 */
export function formatMaestroFlowMapping(selector: MaestroSelector): string {
  const parts: string[] = [];
  if (selector.id !== undefined) parts.push(`id: ${yamlString(selector.id)}`);
  if (selector.text !== undefined) parts.push(`text: ${yamlString(selector.text)}`);
  if (selector.index !== undefined) parts.push(`index: ${selector.index}`);
  for (const key of STATE_KEYS) if (selector[key] !== undefined) parts.push(`${key}: ${String(selector[key])}`);
  if (selector.childOf) parts.push(`childOf: ${formatMaestroFlowMapping(selector.childOf)}`);
  return `{${parts.join(', ')}}`;
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

/**
 * A Maestro flow read as Maestro's own reader reads it (docs/rules.md#r-hand-12): a real YAML parser
 * (`yaml`) over mobile-dev-inc/maestro's shapes, so an exported flow is checked against what Maestro
 * accepts, not against our writer.
 * - maestro-orchestra/src/main/java/maestro/orchestra/yaml/YamlCommandReader.kt: a config document, `---`,
 *   then a list of YamlFluentCommand; "No content to map" (an empty commands part) is NoInputException,
 *   "Unrecognized field" a SyntaxError.
 * - YamlFluentCommand.kt: each item is a bare command name (`- hideKeyboard`) or a one-key mapping; a
 *   string after a selector command is its text (`- tapOn: "Text"`), after launchApp / stopApp /
 *   clearState the app id, after openLink the link, after pressKey the key.
 * - YamlElementSelector.kt: the selector keys; below / above / leftOf / rightOf / containsChild /
 *   childOf are selectors themselves (YamlElementSelectorUnion: a string is a text selector).
 */
import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments, type Node } from 'yaml';

/** Larger flows are refused before parsing (docs/rules.md#r-hand-12). */
export const MAX_FLOW_CHARS = 1_000_000;

export type MaestroFlowErrorKind = 'too-large' | 'yaml' | 'shape' | 'no-commands' | 'unknown-command' | 'unknown-field' | 'bad-value';

/** Why Maestro would refuse a flow, with the 1-based line it points at (0 when the flow as a whole is wrong). */
export class MaestroFlowError extends Error {
  constructor(
    readonly kind: MaestroFlowErrorKind,
    readonly line: number,
    message: string,
  ) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.name = 'MaestroFlowError';
  }
}

export interface MaestroFlowSelector {
  [key: string]: string | number | boolean | MaestroFlowSelector | MaestroFlowSelector[] | undefined;
}

export interface MaestroFlowCommand {
  name: string;
  line: number;
  /** The command's parameters, shorthand forms written out (`tapOn: "X"` is `{ text: 'X' }`). */
  args: Record<string, unknown>;
}

export interface MaestroFlow {
  config: Record<string, unknown>;
  appId: string;
  commands: MaestroFlowCommand[];
}

// YamlElementSelector.kt fields (plus childOf, label and css of later versions), with their types.
const SELECTOR_KEYS: Record<string, 'string' | 'int' | 'bool' | 'selector' | 'selectors' | 'index'> = {
  text: 'string',
  id: 'string',
  width: 'int',
  height: 'int',
  tolerance: 'int',
  optional: 'bool',
  retryTapIfNoChange: 'bool',
  waitUntilVisible: 'bool',
  point: 'string',
  start: 'string',
  end: 'string',
  below: 'selector',
  above: 'selector',
  leftOf: 'selector',
  rightOf: 'selector',
  containsChild: 'selector',
  childOf: 'selector',
  containsDescendants: 'selectors',
  traits: 'string',
  // `index: String?`: Jackson takes `0` or `'0'`; ElementSelector reads it as an integer.
  index: 'index',
  enabled: 'bool',
  selected: 'bool',
  checked: 'bool',
  focused: 'bool',
  repeat: 'int',
  delay: 'int',
  label: 'string',
  css: 'string',
};

type Shape =
  { bare?: true; shorthand?: string; selector?: true; map?: Record<string, 'string' | 'int' | 'bool' | 'selector' | 'direction' | 'any'> } | undefined;

const COMMON = { label: 'string', optional: 'bool' } as const;
const APP = { appId: 'string', ...COMMON } as const;
const SELECTOR_COMMAND: Shape = { selector: true, shorthand: 'text' };

// YamlFluentCommand.kt: the commands Parallax exports and the ones a QA engineer adds by hand around them.
const COMMANDS: Record<string, Shape> = {
  launchApp: {
    bare: true,
    shorthand: 'appId',
    map: { ...APP, clearState: 'bool', clearKeychain: 'bool', stopApp: 'bool', permissions: 'any', arguments: 'any' },
  },
  stopApp: { bare: true, shorthand: 'appId', map: APP },
  killApp: { bare: true, shorthand: 'appId', map: APP },
  clearState: { bare: true, shorthand: 'appId', map: APP },
  clearKeychain: { bare: true },
  tapOn: SELECTOR_COMMAND,
  doubleTapOn: SELECTOR_COMMAND,
  longPressOn: SELECTOR_COMMAND,
  assertVisible: SELECTOR_COMMAND,
  assertNotVisible: SELECTOR_COMMAND,
  copyTextFrom: SELECTOR_COMMAND,
  inputText: { shorthand: 'text', map: { text: 'string', ...COMMON } },
  eraseText: { bare: true, shorthand: 'charactersToErase', map: { charactersToErase: 'int', ...COMMON } },
  pressKey: { shorthand: 'key', map: { key: 'string', ...COMMON } },
  openLink: { shorthand: 'link', map: { link: 'string', autoVerify: 'bool', browser: 'bool', ...COMMON } },
  scrollUntilVisible: {
    map: { element: 'selector', direction: 'direction', timeout: 'int', speed: 'int', visibilityPercentage: 'int', centerElement: 'bool', ...COMMON },
  },
  swipe: { map: { start: 'string', end: 'string', direction: 'direction', duration: 'int', from: 'selector', ...COMMON } },
  hideKeyboard: { bare: true, map: COMMON },
  back: { bare: true, map: COMMON },
  scroll: { bare: true, map: COMMON },
  waitForAnimationToEnd: { bare: true, map: { timeout: 'int', ...COMMON } },
  takeScreenshot: { shorthand: 'path', map: { path: 'string', ...COMMON } },
};

// maestro-client ScrollDirection / SwipeDirection enum constants (Jackson: case as written).
const DIRECTIONS = new Set(['UP', 'DOWN', 'LEFT', 'RIGHT']);

/** Reads `text` as Maestro's reader would, or throws a MaestroFlowError saying why Maestro refuses it. */
export function readMaestroFlow(text: string): MaestroFlow {
  if (text.length > MAX_FLOW_CHARS) throw new MaestroFlowError('too-large', 0, `the flow is ${text.length} characters, over the ${MAX_FLOW_CHARS} read`);
  const counter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: counter });
  if (!Array.isArray(docs)) throw new MaestroFlowError('yaml', 0, 'not YAML documents');
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error) throw new MaestroFlowError('yaml', error.linePos?.[0].line ?? 0, error.message.split('\n')[0]!);
  }
  const lineOf = (node: Node | null | undefined): number => (node?.range ? counter.linePos(node.range[0]).line : 0);
  const fail = (kind: MaestroFlowErrorKind, node: Node | null | undefined, message: string): never => {
    throw new MaestroFlowError(kind, lineOf(node), message);
  };
  if (docs.length !== 2) fail('shape', null, `a flow is a config, \`---\` and a list of commands, not ${docs.length} document(s)`);
  const [configDoc, commandsDoc] = docs as [(typeof docs)[0], (typeof docs)[0]];
  if (!isMap(configDoc.contents)) fail('shape', configDoc.contents, 'the config section is not a mapping');
  // A bounded alias expansion: a billion-laughs flow is refused, not expanded.
  const config = plainOf(configDoc) as Record<string, unknown>;
  if (typeof config['appId'] !== 'string') fail('shape', configDoc.contents, 'the config has no appId');
  const list = commandsDoc.contents;
  // YamlCommandReader mapParsingErrors: "No content to map" is NoInputException.
  if (list === null || (isScalar(list) && list.value === null)) fail('no-commands', null, 'No content to map: the flow has no commands');
  if (!isSeq(list)) return fail('shape', list, 'the commands are not a list');
  const plain = plainOf(commandsDoc) as Record<string, Record<string, unknown>>[];
  const commands = list.items.map((item, i) => readCommand(item as Node, fail, plain[i]));
  return { config, appId: config['appId'] as string, commands };

  function plainOf(doc: (typeof docs)[0]): unknown {
    try {
      return doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      return fail('yaml', doc.contents, e instanceof Error ? e.message : 'the aliases do not resolve');
    }
  }

  function readCommand(item: Node, failAt: typeof fail, plainItem: Record<string, unknown> | undefined): MaestroFlowCommand {
    const line = lineOf(item);
    if (isScalar(item) && typeof item.value === 'string') {
      const shape = COMMANDS[item.value];
      if (shape === undefined) failAt('unknown-command', item, `Invalid command: "${item.value}" is not a Maestro command`);
      if (!shape!.bare) failAt('bad-value', item, `${item.value} needs a parameter`);
      return { name: item.value, line, args: {} };
    }
    if (!isMap(item) || item.items.length !== 1) return failAt('shape', item, 'a command is a name or a mapping with one command');
    const pair = item.items[0]!;
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    const shape = COMMANDS[name];
    if (shape === undefined) return failAt('unknown-command', pair.key as Node, `Invalid command: "${name}" is not a Maestro command`);
    const value = pair.value as Node | null;
    if (value === null || (isScalar(value) && value.value === null)) {
      if (!shape.bare) failAt('bad-value', item, `${name} needs a parameter`);
      return { name, line, args: {} };
    }
    if (isScalar(value)) {
      if (shape.shorthand === undefined) return failAt('bad-value', value, `${name} takes a mapping, not ${JSON.stringify(value.value)}`);
      const args: Record<string, unknown> = { [shape.shorthand]: shape.shorthand === 'charactersToErase' ? intOf(value, name) : scalarText(value) };
      return { name, line, args };
    }
    if (!isMap(value)) return failAt('bad-value', value, `${name} takes a value or a mapping`);
    if (shape.selector) return { name, line, args: readSelector(value, name) };
    const args: Record<string, unknown> = {};
    for (const { key, value: v } of value.items) {
      const field = isScalar(key) ? String(key.value) : '';
      const type = shape.map?.[field];
      if (type === undefined) failAt('unknown-field', key as Node, `Unrecognized field "${field}" in ${name}`);
      args[field] = type === 'any' ? (plainItem?.[name] as Record<string, unknown> | undefined)?.[field] : valueOf(v as Node, type!, `${name}.${field}`);
    }
    return { name, line, args };
  }

  function valueOf(node: Node | null, type: string, where: string): unknown {
    if (type === 'selector') return selectorUnion(node, where);
    if (!isScalar(node)) return fail('bad-value', node, `${where} is not a single value`);
    if (type === 'int') return intOf(node, where);
    if (type === 'bool') {
      if (typeof node.value !== 'boolean') fail('bad-value', node, `${where} is true or false, not ${JSON.stringify(node.value)}`);
      return node.value;
    }
    if (type === 'direction') {
      if (!DIRECTIONS.has(String(node.value))) fail('bad-value', node, `${where} is UP, DOWN, LEFT or RIGHT, not ${JSON.stringify(node.value)}`);
      return node.value;
    }
    return scalarText(node);
  }

  function selectorUnion(node: Node | null, where: string): MaestroFlowSelector {
    if (isScalar(node) && node.value !== null) return { text: scalarText(node) };
    if (isMap(node)) return readSelector(node, where);
    return fail('bad-value', node, `${where} is a text or a selector`);
  }

  function readSelector(node: Node, where: string): MaestroFlowSelector {
    if (!isMap(node)) return fail('bad-value', node, `${where} is a selector mapping`);
    const selector: MaestroFlowSelector = {};
    for (const { key, value } of node.items) {
      const field = isScalar(key) ? String(key.value) : '';
      const type = SELECTOR_KEYS[field];
      if (type === undefined) fail('unknown-field', key as Node, `Unrecognized field "${field}" in the selector of ${where}`);
      const v = value as Node | null;
      if (type === 'selectors') {
        if (!isSeq(v)) fail('bad-value', v, `${where}.${field} is a list of selectors`);
        selector[field] = (v as { items: Node[] }).items.map((s) => selectorUnion(s, `${where}.${field}`));
      } else if (type === 'index') {
        selector[field] = intOf(v, `${where}.index`);
      } else selector[field] = valueOf(v, type!, `${where}.${field}`) as MaestroFlowSelector[string];
    }
    return selector;
  }

  function intOf(node: Node | null, where: string): number {
    const raw = isScalar(node) ? node.value : undefined;
    const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) return fail('bad-value', node, `${where} is a whole number, not ${JSON.stringify(raw)}`);
    return n;
  }
}

// Jackson reads a scalar into a String field as written: `inputText: 123` types "123".
function scalarText(node: { value: unknown; source?: string }): string {
  return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
}

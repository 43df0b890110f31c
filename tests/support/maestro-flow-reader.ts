/**
 * A Maestro flow read as Maestro reads it (docs/rules.md#r-hand-02), for the export tests: a real YAML
 * parser (`yaml`) for the two documents (YamlCommandReader.kt: a config mapping with `appId`, then a
 * list of commands, each a command name or a one-key mapping), and every string evaluated as Env.kt
 * `evaluateScripts` does, with a script engine that only knows string literals and the declared
 * variables, so an export that would run JavaScript is caught.
 */
import { parseAllDocuments } from 'yaml';

// Java's `.` stops at these line terminators (java.util.regex.Pattern, without DOTALL).
const DOT = '[^\\n\\r\\u0085\\u2028\\u2029]';
// Env.kt evaluateScripts, l. 28 and l. 40: `(?<!\\)\$\{(.*)}` and `\\\$\{.*}`.
const SCRIPT = new RegExp(`(?<!\\\\)\\$\\{(${DOT}*)\\}`, 'g');
const ESCAPED = new RegExp(`\\\\\\$\\{${DOT}*\\}`, 'g');

/** Env.kt `evaluateScripts`, with `run` as the JavaScript engine. */
export function evaluateScripts(text: string, run: (script: string) => string): string {
  const result = text.replace(SCRIPT, (_m, script: string) => (script.trim() !== '' ? run(script) : ''));
  return result.replace(ESCAPED, (m) => m.slice(m.indexOf('\\') + 1));
}

/** A script engine that evaluates a JSON string literal (a subset of JavaScript's) or a declared variable, and refuses anything else. */
export function literalEngine(variables: readonly string[]): (script: string) => string {
  return (script) => {
    if (variables.includes(script)) return `<${script}>`;
    try {
      const value: unknown = JSON.parse(script);
      if (typeof value === 'string') return value;
    } catch {
      // not a literal
    }
    throw new Error(`Maestro would run ${JSON.stringify(script)} as JavaScript`);
  };
}

export const MAESTRO_COMMANDS = new Set([
  'launchApp',
  'tapOn',
  'doubleTapOn',
  'longPressOn',
  'inputText',
  'eraseText',
  'pressKey',
  'swipe',
  'scrollUntilVisible',
  'openLink',
  'hideKeyboard',
  'waitForAnimationToEnd',
  'assertVisible',
  'assertNotVisible',
  'back',
]);

export interface ReadFlow {
  appId: string;
  commands: { name: string; value: unknown }[];
}

/** Reads a flow as Maestro's reader would, or throws saying why Maestro would refuse it. */
export function readMaestroFlow(yaml: string): ReadFlow {
  const docs = parseAllDocuments(yaml);
  if (!Array.isArray(docs)) throw new Error('not YAML documents');
  for (const doc of docs) if (doc.errors.length > 0) throw new Error(`YAML: ${doc.errors[0]!.message}`);
  if (docs.length !== 2) throw new Error(`a flow is a config and a list of commands, not ${docs.length} documents`);
  const config: unknown = docs[0]!.toJS();
  if (typeof config !== 'object' || config === null || typeof (config as { appId?: unknown }).appId !== 'string') throw new Error('the config has no appId');
  const list: unknown = docs[1]!.toJS();
  // YamlCommandReader: "No content to map" when the commands part is empty.
  if (list === null || list === undefined) throw new Error('No content to map: the flow has no commands');
  if (!Array.isArray(list)) throw new Error('the commands are not a list');
  const commands = list.map((item: unknown) => {
    if (typeof item === 'string') return { name: item, value: undefined };
    if (typeof item !== 'object' || item === null || Object.keys(item).length !== 1) throw new Error(`${JSON.stringify(item)} is not one command`);
    const [name, value] = Object.entries(item)[0]!;
    return { name, value };
  });
  for (const c of commands) if (!MAESTRO_COMMANDS.has(c.name)) throw new Error(`${c.name} is not a Maestro command`);
  return { appId: (config as { appId: string }).appId, commands };
}

/**
 * The names of the values a trace does not hold (docs/protocol.md#p-trace-variables): text typed into a
 * secret field is never recorded (docs/rules.md#R-SECRET), so an export types a variable in its place
 * (Maestro `${NAME}`, passed with `maestro test -e NAME=…`; XCUITest `ProcessInfo` environment `NAME`),
 * and a replay takes it as `--var NAME=VALUE`. This is the one rule that names them, so every reader
 * of a trace agrees.
 *
 * NAME is the field as XCTest identifies it (its accessibility identifier, else its label), else what
 * the recorded node says, in upper snake case: `login.password` → `LOGIN_PASSWORD`; a field with no name
 * at all is `SECRET_STEP_<n>`, n the filmstrip's step number. The same field gets the same name in
 * every step.
 */
import type { TraceTarget } from './schema';

const MAX_NAME = 64;

function upperSnake(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    // camelCase splits into words: passwordField → PASSWORD_FIELD
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  if (words === '') return '';
  const name = /^[0-9]/.test(words) ? `_${words}` : words;
  return name.slice(0, MAX_NAME).replace(/_+$/, '');
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The variable that stands for the secret text typed at filmstrip step `step` into `target`. */
export function secretVariableName(target: TraceTarget | undefined, step: number): string {
  const xctest = target?.xctest ?? undefined;
  const node = target?.node ?? {};
  const selector = target?.selector ?? {};
  const candidates = [
    str(xctest?.['resource-id']),
    str(selector['id']),
    str(node['resource-id']),
    str(xctest?.['content-desc']),
    str(node['content-desc']),
    // The runner puts a field's label in `text` and never sets content-desc (docs/selectors.md#s-attributes).
    xctest?.['content-desc'] === undefined ? str(xctest?.['text']) : undefined,
    str(xctest?.['hint-text']),
    str(node['hint-text']),
  ];
  for (const candidate of candidates) {
    const name = candidate === undefined ? '' : upperSnake(candidate);
    if (name !== '') return name;
  }
  return `SECRET_STEP_${step}`;
}

/** The variable as a Swift local: `LOGIN_PASSWORD` → `loginPassword`. */
export function swiftVariableName(name: string): string {
  const parts = name.toLowerCase().split('_').filter(Boolean);
  const camel = parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
  return /^[a-z_]/.test(camel) ? camel : `_${camel}`;
}

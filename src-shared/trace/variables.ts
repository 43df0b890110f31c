/**
 * The names of the values a trace does not hold (docs/protocol.md#p-trace-variables): text typed into a
 * secret field is never recorded (docs/rules.md#r-secret), so an export types a variable in its place
 * (Maestro `${NAME}`, passed with `maestro test -e NAME=…`; XCUITest `ProcessInfo` environment `NAME`),
 * and a replay takes it as `--var NAME=VALUE`. This is the one rule that names them, so every reader
 * of a trace agrees.
 *
 * NAME is the field as XCTest identifies it (its accessibility identifier, else its label), else what
 * the recorded node says, in upper snake case: `login.password` → `LOGIN_PASSWORD`; a field with no name
 * at all is `SECRET_STEP_<n>`, n the filmstrip's step number. The same field gets the same name in
 * every step.
 */
import { z } from 'zod';
import { visibleText } from '@shared/model/visible-text';
import { typesSecret } from './action-record';
import { filmstripNumbers, type TimelineStep } from './reader';
import type { TraceTarget } from './schema';

const MAX_NAME = 64;
/** How much of a field's name is kept to show (characters). */
const MAX_FIELD = 120;

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
  return secretVariableOf(target, step).name;
}

/**
 * The variable and the field's own name it was made from (`login.password`), what a user is shown
 * before a replay types it (docs/rules.md#r-trust-01); no field when the field has no name at all.
 */
export function secretVariableOf(target: TraceTarget | undefined, step: number): { name: string; field?: string } {
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
    if (name !== '' && candidate !== undefined) return { name, field: candidate.slice(0, MAX_FIELD) };
  }
  return { name: `SECRET_STEP_${step}` };
}

/**
 * Swift's reserved words (The Swift Programming Language, Lexical Structure, "Keywords and Punctuation":
 * those used in declarations, statements, expressions and types, and `_`); none may name a local.
 */
const SWIFT_KEYWORDS = new Set(
  (
    'associatedtype borrowing class consuming deinit enum extension fileprivate func import init inout internal let nonisolated open ' +
    'operator private precedencegroup protocol public rethrows static struct subscript typealias var break case catch continue default ' +
    'defer do else fallthrough for guard if in repeat return throw switch where while Any as await false is nil self Self super throws ' +
    'true try _'
  ).split(' '),
);

/** Names the XCUITest export declares itself (trace/xcuitest.ts): `app`, `current`, `field<n>`, `target<n>`. */
const EXPORT_NAMES = /^(app|current|field\d+|target\d+)$/;

/**
 * The variable as a Swift local: `LOGIN_PASSWORD` → `loginPassword`; one that would be a keyword or
 * one of the export's own names gets a trailing `_` (`default_`, `app_`), which no other name can end
 * with, so two variables never share a local (docs/rules.md#r-hand-04).
 */
export function swiftVariableName(name: string): string {
  const parts = name.toLowerCase().split('_').filter(Boolean);
  const camel = parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
  const local = /^[a-z_]/.test(camel) ? camel : `_${camel}`;
  return SWIFT_KEYWORDS.has(local) || EXPORT_NAMES.test(local) ? `${local}_` : local;
}

/** A secret a trace types without holding it: the variable that stands for it and the first step that types it. */
export const TraceVariableSchema = z.object({
  name: z.string(),
  /** The filmstrip number of the first step that types it. */
  step: z.number().int().positive(),
  /** Every step that types it, by call id. */
  callIds: z.array(z.string()),
  /** The recorded field's name it was made from (its id or label), as the trace holds it. */
  field: z.string().optional(),
});
export type TraceVariable = z.infer<typeof TraceVariableSchema>;

/** The variable a recorded step types, if it types a secret; `number` is its filmstrip number. */
export function stepVariable(step: Pick<TimelineStep, 'before'>, number: number): string | undefined {
  const before = step.before;
  return before && typesSecret(before.action) ? secretVariableName(before.target, number) : undefined;
}

/** Every variable a trace's steps type, in the order they are first typed (what a replay must be given). */
export function traceVariables(steps: readonly TimelineStep[]): TraceVariable[] {
  const numbers = filmstripNumbers(steps);
  const byName = new Map<string, TraceVariable>();
  for (const step of steps) {
    const number = numbers.get(step.callId);
    const before = step.before;
    if (number === undefined || !before || !typesSecret(before.action)) continue;
    const { name, field } = secretVariableOf(before.target, number);
    const known = byName.get(name);
    if (known) known.callIds.push(step.callId);
    else byName.set(name, { name, step: number, callIds: [step.callId], ...(field !== undefined ? { field } : {}) });
  }
  return [...byName.values()];
}

/** The longest value a replay takes for a variable (characters). */
export const MAX_VARIABLE_VALUE = 10_000;

/** A variable's name as `--var NAME=VALUE` and the scheme's environment accept it. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** `step 4, field “login.password”`: where a variable goes, as the user is shown it before it is sent. */
export function variableTarget(variable: TraceVariable): string {
  const steps = variable.callIds.length > 1 ? `step ${variable.step} and ${variable.callIds.length - 1} more` : `step ${variable.step}`;
  return `${steps}, ${variable.field !== undefined ? `field “${visibleText(variable.field)}”` : 'a field with no name'}`;
}

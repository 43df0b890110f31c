/**
 * Where `parallax replay` takes the values of the secrets a trace types without holding them
 * (docs/rules.md#r-trust-01): a trace is data, never authority, so the trace names what it needs and only
 * the user says where each value comes from: `--var-file FILE` (or `-` for stdin), a prompt on a
 * terminal, the environment for the names given with `--env NAME`, or `--var NAME=VALUE` (which the
 * process list shows). The environment is never read for a name the user did not list: a hostile trace
 * that renames its field to `aws.secret.access.key` asks for AWS_SECRET_ACCESS_KEY and gets nothing.
 *
 * A value is never echoed, not even in an error.
 */
import { readFile, stat } from 'node:fs/promises';
import { MAX_VARIABLE_VALUE, VARIABLE_NAME, type TraceVariable, variableTarget } from '@shared/trace/variables';

/** The largest --var-file (or stdin) read (bytes). */
export const MAX_VAR_FILE = 1024 * 1024;

export type VariableSource = '--var-file' | 'stdin' | '--var' | '--env' | 'prompt';

export class VariableUsageError extends Error {
  override readonly name = 'VariableUsageError';
}

export interface VariableInputs {
  /** `--var NAME=VALUE`, each. */
  vars?: readonly string[] | undefined;
  /** `--var-file FILE`; `-` reads stdin. */
  varFile?: string | undefined;
  /** `--env NAME`, each: the only names the environment is read for. */
  env?: readonly string[] | undefined;
}

export interface VariableIo {
  environment: Readonly<Record<string, string | undefined>>;
  /** All of stdin, for `--var-file -`. */
  readStdin?: (() => Promise<string>) | undefined;
  /** Asks for one value without echoing it (a terminal); absent when stdin is not one. */
  prompt?: ((question: string) => Promise<string>) | undefined;
}

export interface ChosenVariables {
  values: Map<string, string>;
  /** Where each value came from, for the line shown before anything is sent. */
  from: Map<string, VariableSource>;
}

function checkName(flag: string, name: string, needed: ReadonlySet<string>): void {
  if (!VARIABLE_NAME.test(name)) throw new VariableUsageError(`${flag}: "${name.slice(0, 80)}" is not a variable name (letters, digits and _, at most 64)`);
  if (!needed.has(name))
    throw new VariableUsageError(`${flag}: the trace types no ${name}${needed.size > 0 ? ` (it types ${[...needed].join(', ')})` : ' (it types no secret)'}`);
}

function checkValue(flag: string, name: string, value: string): void {
  if (value.length > MAX_VARIABLE_VALUE) throw new VariableUsageError(`${flag} ${name}: the value is longer than ${MAX_VARIABLE_VALUE} characters`);
}

/**
 * NAME=VALUE lines; blank lines and `#` comments skipped; the value is the rest of the line as it is.
 * Names the trace does not type are passed over (one file can serve several traces).
 */
export function parseVarFile(text: string, flag: string, needed: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const eq = raw.indexOf('=');
    // The line is never shown: it may be the value itself.
    if (eq < 0) throw new VariableUsageError(`${flag}: line ${i + 1} is not NAME=VALUE`);
    const name = raw.slice(0, eq).trim();
    if (!VARIABLE_NAME.test(name)) throw new VariableUsageError(`${flag}: line ${i + 1} does not start with a variable name`);
    if (!needed.has(name)) continue;
    const value = raw.slice(eq + 1);
    checkValue(flag, name, value);
    out.set(name, value);
  }
  return out;
}

async function readVarFile(file: string, io: VariableIo, needed: ReadonlySet<string>): Promise<{ values: Map<string, string>; source: VariableSource }> {
  if (file === '-') {
    if (!io.readStdin) throw new VariableUsageError('--var-file -: there is no stdin to read');
    const text = await io.readStdin();
    if (text.length > MAX_VAR_FILE) throw new VariableUsageError(`--var-file -: stdin holds more than ${MAX_VAR_FILE} bytes`);
    return { values: parseVarFile(text, '--var-file -', needed), source: 'stdin' };
  }
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new VariableUsageError(`--var-file: cannot read ${file}`);
  }
  if (size > MAX_VAR_FILE) throw new VariableUsageError(`--var-file: ${file} is larger than ${MAX_VAR_FILE} bytes`);
  return { values: parseVarFile(await readFile(file, 'utf8'), '--var-file', needed), source: '--var-file' };
}

/**
 * The values for `needed`, from the sources the user gave, in this order (a later one wins): the
 * var file, `--var`, `--env`; then a prompt for each still missing, when there is a terminal. Names
 * still missing are left out: the caller refuses the replay before anything is sent.
 */
export async function chooseVariables(needed: readonly TraceVariable[], inputs: VariableInputs, io: VariableIo): Promise<ChosenVariables> {
  const names = new Set(needed.map((v) => v.name));
  const values = new Map<string, string>();
  const from = new Map<string, VariableSource>();
  const put = (name: string, value: string, source: VariableSource) => {
    values.set(name, value);
    from.set(name, source);
  };
  if (inputs.varFile !== undefined) {
    const read = await readVarFile(inputs.varFile, io, names);
    for (const [name, value] of read.values) put(name, value, read.source);
  }
  for (const pair of inputs.vars ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new VariableUsageError('--var takes NAME=VALUE (no = in one of them)');
    const name = pair.slice(0, eq);
    checkName('--var', name, names);
    const value = pair.slice(eq + 1);
    checkValue('--var', name, value);
    put(name, value, '--var');
  }
  for (const name of inputs.env ?? []) {
    checkName('--env', name, names);
    const value = io.environment[name];
    if (value === undefined) throw new VariableUsageError(`--env ${name}: the environment has no ${name}`);
    checkValue('--env', name, value);
    put(name, value, '--env');
  }
  if (io.prompt) {
    for (const variable of needed) {
      if (values.has(variable.name)) continue;
      const value = await io.prompt(`${variable.name} (${variableTarget(variable)}): `);
      checkValue('the prompt:', variable.name, value);
      put(variable.name, value, 'prompt');
    }
  }
  return { values, from };
}

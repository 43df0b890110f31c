/**
 * `parallax open | replay | export | compare`: traces read offline, replayed on a device or
 * exported to Maestro, and the XCTest-only vs SDK-backed diff of the current screen.
 *
 * Exit codes: 0 the command did what was asked (replay: every step matched), 1 it did not (a trace
 * that cannot be read, a device that cannot be reached, a replay step that diverged or failed), 2 the
 * command line was wrong. Every error is one line on stderr.
 *
 * Just over 500 lines: the four commands share the trace opening, the device connection, the step lines
 * and the exit-code rules above; each command is one function below them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DIFF_CLASS_LABELS, DIFF_CLASSES } from '@shared/compare/diff';
import { nodeAtKey } from '@shared/model/tree';
import { StrategySchema } from '@shared/protocol/observation';
import { ranSummary, replaySummary } from '@shared/trace/replay-report';
import { traceVariables, variableTarget } from '@shared/trace/variables';
import { chooseVariables, VariableUsageError, type ChosenVariables } from './replay-variables';
import type { UiNode } from '@shared/protocol/runner';
import type { TimelineStep } from '@shared/trace/reader';
import { TraceOpenError } from '@main/trace/index';
import { exportTraceMaestro, exportTraceXcuiTest, openReplayableTrace } from '@main/trace/view';
import { inTraceWorker, traceWorkerHeapMb } from '@main/trace/off-thread';
import type { ReplayableTrace } from '@main/trace/replay-plan';
import { pad, subjectOf } from '@main/trace/open-listing';
import { compareNow } from '@main/devices/compare';
import type { DeviceConnection } from '@main/connection/connection';
import { connectionFor } from '@main/devices/manager';
import { missingVariables, replayTrace, ReplayVariablesError, type ReplayedFrames, type ReplayStep } from '@main/trace/replay';
import { recordedLaunch } from '@shared/trace/action-record';
import { DEFAULT_MEMORY_THRESHOLD_MB, memoryFlagLine, memoryThresholdOf, replayMemory } from '@shared/trace/perf-step';

export type TraceCommand = 'open' | 'replay' | 'export' | 'compare';
type Out = {
  log: (line: string) => void;
  error: (line: string) => void;
  /** All of stdin (`replay --var-file -`). */
  readStdin?: () => Promise<string>;
  /** Asks for a secret without echoing it; given only when stdin is a terminal. */
  prompt?: (question: string) => Promise<string>;
};

export const TRACE_USAGE = `Usage:
  parallax open FILE [--json]
        a trace (.parallax-trace file or trace folder): its manifest and one line per step
  parallax replay FILE --device URL [--json [--frames DIR]] [--stop-on-divergence] [--timeout MS]
                [--var-file FILE|-] [--env NAME]... [--var NAME=VALUE]... [--relaunch-first | --no-relaunch-first]
                [--memory-threshold-mb MB]
        runs the trace's actions again, each judged by the screen it meets and leaves against the
        recorded ones: matched, diverged or failed; exit code 0 only when every step matched.
        The secrets the trace typed but does not hold are asked for on a terminal, or given with:
        --var-file: NAME=VALUE lines from FILE (- reads stdin)
        --env NAME: the environment's NAME (the environment is read for no other name)
        --var NAME=VALUE: on the command line, which the process list shows to every user: avoid it
        --frames: where the replayed frames go, for the side-by-side (step-N-before.json/.png, ...)
        --relaunch-first: relaunch the app (cold boot) before step 1, so the replay starts where a
        recording from launch did; the default when the trace begins with a launch
        (--no-relaunch-first: replay from the screen the device is on)
        --memory-threshold-mb: flag a step whose memory grew by more than MB this time (default 20),
        its recorded and replayed figures side by side; reported, the exit code stays the verdicts'
  parallax export FILE [--maestro | --xcuitest] [--out PATH]
        the trace as a Maestro flow (YAML, the default) or an XCUITest test method (Swift),
        on stdout or written to PATH; notes on stderr, steps numbered as the trace view numbers them
  parallax compare --device URL [--json] [--strategy visible|raw] [--timeout MS]
        the current screen, XCTest-only against SDK-backed: summary and differences
        (--json: the whole diff)

  --device URL   a runner, ws://HOST:PORT/ws, or an AppReveal session URL
  --timeout MS   how long to wait for the device to connect (default 10000)`;

class UsageError extends Error {}

const OPTIONS = {
  json: { type: 'boolean' },
  device: { type: 'string' },
  'stop-on-divergence': { type: 'boolean' },
  timeout: { type: 'string' },
  maestro: { type: 'boolean' },
  xcuitest: { type: 'boolean' },
  out: { type: 'string' },
  strategy: { type: 'string' },
  var: { type: 'string', multiple: true },
  'var-file': { type: 'string' },
  env: { type: 'string', multiple: true },
  frames: { type: 'string' },
  'relaunch-first': { type: 'boolean' },
  'no-relaunch-first': { type: 'boolean' },
  'memory-threshold-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: true }>>['values'];

const ALLOWED: Record<TraceCommand, readonly (keyof typeof OPTIONS)[]> = {
  open: ['json'],
  replay: ['device', 'json', 'stop-on-divergence', 'timeout', 'var', 'var-file', 'env', 'frames', 'relaunch-first', 'no-relaunch-first', 'memory-threshold-mb'],
  export: ['maestro', 'xcuitest', 'out'],
  compare: ['device', 'json', 'strategy', 'timeout'],
};

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}

/** A trace error names its part of the trace; the file is named once, in front, unless it already is. */
function traceProblem(file: string, error: unknown): string {
  const message = oneLine(error);
  const abs = resolve(file);
  return message.includes(abs) || message.includes(file) ? message : `${file}: ${message}`;
}

function parse(command: TraceCommand, args: string[]): { values: Values; file: string | undefined } {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(oneLine(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { values, file: undefined };
  const stray = (Object.keys(values) as (keyof typeof OPTIONS)[]).find((k) => values[k] !== undefined && k !== 'help' && !ALLOWED[command].includes(k));
  if (stray) throw new UsageError(`${command} does not take --${stray}`);
  if (values.maestro && values.xcuitest) throw new UsageError('export takes --maestro or --xcuitest, not both');
  if (values.frames !== undefined && !values.json) throw new UsageError('--frames goes with --json (the frames are named in its report)');
  if (command === 'compare') {
    if (positionals.length > 0) throw new UsageError(`compare takes no FILE (it compares the device's current screen), not "${positionals[0]}"`);
  } else if (positionals.length !== 1) {
    throw new UsageError(`${command} needs exactly one trace FILE${positionals.length > 1 ? `, not ${positionals.length}` : ''}`);
  }
  if (command === 'replay' || command === 'compare') {
    if (!values.device) throw new UsageError(`${command} needs --device ws://HOST:PORT/ws (a runner) or an AppReveal session URL`);
    if (!/^(wss?|https?):\/\//.test(values.device)) throw new UsageError('--device must be a ws:// runner URL or an http:// AppReveal session URL');
  }
  if (values['memory-threshold-mb'] !== undefined) {
    try {
      memoryThresholdOf(values['memory-threshold-mb']);
    } catch (error) {
      throw new UsageError(`--memory-threshold-mb: ${oneLine(error)}`);
    }
  }
  return { values, file: positionals[0] };
}

function timeoutOf(values: Values): number {
  if (values.timeout === undefined) return 10_000;
  const ms = Number(values.timeout);
  if (!/^\d+$/.test(values.timeout.trim()) || !Number.isSafeInteger(ms) || ms <= 0)
    throw new UsageError(`--timeout takes milliseconds, not "${values.timeout}"`);
  return ms;
}

export async function runTraceCommand(command: TraceCommand, args: string[], out: Out): Promise<number> {
  let values: Values;
  let file: string | undefined;
  let timeoutMs = 10_000;
  try {
    ({ values, file } = parse(command, args));
    if (values.help) {
      out.log(TRACE_USAGE);
      return 0;
    }
    if (command === 'replay' || command === 'compare') timeoutMs = timeoutOf(values);
    if (values.strategy !== undefined && !StrategySchema.safeParse(values.strategy).success) {
      throw new UsageError(`--strategy is visible or raw, not "${values.strategy}"`);
    }
  } catch (error) {
    out.error(`parallax ${command}: ${oneLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
  try {
    switch (command) {
      case 'open':
        return await openCommand(file!, values, out);
      case 'export':
        return await exportCommand(file!, values, out);
      case 'replay':
        return await replayCommand(file!, values, timeoutMs, out);
      case 'compare':
        return await compareCommand(values, timeoutMs, out);
    }
  } catch (error) {
    out.error(`parallax ${command}: ${error instanceof TraceOpenError && file !== undefined ? traceProblem(file, error) : oneLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

// ---- open -------------------------------------------------------------------------------------------

async function openCommand(file: string, values: Values, out: Out): Promise<number> {
  // Listed in the trace worker (docs/rules.md#r-mem-04): this thread never holds the trace's events, and
  // the listing arrives a part at a time (#r-mem-05), each printed before the next is sent.
  await inTraceWorker('listing', resolve(file), traceWorkerHeapMb(), {
    json: values.json === true,
    onPart: (lines) => {
      for (const line of lines) out.log(line);
    },
  });
  return 0;
}

// ---- export -----------------------------------------------------------------------------------------

async function exportCommand(file: string, values: Values, out: Out): Promise<number> {
  // Made in the trace worker, as the trace view's exports are (docs/rules.md#r-mem-04).
  const swift = values.xcuitest === true;
  const exported = swift ? await exportTraceXcuiTest(file) : await exportTraceMaestro(file);
  const text = 'swift' in exported ? exported.swift : exported.yaml;
  const what = swift ? 'the XCUITest method' : 'the Maestro flow';
  const notes = exported.notes;
  if (values.out !== undefined) {
    const target = resolve(values.out);
    try {
      await writeFile(target, text);
    } catch (error) {
      throw new Error(`cannot write ${target}: ${oneLine(error)}`);
    }
    out.log(`Wrote ${what} to ${target} (${notes.length === 0 ? 'every step exported' : `${notes.length} note(s)`})`);
    for (const note of notes) out.log(note);
    return 0;
  }
  // The export alone on stdout, so it can be piped into a file or into Maestro; the notes go beside it.
  out.log(text.endsWith('\n') ? text.slice(0, -1) : text);
  for (const note of notes) out.error(note);
  return 0;
}

// ---- device commands --------------------------------------------------------------------------------

async function withDevice<T>(url: string, timeoutMs: number, run: (connection: DeviceConnection) => Promise<T>): Promise<T> {
  const connection = connectionFor(url, { runner: { handshakeTimeoutMs: timeoutMs } });
  connection.start();
  try {
    await connection.waitUntilConnected(timeoutMs);
    return await run(connection);
  } finally {
    await connection.close();
  }
}

/**
 * A step's memory this time against the recording's (docs/rules.md#r-perfstep-05): " · memory +48 MB
 * (recorded +2 MB), over 20 MB"; nothing when neither side has a memory figure (a window of pushes
 * without memory says nothing about memory).
 */
function memoryText(step: ReplayStep, thresholdMb: number): string {
  const { recorded, replayed } = replayMemory(step.perf, thresholdMb);
  if (recorded?.grownMb == null && replayed?.grownMb == null) return '';
  const mb = (growth: typeof recorded) => (growth?.grownMb == null ? 'no figure' : `${growth.grownMb >= 0 ? '+' : ''}${growth.grownMb} MB`);
  return ` · memory ${mb(replayed)} (recorded ${mb(recorded)})${replayed?.flagged ? `, over ${thresholdMb} MB` : ''}`;
}

function replayLine(step: ReplayStep, recorded: TimelineStep | undefined, width: number, thresholdMb: number): string {
  const n = String(step.number).padStart(width);
  const subject = subjectOf(recorded);
  const target = subject ? `${pad(subject, 28)} ` : '';
  const replayed = step.replayed.outcome;
  const how = replayed
    ? `${replayed.success ? 'succeeded' : `failed: ${replayed.failureReason ?? '?'}`}${replayed.backend ? ` via ${replayed.backend}` : ''}`
    : '';
  const retried = step.replayed.retriedAfter ? ` (sent again after ${step.replayed.retriedAfter})` : '';
  // What changed on the way, as the UI's badge names it (docs/rules.md#r-rpl-10).
  const changes = step.changes.length > 0 ? ` · ${step.changes.join(', ')}` : '';
  const detail =
    (step.differences.length > 0 ? ` — ${step.differences.join('; ')}` : how ? ` — ${how}` : '') + retried + changes + memoryText(step, thresholdMb);
  return `${n}  ${pad(step.verdict, 8)} ${pad(step.kind, 10)} ${target}${detail.trimEnd()}`;
}

interface FrameFiles {
  tree?: string;
  screenshot?: string;
}
type StepFiles = { recorded: { before?: FrameFiles; after?: FrameFiles }; replayed: { before?: FrameFiles; after?: FrameFiles } };

/**
 * The side-by-side of `--frames DIR` (docs/rules.md#r-rpl-05): each step's recorded frames, copied out of
 * the trace, and its replayed ones (redacted as a trace is), as step-N-recorded-before.json / .png, ...
 * Only what this replay produced: two frames a side per step, the trace's own limits bound the rest.
 */
async function writeStepFrames(dir: string, trace: ReplayableTrace, step: ReplayStep, frames: ReplayedFrames): Promise<StepFiles> {
  const files: StepFiles = { recorded: {}, replayed: {} };
  const write = async (name: string, data: string | Buffer) => {
    await writeFile(join(dir, name), data);
    return name;
  };
  for (const when of ['before', 'after'] as const) {
    const recorded = step.recorded[when];
    const base = `step-${step.number}-recorded-${when}`;
    const out: FrameFiles = {};
    if (recorded?.observationRef && trace.hasResource(recorded.observationRef))
      out.tree = await write(`${base}.json`, await trace.resource(recorded.observationRef));
    if (recorded?.screenshotRef && trace.hasResource(recorded.screenshotRef))
      out.screenshot = await write(`${base}.png`, await trace.resource(recorded.screenshotRef));
    if (out.tree || out.screenshot) files.recorded[when] = out;
    const frame = frames[when];
    const rbase = `step-${step.number}-replayed-${when}`;
    const rout: FrameFiles = {};
    if (frame?.observation) rout.tree = await write(`${rbase}.json`, JSON.stringify(frame.observation));
    if (frame?.screenshot) rout.screenshot = await write(`${rbase}.png`, Buffer.from(frame.screenshot.dataBase64, 'base64'));
    if (rout.tree || rout.screenshot) files.replayed[when] = rout;
  }
  return files;
}

async function replayCommand(file: string, values: Values, timeoutMs: number, out: Out): Promise<number> {
  // The trace first: a file that cannot be read is reported without touching any device. Its actions
  // come from the trace worker, its frames from its index (docs/rules.md#r-mem-04).
  const trace = await openReplayableTrace(file);
  const needed = traceVariables(trace.timeline);
  let chosen: ChosenVariables;
  try {
    chosen = await chooseVariables(
      needed,
      { vars: values.var, varFile: values['var-file'], env: values.env },
      { environment: process.env, readStdin: out.readStdin, prompt: values['var-file'] === '-' ? undefined : out.prompt },
    );
  } catch (error) {
    throw error instanceof VariableUsageError ? new UsageError(error.message) : error;
  }
  const variables = chosen.values;
  // Refused before any device is touched: a secret with no value would stop the replay at its step.
  const missing = missingVariables(trace.timeline, variables);
  if (missing.length > 0) throw new UsageError(new ReplayVariablesError(missing).message);
  // Said before anything is sent (docs/rules.md#r-trust-01): which value goes where, never the value.
  const shown = values.json ? out.error : out.log;
  for (const variable of needed) shown(`types ${variable.name} (from ${chosen.from.get(variable.name) ?? '?'}) at ${variableTarget(variable)}`);
  if (values['relaunch-first'] && values['no-relaunch-first']) throw new UsageError('--relaunch-first and --no-relaunch-first cannot go together');
  // On by default when the recording began with a launch (docs/rules.md#r-life-05).
  const launch = recordedLaunch(trace.timeline);
  const relaunchFirst = values['no-relaunch-first'] ? undefined : values['relaunch-first'] || launch ? { bundleId: launch?.bundleId } : undefined;
  const framesDir = values.frames === undefined ? undefined : resolve(values.frames);
  if (framesDir) await mkdir(framesDir, { recursive: true });
  const files = new Map<string, StepFiles>();
  const actions = trace.timeline.filter((s) => s.kind === 'action').length;
  const thresholdMb = values['memory-threshold-mb'] === undefined ? DEFAULT_MEMORY_THRESHOLD_MB : memoryThresholdOf(values['memory-threshold-mb']);
  return await withDevice(values.device!, timeoutMs, async (connection) => {
    const width = String(trace.plan.timelineSteps).length;
    const recordedSteps = new Map(trace.timeline.map((step) => [step.callId, step]));
    if (!values.json) out.log(`Replaying ${actions} action(s) from ${trace.path} on ${connection.url}`);
    // Ctrl-C stops between steps (the one in flight finishes, never cut off half sent), and the report
    // still says which steps ran (docs/rules.md#r-rpl-06); a second Ctrl-C is Node's own.
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    process.once('SIGINT', onInterrupt);
    let report: Awaited<ReturnType<typeof replayTrace>>;
    try {
      report = await replayTrace(trace, connection, {
        signal: abort.signal,
        stopOnDivergence: values['stop-on-divergence'] === true,
        variables,
        ...(relaunchFirst ? { relaunchFirst } : {}),
        ...(framesDir
          ? {
              keepFrames: async (step: ReplayStep, frames: ReplayedFrames) => {
                const written = await writeStepFrames(framesDir, trace, step, frames);
                files.set(step.callId, written);
                return { before: written.replayed.before !== undefined, after: written.replayed.after !== undefined };
              },
            }
          : {}),
        ...(values.json ? {} : { onStep: (step: ReplayStep) => out.log(replayLine(step, recordedSteps.get(step.callId), width, thresholdMb)) }),
      });
    } finally {
      process.off('SIGINT', onInterrupt);
    }
    const memory = memoryFlagLine(report.steps, thresholdMb);
    if (values.json) {
      const steps = report.steps.map((s) => ({
        ...s,
        ...(files.has(s.callId) ? { files: files.get(s.callId) } : {}),
        ...(s.perf ? { memory: replayMemory(s.perf, thresholdMb) } : {}),
      }));
      out.log(
        JSON.stringify(
          {
            trace: trace.path,
            device: connection.url,
            ...(framesDir ? { framesDir } : {}),
            ...report,
            steps,
            ran: ranSummary(report),
            memoryThresholdMb: thresholdMb,
            ...(memory ? { memory } : {}),
          },
          null,
          2,
        ),
      );
    } else {
      out.log(replaySummary(report));
      out.log(ranSummary(report));
      if (memory) out.log(memory);
    }
    return report.matched === report.total ? 0 : 1;
  });
}

function attributesOf(node: UiNode): Omit<UiNode, 'node'> {
  const { node: _children, ...attributes } = node;
  return attributes;
}

async function compareCommand(values: Values, timeoutMs: number, out: Out): Promise<number> {
  const strategy = values.strategy === undefined ? 'visible' : StrategySchema.parse(values.strategy);
  return await withDevice(values.device!, timeoutMs, async (connection) => {
    const { diff, stamps, sameScreen, sdk, xctest } = await compareNow(connection, { strategy, screenshot: false });
    if (values.json) {
      // Node keys alone mean nothing once the screen is gone, so each difference carries its nodes' attributes.
      const xRoot = xctest.observation?.viewHierarchy?.hierarchy;
      const sRoot = sdk.observation?.viewHierarchy?.hierarchy;
      const differences = diff.differences.map((d) => {
        const xNode = d.xctestKey !== undefined && xRoot ? nodeAtKey(xRoot, d.xctestKey) : undefined;
        const sNode = d.sdkKey !== undefined && sRoot ? nodeAtKey(sRoot, d.sdkKey) : undefined;
        return { ...d, ...(xNode ? { xctestNode: attributesOf(xNode) } : {}), ...(sNode ? { sdkNode: attributesOf(sNode) } : {}) };
      });
      out.log(JSON.stringify({ ...diff, differences, captures: { ...stamps, sameScreen: sameScreen ?? null } }, null, 2));
      return 0;
    }
    const o = sdk.observation;
    const backend = o?.backend ? `backend ${o.backend}${o.fallbackReason ? ` (fallback: ${o.fallbackReason})` : ''}` : 'no SDK backend took part';
    out.log(`${o?.activeWindow?.bundleId ?? 'unknown app'}: XCTest-only ${diff.nodes.xctest} nodes, SDK-backed ${diff.nodes.sdk} nodes (${backend})`);
    out.log(DIFF_CLASSES.map((c) => `${DIFF_CLASS_LABELS[c]}: ${diff.summary[c]}`).join(' · '));
    if (sameScreen === false) {
      out.log(
        `! the screen changed between the two reads (${stamps.xctest.frameContext} → ${stamps.sdk.frameContext}); some differences may be the change itself — compare again`,
      );
    }
    const width = Math.max(...DIFF_CLASSES.map((c) => c.length));
    for (const d of diff.differences) {
      const keys = [d.xctestKey !== undefined ? `xctest ${d.xctestKey}` : '', d.sdkKey !== undefined ? `sdk ${d.sdkKey}` : ''].filter(Boolean).join(' / ');
      out.log(`${pad(d.class, width)}  ${pad(keys, 28)} ${d.detail}`);
    }
    return 0;
  });
}

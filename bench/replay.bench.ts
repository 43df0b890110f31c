/**
 * `npm run bench -- replay`: the figures of replay (docs/rules.md#r-rpl-07). The 20 recordings of
 * tests/support/replay-cases.ts (ten action sequences on the demo app's five screens, each without
 * faults and with one fault of its screen), recorded through the device manager as the UI records
 * them, then replayed on the demo device: unchanged, unchanged with the fault cleared (another backend
 * serves the steps), and after each change to the app (a moved button, a renamed label, a removed row).
 * Prints one line per replay and the table: replays that match on the unchanged app, and replays that
 * diverge at the right step after a change (or, where the change is not on the recording's path, still
 * match).
 *
 * REPLAY_CASES=login-A,feed-B narrows it to those sequences; REPLAY_VERBOSE=1 prints each step.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoDevice } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { openTraceFile } from '@main/trace/open';
import { replayTrace } from '@main/trace/replay';
import type { ReplayReport } from '@shared/trace/replay-report';
import { REPLAY_CASES, resetApp, recordCase, SECRET_VALUE, VARIANTS, type ReplayCase, type Variant } from '../tests/support/replay-cases';

const only = (process.env['REPLAY_CASES'] ?? '').split(',').filter(Boolean);
const verbose = process.env['REPLAY_VERBOSE'] === '1';
const cases = REPLAY_CASES.filter((c) => only.length === 0 || only.includes(c.name));

const dir = await mkdtemp(join(tmpdir(), 'parallax-replay-bench-'));
const demo = await startDemoDevice({ port: 0, appReveal: false });
const manager = new DeviceManager();
const recording = new SessionRecording(manager, { dir, version: 'bench' });
const deviceId = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
await manager.connectionOf(deviceId).waitUntilConnected(10_000);
const env = { manager, recording, deviceId, adminUrl: demo.adminUrl };

/** The first step that did not match, by filmstrip number; null when every step matched. */
function divergedAt(report: ReplayReport): number | null {
  return report.steps.find((s) => s.verdict !== 'matched')?.number ?? null;
}

function firstDifference(report: ReplayReport): string {
  const step = report.steps.find((s) => s.verdict !== 'matched');
  return step ? `${step.verdict} at ${step.number}: ${step.differences[0] ?? ''}` : 'every step matched';
}

async function replay(path: string, screen: string, faults: readonly string[], variants: readonly string[]): Promise<ReplayReport> {
  await resetApp(demo.adminUrl, screen, faults, variants);
  const trace = await openTraceFile(path);
  const report = await replayTrace(trace, manager.connectionOf(deviceId), {
    stopOnDivergence: false,
    variables: new Map([['LOGIN_PASSWORD', SECRET_VALUE]]),
  });
  if (verbose) {
    for (const s of report.steps) console.log(`      ${s.number} ${s.kind} ${s.verdict} ${[...s.differences, ...s.notes].join(' | ')}`);
  }
  return report;
}

interface Row {
  recording: string;
  faults: string;
  condition: string;
  expected: number | null;
  got: number | null;
  detail: string;
}
const rows: Row[] = [];
const started = performance.now();

for (const replayCase of cases) {
  for (const faults of [[], [replayCase.fault]] as const) {
    const name = `${replayCase.name}${faults.length > 0 ? ` [${faults[0]}]` : ''}`;
    let path: string;
    try {
      path = await recordCase(env, replayCase, faults);
    } catch (error) {
      // A recording that could not be made is a row of its own, never a crash of the whole table.
      const detail = `could not record: ${error instanceof Error ? error.message : String(error)}`;
      rows.push({ recording: name, faults: faults.join(','), condition: 'recorded', expected: null, got: -1, detail });
      console.log(`BAD ${name.padEnd(44)} ${detail}`);
      if (recording.status().recording) await recording.stop().catch(() => undefined);
      continue;
    }
    const conditions: { condition: string; faults: readonly string[]; variants: readonly string[]; expected: number | null }[] = [
      { condition: 'unchanged', faults, variants: [], expected: null },
      ...(faults.length > 0 ? [{ condition: 'unchanged, fault cleared', faults: [], variants: [], expected: null }] : []),
      ...VARIANTS.map((v: Variant) => ({ condition: v, faults, variants: [v], expected: replayCase.diverges[v] })),
    ];
    for (const c of conditions) {
      const report = await replay(path, replayCase.screen, c.faults, c.variants);
      const got = divergedAt(report);
      const row = { recording: name, faults: faults.join(','), condition: c.condition, expected: c.expected, got, detail: firstDifference(report) };
      rows.push(row);
      const ok = got === c.expected ? 'ok ' : 'BAD';
      console.log(
        `${ok} ${name.padEnd(44)} ${c.condition.padEnd(24)} expected ${String(c.expected ?? 'match').padEnd(5)} got ${String(got ?? 'match').padEnd(5)} ${row.detail}`,
      );
    }
  }
}

function tally(filter: (r: Row) => boolean): string {
  const picked = rows.filter(filter);
  const right = picked.filter((r) => r.got === r.expected).length;
  return `${right} of ${picked.length}`;
}

const why = (c: ReplayCase, v: Variant) => `${c.diverges[v] ?? 'match'} (${c.why[v]})`;
console.log('\nexpected divergence per recording:');
for (const c of cases) console.log(`  ${c.name.padEnd(11)} ${VARIANTS.map((v) => `${v}: ${why(c, v)}`).join(' · ')}`);

console.log('\nreplay figures (20 recordings: 10 sequences × without / with a fault)');
console.log(`  unchanged app, every step matched:                ${tally((r) => r.condition === 'unchanged')}`);
console.log(`  unchanged app, fault cleared (other backend):     ${tally((r) => r.condition === 'unchanged, fault cleared')}`);
for (const v of VARIANTS) {
  console.log(`  ${`${v}: diverged at the right step`.padEnd(49)} ${tally((r) => r.condition === v && r.expected !== null)}`);
  console.log(`  ${`${v}: change off the path, still matched`.padEnd(49)} ${tally((r) => r.condition === v && r.expected === null)}`);
}
console.log(`  all replays right:                                ${tally(() => true)}  (${Math.round((performance.now() - started) / 1000)} s)`);

await recording.close();
await manager.closeAll();
await demo.close();
await rm(dir, { recursive: true, force: true });
process.exitCode = rows.every((r) => r.got === r.expected) ? 0 : 1;

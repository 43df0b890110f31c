/**
 * `npm run bench -- replay`: the figures of replay (docs/rules.md#r-rpl-07). The 20 recordings of
 * tests/support/replay-cases.ts (ten action sequences on the demo app's five screens, each without
 * faults and with one fault of its screen), recorded through the device manager as the UI records
 * them, then replayed on the demo device: unchanged, unchanged with the fault cleared (another backend
 * serves the steps), and after each change to the app (a moved button, a renamed label, a removed row).
 * Prints one line per replay and the table: replays that match on the unchanged app, and replays that
 * diverge at the right step after a change (or, where the change is not on the recording's path or the
 * exported selector still finds the changed element, still match); and the issue-27 figure: variant
 * replays whose verdict agrees with what the exported Maestro flow would do on the same screens
 * (tests/support/maestro-oracle.ts, Maestro's own matching rules).
 *
 * REPLAY_CASES=login-A,feed-B narrows it to those sequences; REPLAY_VERBOSE=1 prints each step.
 */
import type { ReplayReport } from '@shared/trace/replay-report';
import type { MaestroVerdict } from '../tests/support/maestro-oracle';
import { expectedAfter, resetApp, recordCase, VARIANTS, type ReplayCase, type Variant } from '../tests/support/replay-cases';
import { divergedAt, replayJudged } from '../tests/support/replay-judged';
import { casesNamedIn, startReplayBenchEnv } from './replay-env';

const verbose = process.env['REPLAY_VERBOSE'] === '1';
const cases = casesNamedIn('REPLAY_CASES');
const env = await startReplayBenchEnv('replay');
const { demo, manager, recording, deviceId } = env;

function firstDifference(report: ReplayReport): string {
  const step = report.steps.find((s) => s.verdict !== 'matched');
  return step ? `${step.verdict} at ${step.number}: ${step.differences[0] ?? ''}` : 'every step matched';
}

async function replay(
  path: string,
  replayCase: ReplayCase,
  faults: readonly string[],
  variants: readonly string[],
): Promise<{ report: ReplayReport; maestro: MaestroVerdict }> {
  await resetApp(demo.adminUrl, replayCase.screen, faults, variants);
  const { report, maestro } = await replayJudged(path, manager.connectionOf(deviceId), replayCase);
  if (verbose) {
    for (const s of report.steps) console.log(`      ${s.number} ${s.kind} ${s.verdict} ${[...s.differences, ...s.changes, ...s.notes].join(' | ')}`);
    console.log(`      maestro: ${maestro.why}`);
  }
  return { report, maestro };
}

interface Row {
  recording: string;
  faults: string;
  condition: string;
  expected: number | null;
  got: number | null;
  /** Where the exported Maestro flow fails on the same screens (null: it passes). */
  maestro: number | null;
  /** The replay's first divergence among the steps the flow holds (a recorded failure is a note there). */
  gotExported: number | null;
  /** Matched steps that named a change. */
  changed: number;
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
      rows.push({
        recording: name,
        faults: faults.join(','),
        condition: 'recorded',
        expected: null,
        got: -1,
        maestro: null,
        gotExported: -1,
        changed: 0,
        detail,
      });
      console.log(`BAD ${name.padEnd(44)} ${detail}`);
      if (recording.status().recording) await recording.stop().catch(() => undefined);
      continue;
    }
    const conditions: { condition: string; faults: readonly string[]; variants: readonly string[]; expected: number | null }[] = [
      { condition: 'unchanged', faults, variants: [], expected: null },
      ...(faults.length > 0 ? [{ condition: 'unchanged, fault cleared', faults: [], variants: [], expected: null }] : []),
      ...VARIANTS.map((v: Variant) => ({ condition: v, faults, variants: [v], expected: expectedAfter(replayCase, v, faults).diverges })),
    ];
    for (const c of conditions) {
      const { report, maestro } = await replay(path, replayCase, c.faults, c.variants);
      const got = divergedAt(report);
      const row = {
        recording: name,
        faults: faults.join(','),
        condition: c.condition,
        expected: c.expected,
        got,
        maestro: maestro.failsAt,
        gotExported: divergedAt(report, maestro.exported),
        changed: report.changed,
        detail: firstDifference(report),
      };
      rows.push(row);
      const ok = got === c.expected ? 'ok ' : 'BAD';
      const agrees =
        row.gotExported === maestro.failsAt
          ? `maestro agrees${got !== row.gotExported ? ` (step ${got} is not in the flow: recorded as failed)` : ''}`
          : `MAESTRO ${maestro.why}`;
      console.log(
        `${ok} ${name.padEnd(44)} ${c.condition.padEnd(24)} expected ${String(c.expected ?? 'match').padEnd(5)} got ${String(got ?? 'match').padEnd(5)} ${agrees} · ${row.detail}${report.changed > 0 ? ` · ${report.changed} with changes` : ''}`,
      );
    }
  }
}

function tally(filter: (r: Row) => boolean): string {
  const picked = rows.filter(filter);
  const right = picked.filter((r) => r.got === r.expected).length;
  return `${right} of ${picked.length}`;
}

const why = (c: ReplayCase, v: Variant, faults: readonly string[]) => {
  const expected = expectedAfter(c, v, faults);
  return `${expected.diverges ?? 'match'} (${expected.why})`;
};
console.log('\nexpected divergence per recording:');
for (const c of cases) {
  console.log(`  ${c.name.padEnd(11)} ${VARIANTS.map((v) => `${v}: ${why(c, v, [])}`).join(' · ')}`);
  if (c.withFault) console.log(`  ${`  [${c.fault}]`.padEnd(11)} ${VARIANTS.map((v) => `${v}: ${why(c, v, [c.fault])}`).join(' · ')}`);
}

console.log('\nreplay figures (20 recordings: 10 sequences × without / with a fault)');
console.log(`  unchanged app, every step matched:                ${tally((r) => r.condition === 'unchanged')}`);
console.log(`  unchanged app, fault cleared (other backend):     ${tally((r) => r.condition === 'unchanged, fault cleared')}`);
for (const v of VARIANTS) {
  console.log(`  ${`${v}: diverged at the right step`.padEnd(49)} ${tally((r) => r.condition === v && r.expected !== null)}`);
  console.log(`  ${`${v}: change off the path, still matched`.padEnd(49)} ${tally((r) => r.condition === v && r.expected === null)}`);
}
console.log(`  all replays right:                                ${tally(() => true)}  (${Math.round((performance.now() - started) / 1000)} s)`);
const variantRows = rows.filter((r) => (VARIANTS as readonly string[]).includes(r.condition));
const agreeing = variantRows.filter((r) => r.gotExported === r.maestro).length;
console.log(`  variant replays, verdict agrees with the exported Maestro flow: ${agreeing} of ${variantRows.length} (limit: all)`);
const outside = variantRows.filter((r) => r.got !== r.gotExported).length;
console.log(`    of which the replay diverged first at a step the flow leaves out (recorded as failed): ${outside}`);
const unchangedRows = rows.filter((r) => r.condition.startsWith('unchanged'));
console.log(`  unchanged replays that named a change (limit 0):  ${unchangedRows.filter((r) => r.changed > 0).length} of ${unchangedRows.length}`);

await env.close();
process.exitCode = rows.every((r) => r.got === r.expected) && agreeing === variantRows.length ? 0 : 1;

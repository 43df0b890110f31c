/**
 * `npm run bench -- outcomes`: every fault of the demo device provoked once through the CLI and once
 * through the web host's API (as the UI calls it), tallied by the outcome class the user is told
 * (docs/rules.md#r-act-01). Prints one line per case and the table per class and path.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoDevice } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { createApiService } from '@main/host/api';
import { startWebHost } from '@main/host/web-host';
import { OUTCOME_CLASSES, type ActionResult, type OutcomeClass } from '@shared/protocol/action';
import { outcomeClassOf } from '@shared/act/verdict';
// The cases are the integration test's own (tests/integration/outcomes.test.ts): one list, measured here and checked there.

import { apiClient, expectedFor, OUTCOME_CASES, resetDevice, settleAfter, uncoveredFaults, viaCli, viaWebHost } from '../tests/support/outcome-cases';
import { watchFrames } from '../tests/support/frame-watch';

const device = await startDemoDevice({ port: 0, appReveal: false });
const tally = { cli: new Map<OutcomeClass, number>(), ui: new Map<OutcomeClass, number>() };
const rows: string[] = [];
let mismatches = 0;

function record(path: 'cli' | 'ui', result: ActionResult, expected: OutcomeClass): string {
  const cls = outcomeClassOf(result);
  tally[path].set(cls, (tally[path].get(cls) ?? 0) + 1);
  if (cls !== expected) mismatches++;
  return `${cls}${result.failureReason ? ` (${result.failureReason})` : ''}${cls === expected ? '' : ` ≠ expected ${expected}`}`;
}

try {
  const cli: string[] = [];
  for (const c of OUTCOME_CASES) {
    await resetDevice(device.adminUrl, c);
    cli.push(record('cli', await viaCli(device.runnerUrl, c), expectedFor(c, 'cli')));
    await settleAfter(device.adminUrl, c);
  }
  const rendererDir = await mkdtemp(join(tmpdir(), 'parallax-bench-'));
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>bench</title>');
  const manager = new DeviceManager();
  const { id } = manager.connect(device.runnerUrl, { kind: 'demo', name: 'demo' });
  const frames = watchFrames(manager.connectionOf(id));
  await manager.connectionOf(id).waitUntilConnected(10_000);
  const host = await startWebHost({ api: createApiService({ manager }, { host: 'web', version: 'bench' }), rendererDir });
  const api = await apiClient(host.url);
  try {
    for (const [i, c] of OUTCOME_CASES.entries()) {
      await resetDevice(device.adminUrl, c, frames);
      await manager.connectionOf(id).waitUntilConnected(10_000);
      const ui = record('ui', await viaWebHost(api, id, c), expectedFor(c, 'ui'));
      await settleAfter(device.adminUrl, c);
      rows.push(`${c.fault.padEnd(42)} ${c.cli[0]!.padEnd(5)} cli: ${cli[i]!.padEnd(36)} ui: ${ui}`);
    }
  } finally {
    api.close();
    await host.close();
    await manager.closeAll();
  }
} finally {
  await device.close();
}

console.log(rows.join('\n'));
console.log(
  `\n${OUTCOME_CASES.length} fault cases (every fault of the demo device${uncoveredFaults().length ? `, missing: ${uncoveredFaults().join(', ')}` : ''})`,
);
console.log(`${'class'.padEnd(12)} ${'CLI'.padStart(4)} ${'UI'.padStart(4)}`);
for (const cls of OUTCOME_CLASSES)
  console.log(`${cls.padEnd(12)} ${String(tally.cli.get(cls) ?? 0).padStart(4)} ${String(tally.ui.get(cls) ?? 0).padStart(4)}`);
console.log(mismatches === 0 ? 'every case landed in its expected class' : `${mismatches} case(s) outside their expected class`);
process.exitCode = mismatches === 0 ? 0 : 1;

/**
 * Every fault of the demo device, provoked once through the CLI and once through the web host's API (as
 * the UI sends it), lands in the outcome class the one table gives it (docs/rules.md#r-act-01), and no
 * path sends an action command twice (R-ACT-04). `npm run bench -- outcomes` prints the same cases as a
 * table.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { createApiService } from '@main/host/api';
import { startWebHost, type WebHost } from '@main/host/web-host';
import { outcomeClassOf } from '@shared/act/verdict';
import { RUNNER_COMMANDS } from '@shared/protocol/runner';
import {
  apiClient,
  expectedFor,
  OUTCOME_CASES,
  resetDevice,
  settleAfter,
  uncoveredFaults,
  viaCli,
  viaWebHost,
  READ_COMMANDS,
  type OutcomeCase,
} from '../support/outcome-cases';

/** The commands that act on the device: every command but the reads. */
const ACTION_COMMANDS = RUNNER_COMMANDS.filter((command) => !READ_COMMANDS.has(command));

let device: DemoDeviceHandle;
beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
}, 60_000);
afterAll(async () => {
  await device?.close();
});

async function counts(): Promise<Record<string, number>> {
  return ((await (await fetch(`${device.adminUrl}/stats`)).json()) as { requests: Record<string, number> }).requests;
}

/** The case's result and how many times each action command went out meanwhile. */
async function run(c: OutcomeCase, act: () => Promise<Awaited<ReturnType<typeof viaCli>>>) {
  await resetDevice(device.adminUrl, c);
  const before = await counts();
  const result = await act();
  const after = await counts();
  await settleAfter(c);
  const sent = Object.fromEntries(ACTION_COMMANDS.map((command) => [command, (after[command] ?? 0) - (before[command] ?? 0)]));
  return { result, sent };
}

describe('every fault of the demo device lands in its class', () => {
  it('R-ACT-01: the cases cover every fault the demo device has', () => {
    expect(uncoveredFaults()).toEqual([]);
  });

  it('R-ACT-01, R-ACT-04: every fault of the demo device lands in its class through the CLI and through the web host', async () => {
    const rendererDir = await mkdtemp(join(tmpdir(), 'parallax-outcomes-'));
    await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>outcomes</title>');
    const wrong: string[] = [];
    const check = (path: 'cli' | 'ui', c: OutcomeCase, { result, sent }: Awaited<ReturnType<typeof run>>) => {
      const cls = outcomeClassOf(result);
      if (cls !== expectedFor(c, path)) wrong.push(`${path} ${c.fault}: ${cls} (${result.failureReason ?? 'ok'}), expected ${expectedFor(c, path)}: ${c.why}`);
      for (const [command, n] of Object.entries(sent)) if (n > 1) wrong.push(`${path} ${c.fault}: ${command} went out ${n} times`);
    };

    for (const c of OUTCOME_CASES) check('cli', c, await run(c, () => viaCli(device.runnerUrl, c)));

    const manager = new DeviceManager();
    let host: WebHost | undefined;
    try {
      const { id } = manager.connect(device.runnerUrl, { kind: 'demo', name: 'demo' });
      await manager.connectionOf(id).waitUntilConnected(10_000);
      host = await startWebHost({ api: createApiService({ manager }, { host: 'web', version: 'test' }), rendererDir });
      const api = await apiClient(host.url);
      try {
        for (const c of OUTCOME_CASES) {
          await manager.connectionOf(id).waitUntilConnected(10_000);
          check('ui', c, await run(c, () => viaWebHost(api, id, c)));
        }
      } finally {
        api.close();
      }
    } finally {
      await host?.close();
      await manager.closeAll();
    }
    expect(wrong).toEqual([]);
  }, 400_000);
});

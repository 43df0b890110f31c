/**
 * Every fault of the demo device, provoked once through the web host's API (as the UI sends it), lands in
 * the outcome class the one table gives it (docs/rules.md#r-act-01), and no path sends an action command
 * twice (R-ACT-04). The CLI half is tests/integration/outcomes.test.ts.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { createApiService } from '@main/host/api';
import { startWebHost, type WebHost } from '@main/host/web-host';
import { apiClient, checkCase, OUTCOME_CASES, viaWebHost } from '../support/outcome-cases';
import { watchFrames } from '../support/frame-watch';

let device: DemoDeviceHandle;
beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
}, 60_000);
afterAll(async () => {
  await device?.close();
});

describe('every fault of the demo device lands in its class', () => {
  it('R-ACT-01, R-ACT-04: every fault of the demo device lands in its class through the web host', async () => {
    const rendererDir = await mkdtemp(join(tmpdir(), 'parallax-outcomes-'));
    await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>outcomes</title>');
    const wrong: string[] = [];
    const manager = new DeviceManager();
    let host: WebHost | undefined;
    try {
      const { id } = manager.connect(device.runnerUrl, { kind: 'demo', name: 'demo' });
      const frames = watchFrames(manager.connectionOf(id));
      await manager.connectionOf(id).waitUntilConnected(10_000);
      host = await startWebHost({ api: createApiService({ manager }, { host: 'web', version: 'test' }), rendererDir });
      const api = await apiClient(host.url);
      try {
        for (const c of OUTCOME_CASES) {
          await manager.connectionOf(id).waitUntilConnected(10_000);
          wrong.push(...(await checkCase(device.adminUrl, 'ui', c, () => viaWebHost(api, id, c), frames)));
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

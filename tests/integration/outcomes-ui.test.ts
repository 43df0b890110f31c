/**
 * Every fault of the demo device, provoked once through the web host's API (as the UI sends it), lands in
 * the outcome class the one table gives it (docs/rules.md#r-act-01), and no path sends an action command
 * twice (R-ACT-04). The CLI half is tests/integration/outcomes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DeviceManager } from '@main/devices/manager';
import { createApiService } from '@main/host/api';
import { apiClient, checkCase, OUTCOME_CASES, relaunchViaWebHost, viaWebHost } from '../support/outcome-cases';
import { watchFrames } from '../support/frame-watch';
import { useDemoDevice } from '../support/host-over-demo';
import { startTestWebHost, type TestWebHost } from '../support/web-host';

const started = useDemoDevice({ appReveal: false });

describe('every fault of the demo device lands in its class', () => {
  it('R-ACT-01, R-ACT-04: every fault of the demo device lands in its class through the web host', async () => {
    const wrong: string[] = [];
    const manager = new DeviceManager();
    let web: TestWebHost | undefined;
    try {
      const { id } = manager.connect(started.demo.runnerUrl, { kind: 'demo', name: 'demo' });
      const frames = watchFrames(manager.connectionOf(id));
      await manager.connectionOf(id).waitUntilConnected(10_000);
      web = await startTestWebHost(createApiService({ manager }, { host: 'web', version: 'test' }));
      const api = await apiClient(web.host.url);
      const relaunch = () => relaunchViaWebHost(api, id);
      try {
        for (const c of OUTCOME_CASES) {
          await manager.connectionOf(id).waitUntilConnected(10_000);
          wrong.push(...(await checkCase(started.demo.adminUrl, 'ui', c, () => viaWebHost(api, id, c), frames, relaunch)));
        }
      } finally {
        api.close();
      }
    } finally {
      await web?.close();
      await manager.closeAll();
    }
    expect(wrong).toEqual([]);
  }, 400_000);
});

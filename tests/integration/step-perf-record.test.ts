/**
 * Each recorded step's perf window, against the demo device over its real sockets
 * (docs/rules.md#r-perfstep-03): with the perf-memory-growth fault on, a tap's step keeps the pushes
 * before and after it, and reopened it is flagged as growing past the default threshold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { openTraceFile } from '@main/trace/index';
import { AFTER_WINDOW_PUSHES } from '@shared/trace/step-perf-window';
import { DEFAULT_MEMORY_THRESHOLD_MB, memoryGrowth } from '@shared/trace/perf-step';

let demo: Awaited<ReturnType<typeof startDemoDevice>>;
let services: AppServices;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0 });
  services = await startAppServices('web', () => []);
}, 60_000);
afterAll(async () => {
  await fetch(`${demo.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: [] }) }).catch(() => undefined);
  await services?.close();
  await demo?.close();
});

async function call(method: string, params: unknown) {
  const reply = await services.api.handle(method, params);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as Record<string, unknown>;
}

describe('a recorded step keeps its perf window', () => {
  it('R-PERFSTEP-03: with perf-memory-growth on, the tap keeps before and after and is flagged (R-PERFSTEP-01)', async () => {
    const runner = services.manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' });
    await services.manager.connectionOf(runner.id).waitUntilConnected(10_000);
    let pushes = 0;
    services.manager.on('perf', (event) => {
      if (event.deviceId === runner.id) pushes++;
    });
    await call('recording.start', { deviceId: runner.id });
    const faults = await fetch(`${demo.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: ['perf-memory-growth'] }) });
    expect(faults.ok).toBe(true);
    await expect.poll(() => pushes, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await call('device.act', { deviceId: runner.id, action: { action: 'tap', target: { id: 'login.submit' } } });
    const afterTap = pushes;
    await expect.poll(() => pushes, { timeout: 20_000 }).toBeGreaterThanOrEqual(afterTap + AFTER_WINDOW_PUSHES + 1);
    const stopped = await call('recording.stop', {});

    const opened = await openTraceFile(stopped.lastTrace as string);
    const [tap] = opened.timeline.filter((step) => step.after);
    expect(tap?.status).toBe('succeeded');
    const perf = tap?.perf;
    expect(perf?.before.sampleCount).toBeGreaterThanOrEqual(1);
    expect(perf?.after.sampleCount).toBe(AFTER_WINDOW_PUSHES);
    expect(perf?.after.sources.memoryMb).toBe('runnerReported');
    const growth = memoryGrowth(perf!, DEFAULT_MEMORY_THRESHOLD_MB);
    // 16 MiB retained per push: AFTER_WINDOW_PUSHES pushes after the tap.
    expect(growth.grownMb).toBeGreaterThan(DEFAULT_MEMORY_THRESHOLD_MB);
    expect(growth.flagged).toBe(true);

    // The trace view's step carries the same window (what StepPerf draws and flags, R-PERFSTEP-04).
    const view = await call('trace.open', { path: stopped.lastTrace });
    const viewed = (view.steps as { callId: string; perf?: unknown }[]).find((step) => step.callId === tap?.callId);
    expect(viewed?.perf).toEqual(perf);
  }, 60_000);
});

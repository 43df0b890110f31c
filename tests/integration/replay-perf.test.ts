/**
 * Replay shows each step's performance recorded vs replayed (docs/rules.md#r-perfstep-05), against the
 * demo device over its real sockets: a tap recorded with the device idle, replayed through the host's API
 * with `perf-memory-growth` on (16 MiB retained a push), so this time its memory grows past the
 * threshold: the report carries the recorded window as the trace kept it and the replayed one, waited for
 * until it holds as many pushes as the recorded one did; the CLI's `--memory-threshold-mb` flags the step.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openTraceFile } from '@main/trace/index';
import { runTraceCommand } from '@main/cli/traces';
import { AFTER_WINDOW_PUSHES } from '@shared/trace/step-perf-window';
import { DEFAULT_MEMORY_THRESHOLD_MB, replayMemory } from '@shared/trace/perf-step';
import { ReplayReportSchema } from '@shared/trace/replay-report';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
const faults = (list: string[]) => fetch(`${host.demo.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: list }) });
afterAll(async () => {
  await faults([]).catch(() => undefined);
});

/** A tap on Sign In recorded on the idle demo, its after window closed by its pushes; the trace's path. */
async function recordTap(deviceId: string, pushed: () => number): Promise<string> {
  await host.call('recording.start', { deviceId });
  await expect.poll(pushed, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  await host.call('device.act', { deviceId, action: { action: 'tap', target: { id: 'login.submit' } } });
  const afterTap = pushed();
  await expect.poll(pushed, { timeout: 20_000 }).toBeGreaterThanOrEqual(afterTap + AFTER_WINDOW_PUSHES + 1);
  const stopped = await host.call('recording.stop', {});
  return stopped.lastTrace as string;
}

describe('replay shows each step’s perf, recorded vs replayed', () => {
  let tracePath = '';
  let deviceId = '';

  it('R-PERFSTEP-05: the replayed step carries both windows; memory that grows this time is flagged on the replayed side', async () => {
    const runner = host.services.manager.connect(host.demo.runnerUrl, { kind: 'demo', name: 'Demo' });
    deviceId = runner.id;
    await host.services.manager.connectionOf(deviceId).waitUntilConnected(10_000);
    let pushes = 0;
    host.services.manager.on('perf', (event) => {
      if (event.deviceId === deviceId) pushes++;
    });
    tracePath = await recordTap(deviceId, () => pushes);
    const [recordedStep] = (await openTraceFile(tracePath)).timeline.filter((step) => step.after);
    expect(recordedStep?.perf?.after.sampleCount).toBe(AFTER_WINDOW_PUSHES);

    await host.call('device.act', { deviceId, action: { action: 'launch', relaunch: true } });
    expect((await faults(['perf-memory-growth'])).ok).toBe(true);
    const report = ReplayReportSchema.parse(await host.call('trace.replay', { path: tracePath, deviceId, stopOnDivergence: false }));
    const step = report.steps[0]!;
    expect(step.ran).toBe('yes');
    // The recorded side is the trace's window as it was kept, not measured again.
    expect(step.perf?.recorded).toEqual(recordedStep!.perf);
    const replayed = step.perf?.replayed;
    expect(replayed?.before.sampleCount).toBeGreaterThanOrEqual(1);
    // Waited for: as many pushes after the tap as the recording held.
    expect(replayed?.after.sampleCount).toBe(recordedStep!.perf!.after.sampleCount);
    expect(replayed?.after.sources.memoryMb).toBe('runnerReported');
    const memory = replayMemory(step.perf, DEFAULT_MEMORY_THRESHOLD_MB);
    // 16 MiB retained at each of the three pushes after the tap.
    expect(memory.replayed?.grownMb).toBeGreaterThan(DEFAULT_MEMORY_THRESHOLD_MB);
    expect(memory.replayed?.flagged).toBe(true);
    // Reported, not judged: the verdict is the screens' and the outcome's.
    expect(step.verdict).toBe('matched');
  }, 90_000);

  it('R-PERFSTEP-05: parallax replay --memory-threshold-mb flags the step in its line, its summary and its JSON', async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const out = { log: (line: string) => stdout.push(line), error: (line: string) => stderr.push(line) };
    await host.call('device.act', { deviceId, action: { action: 'launch', relaunch: true } });
    expect((await faults(['perf-memory-growth'])).ok).toBe(true);
    const code = await runTraceCommand('replay', [tracePath, '--device', host.demo.runnerUrl, '--memory-threshold-mb', '10', '--no-relaunch-first'], out);
    expect(stderr).toEqual([]);
    expect(code).toBe(0);
    const line = stdout.find((l) => /^\s*1\s+matched/.test(l));
    expect(line).toMatch(/ · memory \+\d+(\.\d+)? MB \(recorded [+-]?\d+(\.\d+)? MB\), over 10 MB$/);
    expect(stdout.at(-1)).toMatch(/^memory grew over 10 MB at step 1 \(recorded: (none|step 1)\)$/);

    await host.call('device.act', { deviceId, action: { action: 'launch', relaunch: true } });
    const json: string[] = [];
    const jsonCode = await runTraceCommand('replay', [tracePath, '--device', host.demo.runnerUrl, '--json', '--no-relaunch-first', '--memory-threshold-mb', '10'], {
      log: (l) => json.push(l),
      error: (l) => stderr.push(l),
    });
    expect(jsonCode).toBe(0);
    const parsed = JSON.parse(json.join('\n')) as { memoryThresholdMb: number; memory?: string; steps: { memory?: { replayed: { flagged: boolean } } }[] };
    expect(parsed.memoryThresholdMb).toBe(10);
    expect(parsed.steps[0]?.memory?.replayed.flagged).toBe(true);
    expect(parsed.memory).toMatch(/^memory grew over 10 MB at step 1/);
  }, 90_000);

  it('R-PERFSTEP-05: a threshold that is not a number of MB from 0 to 65,536 is a usage error (exit 2), before any device is touched', async () => {
    for (const bad of ['-1', 'abc', '1e3', '70000', '']) {
      const stderr: string[] = [];
      const code = await runTraceCommand('replay', ['/nonexistent.parallax-trace', '--device', 'ws://127.0.0.1:1/ws', `--memory-threshold-mb=${bad}`], {
        log: () => undefined,
        error: (l) => stderr.push(l),
      });
      expect(code).toBe(2);
      expect(stderr[0]).toContain('--memory-threshold-mb: memory growth threshold: expected a number of MB from 0 to 65536');
    }
  });
});

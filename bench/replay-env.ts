/**
 * What the replay benches (replay.bench.ts, lifecycle.bench.ts) stand on: one demo device over its real
 * ports, a device manager connected to it, the session recorder the UI records with, writing into a
 * fresh temporary folder, and the replay cases narrowed by an environment variable. Closed in the
 * reverse order, the folder removed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { REPLAY_CASES, type ReplayCase } from '../tests/support/replay-cases';

export interface ReplayBenchEnv {
  demo: DemoDeviceHandle;
  manager: DeviceManager;
  recording: SessionRecording;
  deviceId: string;
  adminUrl: string;
  close(): Promise<void>;
}

/** Starts the demo device (no AppReveal: the benches replay on the runner) and connects a manager to it. */
export async function startReplayBenchEnv(name: string): Promise<ReplayBenchEnv> {
  const dir = await mkdtemp(join(tmpdir(), `parallax-${name}-bench-`));
  const demo = await startDemoDevice({ port: 0, appReveal: false });
  const manager = new DeviceManager();
  const recording = new SessionRecording(manager, { dir, version: 'bench' });
  const deviceId = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  await manager.connectionOf(deviceId).waitUntilConnected(10_000);
  return {
    demo,
    manager,
    recording,
    deviceId,
    adminUrl: demo.adminUrl,
    async close() {
      await recording.close();
      await manager.closeAll();
      await demo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The replay cases the comma-separated names in `variable` pick (e.g. REPLAY_CASES=login-A,feed-B); all when unset. */
export function casesNamedIn(variable: string): ReplayCase[] {
  const only = (process.env[variable] ?? '').split(',').filter(Boolean);
  return REPLAY_CASES.filter((c) => only.length === 0 || only.includes(c.name));
}

/**
 * R-RACE-01, R-RACE-02: the recorder has one door. Clicks that come together are issued here in the
 * same tick, before any of them has reached its first await (the race the old check-then-await lost,
 * forced without depending on the machine's speed); a killed run's leftovers are planted by hand.
 */
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { ORPHAN_FOLDER_MIN_AGE_MS } from '@main/trace/orphans';
import { IN_PROGRESS_MARKER } from '@main/trace/files';

let root: string;
let manager: DeviceManager;
let deviceId: string;
const sessions: SessionRecording[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parallax-recorder-race-'));
  manager = new DeviceManager();
  // Never reached: a recording needs the device's name, not its frames.
  deviceId = manager.connect('ws://127.0.0.1:9/ws', { kind: 'demo', name: 'Race phone' }).id;
});

afterEach(async () => {
  for (const session of sessions.splice(0)) {
    if (session.status().recording) await session.stop();
    await session.close();
  }
});

afterAll(async () => {
  await manager.closeAll();
  await rm(root, { recursive: true, force: true });
});

async function session(name: string): Promise<{ recording: SessionRecording; dir: string }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const recording = new SessionRecording(manager, { dir, version: 'test' });
  sessions.push(recording);
  return { recording, dir };
}

const inProgress = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.parallax-trace.d'));

describe('the recorder has one door (R-RACE-01)', () => {
  it('R-RACE-01: two Record clicks at once make one recording; the second answers "already recording" with its name', async () => {
    const { recording, dir } = await session('double-start');
    const [first, second] = await Promise.allSettled([recording.start(deviceId), recording.start(deviceId)]);
    expect(first.status).toBe('fulfilled');
    const traceId = (first as PromiseFulfilledResult<{ traceId?: string }>).value.traceId!;
    expect(second).toMatchObject({ status: 'rejected', reason: { name: 'RecordingStateError', message: `already recording ${traceId}; stop it first` } });
    expect(await inProgress(dir)).toEqual([`${traceId}.parallax-trace.d`]);
  });

  it('R-RACE-01: Start / Stop / Start together: the Stop stops the first, the second starts after it, nothing orphaned', async () => {
    const { recording, dir } = await session('start-stop-start');
    const [a, stop, b] = await Promise.allSettled([recording.start(deviceId), recording.stop(), recording.start(deviceId)]);
    expect([a.status, stop.status, b.status]).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const firstId = (a as PromiseFulfilledResult<{ traceId?: string }>).value.traceId!;
    const stopped = (stop as PromiseFulfilledResult<{ recording: boolean; lastTrace?: string }>).value;
    expect(stopped.recording).toBe(false);
    expect(stopped.lastTrace).toBe(join(dir, `${firstId}.parallax-trace`));
    const secondId = (b as PromiseFulfilledResult<{ traceId?: string }>).value.traceId!;
    expect(secondId).not.toBe(firstId);
    expect(await inProgress(dir)).toEqual([`${secondId}.parallax-trace.d`]);
  });

  it('R-RACE-01: a stop and a recover of the running recording at once: the recover waits, then finds nothing live to take', async () => {
    const { recording, dir } = await session('stop-recover');
    const started = await recording.start(deviceId);
    const folder = join(dir, `${started.traceId}.parallax-trace.d`);
    const [stopped, recovered] = await Promise.allSettled([recording.stop(), recording.recover(folder)]);
    expect(stopped.status).toBe('fulfilled');
    // Stopped first, so the folder is packed and gone: the recovery refuses, it does not pack it twice.
    expect(recovered.status).toBe('rejected');
    expect(await readdir(dir)).toEqual([`${started.traceId}.parallax-trace`]);
  });
});

describe('a killed run leaves nothing behind (R-RACE-02)', () => {
  it('R-RACE-02: a restart removes a dead writer’s .partial and a marker-less folder, keeps a live one’s, and offers the marked one for recovery', async () => {
    const dir = join(root, 'restart');
    await mkdir(dir, { recursive: true });
    // pid 2^22 + 1 is above Linux's pid_max: no process has it.
    const dead = 4_194_305;
    const deadPartial = join(dir, `.20260101-x.parallax-trace.${dead}-3-a1b2c3.partial`);
    const livePartial = join(dir, `.20260101-y.parallax-trace.${process.pid}-4-d4e5f6.partial`);
    await writeFile(deadPartial, 'half a zip');
    await writeFile(livePartial, 'being written');
    // A start killed before its marker: old enough not to be another process's start in progress.
    const orphan = join(dir, 'orphan.parallax-trace.d');
    await mkdir(orphan);
    await writeFile(join(orphan, 'manifest.json'), '{}');
    const old = new Date(Date.now() - 2 * ORPHAN_FOLDER_MIN_AGE_MS);
    await utimes(orphan, old, old);
    // A young one may be another process between its mkdir and its marker: left alone.
    const young = join(dir, 'young.parallax-trace.d');
    await mkdir(young);
    // A recording killed mid-way: its marker names a dead process; it is offered, not removed.
    const killed = join(dir, 'killed.parallax-trace.d');
    await mkdir(join(killed, 'resources'), { recursive: true });
    await writeFile(
      join(killed, 'manifest.json'),
      JSON.stringify({
        format: 'parallax-trace',
        version: 1,
        createdAt: old.toISOString(),
        device: { name: 'Race phone', kind: 'demo', url: 'ws://127.0.0.1:9/ws' },
      }),
    );
    await writeFile(join(killed, 'events.jsonl'), '');
    await writeFile(join(killed, IN_PROGRESS_MARKER), JSON.stringify({ traceId: 'killed', pid: dead, bootTime: 0, startedAt: old.toISOString() }));
    await utimes(killed, old, old);

    const recording = new SessionRecording(manager, { dir, version: 'test' });
    sessions.push(recording);
    const offered = await recording.unfinished();
    expect(offered.map((t) => t.folder)).toEqual([killed]);
    expect((await readdir(dir)).sort()).toEqual([livePartial.slice(dir.length + 1), 'killed.parallax-trace.d', 'young.parallax-trace.d'].sort());
  });
});

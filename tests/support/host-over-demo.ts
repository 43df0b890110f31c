/**
 * The demo device and the host's services over it, as the API-level integration tests start them: one
 * copy of the start, the stop and the call that turns an API error into a thrown one naming the method
 * (`useHostOverDemo`); and the demo with one connection to it, direct or through a device manager, for
 * the tests below the API (`useConnectedDemo`). Call either at a test file's top level (or a describe's):
 * it registers that scope's beforeAll and afterAll.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle, type StartDemoDeviceOptions } from '@demo/index';
import type { DeviceConnection } from '@main/connection/connection';
import { connectionFor, DeviceManager } from '@main/devices/manager';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { SessionRecording } from '@main/trace/recording';
import { parseAppRevealSessionUrl } from '@shared/protocol/appreveal';
import { rawTool } from './appreveal-raw';
import { admin, untilQuiet } from './demo-admin';
import { watchFrames, type FrameWatch } from './frame-watch';

export interface HostOverDemo {
  readonly demo: DemoDeviceHandle;
  readonly services: AppServices;
  /** The API's answer as it came (ok or a typed error), for a test about a refusal. */
  handle(method: string, params: unknown): ReturnType<AppServices['api']['handle']>;
  /** The API's result; an error throws, naming the method, its code and its message. */
  call<T = Record<string, unknown>>(method: string, params: unknown): Promise<T>;
  /** One tool of the demo's AppReveal app over its real port, as AppReveal's own CLI calls it (not through Parallax). */
  rawTool(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export function useHostOverDemo(options: { demo?: StartDemoDeviceOptions; tokens?: readonly string[] } = {}): HostOverDemo {
  let demo: DemoDeviceHandle | undefined;
  let services: AppServices | undefined;
  beforeAll(async () => {
    demo = await startDemoDevice({ port: 0, ...options.demo });
    services = await startAppServices('web', () => [...(options.tokens ?? [])]);
  }, 60_000);
  afterAll(async () => {
    await services?.close();
    await demo?.close();
  });
  const started = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${what} is not started: use it inside a test or a hook`);
    return value;
  };
  const host: HostOverDemo = {
    get demo() {
      return started('demo device', demo);
    },
    get services() {
      return started('host services', services);
    },
    handle: (method, params) => host.services.api.handle(method, params),
    async call<T>(method: string, params: unknown): Promise<T> {
      const reply = await host.handle(method, params);
      if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
      return reply.result as T;
    },
    rawTool: (name, args = {}) => rawTool(parseAppRevealSessionUrl(host.demo.appRevealUrl ?? ''), name, args),
  };
  return host;
}

/** The demo device with one connection to it, as the integration tests below the API start them. */
export interface ConnectedDemo {
  readonly demo: DemoDeviceHandle;
  /** The connection to the demo's runner or to its AppReveal app; a managed demo's is the manager's own. */
  readonly connection: DeviceConnection;
  /** Only with `managed`: the device manager the connection was made through, its device id, and a recording over it. */
  readonly manager: DeviceManager;
  readonly deviceId: string;
  readonly recording: SessionRecording;
  /** Only with `managed`: the recording's scratch folder, removed after the tests. */
  readonly dir: string;
  /**
   * POST /reset: the screen, no faults, these variants; then until the device is quiet and (through the
   * runner) the connection has observed the relaunched frame.
   */
  reset(screen: string, variants?: readonly string[]): Promise<void>;
  /** Until the device is quiet and (through the runner) the connection holds its current frame: a person's pace between steps. */
  settled(): Promise<void>;
}

/**
 * A demo device started and connected before a file's (or a describe's) tests and closed after them:
 * through the runner (`connectionFor`) or the AppReveal app, directly or, with `managed`, through a
 * DeviceManager with a SessionRecording in a scratch folder (`parallax-<prefix>-`). Call it where the
 * hooks belong: it registers that scope's beforeAll and afterAll.
 */
export function useConnectedDemo(
  options: { demo?: StartDemoDeviceOptions; via?: 'runner' | 'appreveal'; connectTimeoutMs?: number; managed?: { dirPrefix: string } } = {},
): ConnectedDemo {
  let demo: DemoDeviceHandle | undefined;
  let connection: DeviceConnection | undefined;
  let managed: { manager: DeviceManager; deviceId: string; recording: SessionRecording; dir: string } | undefined;
  let frames: FrameWatch | undefined;
  beforeAll(async () => {
    demo = await startDemoDevice({ port: 0, ...options.demo });
    const url = options.via === 'appreveal' ? (demo.appRevealUrl ?? '') : demo.runnerUrl;
    if (options.managed) {
      const dir = await mkdtemp(join(tmpdir(), `parallax-${options.managed.dirPrefix}-`));
      const manager = new DeviceManager();
      const recording = new SessionRecording(manager, { dir, version: 'test' });
      const deviceId = manager.connect(url).id;
      managed = { manager, deviceId, recording, dir };
      connection = manager.connectionOf(deviceId);
    } else {
      connection = connectionFor(url);
    }
    if (options.via !== 'appreveal') frames = watchFrames(connection);
    if (!options.managed) connection.start();
    await connection.waitUntilConnected(options.connectTimeoutMs);
  }, 60_000);
  afterAll(async () => {
    if (managed) {
      await managed.recording.close();
      await managed.manager.closeAll();
    } else {
      await connection?.close();
    }
    await demo?.close();
    if (managed) await rm(managed.dir, { recursive: true, force: true });
  });
  const settled = async (): Promise<void> => {
    const adminUrl = started('demo device', demo).adminUrl;
    // An AppReveal connection's frames carry no runner frame context: the device's quiet is the sign there.
    await (frames ? frames.until(adminUrl) : untilQuiet(adminUrl));
  };
  const started = <T>(what: string, value: T | undefined): T => {
    if (value === undefined)
      throw new Error(`the ${what} is not started: use it inside a test or a hook${what === 'device manager' ? ', with `managed`' : ''}`);
    return value;
  };
  return {
    get demo() {
      return started('demo device', demo);
    },
    get connection() {
      return started('connection', connection);
    },
    get manager() {
      return started('device manager', managed).manager;
    },
    get deviceId() {
      return started('device manager', managed).deviceId;
    },
    get recording() {
      return started('device manager', managed).recording;
    },
    get dir() {
      return started('device manager', managed).dir;
    },
    async reset(screen, variants = []) {
      await admin(started('demo device', demo).adminUrl, '/reset', { screen, faults: [], variants });
      await settled();
    },
    settled,
  };
}

/** What one run of the `parallax` command printed, and how it exited. */
export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The demo device alone, started before the scope's tests (on a free port) and closed after them. */
export function useDemoDevice(options: StartDemoDeviceOptions = {}): { readonly demo: DemoDeviceHandle } {
  let demo: DemoDeviceHandle | undefined;
  beforeAll(async () => {
    demo = await startDemoDevice({ port: 0, ...options });
  }, 60_000);
  afterAll(async () => {
    await demo?.close();
  });
  return {
    get demo() {
      if (demo === undefined) throw new Error('the demo device is not started: use it inside a test or a hook');
      return demo;
    },
  };
}

/**
 * The demo device for the tests of the real `parallax` command (bin/parallax.mjs run by this Node, from
 * the repository's root, killed after 60 s): started before the scope's tests, closed after them.
 */
export function useCliOverDemo(options: { demo?: StartDemoDeviceOptions } = {}): {
  readonly demo: DemoDeviceHandle;
  parallax(...args: string[]): Promise<CommandRun>;
} {
  const started = useDemoDevice(options.demo);
  return {
    get demo() {
      return started.demo;
    },
    parallax: runParallax,
  };
}

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'parallax.mjs');

function runParallax(...args: string[]): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

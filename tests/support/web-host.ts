/**
 * The web host as the integration tests start it over their own API: serving a scratch renderer folder
 * of one index.html, with the origin and token a page it served would have. `close` stops the host and
 * removes the folder.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiService, type ApiService } from '@main/host/api';
import { startWebHost, type WebHost } from '@main/host/web-host';
import type { DeviceManager } from '@main/devices/manager';
import { dataDir } from '@main/paths';
import { SessionRecording } from '@main/trace/recording';

export interface TestWebHost {
  readonly host: WebHost;
  /** The page's origin (http://127.0.0.1:PORT), which the host's Origin check accepts. */
  readonly origin: string;
  /** The page's token, from the URL the host opens. Never logged. */
  readonly token: string;
  readonly rendererDir: string;
  close(): Promise<void>;
}

export async function startTestWebHost(api: ApiService): Promise<TestWebHost> {
  const rendererDir = await mkdtemp(join(tmpdir(), 'parallax-renderer-'));
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>Parallax</title>');
  const host = await startWebHost({ api, rendererDir });
  const url = new URL(host.url);
  return {
    host,
    origin: url.origin,
    token: url.searchParams.get('token') ?? '',
    rendererDir,
    async close() {
      await host.close();
      await rm(rendererDir, { recursive: true, force: true });
    },
  };
}

/**
 * The web host's API over `manager`, recording into the data folder's traces folder: the one folder
 * besides the user's own choices a page may name (docs/rules.md#r-path-01).
 */
export async function recordingApi(manager: DeviceManager): Promise<{ api: ApiService; tracesDir: string }> {
  const tracesDir = join(dataDir(), 'traces');
  await mkdir(tracesDir, { recursive: true });
  const recording = new SessionRecording(manager, { dir: tracesDir, version: 'test' });
  return { api: createApiService({ manager, recording }, { host: 'web', version: 'test' }), tracesDir };
}

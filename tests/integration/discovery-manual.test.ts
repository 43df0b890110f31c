/**
 * Manual entries: remembered between starts in the settings file, health-checked like any device, and
 * saved without the AppReveal session token: the token is in no file discovery wrote.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAppRevealServer, type AppRevealServerHandle } from '@demo/appreveal/server';
import { Discovery, ManualEntries, ManualEntryError, normalizeManualUrl } from '@main/discovery/index';
import { FakeApp } from './appreveal-fake-app';
import { filesUnder } from '../support/files-under';

let dir: string;
const servers: AppRevealServerHandle[] = [];
const discoveries: Discovery[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-discovery-'));
});

afterEach(async () => {
  await Promise.all(discoveries.splice(0).map((d) => d.stop()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function assertTokenInNoFile(token: string): Promise<number> {
  const files = await filesUnder(dir);
  for (const file of files) {
    const bytes = await readFile(file);
    expect(bytes.includes(Buffer.from(token)), `${file} contains the token`).toBe(false);
    expect(bytes.toString('utf8')).not.toContain('appreveal_session_token');
  }
  return files.length;
}

function newDiscovery(settingsPath: string): Discovery {
  const discovery = new Discovery({ settingsPath, bonjour: false, runnerProbe: false, intervalMs: 200, healthTimeoutMs: 500 });
  discoveries.push(discovery);
  return discovery;
}

describe('manual entries', () => {
  it('saves an AppReveal session URL without its token and remembers it between starts', async () => {
    const server = await startAppRevealServer({ app: new FakeApp() });
    servers.push(server);
    const token = server.token ?? '';
    const settingsPath = join(dir, 'config', 'settings.json');

    const first = newDiscovery(settingsPath);
    await first.start();
    const device = await first.addManual({ url: server.url, name: 'My phone' });
    expect(device).toEqual({
      id: `appreveal:127.0.0.1:${server.port}`,
      kind: 'appreveal',
      name: 'My phone',
      // No real /health names the app, and discovery has no token to ask launch_context (R-AR-20).
      url: server.baseUrl,
      state: 'available',
      sources: ['manual'],
      auth: 'session-token',
    });
    expect(JSON.stringify(first.list())).not.toContain(token);
    await first.stop();

    const saved = JSON.parse(await readFile(settingsPath, 'utf8')) as { manualDevices: Array<Record<string, unknown>> };
    expect(saved.manualDevices).toEqual([
      { id: `manual:appreveal:${server.baseUrl}`, kind: 'appreveal', url: server.baseUrl, name: 'My phone', addedAt: expect.any(Number) },
    ]);
    expect(await assertTokenInNoFile(token)).toBe(1);

    const second = newDiscovery(settingsPath);
    await second.start();
    expect(second.list()).toEqual([device]);

    // Gone app: still listed (the user added it), as unreachable with the reason.
    await server.close();
    await second.refresh();
    expect(second.list()[0]).toMatchObject({ state: 'unreachable', error: `nothing listens on 127.0.0.1:${server.port}` });

    expect(await second.removeManual(device.id)).toBe(true);
    expect(second.list()).toEqual([]);
    expect((JSON.parse(await readFile(settingsPath, 'utf8')) as { manualDevices: unknown[] }).manualDevices).toEqual([]);
    await assertTokenInNoFile(token);
  });

  it('lists a manual runner that does not answer as unreachable', async () => {
    const discovery = newDiscovery(join(dir, 'settings.json'));
    await discovery.start();
    const device = await discovery.addManual({ url: 'ws://127.0.0.1:9/ws' });
    expect(device).toMatchObject({ kind: 'runner', url: 'ws://127.0.0.1:9/ws', state: 'unreachable', sources: ['manual'], name: 'Runner 127.0.0.1:9' });
  });

  it('keeps other settings in the file and survives a corrupt one', async () => {
    const settingsPath = join(dir, 'settings.json');
    await writeFile(
      settingsPath,
      JSON.stringify({ theme: 'dark', manualDevices: [{ id: 'x', kind: 'runner', url: 'ws://10.0.0.1:8765/ws' }, { bogus: true }] }),
    );
    const store = new ManualEntries(settingsPath);
    expect(await store.load()).toEqual([{ id: 'manual:runner:ws://10.0.0.1:8765/ws', kind: 'runner', url: 'ws://10.0.0.1:8765/ws' }]);
    await store.add({ url: `http://10.0.0.2:7000/?appreveal_session_token=${'c'.repeat(64)}` });
    const saved = JSON.parse(await readFile(settingsPath, 'utf8')) as Record<string, unknown>;
    expect(saved.theme).toBe('dark');
    expect(JSON.stringify(saved)).not.toContain('c'.repeat(64));

    await writeFile(settingsPath, '{ not json');
    const corrupt = new ManualEntries(settingsPath);
    expect(await corrupt.load()).toEqual([]);
    expect(corrupt.loadError).toMatch(/not a settings file/);
    const discovery = newDiscovery(settingsPath);
    const warnings: string[] = [];
    discovery.on('warning', (error) => warnings.push(error.message));
    await discovery.start();
    expect(warnings).toEqual([expect.stringMatching(/not a settings file/)]);
  });

  it('adding before loading keeps the entries already saved', async () => {
    const settingsPath = join(dir, 'settings.json');
    await new ManualEntries(settingsPath).add({ url: 'ws://127.0.0.1:8770/ws' });
    await new ManualEntries(settingsPath).add({ url: 'http://127.0.0.1:7001/' });
    expect((await new ManualEntries(settingsPath).load()).map((e) => e.url)).toEqual(['ws://127.0.0.1:8770/ws', 'http://127.0.0.1:7001/']);
  });

  it('normalizes what a user types', () => {
    expect(normalizeManualUrl('ws://127.0.0.1:8765')).toEqual({ kind: 'runner', url: 'ws://127.0.0.1:8765/ws' });
    expect(normalizeManualUrl('127.0.0.1:8766', 'runner')).toEqual({ kind: 'runner', url: 'ws://127.0.0.1:8766/ws' });
    expect(normalizeManualUrl(`127.0.0.1:7000/?appreveal_session_token=${'d'.repeat(64)}`)).toEqual({ kind: 'appreveal', url: 'http://127.0.0.1:7000/' });
    expect(() => normalizeManualUrl('ftp://x:1/')).toThrow(ManualEntryError);
    expect(() => normalizeManualUrl('http://x/')).toThrow(/port/);
  });
});

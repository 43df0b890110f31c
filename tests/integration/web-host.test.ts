import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';
import { createApiService } from '@main/host/api';
import type { WebHost } from '@main/host/web-host';
import { DeviceManager } from '@main/devices/manager';
import { GOLDEN_DIR as GOLDEN } from '../support/golden';
import { openApiSocket } from '../support/api-socket';
import { startTestWebHost, type TestWebHost } from '../support/web-host';

let replay: ReplayDevice;
let manager: DeviceManager;
let web: TestWebHost;
let host: WebHost;
let origin: string;
let token: string;

beforeAll(async () => {
  replay = await startReplayDevice(GOLDEN);
  manager = new DeviceManager();
  manager.connect(replay.url, { kind: 'replay', name: 'golden' });
  web = await startTestWebHost(createApiService({ manager }, { host: 'web', version: 'test' }));
  ({ host, origin, token } = web);
  await mkdir(join(web.rendererDir, 'assets'));
  await writeFile(join(web.rendererDir, 'assets', 'app.js'), 'console.log(1)');
});

afterAll(async () => {
  await web.close();
  await manager.closeAll();
  await replay.close();
});

/** Opens the API socket and makes calls over it, as the renderer does. */
const apiSocket = (query = `?token=${token}`) => openApiSocket(origin, query);

describe('web host: the per-start token', () => {
  it('refuses the page without the token', async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(401);
  });

  it('refuses a wrong token of the right length', async () => {
    const wrong = token.replace(/./, (c) => (c === 'a' ? 'b' : 'a'));
    expect((await fetch(`${origin}/?token=${wrong}`)).status).toBe(401);
  });

  it('serves the page with the token, under a strict CSP, and sets an HttpOnly cookie for its assets', async () => {
    const response = await fetch(host.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const asset = await fetch(`${origin}/assets/app.js`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(asset.status).toBe(200);
    expect((await fetch(`${origin}/assets/app.js`)).status).toBe(401);
  });

  it('does not serve files outside the renderer folder', async () => {
    const response = await fetch(`${origin}/..%2f..%2f..%2fetc%2fpasswd?token=${token}`);
    expect(response.status).toBe(404);
  });

  it('refuses the API socket without the token, or from another origin', async () => {
    await expect(apiSocket('')).rejects.toThrow(/401/);
    const foreign = new WebSocket(`${origin.replace('http', 'ws')}/api?token=${token}`, { origin: 'http://evil.example' });
    const status = await new Promise<number | undefined>((resolve) => {
      foreign.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      foreign.once('open', () => resolve(200));
    });
    expect(status).toBe(401);
  });
});

describe('web host: the API over its socket', () => {
  it('lists the connected replay device and observes its recorded screen', async () => {
    const { ws, call } = await apiSocket();
    try {
      const listed = await call('devices.list', {});
      expect(listed.ok).toBe(true);
      const devices = listed.result as Array<{ id: string; kind: string }>;
      expect(devices).toHaveLength(1);
      expect(devices[0]?.kind).toBe('replay');
      const observed = await call('device.observe', { deviceId: devices[0]?.id });
      expect(observed.ok).toBe(true);
      const frame = observed.result as {
        observation: { viewHierarchy: { screenWidth: number }; backend?: string; quality: { verdict: string } };
        screenshot: unknown;
        screenshotError: string;
      };
      expect(frame.observation.viewHierarchy.screenWidth).toBe(402);
      // The recorded runner predates the SDK relay commands: XCTest only, and it says nothing of a backend.
      expect(frame.observation.backend).toBeUndefined();
      expect(frame.observation.quality.verdict).toBe('healthy');
      expect(frame.screenshot).toBeNull();
      expect(frame.screenshotError).toMatch(/no screenshot/);
    } finally {
      ws.close();
    }
  });

  it('rejects bad params with an error naming the field, and unknown methods', async () => {
    const { ws, call } = await apiSocket();
    try {
      const bad = await call('devices.connect', { url: 'http://not-a-runner' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'bad_request' } });
      expect(bad.error?.message).toContain('url');
      const unknown = await call('shell.exec', { command: 'rm -rf /' });
      expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
      const missing = await call('device.observe', { deviceId: 'device-999' });
      expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });
    } finally {
      ws.close();
    }
  });

  it('answers a malformed call envelope without dropping the socket', async () => {
    const { ws, call } = await apiSocket();
    try {
      const reply = await new Promise<unknown>((resolve) => {
        const onMessage = (data: WebSocket.RawData) => {
          const message = JSON.parse(data.toString()) as { id?: number };
          if (message.id === -1) {
            ws.off('message', onMessage);
            resolve(message);
          }
        };
        ws.on('message', onMessage);
        ws.send('{not json');
      });
      expect(reply).toMatchObject({ ok: false, error: { code: 'bad_request' } });
      expect((await call('app.info', {})).result).toEqual({ version: 'test', host: 'web' });
    } finally {
      ws.close();
    }
  });
});

/**
 * R-PEER-01, R-PEER-02: a page on another 127.0.0.1 port, in Chromium, tries to drive the demo device and
 * the web host (the tries: tests/fuzz/hostile-page.ts, which `npm run fuzz` runs too). Every try is
 * counted; the demo's admin stats (what the device did) must show none of them, and the page must read
 * nothing back. A rebinding Host header is tried from Node (a page cannot set it).
 */
import { request, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser, startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { startWebHost, type WebHost } from '@main/host/web-host';
import { attackFrom, demoStats, evilServer, hostileAttacks } from '../fuzz/hostile-page';

let demo: DemoDeviceHandle;
let services: AppServices;
let host: WebHost;
let evil: Server;
let evilUrl: string;
let browser: Browser;
let rendererDir: string;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0, screen: 'login' });
  rendererDir = await mkdtemp(join(tmpdir(), 'parallax-hostile-page-'));
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>Parallax</title>');
  services = await startAppServices('web');
  host = await startWebHost({ api: services.api, rendererDir, port: 0 });
  ({ server: evil, url: evilUrl } = await evilServer());
  browser = await chromium.launch({ executablePath: findBrowser({}), headless: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => evil?.close(() => resolve()));
  await host?.close();
  await services?.close();
  await demo?.close();
  await rm(rendererDir, { recursive: true, force: true });
});

const stats = () => demoStats(demo);

describe('a hostile page on another local port (R-PEER-01)', () => {
  it('R-PEER-01, R-PEER-02: every fetch, WebSocket and form post against the demo and the host is refused, and the demo did nothing', async () => {
    const before = await stats();
    const attacks = await hostileAttacks(demo, host);
    const through = await attackFrom(browser, evilUrl, attacks);
    const after = await stats();
    // Figures for the report: tried, refused (nothing read back, nothing done on the device).
    console.log(`hostile page: ${attacks.length - through.length} of ${attacks.length} cross-origin requests refused`);
    expect(through).toEqual([]);
    expect(after.screen).toBe(before.screen);
    expect(after.faults).toEqual(before.faults);
    expect(after.requests).toEqual(before.requests);
    expect(after.sdkRequests).toEqual(before.sdkRequests);
  }, 120_000);

  it('R-PEER-01, R-HOST-02: a Host that is not the address itself (DNS rebinding) is refused by the runner, its socket, the SDK, the admin (with its token) and the web host; nothing changes', async () => {
    const before = await stats();
    const sdk = new URL((await stats()).sdkUrl);
    const runner = new URL(demo.runnerUrl);
    const admin = new URL(demo.adminUrl);
    const hostUrl = new URL(host.url);
    const tries = [
      { name: 'runner /health', port: runner.port, path: '/health', method: 'GET' },
      { name: 'runner /ws upgrade', port: runner.port, path: '/ws', method: 'GET', upgrade: true },
      { name: 'sdk /snapshot', port: sdk.port, path: '/snapshot', method: 'GET' },
      { name: 'sdk /action', port: sdk.port, path: '/action', method: 'POST', body: '{"action":"tap","elementId":"login.submit"}' },
      { name: 'admin /screen with its token', port: admin.port, path: `${admin.pathname}/screen`, method: 'POST', body: '{"screen":"feed"}' },
      { name: 'admin /stats with its token', port: admin.port, path: `${admin.pathname}/stats`, method: 'GET' },
      { name: 'web host page with its token', port: hostUrl.port, path: `/?token=${hostUrl.searchParams.get('token')}`, method: 'GET' },
      { name: 'web host api socket with its token', port: hostUrl.port, path: `/api?token=${hostUrl.searchParams.get('token')}`, method: 'GET', upgrade: true },
    ];
    const statuses: Record<string, number> = {};
    for (const t of tries) {
      statuses[t.name] = await new Promise<number>((resolve, reject) => {
        const headers: Record<string, string> = { host: `evil.example:${t.port}` };
        if (t.upgrade)
          Object.assign(headers, {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-version': '13',
          });
        if (t.body) headers['content-type'] = 'application/json';
        const req = request({ host: '127.0.0.1', port: Number(t.port), path: t.path, method: t.method, headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode ?? 101);
        });
        req.on('error', reject);
        req.end(t.body);
      });
    }
    console.log(`hostile Host header: ${Object.values(statuses).filter((s) => s >= 400).length} of ${tries.length} refused`);
    expect(statuses).toEqual({
      'runner /health': 403,
      'runner /ws upgrade': 403,
      'sdk /snapshot': 403,
      'sdk /action': 403,
      'admin /screen with its token': 403,
      'admin /stats with its token': 403,
      'web host page with its token': 421,
      'web host api socket with its token': 421,
    });
    const after = await stats();
    expect(after.screen).toBe(before.screen);
    expect(after.requests).toEqual(before.requests);
    expect(after.sdkRequests).toEqual(before.sdkRequests);
  }, 120_000);

  it('R-PEER-02: the admin endpoint without its token is 401; with it, concurrent changes queue and all answer 200', async () => {
    const runner = new URL(demo.runnerUrl);
    const bare = await fetch(`http://${runner.host}/admin/stats`);
    expect(bare.status).toBe(401);
    const answers = await Promise.all([
      fetch(`${demo.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen: 'login', faults: [] }) }),
      fetch(`${demo.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen: 'feed' }) }),
      fetch(`${demo.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen: 'checkout', faults: [] }) }),
      fetch(`${demo.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen: 'login' }) }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    // In the order asked: the last change is what the device shows.
    expect((await stats()).screen).toBe('login');
  }, 120_000);
});

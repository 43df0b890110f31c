/**
 * R-PEER-01, R-PEER-02: a page on another 127.0.0.1 port, in Chromium, tries to drive the demo device and
 * the web host: fetches (CORS and no-cors, text/plain "simple" posts that need no preflight), WebSockets
 * and form posts, with and without the tokens. Every try is counted; the demo's admin stats (what the
 * device did) must show none of them, and the page must read nothing back.
 */
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser, startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { startWebHost, type WebHost } from '@main/host/web-host';

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
  evil = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>evil</title><body></body>');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
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

async function stats(): Promise<{ screen: string; faults: string[]; requests: Record<string, number>; sdkRequests: Record<string, number> }> {
  return (await (await fetch(`${demo.adminUrl}/stats`)).json()) as never;
}

/** What the page tries; each answers whether the page got through (read an answer, or opened a socket). */
interface Attack {
  name: string;
  kind: 'fetch' | 'no-cors' | 'ws' | 'form';
  url: string;
  method?: string;
  body?: string;
  contentType?: string;
}

describe('a hostile page on another local port (R-PEER-01)', () => {
  it('R-PEER-01, R-PEER-02: every fetch, WebSocket and form post against the demo and the host is refused, and the demo did nothing', async () => {
    const runner = new URL(demo.runnerUrl);
    const base = `http://${runner.host}`;
    const sdk = ((await stats()) as unknown as { sdkUrl: string }).sdkUrl;
    const hostUrl = new URL(host.url);
    const hostBase = `http://${hostUrl.host}`;
    const before = await stats();
    const attacks: Attack[] = [];
    const json = JSON.stringify({ screen: 'feed', faults: ['xctest-sparse'] });
    for (const admin of [`${base}/admin`, demo.adminUrl]) {
      attacks.push({ name: `read ${admin}/stats`, kind: 'fetch', url: `${admin}/stats` });
      for (const path of ['/reset', '/screen', '/faults']) {
        attacks.push({ name: `text/plain POST ${path}`, kind: 'no-cors', url: `${admin}${path}`, method: 'POST', body: json, contentType: 'text/plain' });
        attacks.push({ name: `JSON POST ${path}`, kind: 'fetch', url: `${admin}${path}`, method: 'POST', body: json, contentType: 'application/json' });
        attacks.push({ name: `form POST ${path}`, kind: 'form', url: `${admin}${path}` });
      }
    }
    attacks.push({ name: 'runner /health', kind: 'fetch', url: `${base}/health` });
    attacks.push({ name: 'runner /ws', kind: 'ws', url: demo.runnerUrl });
    for (const path of ['/', '/health', '/snapshot', '/action']) {
      attacks.push({ name: `sdk GET ${path}`, kind: 'fetch', url: `${sdk}${path}` });
      attacks.push({
        name: `sdk text/plain POST ${path}`,
        kind: 'no-cors',
        url: `${sdk}${path}`,
        method: 'POST',
        body: '{"action":"tap","elementId":"login.submit"}',
        contentType: 'text/plain',
      });
    }
    // The AppReveal port keeps the peer's rule (a loopback Origin may read /health with CORS), and every
    // tool needs its session token, which the page does not have: none of these may do anything.
    const appReveal = new URL(demo.appRevealUrl!);
    const appRevealBase = `${appReveal.origin}/`;
    const tap = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tap_element', arguments: { element_id: 'login.submit' } } });
    attacks.push({ name: 'appreveal text/plain tools/call', kind: 'no-cors', url: appRevealBase, method: 'POST', body: tap, contentType: 'text/plain' });
    attacks.push({ name: 'appreveal JSON tools/call', kind: 'fetch', url: appRevealBase, method: 'POST', body: tap, contentType: 'application/json' });
    attacks.push({ name: 'appreveal form POST', kind: 'form', url: appRevealBase });
    attacks.push({ name: 'host page', kind: 'fetch', url: host.url });
    attacks.push({ name: 'host api socket with its token', kind: 'ws', url: `ws://${hostUrl.host}/api?token=${hostUrl.searchParams.get('token')}` });
    attacks.push({ name: 'host api socket', kind: 'ws', url: `ws://${hostUrl.host}/api` });
    attacks.push({ name: 'host upload', kind: 'no-cors', url: `${hostBase}/api/trace`, method: 'POST', body: 'PK', contentType: 'text/plain' });

    const page = await browser.newPage();
    await page.goto(evilUrl);
    const results = await page.evaluate(async (list: Attack[]) => {
      const one = async (a: Attack): Promise<boolean> => {
        if (a.kind === 'ws') {
          return await new Promise<boolean>((resolve) => {
            const ws = new WebSocket(a.url);
            ws.onopen = () => {
              ws.close();
              resolve(true);
            };
            ws.onerror = () => resolve(false);
            setTimeout(() => resolve(false), 5000);
          });
        }
        if (a.kind === 'form') {
          const frame = document.createElement('iframe');
          frame.name = `f${Math.random()}`;
          document.body.appendChild(frame);
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = a.url;
          form.target = frame.name;
          form.enctype = 'text/plain';
          const input = document.createElement('input');
          input.name = '{"screen":"feed","faults":["xctest-sparse"],"x":"';
          input.value = '"}';
          form.appendChild(input);
          document.body.appendChild(form);
          const loaded = new Promise<void>((resolve) => {
            frame.onload = () => resolve();
            setTimeout(resolve, 5000);
          });
          form.submit();
          await loaded;
          // A cross-origin frame is unreadable to the page whatever it got: the device's stats judge it.
          return false;
        }
        try {
          const init: RequestInit = { method: a.method ?? 'GET', ...(a.kind === 'no-cors' ? { mode: 'no-cors' } : {}) };
          if (a.body !== undefined) init.body = a.body;
          if (a.contentType !== undefined) init.headers = { 'content-type': a.contentType };
          const res = await fetch(a.url, init);
          if (res.type === 'opaque') return false;
          await res.text();
          return res.ok;
        } catch {
          return false;
        }
      };
      const out: boolean[] = [];
      for (const a of list) out.push(await one(a));
      return out;
    }, attacks);
    await page.close();

    const through = attacks.filter((_, i) => results[i]).map((a) => a.name);
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
    const sdk = new URL(((await stats()) as unknown as { sdkUrl: string }).sdkUrl);
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

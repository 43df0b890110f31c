/**
 * R-PEER-01, R-PEER-02: a page on another 127.0.0.1 port, in Chromium, tries to drive the demo device and
 * the web host: fetches (CORS and no-cors, text/plain "simple" posts that need no preflight), WebSockets
 * and form posts, with and without the tokens. Every try is counted; the demo's admin stats (what the
 * device did) must show none of them, and the page must read nothing back.
 */
import { createServer, type Server } from 'node:http';
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

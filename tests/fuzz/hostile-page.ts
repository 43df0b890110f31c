/**
 * The hostile page (issue 26; docs/rules.md#r-peer-01, #r-peer-02): a page on another 127.0.0.1 port, in
 * Chromium, tries to drive the demo device and the web host: fetches (CORS and no-cors, text/plain
 * "simple" posts that need no preflight), WebSockets and form posts, with and without the tokens. Each try
 * answers whether the page got through (read an answer, or opened a socket); the demo's admin stats judge
 * what the device did. Run by tests/integration/hostile-page.test.ts and `npm run fuzz` (tests/fuzz/run.ts).
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { findBrowser, startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { startAppServices } from '@main/host/app-services';
import { startWebHost, type WebHost } from '@main/host/web-host';

export interface DemoStats {
  screen: string;
  faults: string[];
  requests: Record<string, number>;
  sdkRequests: Record<string, number>;
  sdkUrl: string;
}

export async function demoStats(demo: DemoDeviceHandle): Promise<DemoStats> {
  return (await (await fetch(`${demo.adminUrl}/stats`)).json()) as DemoStats;
}

/** What the page tries; each answers whether the page got through (read an answer, or opened a socket). */
export interface Attack {
  name: string;
  kind: 'fetch' | 'no-cors' | 'ws' | 'form';
  url: string;
  method?: string;
  body?: string;
  contentType?: string;
}

/** Every try the page makes against `demo` and `host`. */
export async function hostileAttacks(demo: DemoDeviceHandle, host: WebHost): Promise<Attack[]> {
  const runner = new URL(demo.runnerUrl);
  const base = `http://${runner.host}`;
  const sdk = (await demoStats(demo)).sdkUrl;
  const hostUrl = new URL(host.url);
  const hostBase = `http://${hostUrl.host}`;
  const attacks: Attack[] = [];
  const json = JSON.stringify({ screen: 'feed', faults: ['xctest-sparse'] });
  // Named without the URL: the admin's holds its token, and a name may be printed.
  for (const [label, admin] of [
    ['admin', `${base}/admin`],
    ['admin with its token', demo.adminUrl],
  ] as const) {
    attacks.push({ name: `${label}: read /stats`, kind: 'fetch', url: `${admin}/stats` });
    for (const path of ['/reset', '/screen', '/faults']) {
      attacks.push({
        name: `${label}: text/plain POST ${path}`,
        kind: 'no-cors',
        url: `${admin}${path}`,
        method: 'POST',
        body: json,
        contentType: 'text/plain',
      });
      attacks.push({ name: `${label}: JSON POST ${path}`, kind: 'fetch', url: `${admin}${path}`, method: 'POST', body: json, contentType: 'application/json' });
      attacks.push({ name: `${label}: form POST ${path}`, kind: 'form', url: `${admin}${path}` });
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

  return attacks;
}

/** The names of the tries that got through, made by a page of `pageUrl` in `browser`. */
export async function attackFrom(browser: Browser, pageUrl: string, attacks: Attack[]): Promise<string[]> {
  const page = await browser.newPage();
  await page.goto(pageUrl);
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

  return attacks.filter((_, i) => results[i]).map((a) => a.name);
}

/** A page of its own origin: another port on 127.0.0.1 that serves an empty document. */
export async function evilServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>evil</title><body></body>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** `npm run fuzz`'s run: a demo device, a web host and the page, each started and ended here. */
export async function runHostilePage(): Promise<{ tried: number; through: string[]; changed: string[] }> {
  const demo = await startDemoDevice({ port: 0, screen: 'login' });
  const rendererDir = await mkdtemp(join(tmpdir(), 'parallax-hostile-page-'));
  const services = await startAppServices('web');
  const evil = await evilServer();
  let browser: Browser | undefined;
  let host: WebHost | undefined;
  try {
    await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>Parallax</title>');
    host = await startWebHost({ api: services.api, rendererDir, port: 0 });
    browser = await chromium.launch({ executablePath: findBrowser({}), headless: true });
    const before = await demoStats(demo);
    const attacks = await hostileAttacks(demo, host);
    const through = await attackFrom(browser, evil.url, attacks);
    const after = await demoStats(demo);
    const changed = (['screen', 'faults', 'requests', 'sdkRequests'] as const).filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]));
    return { tried: attacks.length, through, changed };
  } finally {
    await browser?.close();
    await new Promise<void>((resolve) => evil.server.close(() => resolve()));
    await host?.close();
    await services.close();
    await demo.close();
    await rm(rendererDir, { recursive: true, force: true });
  }
}

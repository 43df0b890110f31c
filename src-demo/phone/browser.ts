/**
 * Chromium for the demo devices: one headless browser per process, one iPhone-shaped context per device.
 *
 * The demo devices of one process share the browser (sharedBrowser): a BrowserContext is still an
 * isolated device (its own pages, storage, screenshots and input), and one browser for eight devices
 * costs one browser process and its GPU/network helpers instead of eight (docs/rules.md#r-perf-09).
 * The browser is counted by its users and closes with the last one, so closing one device never
 * touches another's.
 *
 * The app and its web content are served from memory through request interception under made-up
 * https origins, so the checkout web view is a real cross-origin document (its own process, its own
 * origin for the bridge's allowedOrigins) without any extra listening socket. Nothing else is reachable:
 * every other request is aborted, so the page can never touch the network. The app's own backend (its
 * login endpoints, demo-api.ts) is answered the same way.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { demoApiReply } from './demo-api';

export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** iPhone 17: 402 x 874 points at 3x, 1206 x 2622 pixels. */
export const DEVICE_GEOMETRY = { width: 402, height: 874, scale: 3 } as const;

export const APP_ORIGIN = 'https://app.parallax.test';
/** Web content origins and the folder (under resources/demo-app) each one serves. */
export const WEB_ORIGINS = {
  'https://checkout.parallax.test': 'web',
  'https://promo.parallax.test': 'web',
  'https://pay.parallax.test': 'web',
} as const;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * A device's browser draws at the phone's own scale: a capture of a page drawn at 1x and emulated at 3x
 * makes Chromium raster the whole page again at 3x for each capture, and back after it, a redraw the
 * damage probe sees as a change (docs/rules.md#r-perf-05). Only for the device's browser: a page
 * showing the inspector would pay 3x raster for nothing.
 */
export const DEVICE_LAUNCH_ARGS = [...LAUNCH_ARGS, `--force-device-scale-factor=${DEVICE_GEOMETRY.scale}`];

export async function launchBrowser(executablePath: string, args: readonly string[] = DEVICE_LAUNCH_ARGS): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: [...args] });
}

export interface BrowserLease {
  browser: Browser;
  /** Gives the lease back; the browser closes when its last lease is released. Safe to call twice. */
  release(): Promise<void>;
}

interface Shared {
  browser: Promise<Browser>;
  users: number;
}
const shared = new Map<string, Shared>();

/**
 * A lease on this process's browser for `executablePath` and `args`, launched on first use. A browser that
 * crashed or was closed from outside is launched again for the next lease.
 */
export async function sharedBrowser(executablePath: string, args: readonly string[] = DEVICE_LAUNCH_ARGS): Promise<BrowserLease> {
  // Browsers launched with other flags (a bench's emulated scale) are not the same browser.
  const key = `${executablePath}\n${args.join(' ')}`;
  let entry = shared.get(key);
  if (entry) {
    const current = await entry.browser.catch(() => undefined);
    if (!current?.isConnected()) {
      if (shared.get(key) === entry) shared.delete(key);
      entry = undefined;
    }
  }
  if (!entry) {
    const created: Shared = { browser: launchBrowser(executablePath, args), users: 0 };
    entry = created;
    shared.set(key, created);
    created.browser.catch(() => {
      if (shared.get(key) === created) shared.delete(key);
    });
  }
  const held = entry;
  held.users += 1;
  let browser: Browser;
  try {
    browser = await held.browser;
  } catch (error) {
    held.users -= 1;
    throw error;
  }
  let released = false;
  return {
    browser,
    release: async () => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (shared.get(key) === held) shared.delete(key);
      await browser.close().catch(() => {});
    },
  };
}

/** Every file under `dir`, keyed by its path relative to `dir` with forward slashes. */
function loadTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const visit = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = join(current, name);
      if (statSync(full).isDirectory()) visit(full);
      else files.set(relative(dir, full).split('\\').join('/'), readFileSync(full));
    }
  };
  visit(dir);
  return files;
}

export async function newDeviceContext(browser: Browser, appDir: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: DEVICE_GEOMETRY.width, height: DEVICE_GEOMETRY.height },
    deviceScaleFactor: DEVICE_GEOMETRY.scale,
    isMobile: true,
    hasTouch: true,
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 26_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 ParallaxDemo/1',
    locale: 'en-US',
    timezoneId: 'UTC',
    reducedMotion: 'reduce',
  });
  const files = loadTree(appDir);
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    const folder = url.origin === APP_ORIGIN ? '' : (WEB_ORIGINS as Record<string, string>)[url.origin];
    if (folder === undefined) return route.abort('blockedbyclient');
    const api = url.origin === APP_ORIGIN ? demoApiReply(url.pathname, route.request()) : undefined;
    if (api) return route.fulfill({ ...api, headers: { 'cache-control': 'no-store' } });
    const path = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname.slice(1));
    const body = files.get(folder ? `${folder}/${path}` : path);
    if (!body || path.includes('..')) return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
    return route.fulfill({
      status: 200,
      contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
      body,
      headers: { 'cache-control': 'no-store' },
    });
  });
  return context;
}

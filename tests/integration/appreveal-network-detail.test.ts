/**
 * R-AR-32 through the API against the demo app over its real ports: the App panel's network calls
 * carry the ids get_network_call_detail takes, and `device.networkCall` gives one call in full
 * (request and response headers, the captured text body, its size), in the shape AppReveal's docs/API.md
 * and MCPRouterTests.swift give; an unknown id is the app's own refusal; an app without the tool (the
 * Tauri flavour: its providers have none) is not offered it.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { createApiService, type ApiService } from '@main/host/api';
import { DeviceManager } from '@main/devices/manager';
import type { AppState } from '@shared/protocol/appreveal-tools';
import { networkCallDetailView, networkRows } from '@shared/inspect/app-state';
import { admin } from '../support/demo-admin';

let ios: DemoDeviceHandle;
let tauri: DemoDeviceHandle;
let manager: DeviceManager;
let api: ApiService;
let iosId: string;
let tauriId: string;

async function reply(method: string, params: unknown) {
  return api.handle(method, params);
}

beforeAll(async () => {
  const quiet = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void inspect(a)));
  try {
    ios = await startDemoDevice({ port: 0 });
    tauri = await startDemoDevice({ port: 0, appRevealFlavor: 'tauri' });
  } finally {
    for (const spy of quiet) spy.mockRestore();
  }
  if (!ios.appRevealUrl || !tauri.appRevealUrl) throw new Error('no AppReveal');
  manager = new DeviceManager();
  api = createApiService({ manager }, { host: 'web', version: 'test' });
  iosId = manager.connect(ios.appRevealUrl).id;
  tauriId = manager.connect(tauri.appRevealUrl).id;
  await manager.connectionOf(iosId).waitUntilConnected(10_000);
  await manager.connectionOf(tauriId).waitUntilConnected(10_000);
}, 90_000);

afterAll(async () => {
  await manager?.closeAll();
  await ios?.close();
  await tauri?.close();
});

describe('network call details (get_network_call_detail)', () => {
  it('R-AR-32: a call the app made while AppReveal ran opens to its headers and captured body', async () => {
    // The checkout screen's web view loads its page: traffic the app's capture sees, headers and all.
    await admin(ios.adminUrl, '/reset', {});
    await admin(ios.adminUrl, '/screen', { screen: 'checkout' });
    const state = await reply('device.appState', { deviceId: iosId });
    if (!state.ok) throw new Error(state.error.message);
    const reading = (state.result as AppState).readings.find((r) => r.tool === 'get_network_calls');
    const rows = (networkRows(reading?.value) ?? []).filter((row) => row.id !== '');
    const details = await Promise.all(
      rows.map(async (row) => {
        const detail = await reply('device.networkCall', { deviceId: iosId, id: row.id });
        return { row, view: detail.ok ? networkCallDetailView((detail.result as { value: unknown }).value) : undefined };
      }),
    );
    // Every listed call answers; the ones made before AppReveal started (the page's first loads, from its
    // timing entries) have no headers, as AppReveal could not have seen them.
    expect(details.every((d) => d.view?.url === d.row.url)).toBe(true);
    const live = details.find((d) => (d.view?.request.headers.length ?? 0) > 0 && (d.view?.response.headers.length ?? 0) > 0);
    expect(live, JSON.stringify(rows)).toBeDefined();
    expect(live!.view!.response.headers.some((h) => h.name.toLowerCase() === 'content-type')).toBe(true);
    console.log(
      `R-AR-32 figures: ${rows.length} calls listed, ${details.filter((d) => (d.view?.request.headers.length ?? 0) > 0).length} with headers; ${live!.row.url}: ${live!.view!.response.headers.length} response headers, body ${live!.view!.response.bodySize ?? 'not'} bytes`,
    );
  });

  it('R-AR-32: an id the app does not know is its own refusal, in its words', async () => {
    const detail = await reply('device.networkCall', { deviceId: iosId, id: 'call-does-not-exist' });
    expect(detail.ok).toBe(false);
    if (!detail.ok) expect(detail.error.message).toContain('No network call with id call-does-not-exist');
  });

  it('R-AR-32: an app without get_network_call_detail is not offered it', async () => {
    const detail = await reply('device.networkCall', { deviceId: tauriId, id: 'call-1' });
    expect(detail.ok).toBe(false);
    if (!detail.ok) {
      expect(detail.error.code).toBe('not_offered');
      expect(detail.error.message).toContain('get_network_call_detail');
    }
  });
});

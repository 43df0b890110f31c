/**
 * The demo's AppReveal server at the HTTP level, in each flavour (docs/rules.md#r-ar-25): the error
 * shapes of the real servers (iOS MCPServer.swift; Tauri server.rs / protocol.rs), `"jsonrpc": "2.0"`
 * required, notifications, and the always-present tools.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALWAYS_PRESENT_TOOLS, startAppRevealServer, type AppRevealFlavor, type AppRevealServerHandle } from '@demo/appreveal/server';
import { AppRevealClient } from '@main/appreveal/client';
import { FakeProvidersApp } from './appreveal-fake-app';

const servers: AppRevealServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(flavor: AppRevealFlavor, extra: Partial<Parameters<typeof startAppRevealServer>[0]> = {}): Promise<AppRevealServerHandle> {
  const server = await startAppRevealServer({ app: new FakeProvidersApp(), flavor, ...extra });
  servers.push(server);
  return server;
}

async function post(server: AppRevealServerHandle, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${server.token}` }) {
  const response = await fetch(server.baseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('the iOS flavour', () => {
  it('R-AR-25: 401 is a JSON-RPC error without id; 405 and 403 have empty bodies', async () => {
    const server = await serve('ios');
    expect(await post(server, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {})).toEqual({
      status: 401,
      type: 'application/json',
      text: '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Unauthorized"}}',
    });
    const get = await fetch(server.baseUrl);
    expect([get.status, await get.text()]).toEqual([405, '']);
    const origin = await fetch(`${server.baseUrl}health`, { headers: { origin: 'https://evil.example' } });
    expect([origin.status, await origin.text()]).toEqual([403, '']);
  });

  it('R-AR-25: "jsonrpc": "2.0" is required; a batch array and a non-JSON body are 400 JSON-RPC errors', async () => {
    const server = await serve('ios');
    const missing = await post(server, { id: 1, method: 'tools/list' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } });
    expect(JSON.parse((await post(server, [{ jsonrpc: '2.0', id: 1, method: 'ping' }])).text).error.code).toBe(-32600);
    const notJson = await post(server, '{nope');
    expect([notJson.status, JSON.parse(notJson.text).error.code]).toEqual([400, -32700]);
  });

  it('R-AR-25: "id": null is a notification (204); ping is not a method; an unknown tool is -32601 "Method not found"', async () => {
    const server = await serve('ios');
    expect((await post(server, { jsonrpc: '2.0', id: null, method: 'tools/list' })).status).toBe(204);
    expect(JSON.parse((await post(server, { jsonrpc: '2.0', id: 2, method: 'ping' })).text).error).toEqual({ code: -32601, message: 'Method not found: ping' });
    const unknown = JSON.parse((await post(server, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope' } })).text);
    expect(unknown.error).toEqual({ code: -32601, message: 'Method not found: nope' });
    // initialize without params, as AppReveal's CLI sends it.
    expect(JSON.parse((await post(server, { jsonrpc: '2.0', id: 4, method: 'initialize' })).text).result.serverInfo.name).toBe('AppReveal');
  });

  it('R-AR-15, R-AR-25: the stored tools’ screenshot as {image} JSON text reads as the same PNG as the image block', async () => {
    const text = await serve('ios', { screenshotForm: 'text' });
    const image = await serve('ios');
    const a = new AppRevealClient({ baseUrl: text.baseUrl, token: text.token ?? '' });
    const b = new AppRevealClient({ baseUrl: image.baseUrl, token: image.token ?? '' });
    await Promise.all([a.connect(), b.connect()]);
    const raw = JSON.parse((await post(text, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'screenshot', arguments: {} } })).text);
    expect(JSON.parse(raw.result.content[0].text)).toMatchObject({ image: expect.any(String), width: 39, height: 84, format: 'png' });
    expect((await a.screenshot()).dataBase64).toBe((await b.screenshot()).dataBase64);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('the Tauri flavour', () => {
  it('R-AR-25: 405 and 403 are plain text; 401 carries "id": null; the session URL has no "/" before "?"', async () => {
    const server = await serve('tauri');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}?appreveal_session_token=${server.token}`);
    const get = await fetch(server.baseUrl);
    expect([get.status, get.headers.get('content-type'), await get.text()]).toEqual([405, 'text/plain; charset=utf-8', 'Only POST is supported']);
    const origin = await fetch(`${server.baseUrl}health`, { headers: { origin: 'https://evil.example' } });
    expect([origin.status, await origin.text()]).toEqual([403, 'Origin is not allowed']);
    expect((await post(server, { jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: 'Bearer 0000' })).text).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Unauthorized"}}',
    );
  });

  it('R-AR-25: only a missing id is a notification; "id": null is answered; ping answers {}; tools are listed in name order', async () => {
    const server = await serve('tauri');
    const notification = await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([notification.status, notification.type]).toEqual([204, 'text/plain; charset=utf-8']);
    expect(JSON.parse((await post(server, { jsonrpc: '2.0', id: null, method: 'ping' })).text)).toEqual({ jsonrpc: '2.0', id: null, result: {} });
    const list = JSON.parse((await post(server, { jsonrpc: '2.0', id: 5, method: 'tools/list' })).text).result.tools.map((t: { name: string }) => t.name);
    expect(list).toEqual([...list].sort());
    for (const tool of ALWAYS_PRESENT_TOOLS) expect(list).toContain(tool);
    expect(list).not.toContain('screenshot');
    expect(list).not.toContain('get_recent_errors');
  });

  it('R-AR-21, R-AR-25: batch answers Tauri’s object form; an empty body is "Parse error: Empty body"', async () => {
    const server = await serve('tauri');
    const batch = JSON.parse(
      (
        await post(server, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'batch', arguments: { actions: [{ tool: 'launch_context' }, { tool: 'screenshot' }, { tool: 'nope' }] } },
        })
      ).text,
    );
    const results = JSON.parse(batch.result.content[0].text).results;
    expect(results).toEqual([
      { index: 0, result: expect.objectContaining({ bundleId: 'dev.parallax.fake', frameworkType: 'tauri' }), success: true, tool: 'launch_context' },
      { error: 'screenshot must be called directly to return MCP image content', index: 1, success: false, tool: 'screenshot' },
      { error: 'Tool not found: nope', index: 2, success: false, tool: 'nope' },
    ]);
    expect(JSON.parse((await post(server, '')).text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Empty body' } });
  });
});

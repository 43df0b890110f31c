/**
 * Every tool of the iOS and Tauri tool lists, each reply form its server gives, through the client:
 * the arguments it names, and the answer decoded and classified as the server meant
 * (appreveal-tool-cases.ts; `npm run bench -- appreveal` prints the counts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AppRevealClient } from '@main/appreveal/client';
import { actThroughAppReveal } from '@main/appreveal/actions';
import { IOS_TOOLS, runToolList, TAURI_TOOLS, toolsClassified } from '../support/appreveal-tool-cases';

describe.each([IOS_TOOLS, TAURI_TOOLS])('the $platform tool list', (list) => {
  it(`R-AR-07, R-AR-19: every ${list.platform} tool is called with its own argument names and read as the server meant`, async () => {
    const outcomes = await runToolList(list);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(toolsClassified(list, outcomes)).toMatchObject({ failing: [], classified: Object.keys(list.tools).length });
  });
});

describe('only a lost connection or no answer may have run', () => {
  /** An AppReveal server that answers everything but tools/call, which it drops or leaves unanswered. */
  async function server(onCall: 'drop' | 'stall'): Promise<{ url: string; close: () => Promise<void> }> {
    const http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const send = (body: unknown) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (req.method === 'GET') return send({ status: 'ok' });
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string };
        if (msg.id === undefined) {
          res.writeHead(204);
          return res.end();
        }
        if (msg.method === 'initialize')
          return send({
            jsonrpc: '2.0',
            id: msg.id,
            result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'AppReveal', version: '0' } },
          });
        if (msg.method === 'tools/list')
          return send({
            jsonrpc: '2.0',
            id: msg.id,
            result: { tools: [{ name: 'tap_point', inputSchema: { type: 'object', properties: { x: {}, y: {} } } }] },
          });
        if (onCall === 'drop') req.socket.destroy();
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/`,
      close: () =>
        new Promise<void>((resolve) => {
          http.closeAllConnections();
          http.close(() => resolve());
        }),
    };
  }

  it.each([
    ['a connection dropped mid-call', 'drop', 'appreveal_unreachable'],
    ['no answer within the timeout', 'stall', 'timeout'],
  ] as const)('R-AR-07: %s: may have run, and is not sent again', async (_name, onCall, reason) => {
    const peer = await server(onCall);
    const client = new AppRevealClient({ baseUrl: peer.url, token: 't' }, { timeoutMs: 400 });
    try {
      await client.connect();
      const result = await actThroughAppReveal(client, { action: 'tap', target: { point: { x: 1, y: 2 } } });
      expect(result).toMatchObject({ success: false, failureReason: reason, mayHaveRun: true, requestsSent: 1 });
    } finally {
      await client.close();
      await peer.close();
    }
  });
});

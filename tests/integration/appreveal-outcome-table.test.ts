/**
 * The outcome table of docs/protocol.md#p-ar-outcomes, held to the code: each row's answer is given by a
 * scripted AppReveal server (over a real socket) to that tool, and both the action Parallax runs for the
 * tool (`actThroughAppReveal`) and a direct call of it (`AppRevealClient.call`) must end as the row says:
 * the client's error code, the action's failure reason and its outcome class. The rows are read from the
 * doc itself, so the doc cannot say one thing while the client does another.
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { actThroughAppReveal } from '@main/appreveal/actions';
import { AppRevealClient, AppRevealError } from '@main/appreveal/client';
import { ActionRequestSchema, type ActionRequest } from '@shared/protocol/action';
import { APPREVEAL_ERROR_CODES } from '@shared/protocol/appreveal';

interface Row {
  n: number;
  platform: 'iOS' | 'Tauri';
  /** The tools the action calls, in order; the last gives the row's answer, the others succeed. */
  tools: string[];
  answer: string;
  code: string | undefined;
  reason: string | undefined;
  outcome: string;
}

const DOC = fileURLToPath(new URL('../../docs/protocol.md', import.meta.url));

function tableRows(): Row[] {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf('<a id="p-ar-outcomes"></a>');
  const end = text.indexOf('<a id="p-ar-tools"></a>', start);
  const cell = (raw: string): string => raw.trim();
  const code = (raw: string): string => cell(raw).replace(/^`|`$/g, '');
  return text
    .slice(start, end)
    .split('\n')
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => {
      const cells = line.slice(1, -1).split(' | ');
      const [n, platform, tools, answer, , client, reason, outcome] = cells.map(cell) as [string, string, string, string, string, string, string, string];
      return {
        n: Number(n),
        platform: platform as Row['platform'],
        tools: [...tools.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string),
        answer: code(answer),
        code: client === '—' ? undefined : client,
        reason: reason === '—' ? undefined : reason,
        outcome,
      };
    });
}

/** Each tool's inputSchema properties, as each platform lists them (docs/protocol.md#p-ar-args). */
const PROPERTIES: Record<Row['platform'], Record<string, string[]>> = {
  iOS: {
    tap_element: ['element_id', 'window_id'],
    tap_text: ['text', 'match_mode', 'occurrence', 'window_id'],
    tap_point: ['x', 'y', 'window_id'],
    type_text: ['text', 'element_id', 'window_id'],
    clear_text: ['element_id', 'window_id'],
    scroll: ['direction', 'container_id', 'window_id'],
    navigate_back: ['window_id'],
    web_click: ['selector', 'webview_id', 'window_id'],
  },
  Tauri: {
    tap_element: ['id', 'elementId', 'selector', 'window_id', 'windowId'],
    tap_point: ['x', 'y', 'window_id', 'windowId'],
    type_text: ['id', 'elementId', 'selector', 'text', 'window_id', 'windowId'],
    clear_text: ['id', 'elementId', 'selector', 'window_id', 'windowId'],
  },
};

/** The action Parallax runs that calls these tools. */
function actionFor(tools: readonly string[]): ActionRequest {
  const key = tools.join(',');
  const actions: Record<string, unknown> = {
    tap_element: { action: 'tap', target: { id: 'login.submit' } },
    tap_text: { action: 'tap', target: { text: 'Continue' } },
    tap_point: { action: 'tap', target: { point: { x: 10, y: 20 } } },
    type_text: { action: 'sendKeys', target: { id: 'login.email' }, steps: [{ kind: 'type', text: 'bob' }] },
    clear_text: { action: 'sendKeys', target: { id: 'login.email' }, steps: [{ kind: 'clear' }] },
    'clear_text,type_text': { action: 'sendKeys', target: { id: 'login.email' }, steps: [{ kind: 'replace', text: 'bob' }] },
    scroll: { action: 'swipe', start: { x: 100, y: 400 }, end: { x: 100, y: 200 } },
    navigate_back: { action: 'back' },
    web_click: { action: 'webTool', tool: 'web_click', selector: '#login' },
  };
  const raw = actions[key];
  if (raw === undefined) throw new Error(`the outcome table names tools no action calls: ${key}`);
  return ActionRequestSchema.parse(raw);
}

/** A server that lists the row's tools and answers the last one as the row says, every other one with success. */
async function serverFor(row: Row): Promise<{ url: string; calls: string[]; close: () => Promise<void> }> {
  const last = row.tools.at(-1) as string;
  const listed = row.answer === 'unlisted' ? row.tools.filter((tool) => tool !== last) : row.tools;
  const calls: string[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (body: unknown, status = 200, out: ServerResponse = res) => {
        out.writeHead(status, { 'content-type': 'application/json' });
        out.end(JSON.stringify(body));
      };
      if (req.method === 'GET') return send({ status: 'ok', port: 0, auth: 'session-token' });
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string; params?: { name?: string } };
      if (msg.id === undefined) {
        res.writeHead(204);
        return res.end();
      }
      const reply = (result: unknown) => send({ jsonrpc: '2.0', id: msg.id, result });
      if (msg.method === 'initialize')
        return reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'AppReveal', version: '1' } });
      if (msg.method === 'tools/list')
        return reply({
          tools: listed.map((name) => ({
            name,
            description: name,
            inputSchema: { type: 'object', properties: Object.fromEntries((PROPERTIES[row.platform][name] ?? []).map((p) => [p, { type: 'string' }])) },
          })),
        });
      const tool = msg.params?.name ?? '';
      calls.push(tool);
      if (tool !== last) return reply({ content: [{ type: 'text', text: '{"success":true}' }] });
      const [kind, ...rest] = row.answer.split(' ');
      const body = rest.join(' ');
      switch (kind) {
        case 'text':
          return reply({ content: [{ type: 'text', text: body }] });
        case 'rpc': {
          const [code, ...words] = rest;
          return send({ jsonrpc: '2.0', id: msg.id, error: { code: Number(code), message: words.join(' ') } });
        }
        case 'http': {
          const [status, ...json] = rest;
          res.writeHead(Number(status), json.length > 0 ? { 'content-type': 'application/json' } : {});
          return res.end(json.join(' '));
        }
        case 'drop':
          return req.socket.destroy();
        case 'stall':
          return; // never answered: the client's timeout decides
        default:
          throw new Error(`row ${row.n}: an answer the table does not define: ${row.answer}`);
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const ROWS = tableRows();

describe('the AppReveal outcome table (docs/protocol.md#p-ar-outcomes)', () => {
  it('R-AR-30: the table has its rows, and every error code the client gives but no_form is one of them', () => {
    expect(ROWS.map((r) => r.n)).toEqual(ROWS.map((_, i) => i + 1));
    expect(ROWS.length).toBeGreaterThanOrEqual(25);
    const codes = new Set(ROWS.map((r) => r.code));
    // no_form (arguments a listed tool cannot take) never comes from an answer; u/appreveal-wire "R-AR-19" covers it.
    expect(APPREVEAL_ERROR_CODES.filter((c) => c !== 'no_form' && !codes.has(c))).toEqual([]);
  });

  it.each(ROWS.map((row) => [`${row.n}: ${row.platform} ${row.tools.join(' then ')} answering ${row.answer.slice(0, 60)}`, row] as const))(
    'R-AR-30: row %s',
    async (_name, row) => {
      const peer = await serverFor(row);
      const session = { baseUrl: peer.url, token: 'a'.repeat(64) };
      // A short timeout only where the row is about one (a busy machine must not time out the others).
      const client = new AppRevealClient(session, { timeoutMs: row.answer === 'stall' ? 1500 : 20_000, healthTimeoutMs: 20_000 });
      try {
        await client.connect();
        const result = await actThroughAppReveal(client, actionFor(row.tools));
        expect({ success: result.success, reason: result.failureReason, outcome: result.outcome }).toEqual({
          success: row.outcome === 'done',
          reason: row.reason,
          outcome: row.outcome,
        });
        // What reached the app: every tool the row names, or nothing when Parallax refused.
        expect(peer.calls).toEqual(row.outcome === 'refused' ? [] : row.tools);
        expect(result.requestsSent).toBe(row.outcome === 'refused' ? 0 : row.tools.length);

        // The same answer to a direct call of the tool names the row's client code.
        const direct = await client.call(row.tools.at(-1) as string, {}).then(
          () => undefined,
          (error: unknown) => (error instanceof AppRevealError ? error.code : `not an AppRevealError: ${String(error)}`),
        );
        expect(direct).toBe(row.code);
      } finally {
        await client.close();
        await peer.close();
      }
    },
  );
});

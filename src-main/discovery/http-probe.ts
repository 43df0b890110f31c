/**
 * One bounded `GET` for discovery probes (and one bounded JSON `POST`, for the demo's admin calls). Whatever the peer does (refuses, answers garbage, stalls,
 * closes mid-answer, floods) the promise settles once with an outcome and never rejects.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export type ProbeOutcome =
  /** Nothing listens there: not a device at all. */
  | { kind: 'absent' }
  /** A complete HTTP answer. */
  | { kind: 'answered'; status: number; contentType: string; body: string }
  /** Something listens but did not give a usable HTTP answer. */
  | { kind: 'failed'; reason: string };

export interface ProbeOptions {
  timeoutMs: number;
  maxBytes?: number;
  /** https instead of http. */
  secure?: boolean;
  /** Extra request headers (an AppReveal client's own, e.g. an Origin a test acts with). */
  headers?: Record<string, string>;
}

export function httpGet(host: string, port: number, path: string, options: ProbeOptions): Promise<ProbeOutcome> {
  return httpOnce(host, port, path, 'GET', undefined, options);
}

/** `POST` with a JSON body, bounded and settled exactly as `httpGet`. */
export function httpPostJson(host: string, port: number, path: string, body: unknown, options: ProbeOptions): Promise<ProbeOutcome> {
  return httpOnce(host, port, path, 'POST', JSON.stringify(body), options);
}

function httpOnce(host: string, port: number, path: string, method: 'GET' | 'POST', body: string | undefined, options: ProbeOptions): Promise<ProbeOutcome> {
  const maxBytes = options.maxBytes ?? 64 * 1024;
  return new Promise<ProbeOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    // One deadline for connect, headers and body: a peer that trickles bytes must not hold a probe.
    const timer = setTimeout(() => finish({ kind: 'failed', reason: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    const request = options.secure ? httpsRequest : httpRequest;
    const req = request({
      host,
      port,
      path,
      method,
      // A fresh socket per probe: a pooled keep-alive socket could outlive discovery and hold the process.
      agent: false,
      headers: {
        accept: 'application/json',
        ...options.headers,
        ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        connection: 'close',
      },
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(classifyError(error)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          finish({ kind: 'failed', reason: `answered more than ${maxBytes} bytes` });
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', () => finish({ kind: 'failed', reason: 'closed the connection mid-answer' }));
      res.on('close', () => {
        if (!res.complete) finish({ kind: 'failed', reason: 'closed the connection mid-answer' });
      });
      res.on('end', () =>
        finish({
          kind: 'answered',
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.end(body);
  });
}

function classifyError(error: NodeJS.ErrnoException): ProbeOutcome {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return { kind: 'absent' };
  if (code.startsWith('HPE_')) return { kind: 'failed', reason: 'answered something that is not HTTP' };
  if (code === 'ECONNRESET' || error.message === 'socket hang up') return { kind: 'failed', reason: 'closed the connection mid-answer' };
  return { kind: 'failed', reason: code !== '' ? `connection failed (${code})` : 'connection failed' };
}

/** Runs `task` over `items` with at most `limit` at a time; results keep the input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * The replay device: a runner server that plays a recorded runner session back over a real WebSocket.
 *
 * A recording is a folder of `NNNN-<request type>.json` ({request, response}) and `NNNN-push-<type>.json`
 * ({push}) files in arrival order (see the ctrlproxy-golden README). Each connection walks the recording
 * with its own cursor: on connect it gets the pushes recorded before the first request; a request is
 * answered with the next recorded reply of a result type that answers it, after the pushes recorded
 * before that reply. So the screen moves on only when the client does what the recorded client did,
 * and a replay of "observe, tap, observe" shows what the real device showed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { basename, join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeRunnerInbound, decodeRunnerRequest, encodeRunnerMessage, RESULT_TYPES } from '@shared/protocol/runner';
import type { RunnerCommand, RunnerInbound } from '@shared/protocol/runner';

export class RecordingError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'RecordingError';
  }
}

type Entry =
  { kind: 'push'; file: string; message: RunnerInbound } | { kind: 'exchange'; file: string; command: string; reply: RunnerInbound & { requestId: string } };

export interface Recording {
  folder: string;
  entries: Entry[];
  /** The commands the recorded runner announced in its `connected` push. */
  supportedCommands: string[];
}

const FILE_NAME = /^(\d+)-(push-)?([a-z_]+)\.json$/;

/** Reads and validates a recorded session folder; every file must decode with the runner schemas. */
export async function loadRecording(folder: string): Promise<Recording> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new RecordingError(folder, `cannot read the folder (${(error as Error).message})`);
  }
  const entries: Entry[] = [];
  for (const name of names) {
    const match = FILE_NAME.exec(name);
    if (!match) continue;
    const file = join(folder, name);
    const text = await readFile(file, 'utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new RecordingError(name, 'is not JSON');
    }
    if (!raw || typeof raw !== 'object') throw new RecordingError(name, 'is not a JSON object');
    if (match[2]) {
      const push = (raw as { push?: unknown }).push;
      const decoded = decodeRunnerInbound(JSON.stringify(push ?? null));
      if (!decoded.ok) throw new RecordingError(name, decoded.error.message);
      entries.push({ kind: 'push', file: name, message: decoded.value });
    } else {
      const { request, response } = raw as { request?: unknown; response?: unknown };
      const decodedRequest = decodeRunnerRequest(JSON.stringify(request ?? null));
      if (!decodedRequest.ok) throw new RecordingError(name, `request: ${decodedRequest.error.message}`);
      const decodedReply = decodeRunnerInbound(JSON.stringify(response ?? null));
      if (!decodedReply.ok) throw new RecordingError(name, `response: ${decodedReply.error.message}`);
      const reply = decodedReply.value;
      if (!('requestId' in reply) || typeof reply.requestId !== 'string') {
        throw new RecordingError(name, 'response: a reply needs a requestId');
      }
      entries.push({ kind: 'exchange', file: name, command: decodedRequest.value.type, reply: reply as Entry & never });
    }
  }
  if (entries.length === 0) throw new RecordingError(basename(folder), 'holds no recorded runner messages');
  const connected = entries.find((entry) => entry.kind === 'push' && entry.message.type === 'connected');
  if (!connected || connected.kind !== 'push') {
    throw new RecordingError(basename(folder), 'has no `connected` push, so no client could use it');
  }
  const supportedCommands = (connected.message as { supportedCommands: string[] }).supportedCommands;
  return { folder, entries, supportedCommands };
}

export interface ReplayDevice {
  url: string;
  healthUrl: string;
  recording: Recording;
  close(): Promise<void>;
}

/** Starts a runner server on 127.0.0.1 that replays `folder`. Port 0 picks a free port. */
export async function startReplayDevice(folder: string, options: { port?: number; host?: string } = {}): Promise<ReplayDevice> {
  const recording = await loadRecording(folder);
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/health') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', replay: basename(recording.folder) }));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  // Made once the port is ours: a socket server on a server re-emits the server's errors as its own, so one
  // made before a listen that fails (a port in use) threw that error uncaught and the start never settled.
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (socket) => serveConnection(socket, recording));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `ws://${host}:${port}/ws`,
    healthUrl: `http://${host}:${port}/health`,
    recording,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveConnection(socket: WebSocket, recording: Recording): void {
  const { entries } = recording;
  let cursor = 0;

  const send = (message: object) => socket.send(encodeRunnerMessage(message));
  const sendPushesUntil = (end: number) => {
    for (; cursor < end; cursor++) {
      const entry = entries[cursor];
      if (entry?.kind === 'push') send(entry.message);
    }
  };

  // Everything recorded before the first request arrives at connect (the `connected` push first).
  const firstExchange = entries.findIndex((entry) => entry.kind === 'exchange');
  sendPushesUntil(firstExchange === -1 ? entries.length : firstExchange);

  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    const decoded = decodeRunnerRequest(data.toString());
    if (!decoded.ok) {
      const requestId = safeRequestId(data.toString());
      send({ type: 'error', requestId, success: false, error: decoded.error.message, timestamp: Date.now() });
      return;
    }
    const request = decoded.value;
    const resultTypes = RESULT_TYPES[request.type as RunnerCommand];
    const matches = (entry: Entry | undefined) => entry?.kind === 'exchange' && resultTypes.includes(entry.reply.type);

    const played = pickReply(entries, cursor, matches);
    if (played) {
      if (played.advance) {
        sendPushesUntil(played.index);
        cursor = played.index + 1;
      }
      send({ ...(entries[played.index] as Extract<Entry, { kind: 'exchange' }>).reply, requestId: request.requestId });
      return;
    }
    const resultType = resultTypes[0] ?? 'error';
    const error = `this recording (${basename(recording.folder)}) holds no ${resultType} reply`;
    if (request.type === 'request_screenshot') {
      send({ type: 'screenshot_error', requestId: request.requestId, error, timestamp: Date.now() });
    } else {
      send({ type: resultType, requestId: request.requestId, success: false, error, timestamp: Date.now() });
    }
  });
}

/**
 * Which recorded reply answers a request at `cursor`. The next recorded exchange, when it answers this
 * request, is played and the session moves on. Otherwise the client is not doing what the recorded
 * client did next (say, reading the screen twice), so the screen stays where it is: the latest reply of
 * this kind already passed is repeated. Only a client that asks for something not yet seen skips ahead
 * to its first recording (a first read skips the recorded launch).
 */
function pickReply(entries: Entry[], cursor: number, matches: (entry: Entry | undefined) => boolean): { index: number; advance: boolean } | undefined {
  const next = entries.findIndex((entry, i) => i >= cursor && entry.kind === 'exchange');
  if (next !== -1 && matches(entries[next])) return { index: next, advance: true };
  for (let i = cursor - 1; i >= 0; i--) if (matches(entries[i])) return { index: i, advance: false };
  for (let i = cursor; i < entries.length; i++) if (matches(entries[i])) return { index: i, advance: true };
  return undefined;
}

function safeRequestId(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && 'requestId' in value && typeof value.requestId === 'string') return value.requestId;
  } catch {
    // not JSON
  }
  return 'unknown';
}

/**
 * Which runner requests an action caused, its reads included.
 *
 * The Observer sends its reads through the same RunnerClient the device manager shares with live
 * pushes, so counting at the client would mix in traffic the action did not cause. The client's
 * `request` is wrapped once, and each call is attributed through AsyncLocalStorage to the action whose
 * async context made it: a push being paired at the same moment runs in another context and is not
 * counted. The ledger also keeps the replies, which is how a scroll search sees the raw web snapshot
 * of the read it already made (the merged tree drops off-screen elements) without reading it twice.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RunnerCommand } from '@shared/protocol/runner';
import { RunnerError, type RunnerClient } from './client';
import { type RunnerReply } from '@shared/protocol/runner';

export interface LedgerEntry {
  readonly command: RunnerCommand;
  readonly durationMs: number;
  readonly outcome: 'reply' | 'timeout' | 'disconnected' | 'error';
  readonly reply?: RunnerReply | undefined;
}

export class RequestLedger {
  readonly entries: LedgerEntry[] = [];

  /** Requests that went out on the wire. */
  get sent(): number {
    return this.entries.length;
  }

  count(command: RunnerCommand): number {
    return this.entries.filter((e) => e.command === command).length;
  }

  /** The latest reply to `command` recorded from `from` on (an entry index). */
  lastReply(command: RunnerCommand, from = 0): RunnerReply | undefined {
    for (let i = this.entries.length - 1; i >= from; i--) {
      const entry = this.entries[i];
      if (entry?.command === command && entry.reply) return entry.reply;
    }
    return undefined;
  }
}

const storage = new AsyncLocalStorage<RequestLedger>();
const wrapped = new WeakSet<RunnerClient>();

/** A RunnerError that proves the request never reached the wire. */
export function neverSent(error: unknown): boolean {
  if (!(error instanceof RunnerError)) return false;
  if (error.code === 'unsupported_command' || error.code === 'not_connected') return true;
  // The socket refused the frame itself (runner-client's send callback).
  return error.code === 'disconnected' && error.message.includes('could not be sent');
}

export function attributeRequests(client: RunnerClient): void {
  if (wrapped.has(client)) return;
  wrapped.add(client);
  const original = client.request.bind(client) as (command: RunnerCommand, payload: never, options?: { timeoutMs?: number }) => Promise<RunnerReply>;
  const request = async (command: RunnerCommand, payload: never, options?: { timeoutMs?: number }): Promise<RunnerReply> => {
    const ledger = storage.getStore();
    if (!ledger) return original(command, payload, options);
    const started = performance.now();
    try {
      const reply = await original(command, payload, options);
      ledger.entries.push({ command, durationMs: performance.now() - started, outcome: 'reply', reply });
      return reply;
    } catch (error) {
      if (!neverSent(error)) {
        const code = error instanceof RunnerError ? error.code : undefined;
        const outcome = code === 'timeout' ? 'timeout' : code === 'disconnected' || code === 'closed' ? 'disconnected' : 'error';
        ledger.entries.push({ command, durationMs: performance.now() - started, outcome });
      }
      throw error;
    }
  };
  Object.defineProperty(client, 'request', { value: request, configurable: true, writable: true });
}

export function withLedger<T>(ledger: RequestLedger, run: () => Promise<T>): Promise<T> {
  return storage.run(ledger, run);
}

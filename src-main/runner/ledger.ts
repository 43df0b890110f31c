/**
 * Which runner requests an action caused, its reads included.
 *
 * The Observer sends its reads through the same RunnerClient the device manager shares with live
 * pushes, so counting at the client would mix in traffic the action did not cause. The client
 * announces every request it sends (its `request` event, emitted synchronously in the caller's async
 * context), and each is attributed through AsyncLocalStorage to the action whose async context made it:
 * a push being paired at the same moment runs in another context and is not counted. The ledger also
 * keeps the replies, which is how a scroll search sees the raw web snapshot of the read it already
 * made (the merged tree drops off-screen elements) without reading it twice.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RunnerCommand, RunnerReply } from '@shared/protocol/runner';
import { RunnerError, type RunnerClient, type SentRequest } from './client';

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

  /** Records a request that went out, as it settles (before its sender resumes). */
  track(sent: SentRequest): void {
    sent.whenSettled((end) => {
      if (end.outcome === 'unsent') return;
      this.entries.push({ command: sent.command, durationMs: end.durationMs, outcome: end.outcome, ...(end.outcome === 'reply' ? { reply: end.reply } : {}) });
    });
  }
}

const storage = new AsyncLocalStorage<RequestLedger>();
const attributed = new WeakSet<RunnerClient>();

/** A RunnerError that proves the request never reached the wire. */
export function neverSent(error: unknown): boolean {
  if (!(error instanceof RunnerError)) return false;
  if (error.code === 'unsupported_command' || error.code === 'not_connected') return true;
  // The socket refused the frame itself (runner-client's send callback).
  return error.code === 'disconnected' && error.message.includes('could not be sent');
}

/** Listens to `client`'s requests (once per client) and files each under the ledger of the action that sent it. */
export function attributeRequests(client: RunnerClient): void {
  if (attributed.has(client)) return;
  attributed.add(client);
  client.on('request', (sent) => storage.getStore()?.track(sent));
}

export function withLedger<T>(ledger: RequestLedger, run: () => Promise<T>): Promise<T> {
  return storage.run(ledger, run);
}

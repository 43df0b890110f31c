/**
 * The demo device's controls for the renderer (docs/rules.md#r-qa-18): the host finds out whether a
 * device is the Parallax demo (a runner on this machine whose `/health` names it, docs/protocol.md#p-demo-admin)
 * and then reads and changes its screen and faults through its admin endpoint, on the same port. The
 * admin URL never leaves the host: the renderer names a device, never an address, so no page can reach
 * anything else through these calls.
 */
import type { z } from 'zod';
import { DemoFaultsAnswerSchema, DemoFaultsChangedSchema, DemoHealthSchema, DemoScreenAnswerSchema, MAX_DEMO_ADMIN_BYTES } from '@shared/protocol/demo-admin';
import { validateWith } from '@shared/protocol/errors';
import type { DemoState } from '@shared/api/api';
import { httpGet, httpPostJson, type ProbeOutcome } from '@main/discovery/http-probe';

/** Why a demo control did not happen: not the demo, the demo said no (its reason), or it did not answer well. */
export class DemoAdminError extends Error {
  constructor(
    readonly code: 'not_offered' | 'refused' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'DemoAdminError';
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** A read answers at once; a fault change answers once the app has followed it (a web view reloaded). */
const READ_TIMEOUT_MS = 5_000;
const CHANGE_TIMEOUT_MS = 20_000;

interface Address {
  host: string;
  port: number;
  /** The admin endpoint's path, with its token: `/admin/<token>` (docs/rules.md#r-peer-02). */
  prefix: string;
}

/** The admin URLs (with their tokens) of the demo devices this host knows, by runner URL. */
const adminUrls = new Map<string, string>();

/**
 * Tells the host the admin URL a demo device printed (the host starts the default one and learns it
 * there); without it the demo controls of that device are refused by the demo itself (401).
 */
export function registerDemoAdmin(runnerUrl: string, adminUrl: string): void {
  adminUrls.set(runnerUrl, adminUrl);
}

export class DemoAdmin {
  /** Per runner URL: the demo's address, or null once its /health said it is not the demo. */
  private readonly known = new Map<string, Address | null>();

  /** The screen shown, the screens there are, and every fault with its help text, its value kind and whether it is on. */
  async state(runnerUrl: string): Promise<DemoState> {
    const at = await this.addressOf(runnerUrl);
    const faults = await this.read(at, '/faults', DemoFaultsAnswerSchema);
    const screen = await this.read(at, '/screen', DemoScreenAnswerSchema);
    return { screen: screen.screen, screens: screen.screens, faults: faults.faults, known: faults.known };
  }

  async setScreen(runnerUrl: string, screen: string): Promise<DemoState> {
    const at = await this.addressOf(runnerUrl);
    await this.post(at, '/screen', { screen });
    return this.state(runnerUrl);
  }

  /** Turns faults on (`name` or `name=value`) and off (`name`), all or nothing, as the admin endpoint does. */
  async setFaults(runnerUrl: string, change: { add?: string[]; remove?: string[] }): Promise<DemoState> {
    const at = await this.addressOf(runnerUrl);
    const answer = await this.post(at, '/faults', change);
    this.decode(DemoFaultsChangedSchema, answer, '/admin/faults');
    return this.state(runnerUrl);
  }

  private async addressOf(runnerUrl: string): Promise<Address> {
    const cached = this.known.get(runnerUrl);
    if (cached) return cached;
    const notDemo = new DemoAdminError('not_offered', 'this device is not the Parallax demo: only the demo has screens and faults to switch');
    if (cached === null) throw notDemo;
    let url: URL;
    try {
      url = new URL(runnerUrl);
    } catch {
      throw notDemo;
    }
    // Only a runner on this machine can be the demo (it listens on loopback alone).
    if (url.protocol !== 'ws:' || !LOOPBACK.has(url.hostname) || url.port === '') {
      this.known.set(runnerUrl, null);
      throw notDemo;
    }
    const registered = adminUrls.get(runnerUrl);
    const prefix = registered === undefined ? '/admin' : new URL(registered).pathname.replace(/\/+$/, '');
    const at = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), prefix };
    const health = await httpGet(at.host, at.port, '/health', { timeoutMs: READ_TIMEOUT_MS, maxBytes: MAX_DEMO_ADMIN_BYTES });
    // Unreachable now says nothing yet: ask again next time. An answer decides for good.
    if (health.kind !== 'answered') throw new DemoAdminError('unreachable', `the device's /health did not answer: ${outcomeText(health)}`);
    const demo = health.status === 200 && validateWith(DemoHealthSchema, parseJson(health.body)).ok;
    this.known.set(runnerUrl, demo ? at : null);
    if (!demo) throw notDemo;
    return at;
  }

  /** `path` is under the admin endpoint (`/faults`); errors name it as `/admin/faults`, never with the token. */
  private async read<T>(at: Address, path: string, schema: z.ZodType<T>): Promise<T> {
    const outcome = await httpGet(at.host, at.port, `${at.prefix}${path}`, { timeoutMs: READ_TIMEOUT_MS, maxBytes: MAX_DEMO_ADMIN_BYTES });
    return this.decode(schema, this.answer(outcome, `/admin${path}`), `/admin${path}`);
  }

  private async post(at: Address, path: string, body: unknown): Promise<unknown> {
    const outcome = await httpPostJson(at.host, at.port, `${at.prefix}${path}`, body, { timeoutMs: CHANGE_TIMEOUT_MS, maxBytes: MAX_DEMO_ADMIN_BYTES });
    return this.answer(outcome, `/admin${path}`);
  }

  /** The answer's JSON; the demo's 400 {error} is its reason for refusing. */
  private answer(outcome: ProbeOutcome, path: string): unknown {
    if (outcome.kind !== 'answered') throw new DemoAdminError('unreachable', `${path}: ${outcomeText(outcome)}`);
    const json = parseJson(outcome.body);
    if (outcome.status === 200) return json;
    const reason =
      typeof json === 'object' && json !== null && 'error' in json && typeof json.error === 'string' ? json.error.slice(0, 500) : `HTTP ${outcome.status}`;
    throw new DemoAdminError(outcome.status === 400 ? 'refused' : 'unreachable', `${path}: ${reason}`);
  }

  private decode<T>(schema: z.ZodType<T>, value: unknown, path: string): T {
    const decoded = validateWith(schema, value);
    if (!decoded.ok) throw new DemoAdminError('unreachable', `${path} answered something unexpected: ${decoded.error.message}`);
    return decoded.value;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function outcomeText(outcome: ProbeOutcome): string {
  return outcome.kind === 'absent' ? 'nothing listens there' : outcome.kind === 'failed' ? outcome.reason : `HTTP ${outcome.status}`;
}

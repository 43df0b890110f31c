/**
 * The demo device's switchable faults: each one makes the device misbehave the way a real device or app
 * does in a case docs/rules.md covers. Set from the command line (`--fault NAME[=VALUE]`) and at run time
 * through the admin endpoint; listeners hear every change so the app page can follow (a second web view
 * appears, a web process dies, ...).
 */
import { EventEmitter } from 'node:events';
import { ACTION_REJECTION_REASONS } from '@shared/protocol/sdk';
import { isRunnerCommand } from '@shared/protocol/runner';

import type { DemoFaultValue } from '@shared/protocol/demo-admin';

type ValueKind = DemoFaultValue;

/** Every fault, with what its value is. The list is the admin API's vocabulary. */
export const FAULTS = {
  // XCTest (runner) side: docs/rules.md#r-strategies
  'xctest-ax-error': { value: 'flag', help: 'every hierarchy read fails with kAXErrorIllegalArgument' },
  'xctest-sparse': { value: 'flag', help: 'hierarchy reads return only the application root' },
  'xctest-slow': { value: 'ms', help: 'each hierarchy read grinds for MS before answering, or until the fault is cleared (a gate a test opens)' },
  // A test's gate (docs/rules.md#r-perf-10): where a change lands in a read is then the test's choice, not the machine's speed.
  'xctest-read-hold': {
    value: 'flag',
    help: 'the next sliced hierarchy read waits after its first slice until the page changes or the fault is cleared (GET /admin/reads counts the reads held)',
  },
  'scroll-glide': { value: 'ms', help: 'a swiped list glides on for MS after the finger lifts, as a fling does on a device' },
  // The in-app SDK and its observation bridge: docs/rules.md#r-discovery, docs/rules.md#r-commands
  'sdk-absent': { value: 'flag', help: 'the app embeds no SDK: nothing listens on its port' },
  'sdk-too-old': { value: 'flag', help: 'the SDK predates discovery: /health has no bridge fields, no bridge routes' },
  'bridge-unregistered': { value: 'flag', help: 'the SDK is present but no observation bridge is registered' },
  'bridge-malformed': { value: 'flag', help: "/health's observationBridge does not match the schema" },
  'bridge-coordinate-space': { value: 'space', help: 'snapshots report this coordinate space (window: bounds relative to the content below the status bar)' },
  'bridge-slow': { value: 'ms', help: 'snapshot routes answer after MS' },
  'bridge-action-slow': { value: 'ms', help: 'the host executor waits MS, or until the fault is cleared, before running an action (it still runs)' },
  'bridge-reject': {
    value: 'reason',
    help: 'the bridge or executor rejects every otherwise valid action with REASON (a known reason, or any host reason such as unsupported_gesture)',
  },
  'bridge-success-form': { value: 'flag', help: "action results go out in the spec's {success} form instead of the SDK's Swift {status} form" },
  // The in-app AppReveal server (docs/protocol.md#p-ar-outcomes): an answer that comes after the client's budget
  'appreveal-action-slow': {
    value: 'ms',
    help: "AppReveal's action tools (tap_element, tap_text, type_text, …) do what they do, then hold their answer MS, or until the fault is cleared",
  },
  'app-inactive': { value: 'flag', help: 'the app resigned active: SDK requests answer app_not_active' },
  'capture-identity-base': { value: 'uint64', help: 'the next capture identity is N (UInt64)' },
  // Web views: docs/rules.md#r-webview-commands, docs/rules.md#r-observe-web
  'web-process-terminated': { value: 'flag', help: "the checkout web view's content process died; the view is blank until cleared" },
  'web-disallowed-origin': { value: 'flag', help: "the checkout page's origin is not in the bridge's allowedOrigins" },
  'web-duplicate-id': { value: 'flag', help: 'accepted snapshots carry one element id twice' },
  'web-redact': { value: 'flag', help: 'the bridge policy redacts every value (redactText)' },
  'web-two-webviews': { value: 'flag', help: 'Checkout shows and registers a second (promo) web view' },
  'web-unregistered': { value: 'flag', help: 'no web view is registered with the bridge' },
  'web-no-snapshot': { value: 'flag', help: "the web views' documents post no snapshots (discarded as at a navigation)" },
  'web-max-bytes': { value: 'count', help: "the bridge's maxMessageBytes (default 131072)" },
  'web-max-elements': { value: 'count', help: "the bridge's maxElements (default 500)" },
  // The runner's performance pushes: real load on the process they measure (docs/rules.md#r-perfsnap)
  'perf-cpu-spin': { value: 'flag', help: 'a worker thread spins 80 ms of every 100 ms, so the pushed cpuUsagePercent rises' },
  'perf-memory-growth': { value: 'flag', help: 'each performance push retains 16 MiB more (up to 1 GiB), so memoryUsageMb climbs; cleared, it is released' },
  // A test's gate (docs/rules.md#r-suite-01): what the device pushes while an action's answer is on its way.
  'runner-action-reply-slow': {
    value: 'ms',
    help: "the runner's actions (taps, swipes, keys, text, SDK actions) do what they do, then hold their answer MS, or until the fault is cleared",
  },
  // The runner's socket
  'runner-drop-next': { value: 'flag', help: 'the next request closes the connection without an answer (one shot)' },
  'runner-garbage': { value: 'flag', help: 'the next request is answered with non-JSON garbage (one shot)' },
  // The same, aimed at one command, so an action's own request meets it (docs/rules.md#r-act-01)
  'runner-drop-at': { value: 'command', help: 'the next COMMAND request closes the connection without an answer (one shot)' },
  'runner-garbage-at': { value: 'command', help: 'the next COMMAND request is answered with non-JSON garbage (one shot)' },
  'runner-error-reply': {
    value: 'command',
    help: "the next COMMAND request gets the runner's error reply with requestId null, as a real runner answers a request it cannot decode (one shot)",
  },
  'runner-deadline': {
    value: 'command',
    help: 'the next COMMAND gesture runs, then answers that it completed after its deadline (outcome indeterminate), as a real runner does (one shot)',
  },
  // A test's gate (docs/rules.md#r-perf-07): the push a busy machine may deliver late, sent every time.
  'runner-stale-push': {
    value: 'flag',
    help: 'each request_hierarchy answer comes right after a push of the frame before the newest one pushed: an older frame than the answer, pushed last',
  },
} as const satisfies Record<string, { value: ValueKind; help: string }>;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];
type OneShotFault = 'runner-drop-next' | 'runner-garbage';
type AimedFault = 'runner-drop-at' | 'runner-garbage-at' | 'runner-error-reply' | 'runner-deadline';
const UINT64_MAX = 18446744073709551615n;

export type ParsedFault = { ok: true; name: FaultName; value: string | true } | { ok: false; error: string };

/** Parses `name` or `name=value`; never throws. */
export function parseFault(spec: string): ParsedFault {
  const eq = spec.indexOf('=');
  const name = (eq < 0 ? spec : spec.slice(0, eq)).trim();
  const raw = eq < 0 ? undefined : spec.slice(eq + 1).trim();
  if (!Object.hasOwn(FAULTS, name)) return { ok: false, error: `unknown fault "${name}" (known: ${FAULT_NAMES.join(', ')})` };
  const fault = name as FaultName;
  const kind: ValueKind = FAULTS[fault].value;
  if (kind === 'flag') {
    if (raw !== undefined && raw !== 'true' && raw !== '1') return { ok: false, error: `fault ${fault} takes no value` };
    return { ok: true, name: fault, value: true };
  }
  if (raw === undefined || raw === '') return { ok: false, error: `fault ${fault} needs a value (${fault}=...)` };
  switch (kind) {
    case 'ms':
    case 'count':
      if (!/^\d+$/.test(raw) || Number(raw) > 600_000_000) return { ok: false, error: `fault ${fault} needs a whole number, got "${raw}"` };
      return { ok: true, name: fault, value: String(Number(raw)) };
    case 'uint64':
      if (!/^\d+$/.test(raw) || BigInt(raw) > UINT64_MAX) return { ok: false, error: `fault ${fault} needs a UInt64, got "${raw}"` };
      return { ok: true, name: fault, value: BigInt(raw).toString() };
    case 'reason':
      // A host executor may answer any reason (docs/protocol.md#p-action-result); a word, so it reads as one.
      if (!/^[a-z][a-z0-9_]{0,63}$/.test(raw)) {
        return { ok: false, error: `fault ${fault} needs a reason word such as ${ACTION_REJECTION_REASONS.join(', ')} or unsupported_gesture` };
      }
      return { ok: true, name: fault, value: raw };
    case 'space':
      if (raw !== 'screen' && raw !== 'window' && raw !== 'view') return { ok: false, error: `fault ${fault} needs screen, window or view` };
      return { ok: true, name: fault, value: raw };
    case 'command':
      if (!isRunnerCommand(raw)) return { ok: false, error: `fault ${fault} needs a runner command such as request_tap_coordinates, got "${raw}"` };
      return { ok: true, name: fault, value: raw };
  }
}

export class Faults extends EventEmitter<{ changed: [changed: FaultName[]] }> {
  private readonly active = new Map<FaultName, string | true>();

  /** Throws on the first invalid spec and then changes nothing. */
  constructor(specs: readonly string[] = []) {
    super();
    this.apply({ add: specs });
  }

  /** `name` or `name=value` for every active fault, in the vocabulary's order. */
  list(): string[] {
    return FAULT_NAMES.filter((name) => this.active.has(name)).map((name) => {
      const value = this.active.get(name);
      return value === true ? name : `${name}=${value}`;
    });
  }

  has(name: FaultName): boolean {
    return this.active.has(name);
  }

  value(name: FaultName): string | undefined {
    const value = this.active.get(name);
    return typeof value === 'string' ? value : undefined;
  }

  number(name: FaultName): number | undefined {
    const value = this.value(name);
    return value === undefined ? undefined : Number(value);
  }

  /**
   * Applies a change all or nothing: `replace` sets the whole list, `add` and `remove` edit it
   * (`remove` takes names, with or without a value). Throws with the first problem.
   */
  apply(change: { replace?: readonly string[]; add?: readonly string[]; remove?: readonly string[] }): string[] {
    const next = new Map(change.replace ? [] : this.active);
    for (const spec of [...(change.replace ?? []), ...(change.add ?? [])]) {
      const parsed = parseFault(spec);
      if (!parsed.ok) throw new Error(parsed.error);
      next.set(parsed.name, parsed.value);
    }
    for (const spec of change.remove ?? []) {
      const name = spec.split('=')[0]?.trim() ?? '';
      if (!Object.hasOwn(FAULTS, name)) throw new Error(`unknown fault "${name}"`);
      next.delete(name as FaultName);
    }
    const changed = FAULT_NAMES.filter((name) => next.get(name) !== this.active.get(name));
    this.active.clear();
    for (const [name, value] of next) this.active.set(name, value);
    if (changed.length > 0) this.emit('changed', changed);
    return this.list();
  }

  /** True once for a one-shot fault aimed at `command`, when that command comes; the fault is then cleared. */
  consumeFor(name: AimedFault, command: string | undefined): boolean {
    if (command === undefined || this.active.get(name) !== command) return false;
    this.active.delete(name);
    this.emit('changed', [name]);
    return true;
  }

  /** True once for a one-shot fault, which is then cleared. */
  consume(name: OneShotFault): boolean {
    if (!this.active.has(name)) return false;
    this.active.delete(name);
    this.emit('changed', [name]);
    return true;
  }
}

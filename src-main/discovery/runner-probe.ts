/**
 * Finds runners by asking `GET /health` on each port of the runner range
 * (docs/protocol.md#p-runner-transport: 8765–8864, one runner per device). A refused port is nothing; a
 * port that answers anything else than a health reply (garbage, an HTML page, a reset mid-answer,
 * silence) is listed as unreachable, so the user sees that something is there. An AppReveal server that
 * happens to sit in the range is recognized by its /health (`auth`) and reported as one.
 */
import { z } from 'zod';
import { AppRevealHealthSchema } from '@shared/protocol/appreveal';
import { httpGet, mapBounded, type ProbeOutcome } from './http-probe';

export const RUNNER_PORT_FIRST = 8765;
export const RUNNER_PORT_LAST = 8864;

/**
 * The runner's /health body. Only "it answers 200" is specified; CtrlProxy sends `{deviceId, port, status}`
 * (the UDID as deviceId, absent when unknown), the demo runner adds `device`, so those fields are read
 * when present and nothing else is assumed.
 */
export const RunnerHealthSchema = z
  .object({
    status: z.string().optional(),
    deviceId: z.string().max(200).optional(),
    device: z.string().optional(),
    name: z.string().optional(),
    bundleId: z.string().optional(),
  })
  .loose();

export interface PortProbeResult {
  host: string;
  port: number;
  kind: 'runner' | 'appreveal';
  state: 'available' | 'unreachable';
  /** Why it is unreachable. */
  error?: string;
  name?: string;
  bundleId?: string;
  /** AppReveal only: its auth mode. */
  auth?: string;
}

export interface RunnerProbeOptions {
  host?: string;
  /** Ports to probe; default the runner range 8765–8864. */
  ports?: readonly number[];
  timeoutMs?: number;
  concurrency?: number;
}

const OK_STATUSES = new Set(['ok', 'healthy', 'up', 'ready']);

/** One port; undefined when nothing listens there. Never rejects. */
export async function probeRunnerPort(port: number, options: Omit<RunnerProbeOptions, 'ports' | 'concurrency'> = {}): Promise<PortProbeResult | undefined> {
  const host = options.host ?? '127.0.0.1';
  const outcome = await httpGet(host, port, '/health', { timeoutMs: options.timeoutMs ?? 500 });
  return classifyRunnerHealth(host, port, outcome);
}

/** Every port of the range, `concurrency` at a time; only ports where something answered. */
export async function probeRunnerPorts(options: RunnerProbeOptions = {}): Promise<PortProbeResult[]> {
  const ports = options.ports ?? range(RUNNER_PORT_FIRST, RUNNER_PORT_LAST);
  const results = await mapBounded(ports, options.concurrency ?? 16, (port) =>
    probeRunnerPort(port, {
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    }).catch(
      // httpGet never rejects; this only keeps a future bug from failing the whole sweep.
      (): PortProbeResult => ({ host: options.host ?? '127.0.0.1', port, kind: 'runner', state: 'unreachable', error: 'probe failed' }),
    ),
  );
  return results.filter((result): result is PortProbeResult => result !== undefined);
}

export function classifyRunnerHealth(host: string, port: number, outcome: ProbeOutcome): PortProbeResult | undefined {
  const base = { host, port };
  if (outcome.kind === 'absent') return undefined;
  if (outcome.kind === 'failed') return { ...base, kind: 'runner', state: 'unreachable', error: outcome.reason };
  if (outcome.status !== 200) {
    return { ...base, kind: 'runner', state: 'unreachable', error: `answered /health with HTTP ${outcome.status}` };
  }
  const text = outcome.body.trim();
  if (/^ok$/i.test(text)) return { ...base, kind: 'runner', state: 'available' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ...base, kind: 'runner', state: 'unreachable', error: 'answered /health with something that is not a health reply' };
  }
  const appReveal = AppRevealHealthSchema.safeParse(body);
  if (appReveal.success && (appReveal.data.auth === 'session-token' || appReveal.data.auth === 'disabled')) {
    const bundleId = typeof appReveal.data.bundleId === 'string' ? appReveal.data.bundleId : undefined;
    return appReveal.data.status === 'ok'
      ? { ...base, kind: 'appreveal', state: 'available', auth: appReveal.data.auth, ...(bundleId ? { bundleId } : {}) }
      : { ...base, kind: 'appreveal', state: 'unreachable', error: `reports status "${oneLine(appReveal.data.status)}"` };
  }
  const health = RunnerHealthSchema.safeParse(body);
  if (!health.success || typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ...base, kind: 'runner', state: 'unreachable', error: 'answered /health with something that is not a health reply' };
  }
  const { status, device, name, bundleId } = health.data;
  const identity = { ...((name ?? device) ? { name: name ?? device } : {}), ...(bundleId ? { bundleId } : {}) };
  if (status !== undefined && !OK_STATUSES.has(status.toLowerCase())) {
    return { ...base, kind: 'runner', state: 'unreachable', error: `reports status "${oneLine(status)}"`, ...identity };
  }
  return { ...base, kind: 'runner', state: 'available', ...identity };
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}

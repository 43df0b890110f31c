/**
 * `parallax doctor [--device URL] [--json] [--timeout MS]`: checks what it can from here about a device,
 * in the order a connection needs them, and says the next step for each failure (docs/rules.md#r-qa-15).
 *
 * A runner (ws://HOST:PORT/ws, default AutoMobile CtrlProxy's 127.0.0.1:8765): the port, `GET /health`,
 * the `connected` push, the commands it announces, a plain XCTest read, the SDK (`get_sdk_capabilities`)
 * and the observation bridge of an SDK-backed read. An AppReveal session URL: the URL and its token, the
 * port, `GET /health`, and the token accepted by the MCP server. What the answers mean is
 * src-shared/inspect/doctor.ts; this only asks.
 */
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { SdkCapabilitiesResultSchema } from '@shared/protocol/runner';
import { parseAppRevealSessionUrl, type AppRevealSession } from '@shared/protocol/appreveal';
import {
  appRevealConnectCheck,
  appRevealInspectCheck,
  appRevealHealthCheck,
  appRevealUrlCheck,
  bridgeChecks,
  commandChecks,
  connectedCheck,
  CTRL_PROXY_DEFAULT_URL,
  doctorExitCode,
  doctorLines,
  hierarchyCheck,
  portCheck,
  runnerHealthCheck,
  sdkCheck,
  type DoctorCheck,
} from '@shared/inspect/doctor';
import { RunnerConnection } from '@main/devices/runner-connection';
import { AppRevealClient, AppRevealError } from '@main/appreveal/client';

type Out = { log: (line: string) => void; error: (line: string) => void };

export const DOCTOR_USAGE = `Usage: parallax doctor [--device URL] [--json] [--timeout MS]
  checks a device from here and says the next step for each failure: the port, the runner's
  connected push and commands, a plain XCTest read, the app's SDK and observation bridge; or an
  AppReveal app's session URL, health and token. Without --device: AutoMobile CtrlProxy's default,
  ${CTRL_PROXY_DEFAULT_URL}. Exit code 0 when nothing failed (warnings are not failures).`;

class UsageError extends Error {}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}

/** Whether a TCP connection to host:port opens within the timeout. */
function reachable(host: string, port: number, timeoutMs: number): Promise<{ ok: true } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: { ok: true } | { ok: false; error: string }) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done({ ok: false, error: `no answer in ${timeoutMs} ms` }));
    socket.once('connect', () => done({ ok: true }));
    socket.once('error', (error: NodeJS.ErrnoException) => done({ ok: false, error: error.code ?? error.message }));
  });
}

/** A small JSON GET, bounded in time and size. */
async function getJson(url: string, timeoutMs: number): Promise<{ status: number; body: unknown } | { error: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    const text = (await response.text()).slice(0, 64 * 1024);
    let body: unknown = undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  } catch (error) {
    return { error: oneLine(error) };
  }
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}

async function runnerChecks(url: string, timeoutMs: number): Promise<DoctorCheck[]> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = portOf(target);
  const checks: DoctorCheck[] = [];
  const open = await reachable(host, port, timeoutMs);
  checks.push(portCheck(`${host}:${port}`, open.ok, open.ok ? undefined : open.error));
  if (!open.ok) return checks;
  checks.push(runnerHealthCheck(await getJson(`http://${target.host}/health`, timeoutMs), port));

  const connection = new RunnerConnection('runner', url, { handshakeTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs }, { screenshotAfter: false });
  connection.start();
  try {
    try {
      await connection.waitUntilConnected(timeoutMs);
    } catch (error) {
      checks.push(connectedCheck(undefined, oneLine(error)));
      return checks;
    }
    const push = connection.client.connectedInfo;
    checks.push(connectedCheck(push));
    if (!push) return checks;
    checks.push(...commandChecks(push));
    try {
      checks.push(hierarchyCheck((await connection.observe({ xctestOnly: true, screenshot: false })).observation));
    } catch (error) {
      checks.push(hierarchyCheck(undefined, oneLine(error)));
    }
    if (connection.client.supports('get_sdk_capabilities')) {
      try {
        const reply = SdkCapabilitiesResultSchema.safeParse(await connection.client.request('get_sdk_capabilities', {}, { timeoutMs }));
        checks.push(reply.success ? sdkCheck(reply.data) : sdkCheck(undefined, 'the capability reply did not decode'));
      } catch (error) {
        checks.push({
          id: 'SDK',
          status: 'warn',
          detail: `get_sdk_capabilities failed: ${oneLine(error)}`,
          next: 'observe again; if it persists, the runner cannot reach the app\u2019s SDK server',
        });
      }
    } else checks.push(sdkCheck(undefined));
    try {
      checks.push(...bridgeChecks((await connection.observe({ screenshot: false })).observation));
    } catch (error) {
      checks.push(...bridgeChecks(undefined, `the SDK-backed read failed: ${oneLine(error)}`));
    }
    return checks;
  } finally {
    await connection.close();
  }
}

async function appRevealChecks(url: string, timeoutMs: number): Promise<DoctorCheck[]> {
  let session: AppRevealSession;
  try {
    session = parseAppRevealSessionUrl(url);
  } catch (error) {
    return [appRevealUrlCheck({ error: oneLine(error) })];
  }
  const checks: DoctorCheck[] = [appRevealUrlCheck(session)];
  const base = new URL(session.baseUrl);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const port = portOf(base);
  const open = await reachable(host, port, timeoutMs);
  checks.push(portCheck(`${host}:${port}`, open.ok, open.ok ? undefined : open.error));
  if (!open.ok) return checks;
  const health = await getJson(new URL('/health', session.baseUrl).toString(), timeoutMs);
  checks.push(appRevealHealthCheck(health));
  const client = new AppRevealClient(session, { timeoutMs, healthTimeoutMs: timeoutMs });
  try {
    await client.connect();
    checks.push(appRevealConnectCheck({ tools: client.tools }));
    checks.push(appRevealInspectCheck(client.tools));
  } catch (error) {
    checks.push(
      appRevealConnectCheck(error instanceof AppRevealError ? { code: error.code, message: oneLine(error) } : { code: 'error', message: oneLine(error) }),
    );
  } finally {
    await client.close();
  }
  return checks;
}

/** The checks for `url` (a runner or an AppReveal session URL); never throws for what the device answers. */
export async function doctorChecks(url: string, timeoutMs: number): Promise<DoctorCheck[]> {
  return /^wss?:\/\//i.test(url) ? runnerChecks(url, timeoutMs) : appRevealChecks(url, timeoutMs);
}

export async function runDoctor(args: string[], out: Out): Promise<number> {
  let values: { device?: string | undefined; json?: boolean | undefined; timeout?: string | undefined; help?: boolean | undefined };
  try {
    values = parseArgs({
      args,
      options: { device: { type: 'string' }, json: { type: 'boolean' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    out.error(`parallax doctor: ${oneLine(error)}`);
    return 2;
  }
  if (values.help) {
    out.log(DOCTOR_USAGE);
    return 0;
  }
  try {
    const timeoutMs = values.timeout === undefined ? 5_000 : Number(values.timeout);
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout takes milliseconds, not "${values.timeout}"`);
    const url = values.device ?? CTRL_PROXY_DEFAULT_URL;
    if (!/^(wss?|https?):\/\//i.test(url)) throw new UsageError('--device must be a ws:// runner URL or an http:// AppReveal session URL');
    const checks = await doctorChecks(url, timeoutMs);
    // The session token is a secret: the device is named without it.
    const shown = /^https?:/i.test(url) ? url.replace(/([?&]appreveal_session_token=)[^&]*/i, '$1…') : url;
    if (values.json) out.log(JSON.stringify({ device: shown, checks }, null, 2));
    else {
      out.log(`Parallax doctor: ${shown}${values.device === undefined ? ' (no --device: AutoMobile CtrlProxy\u2019s default)' : ''}`);
      for (const line of doctorLines(checks)) out.log(line);
    }
    return doctorExitCode(checks);
  } catch (error) {
    out.error(`parallax doctor: ${oneLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

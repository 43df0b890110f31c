/**
 * The demo device's admin endpoint, as every test and bench calls it: GET without a body, POST with a
 * JSON one (`/reset`, `/screen`, `/faults`, `/stats`, ...). One copy, so a change to the endpoint's
 * contract is made once.
 */

/** The answer as it came: its status and its JSON body, for a test about a refusal. */
export async function adminReply<T = Record<string, unknown>>(adminUrl: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(
    `${adminUrl}${path}`,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const text = await res.text();
  let parsed: unknown = {};
  try {
    if (text !== '') parsed = JSON.parse(text);
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed as T };
}

/** The answer's JSON body; anything but 200 throws, naming the path, the status and what the device said. */
export async function admin<T = Record<string, unknown>>(adminUrl: string, path: string, body?: unknown): Promise<T> {
  const reply = await adminReply<T>(adminUrl, path, body);
  if (reply.status !== 200) throw new Error(`admin ${path}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** What the waits below read of `/stats`. */
export interface DemoStats {
  screen: string;
  frameContext: string;
  generation: number;
  /** Runner commands, SDK requests and bridge actions being answered now. */
  busy: number;
  /** A screen change announced and not read yet. */
  settling: boolean;
  requests: Record<string, number>;
  [key: string]: unknown;
}

/**
 * Reads `/stats` until `ready` holds; the condition a test would otherwise sleep for, so the wait is as
 * long as this machine needs and no longer. A deadline only catches a hang: it throws naming `what`
 * and the last stats, it never decides a test.
 */
export async function untilStats(adminUrl: string, what: string, ready: (stats: DemoStats) => boolean, deadlineMs = 30_000): Promise<DemoStats> {
  const giveUp = Date.now() + deadlineMs;
  for (;;) {
    const stats = await admin<DemoStats>(adminUrl, '/stats');
    if (ready(stats)) return stats;
    if (Date.now() > giveUp) throw new Error(`demo device: still not ${what} after ${deadlineMs} ms: ${JSON.stringify({ ...stats, webViews: undefined })}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** Until the demo's screen is still (no change waiting to be read) and nothing runs on it (a slow fault's read, a bridge action). */
export function untilQuiet(adminUrl: string, ready: (stats: DemoStats) => boolean = () => true): Promise<DemoStats> {
  return untilStats(adminUrl, 'quiet', (stats) => stats.busy === 0 && !stats.settling && ready(stats));
}

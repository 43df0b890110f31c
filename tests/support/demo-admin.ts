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

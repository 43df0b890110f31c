/**
 * Reading an AppReveal app as its own CLI does, and a recorded trace as text: what the secret tests
 * (docs/rules.md#r-secret) search a typed password for.
 */
import { openTraceFile } from '@main/trace/index';

/** One tools/call over the session's real port; the tool's JSON text, parsed. */
export async function rawTool(
  session: { baseUrl: string; token?: string },
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(session.baseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token ?? ''}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: Date.now(), method: 'tools/call', params: { name, arguments: args } }),
  });
  const reply = (await response.json()) as { result?: { content?: Array<{ type: string; text?: string }> } };
  const text = reply.result?.content?.find((c) => c.type === 'text')?.text;
  if (text === undefined) throw new Error(`${name}: no text content in ${JSON.stringify(reply)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A trace file's manifest, events and every resource they refer to but screenshots, as one text. */
export async function traceText(path: string): Promise<string> {
  const opened = await openTraceFile(path);
  const refs = opened.events.flatMap((event) =>
    Object.entries(event as Record<string, unknown>)
      .filter(([key, value]) => key.endsWith('Ref') && typeof value === 'string' && key !== 'screenshotRef')
      .map(([, value]) => value as string),
  );
  return [
    JSON.stringify(opened.manifest),
    JSON.stringify(opened.events),
    ...(await Promise.all(refs.map(async (ref) => (await opened.resource(ref)).toString('utf8')))),
  ].join('\n');
}

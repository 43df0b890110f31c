/**
 * R-FUZZ-02: the hostile-trace corpus (issue 26), kept as tests: each trace is built here, opened as a
 * user would open it, and must end in a trace or a typed TraceOpenError naming what was wrong, never a
 * crash; the one that names an environment variable gets nothing from the environment.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTraceManifest } from '@shared/trace/encode';
import { traceVariables } from '@shared/trace/variables';
import { openTraceFile, TraceOpenError } from '@main/trace/open';
import { chooseVariables } from '@main/cli/replay-variables';

let dir: string;
const manifest = encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } });
const line = (event: object) => `${JSON.stringify(event)}\n`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-hostile-traces-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function traceFile(name: string, entries: Record<string, Uint8Array>): Promise<string> {
  const path = join(dir, `${name}.parallax-trace`);
  await writeFile(path, zipSync(entries));
  return path;
}

/** Opens `path`: the trace, or the typed error; anything else thrown fails the test. */
async function openTyped(path: string) {
  try {
    return { trace: await openTraceFile(path) };
  } catch (error) {
    expect(error).toBeInstanceOf(TraceOpenError);
    return { error: error as TraceOpenError };
  }
}

describe('the hostile-trace corpus (R-FUZZ-02)', () => {
  it('R-FUZZ-02, R-TRUST-01: a secret field renamed to aws.secret.access.key: named, and nothing read from the environment unasked', async () => {
    const events =
      line({
        type: 'action.before',
        callId: 'c1',
        seq: 1,
        time: 1,
        action: { kind: 'sendKeys', steps: [{ kind: 'type', secret: true }] },
        target: { selector: { id: 'aws.secret.access.key' } },
      }) + line({ type: 'action.after', callId: 'c1', seq: 2, time: 2, result: { success: true, timings: {} } });
    const { trace } = await openTyped(await traceFile('env', { 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(events) }));
    const needed = traceVariables(trace!.timeline);
    expect(needed.map((v) => v.name)).toEqual(['AWS_SECRET_ACCESS_KEY']);
    const chosen = await chooseVariables(needed, {}, { environment: { AWS_SECRET_ACCESS_KEY: 'planted' } });
    expect([...chosen.values.keys()]).toEqual([]);
  });

  it('R-FUZZ-02: JSON nested 200,000 deep in one event: a typed error, not a stack overflow', async () => {
    const deep = `{"type":"note","callId":"n1","seq":1,"time":1,"text":"x","extra":${'['.repeat(200_000)}${']'.repeat(200_000)}}\n`;
    const opened = await openTyped(await traceFile('deep', { 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(deep) }));
    if (opened.error) expect(opened.error.message).toMatch(/events\.jsonl/);
  });

  it('R-FUZZ-02: a 20 MB note opens or is refused by name, whole', async () => {
    const note = line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: 'A'.repeat(20 << 20) });
    const opened = await openTyped(await traceFile('note', { 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(note) }));
    if (opened.trace) expect(opened.trace.timeline).toHaveLength(1);
  });

  it('R-FUZZ-02: 200,000 one-line events open as one timeline or are refused by name', async () => {
    let events = '';
    for (let i = 1; i <= 200_000; i++) events += `{"type":"note","callId":"n${i}","seq":${i},"time":${i},"text":"."}\n`;
    const opened = await openTyped(await traceFile('dense', { 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(events) }));
    if (opened.trace) expect(opened.trace.events.length).toBe(200_000);
  });

  it('R-FUZZ-02: two entries named events.jsonl: refused as damaged, never one silently chosen', async () => {
    const a = line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: 'first' });
    const b = line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: 'other' });
    const zip = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(a), 'events.jsonm': strToU8(b) });
    // The second name patched to the first, in its local header and in the central directory.
    const bytes = Buffer.from(zip);
    const from = Buffer.from('events.jsonm');
    for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) Buffer.from('events.jsonl').copy(bytes, at);
    const path = join(dir, 'duplicate.parallax-trace');
    await writeFile(path, bytes);
    const opened = await openTyped(path);
    expect(opened.error?.message ?? `opened: ${opened.trace?.events.map((e) => (e as { text?: string }).text).join(',')}`).toMatch(/events\.jsonl/);
  });
});

/**
 * Crafted trace files for the tests of the trace reader's limits and refusals: a scratch folder of this
 * test file's own, a file written there, and the typed refusal an open must end in.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { TraceOpenError } from '@main/trace/open';

/** The demo QA trace recorded from the demo device (tests/fixtures/traces/demo-qa, with its README). */
export const DEMO_QA_TRACE = join(import.meta.dirname, '..', 'fixtures', 'traces', 'demo-qa');

/** A folder made before this file's tests and removed after them; `write` puts a crafted trace in it. */
export function useTraceScratch(prefix: string): { readonly dir: string; write(bytes: Uint8Array, stem?: string): Promise<string> } {
  let dir: string | undefined;
  let n = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `parallax-${prefix}-`));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const scratch = {
    get dir(): string {
      if (dir === undefined) throw new Error('the scratch folder is made in beforeAll: use it inside a test');
      return dir;
    },
    async write(bytes: Uint8Array, stem = 't'): Promise<string> {
      const path = join(scratch.dir, `${stem}-${n++}.parallax-trace`);
      await writeFile(path, bytes);
      return path;
    },
  };
  return scratch;
}

/** The TraceOpenError an open of a crafted trace ends in; one that opens fails the test. */
export async function traceRefusal(promise: Promise<unknown>): Promise<TraceOpenError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TraceOpenError);
    return error as TraceOpenError;
  }
  throw new Error('it opened');
}

/**
 * The events.jsonl text of a trace of `count` taps, each the demo QA trace's first step (its before- and
 * after-events) under a new callId: a trace as large as a test needs, made of real recorded events.
 */
export function manyTapEvents(count: number): string {
  const [before, after] = readFileSync(join(DEMO_QA_TRACE, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"callId":"call-1"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(JSON.stringify({ ...before, callId: `call-${i}`, seq: 2 * i, time: 1_700_000_000_000 + 2 * i, action: { kind: 'tap' } }));
    lines.push(JSON.stringify({ ...after, callId: `call-${i}`, seq: 2 * i + 1, time: 1_700_000_000_001 + 2 * i }));
  }
  return lines.join('\n') + '\n';
}

/**
 * The hostile-trace corpus (docs/rules.md#r-fuzz-02, issue 26): traces crafted to lie, to exhaust or to
 * leak, each handed to every decoder a user's trace reaches: the reader on this thread (openTraceFile),
 * the resource index (openTraceResources), and the trace worker's jobs (the trace view's listing,
 * `parallax open`'s lines and JSON, a replay's plan, the Maestro and XCUITest exports). Every decoder must
 * end in a value or a TraceOpenError naming what was wrong; anything else thrown is a crash. Each case
 * then checks what a user would see: a bidirectional control shown as <U+202E>, a token never shown, an
 * environment variable never read. Run by tests/fuzz/hostile-traces.test.ts (short) and `npm run fuzz`
 * (tests/fuzz/run.ts: full, the dense cases at their real sizes).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { encodeTraceManifest } from '@shared/trace/encode';
import { traceVariables } from '@shared/trace/variables';
import { openTraceFile, openTraceResources, TraceOpenError } from '@main/trace/open';
import { inTraceWorker } from '@main/trace/off-thread';
import { openTraceView } from '@main/trace/view';
import { TRACE_EVENT_LIMITS } from '@main/trace/events-stream';
import { chooseVariables } from '@main/cli/replay-variables';

export type Scale = 'short' | 'full';

/** What one decoder made of a trace: a value (as the text a user could see of it) or its typed refusal. */
export type Decoded = { decoder: string; text: string } | { decoder: string; refused: TraceOpenError };

export interface HostileTrace {
  name: string;
  /** The trace file's bytes. */
  bytes(scale: Scale): Uint8Array;
  /** What must hold of the decoders' answers beyond "typed"; returns the problem, or undefined. */
  check?(decoded: Decoded[], at: { path: string; scale: Scale }): Promise<string | undefined> | string | undefined;
}

export interface CorpusReport {
  name: string;
  /** Per decoder: "ok" or the refusal's code. */
  outcomes: string[];
  /** An untyped throw or a failed check; undefined when the case held. */
  failure?: string;
  ms: number;
}

const manifestOf = (url = 'ws://127.0.0.1:1/ws') => encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url } });
const line = (event: object) => `${JSON.stringify(event)}\n`;
const zip = (events: string, manifest = manifestOf()) => zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(events) });
const action = (callId: string, seq: number, act: object, target: object = {}) =>
  line({ type: 'action.before', callId, seq, time: seq, action: act, target }) +
  line({ type: 'action.after', callId, seq: seq + 1, time: seq + 1, result: { success: true, timings: {} } });

/** A token planted where a hostile or hand-edited trace may put one. */
const PLANTED = 'pLaNtEd-5ecret-0f-the-trace';
const RLO = '\u202e';

const opened = (decoded: Decoded[]) => decoded.filter((d): d is Extract<Decoded, { text: string }> => 'text' in d);
const refused = (decoded: Decoded[]) => decoded.filter((d): d is Extract<Decoded, { refused: TraceOpenError }> => 'refused' in d);
/** The outputs a person sees (the reader's own parse is data, not display). */
const shown = (decoded: Decoded[]) => opened(decoded).filter((d) => d.decoder !== 'openTraceFile' && d.decoder !== 'replay plan');

/** Every decoder refused, each naming `what`. */
function allRefused(what: RegExp) {
  return (decoded: Decoded[]) => {
    const through = opened(decoded).filter((d) => d.decoder !== 'openTraceResources');
    if (through.length > 0) return `${through.map((d) => d.decoder).join(', ')} opened it`;
    const unnamed = refused(decoded).find((d) => !what.test(d.refused.message));
    return unnamed ? `${unnamed.decoder}'s refusal does not name ${what}: ${unnamed.refused.message}` : undefined;
  };
}

export function hostileTraces(): HostileTrace[] {
  return [
    {
      name: 'a secret field renamed to aws.secret.access.key',
      bytes: () => zip(action('c1', 1, { kind: 'sendKeys', steps: [{ kind: 'type', secret: true }] }, { selector: { id: 'aws.secret.access.key' } })),
      async check(decoded, at) {
        const listing = opened(decoded).find((d) => d.decoder === 'open lines');
        if (!listing?.text.includes('replay asks for AWS_SECRET_ACCESS_KEY')) return 'parallax open does not say the replay asks for AWS_SECRET_ACCESS_KEY';
        const trace = await openTraceFile(at.path);
        const chosen = await chooseVariables(traceVariables(trace.timeline), {}, { environment: { AWS_SECRET_ACCESS_KEY: PLANTED } });
        return chosen.values.size > 0 ? `the environment was read for ${[...chosen.values.keys()].join(', ')} unasked` : undefined;
      },
    },
    {
      name: 'secret-bearing: a token in the device URL, a Bearer header in a note, an authorization key in a target',
      bytes: () =>
        zip(
          line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: `curl -H 'Authorization: Bearer ${PLANTED}'` }) +
            action(
              'c1',
              2,
              { kind: 'tap' },
              { selector: { id: 'login' }, node: { authorization: PLANTED, label: `https://api.example.com/login?token=${PLANTED}` } },
            ),
          manifestOf(`ws://127.0.0.1:1/ws?token=${PLANTED}`),
        ),
      check: (decoded) => {
        const leaks = shown(decoded).filter((d) => d.text.includes(PLANTED));
        return leaks.length > 0 ? `${leaks.map((d) => d.decoder).join(', ')} show the planted token` : undefined;
      },
    },
    {
      name: 'bidi: a label with U+202E (shows "evil" as "live")',
      bytes: () => zip(action('c1', 1, { kind: 'tap' }, { selector: { text: `${RLO}live` }, node: { label: `${RLO}live` } })),
      check: (decoded) => {
        const views = shown(decoded).filter((d) => d.decoder === 'trace view' || d.decoder === 'open lines');
        if (views.length < 2) return 'the trace view or parallax open did not open it';
        const raw = views.find((d) => d.text.includes(RLO) || !d.text.includes('<U+202E>'));
        return raw ? `${raw.decoder} shows the control raw instead of <U+202E>` : undefined;
      },
    },
    {
      name: 'deep JSON: an event nested 200,000 deep',
      bytes: () => zip(`{"type":"note","callId":"n1","seq":1,"time":1,"text":"x","extra":${'['.repeat(200_000)}${']'.repeat(200_000)}}\n`),
      check: (decoded) => {
        const unnamed = refused(decoded).find((d) => !/events\.jsonl/.test(d.refused.message));
        return unnamed ? `${unnamed.decoder}'s refusal does not name events.jsonl: ${unnamed.refused.message}` : undefined;
      },
    },
    {
      name: 'a huge note (20 MiB in one line)',
      bytes: () => zip(line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: 'A'.repeat(20 << 20) })),
    },
    {
      name: 'a line over the 8 MiB a line may be',
      // Random text, so the zip's ratio check (a bomb) does not refuse it first.
      bytes: () => zip(line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: randomBytes(TRACE_EVENT_LIMITS.lineBytes).toString('base64') })),
      check: allRefused(/events\.jsonl.*line 1|line 1.*events\.jsonl/),
    },
    {
      name: 'dense: one-line events (200,000 short; past the event limit in full)',
      bytes: (scale) => {
        const count = scale === 'full' ? TRACE_EVENT_LIMITS.events + 1 : 200_000;
        const parts: string[] = [];
        for (let i = 1; i <= count; i++) parts.push(`{"type":"note","callId":"n${i}","seq":${i},"time":${i},"text":"."}\n`);
        return zip(parts.join(''));
      },
      check: (decoded, at) => (at.scale === 'full' ? allRefused(new RegExp(TRACE_EVENT_LIMITS.events.toLocaleString('en-US')))(decoded) : undefined),
    },
    {
      name: 'more actions than a trace may hold (full only)',
      bytes: (scale) => {
        const count = scale === 'full' ? TRACE_EVENT_LIMITS.steps + 1 : 10;
        const parts: string[] = [];
        for (let i = 0; i < count; i++) parts.push(line({ type: 'action.before', callId: `a${i}`, seq: i, time: i, action: { kind: 'tap' }, target: {} }));
        return zip(parts.join(''));
      },
      check: (decoded, at) => (at.scale === 'full' ? allRefused(/action/)(decoded) : undefined),
    },
    {
      name: 'duplicate entries: two events.jsonl',
      bytes: () => {
        const a = line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: 'first' });
        const b = line({ type: 'note', callId: 'n1', seq: 1, time: 1, text: 'other' });
        const bytes = Buffer.from(zipSync({ 'manifest.json': strToU8(manifestOf()), 'events.jsonl': strToU8(a), 'events.jsonm': strToU8(b) }));
        // The second name patched to the first, in its local header and in the central directory.
        const from = Buffer.from('events.jsonm');
        for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) Buffer.from('events.jsonl').copy(bytes, at);
        return bytes;
      },
      check: allRefused(/events\.jsonl/),
    },
    {
      name: 'malformed: events that are not JSON, a manifest of another version, a zip cut short',
      bytes: () => zip('{"type":"note",\n', '{"formatVersion":99}'),
      check: allRefused(/manifest|format|version/i),
    },
    {
      name: 'malformed: a zip cut in half',
      bytes: () => {
        const whole = zip(action('c1', 1, { kind: 'tap' }));
        return whole.subarray(0, whole.length >> 1);
      },
      check: allRefused(/zip|damaged|cut|not a/i),
    },
    {
      name: 'prototype keys: __proto__ and constructor in an action and its target',
      bytes: () =>
        zip(
          `{"type":"action.before","callId":"c1","seq":1,"time":1,"action":{"kind":"tap","__proto__":{"polluted":true}},"target":{"constructor":{"prototype":{"polluted":true}},"__proto__":{"x":1}}}\n`,
        ),
      check: () => (({}) as Record<string, unknown>)['polluted'] !== undefined ? 'Object.prototype was polluted' : undefined,
    },
  ];
}

/** `parallax open`'s lines (or JSON) of `path`, as its parts come out of the trace worker. */
async function listed(path: string, json: boolean): Promise<string> {
  const lines: string[] = [];
  await inTraceWorker('listing', path, undefined, { json, onPart: (part) => void lines.push(...part) });
  return lines.join('\n');
}

/** Every decoder on `path`: its value as text, or its typed refusal; an untyped throw is returned as the failure. */
async function decodeAll(path: string): Promise<{ decoded: Decoded[]; crash?: string }> {
  const decoders: [string, () => Promise<unknown>][] = [
    ['openTraceFile', async () => (await openTraceFile(path)).timeline.length],
    [
      'openTraceResources',
      async () => {
        const resources = await openTraceResources(path);
        return resources.manifest;
      },
    ],
    // The listing as the host has it: its steps come as parts (docs/rules.md#r-mem-07), put together here.
    ['trace view', () => openTraceView(path)],
    ['open lines', () => listed(path, false)],
    ['open --json', () => listed(path, true)],
    [
      'audit screens',
      async () => {
        const titles: string[] = [];
        await inTraceWorker('audit', path, undefined, { onPart: (screens) => void titles.push(...screens.map((s) => s.title)) });
        return titles.join('\n');
      },
    ],
    ['replay plan', () => inTraceWorker('replay', path)],
    ['maestro export', () => inTraceWorker('maestro', path)],
    ['xcuitest export', () => inTraceWorker('xcuitest', path)],
  ];
  const decoded: Decoded[] = [];
  for (const [decoder, run] of decoders) {
    try {
      const value = await run();
      decoded.push({ decoder, text: typeof value === 'string' ? value : JSON.stringify(value) });
    } catch (error) {
      if (!(error instanceof TraceOpenError))
        return { decoded, crash: `${decoder} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` };
      decoded.push({ decoder, refused: error });
    }
  }
  return { decoded };
}

/** Runs the corpus at `scale`: one report per trace. */
export async function runHostileCorpus(scale: Scale, onCase?: () => void): Promise<CorpusReport[]> {
  const dir = await mkdtemp(join(tmpdir(), 'parallax-hostile-corpus-'));
  const reports: CorpusReport[] = [];
  try {
    for (const [i, trace] of hostileTraces().entries()) {
      onCase?.();
      const started = performance.now();
      const path = join(dir, `case-${i}.parallax-trace`);
      await writeFile(path, trace.bytes(scale));
      const { decoded, crash } = await decodeAll(path);
      const failure = crash ?? (await trace.check?.(decoded, { path, scale }));
      reports.push({
        name: trace.name,
        outcomes: decoded.map((d) => `${d.decoder}: ${'refused' in d ? d.refused.code : 'ok'}`),
        ...(failure ? { failure } : {}),
        ms: Math.round(performance.now() - started),
      });
      await rm(path, { force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return reports;
}

import { describe, expect, it } from 'vitest';
import { encodeTraceEvent, encodeTraceManifest, TraceEncodeError } from '@shared/trace/encode';
import { buildTimeline, IN_FLIGHT_TEXT, parseManifest, readTraceEvents, TraceFormatError, validateManifest } from '@shared/trace/reader';
import { resourcePath, resourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';
import { failed } from '../support/results';

const R1 = resourceRef('a'.repeat(64));
const R2 = resourceRef('B'.repeat(64));
const S1 = resourceRef('0123456789abcdef'.repeat(4));
const T0 = 1_791_506_444_198;

const manifest: TraceManifest = {
  format: 'parallax-trace',
  version: 1,
  createdAt: '2026-10-08T09:20:44.198Z',
  device: { name: 'iPhone 17 (simulator)', kind: 'runner', url: 'ws://127.0.0.1:8765/ws' },
  app: { bundleId: 'com.apple.Preferences', name: 'Settings' },
};

/** A session on the golden Settings screen: observe, tap General, compare, a stale typing attempt, a note, a swipe cut off by a crash. */
const events: TraceEvent[] = [
  { type: 'observation', callId: 'hierarchy_1f0c', seq: 0, time: T0, observationRef: R1, screenshotRef: S1, backend: 'xctest' },
  {
    type: 'action.before',
    callId: 'tap_7a1e',
    seq: 1,
    time: T0 + 10,
    action: { kind: 'tap', durationMs: 0 },
    target: { nodeKey: '0.1.3.0', point: { x: 201, y: 406 } },
    observationRef: R1,
    screenshotRef: S1,
  },
  {
    type: 'action.after',
    callId: 'tap_7a1e',
    seq: 2,
    time: T0 + 160,
    result: { success: true, backend: 'xctest', timings: { dispatchMs: 120, settleMs: 30 } },
    observationRef: R2,
  },
  { type: 'observation', callId: 'hierarchy_22b9', seq: 3, time: T0 + 400, observationRef: R2 },
  {
    type: 'comparison',
    callId: 'compare_5c3d',
    seq: 4,
    time: T0 + 900,
    xctestObservationRef: R1,
    sdkObservationRef: R2,
    summary: { only_xctest: 1, only_sdk: 2, text_changed: 0, value_changed: 0, geometry_changed: 1, identity_added: 6 },
  },
  {
    type: 'action.before',
    callId: 'type_91aa',
    seq: 5,
    time: T0 + 1000,
    action: { kind: 'inputText', text: 'wifi' },
    target: { nodeKey: '0.2' },
    observationRef: R2,
  },
  {
    type: 'action.after',
    callId: 'type_91aa',
    seq: 6,
    time: T0 + 1050,
    result: { success: false, backend: 'sdk', failureReason: 'stale_observation' },
  },
  { type: 'note', callId: 'note_1', seq: 7, time: T0 + 1100, text: 'bridge answered stale; re-observing', level: 'warning' },
  {
    type: 'action.before',
    callId: 'swipe_0d4f',
    seq: 8,
    time: T0 + 1200,
    action: { kind: 'swipe', start: { x: 201, y: 700 }, end: { x: 201, y: 200 }, durationMs: 300 },
    observationRef: R2,
  },
  {
    type: 'action.after',
    callId: 'swipe_0d4f',
    seq: 9,
    time: T0 + 1600,
    result: { success: true, backend: 'xctest', fallbackReason: 'unsupported' },
  },
];

const jsonl = events.map((e) => encodeTraceEvent(e)).join('');

/** The same ten lines, the last cut off mid-write. */
function crashedTrace(): string {
  const lines = jsonl.split('\n');
  const last = lines[9]!;
  return `${lines.slice(0, 9).join('\n')}\n${last.slice(0, Math.floor(last.length / 2))}`;
}

describe('readTraceEvents', () => {
  it('reads what encodeTraceEvent wrote, one event per line', () => {
    expect(jsonl.split('\n')).toHaveLength(11); // ten lines and the final newline
    const read = readTraceEvents(jsonl);
    expect(read).toEqual({ ok: true, events, truncatedTail: false });
  });

  it('keeps everything before a last line cut off by a crash, and says so', () => {
    const read = readTraceEvents(crashedTrace());
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.truncatedTail).toBe(true);
    expect(read.events).toHaveLength(9);
    expect(read.events).toEqual(events.slice(0, 9));
  });

  it('treats zero bytes after the last line as a crash too', () => {
    const read = readTraceEvents(`${jsonl}\u0000\u0000\u0000\u0000`);
    expect(read).toMatchObject({ ok: true, truncatedTail: false });
    const cut = readTraceEvents(`${jsonl.split('\n').slice(0, 3).join('\n')}\n{"type":"obs\u0000\u0000\u0000\n\u0000\u0000`);
    expect(cut).toMatchObject({ ok: true, truncatedTail: true });
    if (cut.ok) expect(cut.events).toHaveLength(3);
  });

  it('tolerates CRLF line ends, a BOM and blank lines', () => {
    const text = `\ufeff${jsonl.split('\n').join('\r\n')}\r\n\r\n`;
    expect(readTraceEvents(text)).toEqual({ ok: true, events, truncatedTail: false });
  });

  it('names the line of a damaged line in the middle', () => {
    const lines = jsonl.split('\n');
    lines[3] = lines[3]!.slice(0, 20);
    const read = readTraceEvents(lines.join('\n'));
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error).toBeInstanceOf(TraceFormatError);
    expect(read.error).toMatchObject({ file: 'events.jsonl', line: 4, field: '' });
    expect(read.error.message).toMatch(/^events\.jsonl line 4: not JSON/);
    expect(read.events).toHaveLength(3);
  });

  it('does not mistake a complete garbage last line for a crash', () => {
    const read = readTraceEvents(`${jsonl}this is not json\n`);
    expect(read).toMatchObject({ ok: false, error: { line: 11, field: '' } });
  });

  it('names the field of a line that does not fit the schema', () => {
    const broken = jsonl.split('\n');
    broken[2] = broken[2]!.replace('"success":true', '"success":"yes"');
    const read = readTraceEvents(broken.join('\n'));
    expect(read).toMatchObject({ ok: false, error: { line: 3, field: 'result.success' } });
    expect(failed(read).message).toMatch(/^events\.jsonl line 3, result\.success: /);

    const badRef = jsonl.split('\n');
    badRef[0] = badRef[0]!.replace(R1, 'sha1:abc');
    expect(readTraceEvents(badRef.join('\n'))).toMatchObject({ ok: false, error: { line: 1, field: 'observationRef' } });
  });

  it('rejects unknown event types and events out of order', () => {
    const unknown = readTraceEvents('{"type":"teleport","callId":"x","seq":0,"time":1}\n');
    expect(unknown).toMatchObject({ ok: false, error: { line: 1, field: 'type', reason: "unknown event type 'teleport'" } });
    const lines = jsonl.split('\n');
    [lines[4], lines[5]] = [lines[5]!, lines[4]!];
    expect(readTraceEvents(lines.join('\n'))).toMatchObject({ ok: false, error: { line: 6, field: 'seq' } });
  });

  it('says a foreign JSON Lines file is probably not a trace', () => {
    const read = readTraceEvents('{"level":"info","msg":"server started","port":8765}\n{"level":"info","msg":"ready"}\n');
    expect(read.ok).toBe(false);
    expect(failed(read).message).toBe('events.jsonl line 1, type: missing event type; is this a Parallax trace?');
  });

  it('reads a comparison summary from an older or newer writer', () => {
    const line = JSON.stringify({
      type: 'comparison',
      callId: 'c',
      seq: 0,
      time: 1,
      xctestObservationRef: R1,
      sdkObservationRef: R2,
      summary: { only_sdk: 3, style_changed: 2 },
    });
    const read = readTraceEvents(line);
    expect(read.ok && read.events[0]?.type === 'comparison' && read.events[0].summary).toEqual({
      only_xctest: 0,
      only_sdk: 3,
      text_changed: 0,
      value_changed: 0,
      geometry_changed: 0,
      identity_added: 0,
      style_changed: 2,
    });
  });

  it('keeps UInt64 identities in actions exact', () => {
    const line = '{"type":"action.before","callId":"sdk_1","seq":0,"time":1,"action":{"kind":"tap","observationIdentity":18446744073709551615}}';
    const read = readTraceEvents(line);
    expect(read.ok && read.events[0]?.type === 'action.before' && read.events[0].action['observationIdentity']).toBe('18446744073709551615');
  });
});

describe('buildTimeline', () => {
  it('pairs before and after by call id and marks the unfinished step', () => {
    const read = readTraceEvents(crashedTrace());
    if (!read.ok) throw read.error;
    const steps = buildTimeline(read.events);
    expect(steps.map((s) => [s.callId, s.kind, s.status])).toEqual([
      ['hierarchy_1f0c', 'observation', 'recorded'],
      ['tap_7a1e', 'action', 'succeeded'],
      ['hierarchy_22b9', 'observation', 'recorded'],
      ['compare_5c3d', 'comparison', 'recorded'],
      ['type_91aa', 'action', 'failed'],
      ['note_1', 'note', 'recorded'],
      ['swipe_0d4f', 'action', 'in_flight'],
    ]);
    const [, tap, , , typing, , swipe] = steps;
    expect(tap).toMatchObject({ statusText: 'succeeded via xctest', durationMs: 150, before: events[1], after: events[2] });
    expect(typing?.statusText).toBe('failed: stale_observation via sdk');
    expect(swipe).toMatchObject({ statusText: IN_FLIGHT_TEXT, before: events[8] });
    expect(swipe?.after).toBeUndefined();
    expect(swipe?.durationMs).toBeUndefined();
    expect(IN_FLIGHT_TEXT).toBe('in flight when the trace stopped');
  });

  it('reports the fallback of a finished step, and an after without a before', () => {
    const steps = buildTimeline(events.slice(9));
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ status: 'succeeded', statusText: 'succeeded via xctest (fallback: unsupported)' });
    expect(steps[0]!.warnings).toEqual(['action.after without its action.before']);
  });
});

describe('manifest', () => {
  it('round-trips through encodeTraceManifest and parseManifest', () => {
    const { format: _format, version: _version, ...rest } = manifest;
    const text = encodeTraceManifest(rest);
    expect(parseManifest(text)).toEqual({ ok: true, manifest });
  });

  it('calls a foreign file what it is', () => {
    const foreign = validateManifest({ format: 'x', version: 1 });
    expect(foreign.ok).toBe(false);
    expect(failed(foreign).message).toBe("manifest.json, format: not a Parallax trace: manifest.format is 'x', expected 'parallax-trace'");
    const pkg = validateManifest({ name: 'parallax', version: '0.1.0' });
    expect(failed(pkg).reason).toBe("not a Parallax trace: manifest.format is missing, expected 'parallax-trace'");
    expect(pkg.ok).toBe(false);
    const notJson = parseManifest('PK\u0003\u0004 zip bytes');
    expect(failed(notJson).reason).toMatch(/^not a Parallax trace: the manifest is not JSON/);
    expect(notJson.ok).toBe(false);
    const array = validateManifest([]);
    expect(failed(array).reason).toBe('not a Parallax trace: the manifest is an array, not a JSON object');
  });

  it('names a newer version and a damaged field', () => {
    const newer = validateManifest({ ...manifest, version: 2 });
    expect(failed(newer).reason).toMatch(/version 2 was written by a newer Parallax/);
    expect(newer.ok).toBe(false);
    const damaged = validateManifest({ ...manifest, device: { ...manifest.device, kind: 3 } });
    expect(damaged).toMatchObject({ ok: false, error: { field: 'device.kind' } });
    const date = validateManifest({ ...manifest, createdAt: 'yesterday' });
    expect(date).toMatchObject({ ok: false, error: { field: 'createdAt' } });
  });

  it('refuses a device URL with a token, and the writer strips it', () => {
    const url = 'http://127.0.0.1:4723/?appreveal_session_token=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    expect(validateManifest({ ...manifest, device: { ...manifest.device, url } })).toMatchObject({ ok: false, error: { field: 'device.url' } });
    const text = encodeTraceManifest({ createdAt: manifest.createdAt, device: { ...manifest.device, url } });
    expect(text).not.toContain('9f86d081');
    expect(parseManifest(text)).toMatchObject({ ok: true, manifest: { device: { url: 'http://127.0.0.1:4723/' } } });
  });
});

describe('encodeTraceEvent', () => {
  it('refuses an event that would not read back', () => {
    const bad = { type: 'observation', callId: 'x', seq: 0, time: 1, observationRef: 'sha256:short' } as unknown as TraceEvent;
    expect(() => encodeTraceEvent(bad)).toThrow(TraceEncodeError);
  });

  it('redacts before writing', () => {
    const line = encodeTraceEvent({
      type: 'action.before',
      callId: 'tap_1',
      seq: 0,
      time: 1,
      action: { kind: 'openLink', url: 'myapp://login?token=abcdef123456&next=home', authToken: 'abcdef123456' },
    });
    expect(line).not.toContain('abcdef123456');
    expect(line).toContain('myapp://login?next=home');
  });
});

describe('resources', () => {
  it('names resources by content address', () => {
    expect(R2).toBe(`sha256:${'b'.repeat(64)}`);
    expect(resourcePath(R1, 'observation')).toBe(`resources/${'a'.repeat(64)}.json`);
    expect(resourcePath(S1, 'screenshot')).toBe(`resources/${'0123456789abcdef'.repeat(4)}.png`);
    expect(() => resourceRef('abc')).toThrow(/not a SHA-256 digest/);
  });
});

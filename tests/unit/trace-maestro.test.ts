import { describe, expect, it } from 'vitest';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { goldenHierarchy } from '../support/golden';
import { encodeTraceEvent } from '@shared/trace/encode';
import { escapeRegex, exportMaestroFlow, yamlString } from '@shared/trace/maestro';
import { buildTimeline, readTraceEvents } from '@shared/trace/reader';
import { resourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';

const loadGolden = (): ViewHierarchy => goldenHierarchy();

function at(root: UiNode, key: string): UiNode {
  let node = root;
  for (const part of key.split('.').slice(1)) node = node.node![Number(part)]!;
  return node;
}

// ---- A tiny reader for the YAML subset the exporter writes ------------------------------------------

/** A quoted scalar back to its string: single quotes double themselves; double quotes use JSON escapes. */
function unquote(scalar: string): string {
  if (scalar.startsWith("'")) {
    expect(scalar.endsWith("'")).toBe(true);
    const inner = scalar.slice(1, -1);
    expect(inner.replaceAll("''", '')).not.toContain("'");
    return inner.replaceAll("''", "'");
  }
  if (scalar.startsWith('"')) return JSON.parse(scalar) as string;
  return scalar;
}

interface Command {
  name: string;
  value?: string;
  fields: Record<string, string>;
}

/** The commands of the flow after `---`, each with its value (`- inputText: 'x'`) or fields (`    id: 'x'`). */
function parseFlow(yaml: string): { appId: string; commands: Command[]; comments: string[] } {
  const lines = yaml.split('\n');
  expect(lines.at(-1)).toBe('');
  const comments: string[] = [];
  const commands: Command[] = [];
  let appId: string | undefined;
  let inBody = false;
  for (const line of lines.slice(0, -1)) {
    // A valid flow has no raw line break or control character inside any scalar.
    expect(line).not.toMatch(/[\u0000-\u001f\u2028\u2029]/);
    if (line.startsWith('#')) {
      comments.push(line);
      continue;
    }
    if (line === '---') {
      inBody = true;
      continue;
    }
    if (!inBody) {
      const m = /^appId: (.*)$/.exec(line);
      expect(m, line).not.toBeNull();
      appId = unquote(m![1]!);
      continue;
    }
    const command = /^- ([A-Za-z]+)(?::(?: (.+))?)?$/.exec(line);
    if (command) {
      commands.push({ name: command[1]!, ...(command[2] === undefined ? {} : { value: unquote(command[2]) }), fields: {} });
      continue;
    }
    const field = /^( {4,})([A-Za-z]+):(?: (.+))?$/.exec(line);
    expect(field, `unexpected line ${JSON.stringify(line)}`).not.toBeNull();
    const current = commands.at(-1)!;
    if (field![3] !== undefined) current.fields[field![2]!] = unquote(field![3]);
  }
  expect(appId).toBeDefined();
  return { appId: appId!, commands, comments };
}

// ---- The trace --------------------------------------------------------------------------------------

const golden = loadGolden();
const goldenRoot = golden.hierarchy!;
const SCREEN_1 = resourceRef('1'.repeat(64));
const SCREEN_2 = resourceRef('2'.repeat(64));

/** The same screen after the app reused the General id on the Camera row (an id no longer unique). */
const duplicated = structuredClone(golden);
at(duplicated.hierarchy!, '0.1.7.0')['resource-id'] = 'com.apple.settings.general';

const manifest: TraceManifest = {
  format: 'parallax-trace',
  version: 1,
  createdAt: '2026-10-08T09:20:44.198Z',
  device: { name: 'iPhone 17 (simulator)', kind: 'runner', url: 'ws://127.0.0.1:8765/ws' },
  app: { bundleId: 'com.apple.Preferences' },
};

const TYPED = "He said \"hi\" \\ it's a 'test'\nsecond line\u2028(done)";

let seq = 0;
function action(
  callId: string,
  screen: string,
  body: Omit<Extract<TraceEvent, { type: 'action.before' }>, 'type' | 'callId' | 'seq' | 'time' | 'observationRef'>,
  result?: Record<string, unknown>,
): TraceEvent[] {
  const before: TraceEvent = { type: 'action.before', callId, seq: seq++, time: 1000 + seq, observationRef: screen, ...body };
  if (!result) return [before];
  return [before, { type: 'action.after', callId, seq: seq++, time: 1000 + seq, result: { success: true, backend: 'xctest', ...result } }];
}

const events: TraceEvent[] = [
  ...action('launch_1', SCREEN_1, { action: { kind: 'launchApp', bundleId: 'com.apple.Preferences' } }, {}),
  // id is unique on the screen: id.
  ...action('tap_1', SCREEN_1, { action: { kind: 'tap' }, target: { nodeKey: '0.1.3.0' } }, {}),
  // id shared with the General row on this screen, text unique: text.
  ...action('tap_2', SCREEN_2, { action: { kind: 'tap' }, target: { nodeKey: '0.1.7.0' } }, {}),
  // "chevron.forward" eleven times and no text: a point, as percentages.
  ...action('tap_3', SCREEN_1, { action: { kind: 'longPress', durationMs: 800 }, target: { nodeKey: '0.1.3.0.1' } }, {}),
  // "Search" is shown by three nodes: the focus tap falls back to a point; the text needs escaping.
  ...action('type_1', SCREEN_1, { action: { kind: 'inputText', text: TYPED }, target: { nodeKey: '0.2' } }, {}),
  // Typed into a secure field: the writer's redaction removed the text.
  ...action(
    'type_2',
    SCREEN_1,
    { action: { kind: 'inputText', text: 'hunter2hunter2' }, target: { node: { className: 'UISecureTextField', password: 'true' } } },
    {},
  ),
  ...action('key_1', SCREEN_1, { action: { kind: 'pressKey', key: 'tab' } }, {}),
  ...action('ime_1', SCREEN_1, { action: { kind: 'imeAction', action: 'search' } }, {}),
  ...action('swipe_1', SCREEN_1, { action: { kind: 'swipe', start: { x: 201, y: 700 }, end: { x: 201, y: 200 }, durationMs: 300 } }, { backend: 'sdk' }),
  ...action(
    'tap_4',
    SCREEN_1,
    { action: { kind: 'tap' }, target: { nodeKey: '0.1.4.0' } },
    { success: false, backend: 'sdk', failureReason: 'stale_observation' },
  ),
  ...action('back_1', SCREEN_1, { action: { kind: 'back' } }, {}),
  { type: 'note', callId: 'note_1', seq: seq++, time: 2000, text: 'checked the\nGeneral screen' },
  ...action('tap_5', SCREEN_1, { action: { kind: 'tap' }, target: { nodeKey: '0.1.5.0' } }),
];

/** Through the real write and read path, so redaction and the schema apply as they will on disk. */
const read = readTraceEvents(events.map((e) => encodeTraceEvent(e)).join(''));
if (!read.ok) throw read.error;
const steps = buildTimeline(read.events);
const flow = exportMaestroFlow(
  manifest,
  steps,
  new Map<string, unknown>([
    [SCREEN_1, golden],
    [SCREEN_2, { deviceId: 'sim', hierarchy: duplicated, screenshot: null, receivedAt: 1 }],
  ]),
);
const parsed = parseFlow(flow.yaml);

describe('exportMaestroFlow', () => {
  it('starts with the app id and the document separator', () => {
    expect(
      flow.yaml
        .split('\n')
        .filter((l) => !l.startsWith('#'))
        .slice(0, 2),
    ).toEqual(["appId: 'com.apple.Preferences'", '---']);
    expect(parsed.appId).toBe('com.apple.Preferences');
    expect(flow.warnings).toEqual([]);
  });

  it('picks id when it is unique, text when the id is duplicated, and a point when neither is unique', () => {
    const taps = parsed.commands.filter((c) => c.name === 'tapOn' || c.name === 'longPressOn');
    expect(taps[0]).toEqual({ name: 'tapOn', fields: { id: 'com\\.apple\\.settings\\.general' } });
    expect(at(goldenRoot, '0.1.7.0').text).toBe('Camera');
    expect(taps[1]).toEqual({ name: 'tapOn', fields: { text: 'Camera' } });
    // The chevron at [360,400,367,412] on a 402×874 screen: its centre in whole percentages still lands on it.
    expect(taps[2]).toEqual({ name: 'longPressOn', fields: { point: '90%, 46%' } });
    expect(taps[3]).toEqual({ name: 'tapOn', fields: { point: '50%, 94%' } });
  });

  it('writes typed text so that it reads back exactly', () => {
    const input = parsed.commands.find((c) => c.name === 'inputText');
    expect(input?.value).toBe(TYPED);
    expect(flow.yaml).toContain('- inputText: "He said \\"hi\\" \\\\ it\'s a \'test\'\\nsecond line\\u2028(done)"');
  });

  it('exports keys, swipes and the launch', () => {
    const names = parsed.commands.map((c) => c.name);
    expect(names).toEqual(['launchApp', 'tapOn', 'tapOn', 'longPressOn', 'tapOn', 'inputText', 'pressKey', 'swipe']);
    // R-HAND-03: Tab does nothing on iOS in Maestro (IOSDriver.kt pressKey): a comment, not a command.
    expect(parsed.commands.filter((c) => c.name === 'pressKey').map((c) => c.value)).toEqual(['Enter']);
    expect(parsed.commands.find((c) => c.name === 'swipe')?.fields).toEqual({ start: '50%, 80%', end: '50%, 23%', duration: '300' });
  });

  it('notes every step with no Maestro form, in the YAML and in notes', () => {
    expect(flow.notes.map((n) => [n.callId, n.note])).toEqual([
      // The secret is typed as a variable; the field itself, with no id, text or point, cannot be focused.
      ['type_2', 'cannot focus the field: the target has no unique id or text on the recorded screen, and no point'],
      ['key_1', "pressKey: Tab is not exported: Maestro's iOS driver does nothing for it (IOSDriver.kt pressKey acts on Backspace, Enter, Home and Lock only)"],
      ['tap_4', 'not exported: the action failed: stale_observation via sdk'],
      ['back_1', "Maestro's back exists only on Android; on iOS tap the screen's back button instead"],
      ['tap_5', 'not exported: the action was in flight when the trace stopped, so whether it ran is unknown'],
    ]);
    // R-QA-10: notes are numbered as the filmstrip numbers its steps, 1-based over the actions.
    const filmstrip = steps.filter((step) => step.kind === 'action' && step.before);
    for (const n of flow.notes) {
      const step = filmstrip[n.step! - 1]!;
      expect(step.callId).toBe(n.callId);
      expect(parsed.comments).toContain(`# Parallax: step ${n.step} (${step.before?.action.kind}): ${n.note}`);
    }
    expect(flow.notes.at(-1)).toMatchObject({ callId: 'tap_5', step: 12 });
    expect(parsed.comments).toContain('# checked the General screen');
    expect(flow.yaml).not.toContain('hunter2');
  });
});

describe('YAML and regex quoting', () => {
  it('round-trips awkward strings', () => {
    for (const text of [
      '',
      'plain',
      "it's",
      'a "quote"',
      'back\\slash',
      'tab\there',
      'line\nbreak',
      'nel\u0085',
      'del\u007f',
      '\u2029',
      'emoji 🙂',
      '# not a comment',
      ': colon',
      '- dash',
      '@at',
      'null',
      'true',
      '50%, 50%',
    ]) {
      expect(unquote(yamlString(text)), JSON.stringify(text)).toBe(text);
      expect(yamlString(text)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    }
  });

  it('escapes regex metacharacters for Maestro selectors', () => {
    const text = 'Screen Time (2h) + $4.99 [sale] {x} a|b ^ * ? \\';
    expect(escapeRegex(text)).toBe('Screen Time \\(2h\\) \\+ \\$4\\.99 \\[sale\\] \\{x\\} a\\|b \\^ \\* \\? \\\\');
    expect(new RegExp(`^(?:${escapeRegex(text)})$`).test(text)).toBe(true);
  });

  it('uses points when whole percentages would miss a small target', () => {
    const tiny: UiNode = {
      className: 'XCUIApplication',
      bounds: { left: 0, top: 0, right: 402, bottom: 874 },
      node: [
        { className: 'UIButton', 'resource-id': 'dot', bounds: { left: 100, top: 100, right: 102, bottom: 102 } },
        { className: 'UIButton', 'resource-id': 'dot', bounds: { left: 0, top: 0, right: 2, bottom: 2 } },
      ],
    };
    const ref = resourceRef('3'.repeat(64));
    const timeline = buildTimeline([
      { type: 'action.before', callId: 't', seq: 0, time: 0, action: { kind: 'tap' }, target: { nodeKey: '0.0' }, observationRef: ref },
      { type: 'action.after', callId: 't', seq: 1, time: 1, result: { success: true } },
    ]);
    const out = exportMaestroFlow({ ...manifest, app: undefined }, timeline, {
      [ref]: { hierarchy: tiny, screenWidth: 402, screenHeight: 874, packageName: 'com.example.dots' },
    });
    expect(parseFlow(out.yaml)).toMatchObject({ appId: 'com.example.dots', commands: [{ name: 'tapOn', fields: { point: '101, 101' } }] });
  });

  it('warns when the trace names no app', () => {
    const out = exportMaestroFlow({ ...manifest, app: undefined }, [], {});
    expect(out.warnings).toEqual(['the trace names no app; set appId before running this flow']);
    expect(out.yaml).toContain("appId: ''");
  });
});

/**
 * Text equals and value equals in the Maestro export (docs/rules.md#r-asrt-02), held to what Maestro
 * itself would do with the flow on the recorded screen. On iOS Maestro's `text:` is matched against the
 * label (`accessibilityText`), the title else the value (`text`) and the placeholder (`hintText`):
 * IOSDriver.kt `mapViewHierarchy` l. 170–174 and Filters.kt `textMatches` l. 60, 71, 82
 * (mobile-dev-inc/maestro). The flow each case writes is read back by Maestro's reader
 * (maestro-flow.ts) and its selector run by Maestro's rules (maestro-match.ts) on screens where the
 * field holds the value and where it does not: the flow passes exactly where the assertion holds.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { encodeTraceEvent } from '@shared/trace/encode';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { readMaestroFlow } from '@shared/trace/maestro-flow';
import { buildTimeline, readTraceEvents } from '@shared/trace/reader';
import { resourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';
import { maestroCount } from '../support/maestro-oracle';
import type { MaestroSelector } from '@shared/selectors/maestro';

const manifest: TraceManifest = {
  format: 'parallax-trace',
  version: 1,
  createdAt: '2026-12-03T00:00:00.000Z',
  device: { name: 'Demo iPhone', kind: 'demo', url: 'ws://127.0.0.1:1/ws' },
  app: { bundleId: 'dev.parallax.demo' },
};
const SCREEN = resourceRef('a'.repeat(64));

interface Field {
  id?: string;
  label?: string;
  value?: string;
  placeholder?: string;
}

/** A sign-in screen as the real runner writes it: identifier in resource-id, label in text, value, hint-text. */
function screen(fields: Field[]): ViewHierarchy {
  const children: UiNode[] = fields.map((f, i) => ({
    className: 'XCUIElementTypeTextField',
    ...(f.id !== undefined ? { 'resource-id': f.id } : {}),
    ...(f.label !== undefined ? { text: f.label } : {}),
    ...(f.value !== undefined ? { value: f.value } : {}),
    ...(f.placeholder !== undefined ? { 'hint-text': f.placeholder } : {}),
    bounds: { left: 16, top: 100 + 60 * i, right: 386, bottom: 144 + 60 * i },
    enabled: 'true',
  }));
  const root: UiNode = { className: 'XCUIElementTypeApplication', text: 'Demo', bounds: { left: 0, top: 0, right: 402, bottom: 874 }, node: children };
  return { hierarchy: root } as ViewHierarchy;
}

const LOGIN: Field[] = [
  { id: 'login.username', label: 'Username', value: 'qa.reveal', placeholder: 'name@example.com' },
  { id: 'login.email', label: 'Email', value: 'qa@example.com', placeholder: 'Email' },
];

/** One recorded assertion on `fields` (its target the field at `index`), exported as a Maestro flow. */
function exported(fields: Field[], index: number, check: string, expected: string) {
  const f = fields[index]!;
  const xctest: Record<string, string> = { className: 'XCUIElementTypeTextField' };
  if (f.id !== undefined) xctest['resource-id'] = f.id;
  if (f.label !== undefined) xctest['text'] = f.label;
  const events: TraceEvent[] = [
    {
      type: 'action.before',
      callId: 'assert_1',
      seq: 0,
      time: 1000,
      observationRef: SCREEN,
      action: { kind: 'assert', check, expected },
      target: { nodeKey: `0.${index}`, xctest, selector: f.id !== undefined ? { id: f.id } : { text: f.label ?? '' } },
    },
    { type: 'action.after', callId: 'assert_1', seq: 1, time: 1100, result: { success: true, backend: 'xctest', warnings: [] } },
  ];
  const read = readTraceEvents(events.map((e) => encodeTraceEvent(e)).join(''));
  if (!read.ok) throw read.error;
  return exportMaestroFlow(manifest, buildTimeline(read.events), new Map([[SCREEN, screen(fields)]]));
}

/** The flow's one assertVisible, as Maestro's reader reads it; undefined when the export wrote none. */
function assertion(yaml: string): MaestroSelector | undefined {
  const flow = readMaestroFlow(yaml);
  const args = flow.commands.find((c) => c.name === 'assertVisible')?.args;
  if (!args) return undefined;
  const selector: MaestroSelector = {};
  if (typeof args['id'] === 'string') selector.id = args['id'];
  if (typeof args['text'] === 'string') selector.text = args['text'];
  expect(Object.keys(args).filter((k) => k !== 'id' && k !== 'text')).toEqual([]);
  return selector;
}

/** Whether Maestro's assertVisible with `selector` passes on `fields` (it finds at least one element). */
const passesOn = (selector: MaestroSelector, fields: Field[]) => maestroCount(selector, screen(fields).hierarchy!) > 0;

describe('R-ASRT-02: value equals in the Maestro export, as Maestro reads a text field on iOS', () => {
  it('is assertVisible with the field’s id and its value as text: (the value is the text attribute)', () => {
    const flow = exported(LOGIN, 0, 'valueEquals', 'qa.reveal');
    expect(flow.yaml).toContain("- assertVisible:\n    id: 'login\\.username'\n    text: 'qa\\.reveal'\n");
    expect(flow.notes).toEqual([]);
    const selector = assertion(flow.yaml)!;
    // Maestro passes where the field holds the value, fails where it holds another or none.
    expect(passesOn(selector, LOGIN)).toBe(true);
    expect(passesOn(selector, [{ ...LOGIN[0]!, value: 'someone.else' }, LOGIN[1]!])).toBe(false);
    expect(passesOn(selector, [{ ...LOGIN[0]!, value: undefined }, LOGIN[1]!])).toBe(false);
    // Another field holding the value does not pass it: the id still picks the element.
    expect(
      passesOn(selector, [
        { ...LOGIN[0]!, value: '' },
        { ...LOGIN[1]!, value: 'qa.reveal' },
      ]),
    ).toBe(false);
  });

  it('escapes the value: Maestro’s text: is a regex matched against the whole string', () => {
    const fields: Field[] = [{ id: 'search.field', label: 'Search', value: 'a+b (1)' }];
    const flow = exported(fields, 0, 'valueEquals', 'a+b (1)');
    expect(flow.yaml).toContain("    text: 'a\\+b \\(1\\)'\n");
    const selector = assertion(flow.yaml)!;
    expect(passesOn(selector, fields)).toBe(true);
    expect(passesOn(selector, [{ ...fields[0]!, value: 'aab (1)' }])).toBe(false);
    expect(passesOn(selector, [{ ...fields[0]!, value: 'a+b (1) more' }])).toBe(false);
  });

  it('a field known by its label alone: the label gives way to the value when the value finds it alone', () => {
    const fields: Field[] = [
      { label: 'Username', value: 'qa.reveal' },
      { label: 'Email', value: 'qa@example.com' },
    ];
    const flow = exported(fields, 0, 'valueEquals', 'qa.reveal');
    const selector = assertion(flow.yaml)!;
    expect(selector).toEqual({ text: 'qa\\.reveal' });
    expect(passesOn(selector, fields)).toBe(true);
    expect(passesOn(selector, [{ ...fields[0]!, value: 'x' }, fields[1]!])).toBe(false);
  });

  it('a value that does not single the element out on the recorded screen is a note, not a flow that checks another', () => {
    const fields: Field[] = [
      { label: 'Username', value: 'same' },
      { label: 'Nickname', value: 'same' },
    ];
    const flow = exported(fields, 0, 'valueEquals', 'same');
    expect(assertion(flow.yaml)).toBeUndefined();
    expect(flow.notes[0]?.note).toBe(
      'cannot assert the value in Maestro: its text: "same" with the rest of the selector finds 2 elements on the recorded screen, not this one alone',
    );
  });

  it('a value that is also the label or placeholder is written with a comment: Maestro cannot tell them apart', () => {
    const fields: Field[] = [{ id: 'login.email', label: 'Email', value: 'Email', placeholder: 'Email' }];
    const flow = exported(fields, 0, 'valueEquals', 'Email');
    expect(flow.yaml).toContain('# Parallax: step 1: Maestro\'s text: matches the label too, which is also "Email": this check cannot tell them apart\n');
    const selector = assertion(flow.yaml)!;
    // Filters.kt textMatches: the label (accessibilityText) alone passes it, whatever the value.
    expect(passesOn(selector, [{ ...fields[0]!, value: 'typed' }])).toBe(true);
  });

  it('an empty value is a note: text: "" matches the empty placeholder every element without one has', () => {
    const flow = exported([{ id: 'login.username', label: 'Username', value: '' }], 0, 'valueEquals', '');
    expect(assertion(flow.yaml)).toBeUndefined();
    expect(flow.notes[0]?.note).toMatch(/^cannot assert an empty value in Maestro: text: '' also matches/);
  });

  it('text equals keeps its form: the id and the label as text:, passing where the label is that text', () => {
    const flow = exported(LOGIN, 1, 'textEquals', 'Email');
    expect(flow.yaml).toContain("- assertVisible:\n    id: 'login\\.email'\n    text: 'Email'\n");
    const selector = assertion(flow.yaml)!;
    expect(passesOn(selector, LOGIN)).toBe(true);
    expect(passesOn(selector, [LOGIN[0]!, { ...LOGIN[1]!, label: 'E-mail', placeholder: '' }])).toBe(false);
  });
});

/**
 * The first step of a recording that started before any read (docs/rules.md#r-secret-09): no screen
 * before it, so whether the typed text is a secret is decided by what else is known (the request, the
 * device's read after the typing, the result), and the Maestro export keeps the step either way.
 *
 * The trees are the iOS AppReveal form (ElementInventory.swift `classifyView`): every UITextField is a
 * `textField`, a secure one's value is bullets.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { traceActionFor } from '@shared/trace/action-record';
import { encodeTraceEvent } from '@shared/trace/encode';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { exportXcuiTest } from '@shared/trace/xcuitest';
import { readMaestroFlow } from '@shared/trace/maestro-flow';
import { evaluateScripts } from '@shared/trace/maestro-handoff';
import { buildTimeline, readTraceEvents } from '@shared/trace/reader';
import type { TraceEvent, TraceManifest } from '@shared/trace/schema';

const USERNAME = 'qa.first-step-user';
const PASSWORD = 'Fs7pw!first';

function field(id: string, label: string, value: string | undefined, top: number): UiNode {
  return {
    className: 'textField',
    role: 'textfield',
    'content-desc': label,
    'resource-id': id,
    ...(value !== undefined ? { value } : {}),
    bounds: { left: 16, top, right: 386, bottom: top + 44 },
  } as UiNode;
}

/** The login screen as AppReveal reads it after `typed` went into the fields. */
function loginAfter(typed: { username?: string; password?: string }): UiNode {
  return {
    className: 'view',
    bounds: { left: 0, top: 0, right: 402, bottom: 874 },
    node: [
      field('login.username', 'Username', typed.username, 222),
      field('login.password', 'Password', typed.password === undefined ? undefined : '•'.repeat(typed.password.length), 266),
    ],
  } as UiNode;
}

const typeInto = (id: string, text: string): ActionRequest => ({ action: 'sendKeys', target: { id }, steps: [{ kind: 'type', text }] });
const ok = (extra: Partial<ActionResult['target']> = {}): ActionResult =>
  ({ success: true, backend: 'sdk', target: { resolvedBy: 'screen', ...extra }, timings: {}, warnings: [] }) as unknown as ActionResult;

describe('R-SECRET-09: the first step, with no screen before it', () => {
  it('R-SECRET-09: a username typed with no before-screen is kept when the read after shows the field with the text', () => {
    const { action } = traceActionFor(typeInto('login.username', USERNAME), undefined, { after: loginAfter({ username: USERNAME }), result: ok() });
    expect(action['steps']).toEqual([{ kind: 'type', text: USERNAME }]);
    expect(action['text']).toBe(USERNAME);
    expect(action['secretUnknown']).toBeUndefined();
  });

  it('R-SECRET-09: a password typed with no before-screen is a secret when the read after shows bullets in the field', () => {
    const { action } = traceActionFor(typeInto('login.password', PASSWORD), undefined, {
      after: loginAfter({ username: USERNAME, password: PASSWORD }),
      result: ok(),
    });
    expect(action['steps']).toEqual([{ kind: 'type', secret: true }]);
    expect(JSON.stringify(action)).not.toContain(PASSWORD);
    // A secret field is a secret, not an unknown.
    expect(action['secretUnknown']).toBeUndefined();
  });

  it("R-SECRET-09: the device's own read of the field (the result's target secret) says secret with no tree at all", () => {
    const { action } = traceActionFor(typeInto('login.password', PASSWORD), undefined, { result: ok({ secret: true }) });
    expect(JSON.stringify(action)).not.toContain(PASSWORD);
    expect(action['secretUnknown']).toBeUndefined();
  });

  it('R-SECRET-09: typing into the focused field (no target) is judged by the field that has the focus after', () => {
    const after = loginAfter({ username: USERNAME });
    (after.node![0] as Record<string, unknown>)['focused'] = 'true';
    const request: ActionRequest = { action: 'sendKeys', steps: [{ kind: 'type', text: USERNAME }] };
    expect(traceActionFor(request, undefined, { after }).action['steps']).toEqual([{ kind: 'type', text: USERNAME }]);
  });

  it('R-SECRET-09: when no read saw the field (no screen before, none after), the text is left out and the step says it is unknown', () => {
    const { action, target } = traceActionFor(typeInto('login.username', USERNAME), undefined, { result: ok() });
    expect(JSON.stringify(action)).not.toContain(USERNAME);
    expect(action['steps']).toEqual([{ kind: 'type', secret: true }]);
    expect(action['secretUnknown']).toBe(true);
    // The target is still what the user asked for.
    expect(target?.selector).toEqual({ id: 'login.username' });
    // A read after that does not show the field knows no more.
    expect(traceActionFor(typeInto('login.other', USERNAME), undefined, { after: loginAfter({}) }).action['secretUnknown']).toBe(true);
  });

  it('R-SECRET-09: a web_type with no screen before or after fails closed too (it used to keep its text)', () => {
    const request: ActionRequest = { action: 'webTool', tool: 'web_type', selector: '#pw', text: PASSWORD } as ActionRequest;
    const { action } = traceActionFor(request, undefined, {});
    expect(JSON.stringify(action)).not.toContain(PASSWORD);
    expect(action).toMatchObject({ secret: true, secretUnknown: true });
  });
});

// ---- The Maestro export of such a recording --------------------------------------------------------

const manifest: TraceManifest = {
  format: 'parallax-trace',
  version: 1,
  createdAt: '2026-12-03T07:00:00.000Z',
  device: { name: 'Demo iPhone (AppReveal)', kind: 'appreveal', url: 'http://127.0.0.1:7777' },
  app: { bundleId: 'dev.parallax.demo' },
} as TraceManifest;

/** A recording whose first two steps have no screen before them: one the read after explains, one nothing does. */
function recording(): { yaml: string; variables: string[]; notes: string[]; swift: string; swiftNotes: string[] } {
  let seq = 0;
  const events: TraceEvent[] = [];
  const add = (callId: string, request: ActionRequest, known: { after?: UiNode; result: ActionResult }) => {
    const { action, target } = traceActionFor(request, undefined, known);
    events.push({ type: 'action.before', callId, seq: seq++, time: 1000 + seq, action, ...(target ? { target } : {}) } as TraceEvent);
    events.push({ type: 'action.after', callId, seq: seq++, time: 1000 + seq, result: known.result } as TraceEvent);
  };
  add('c1', typeInto('login.username', USERNAME), { after: loginAfter({ username: USERNAME }), result: ok() });
  add('c2', typeInto('login.password', PASSWORD), { result: ok() });
  const read = readTraceEvents(events.map((e) => encodeTraceEvent(e)).join(''));
  if (!read.ok) throw read.error;
  const steps = buildTimeline(read.events);
  const flow = exportMaestroFlow(manifest, steps, new Map());
  const xcui = exportXcuiTest(manifest, steps, new Map());
  return { yaml: flow.yaml, variables: flow.variables, notes: flow.notes.map((n) => n.note), swift: xcui.swift, swiftNotes: xcui.notes.map((n) => n.note) };
}

describe('R-SECRET-09: the Maestro export keeps a first step', () => {
  const flow = recording();

  it('R-SECRET-09: no step is lost: each focuses the field by the id it was given and types, and Maestro’s reader takes the flow', () => {
    expect(flow.notes).toEqual([]);
    const commands = readMaestroFlow(flow.yaml).commands.map((c) => [c.name, c.args]);
    expect(commands[0]).toEqual(['tapOn', { id: 'login\\.username' }]);
    expect(commands[1]).toEqual(['inputText', { text: USERNAME }]);
    expect(commands[2]).toEqual(['tapOn', { id: 'login\\.password' }]);
    expect(commands[3]?.[0]).toBe('inputText');
    expect(flow.yaml).toMatch(/# Parallax: step 1: no screen was recorded before this step: the selector is the one the step was given/);
    expect(flow.yaml).not.toContain(PASSWORD);
  });

  it('R-SECRET-09: text the trace could not classify says so, and the flow runs with or without -e (Env.kt evaluateScripts, JavaScript typeof)', () => {
    expect(flow.variables).toEqual(['LOGIN_PASSWORD']);
    expect(flow.yaml).toMatch(/# Parallax: step 2: no read saw the field .* could not tell whether the text was a secret .* -e LOGIN_PASSWORD=…/);
    const text = readMaestroFlow(flow.yaml).commands[3]!.args['text'] as string;
    // Maestro hands what is inside `${…}` to its JavaScript engine; here the same language runs it.
    const run = (env: Record<string, string>) => (script: string) => String(runInNewContext(script, { ...env }));
    expect(evaluateScripts(text, run({ LOGIN_PASSWORD: 'given-at-run' }))).toBe('given-at-run');
    expect(evaluateScripts(text, run({}))).toBe('');
    // The plain `${NAME}` form is what stops a flow without -e: a ReferenceError in the engine.
    expect(() => evaluateScripts('${LOGIN_PASSWORD}', run({}))).toThrow(/LOGIN_PASSWORD is not defined/);
  });

  it('R-SECRET-09: the XCUITest export keeps both steps too: the given id, and the unclassified text read from the environment, empty when unset', () => {
    expect(flow.swiftNotes).toEqual([]);
    expect(flow.swift).toContain('let field1 = app.descendants(matching: .any).matching(NSPredicate(format: "identifier == %@", "login.username")).firstMatch');
    expect(flow.swift).toContain(`field1.typeText("${USERNAME}")`);
    expect(flow.swift).toContain('matching(NSPredicate(format: "identifier == %@", "login.password")).firstMatch');
    // Not XCTUnwrap: the test must not fail for a text that may be no secret at all.
    expect(flow.swift).toContain('let loginPassword = ProcessInfo.processInfo.environment["LOGIN_PASSWORD"] ?? ""');
    expect(flow.swift).not.toContain('XCTUnwrap');
    expect(flow.swift).toMatch(/\/\/ Parallax: step 2: no read saw the field/);
    expect(flow.swift).not.toContain(PASSWORD);
  });
});

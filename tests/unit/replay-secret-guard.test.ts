/**
 * R-TRUST-02: a secret goes only to the field it was recorded for, on the screen it was recorded on. The
 * replay is run on a connection of the test's own (the demo's login screen, as a fixture, moved or
 * renamed by the test), so what it sends is seen exactly: nothing, when the step diverged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import { flattenTree } from '@shared/model/tree';
import { withoutChildren } from '@shared/model/node';
import { traceActionFor } from '@shared/trace/action-record';
import type { TimelineStep } from '@shared/trace/reader';
import { traceVariables } from '@shared/trace/variables';
import type { DeviceConnection } from '@main/connection/connection';
import { replayTrace } from '@main/trace/replay';
import { keptTyping } from '@shared/act/secret';
import { focusedElement } from '@shared/observe/focus';

const DEMO = join(__dirname, '..', 'fixtures', 'demo-observations');
const screen = (name: string): UiNode => ViewHierarchySchema.parse(JSON.parse(readFileSync(join(DEMO, `${name}.json`), 'utf8'))).hierarchy!;
const login = (): UiNode => screen('login');
const SECRET = 'guarded-secret-value';

function password(root: UiNode): UiNode {
  return flattenTree(root).find((f) => f.node['resource-id'] === 'login.password')!.node;
}

function secretStep(root: UiNode, edit?: (target: UiNode) => void): TimelineStep {
  const node = withoutChildren(password(root));
  edit?.(node);
  const { action, target } = traceActionFor({ action: 'sendKeys', target: { node }, steps: [{ kind: 'type', text: SECRET }] }, root);
  return {
    index: 0,
    callId: 'c1',
    kind: 'action',
    status: 'succeeded',
    statusText: 'succeeded',
    before: { type: 'action.before', callId: 'c1', seq: 1, time: 1, action, ...(target ? { target } : {}) },
    observations: [],
    comparisons: [],
    notes: [],
    startTime: 1,
    warnings: [],
  };
}

/** A device that shows `root` (its focus read from it, as the host's observation does) and records every request it is sent. */
function device(root: UiNode) {
  const sent: ActionRequest[] = [];
  const focused = focusedElement(root);
  const frame = () => ({
    observation: { viewHierarchy: { hierarchy: structuredClone(root) }, ...(focused ? { focusedElement: focused } : {}) },
    screenshot: null,
    receivedAt: Date.now(),
  });
  const result: ActionResult = { success: true, mayHaveRun: true, timings: { total: 1 } } as unknown as ActionResult;
  const connection = {
    url: 'ws://test/ws',
    on: () => connection,
    off: () => connection,
    observe: async () => frame(),
    act: async (request: ActionRequest) => {
      sent.push(request);
      return { result, after: frame() };
    },
  } as unknown as DeviceConnection;
  return { connection, sent };
}

const noTrace = { resourceJson: async () => ({}) };

async function replay(step: TimelineStep, root: UiNode, trace: { resourceJson: (ref: string) => Promise<unknown> } = noTrace) {
  const { connection, sent } = device(root);
  const report = await replayTrace({ ...trace, timeline: [step] }, connection, {
    stopOnDivergence: false,
    settleMs: 0,
    // The user gave a value for whatever the trace asked (the worst case: the CLI would not read it unasked).
    variables: new Map(traceVariables([step]).map((v) => [v.name, SECRET])),
  });
  return { report, sent };
}

describe('a secret goes only to its recorded field (R-TRUST-02)', () => {
  it('R-TRUST-02: on the recorded field, where it was, the secret is typed into it', async () => {
    const { report, sent } = await replay(secretStep(login()), login());
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).toContain(SECRET);
    expect(report.steps[0]!.replayed.variable).toBe('LOGIN_PASSWORD');
  });

  it('R-TRUST-02: the field moved since the recording: the step diverged and nothing is sent, though the replay goes on past divergences', async () => {
    const { report, sent } = await replay(
      secretStep(login(), (node) => {
        node.bounds = { ...node.bounds!, top: node.bounds!.top + 200, bottom: node.bounds!.bottom + 200 };
      }),
      login(),
    );
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(/^not sent: LOGIN_PASSWORD is typed only into the field it was recorded for, on the screen it was recorded on/),
    );
  });

  it('R-TRUST-02: a field renamed by a hostile trace is not on the screen: nothing is sent to whatever has the focus', async () => {
    // The recorded step as a hostile edit of the trace leaves it: every id of the field renamed.
    const hostile = JSON.parse(JSON.stringify(secretStep(login())).replaceAll('login.password', 'aws.secret.access.key')) as TimelineStep;
    const { report, sent } = await replay(hostile, login());
    expect(report.steps[0]!.replayed.variable).toBe('AWS_SECRET_ACCESS_KEY');
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
  });
});

/**
 * A step recorded where no read saw the field (docs/rules.md#r-secret-09): the host kept its request
 * without the text (`keptTyping`, docs/rules.md#r-secret-13) and the trace was written from that, with
 * no screen before it, so the trace holds no element of the field: only what the step was given.
 */
function unknownStep(request: ActionRequest): TimelineStep {
  const kept = keptTyping(request);
  expect(kept.secrecy).toBe('unknown');
  const { action, target } = traceActionFor(kept.request, undefined);
  return { ...secretStep(login()), before: { type: 'action.before', callId: 'c1', seq: 1, time: 1, action, ...(target ? { target } : {}) } };
}

const centre = (root: UiNode, id: string) => {
  const b = flattenTree(root).find((f) => f.node['resource-id'] === id)!.node.bounds!;
  return { x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 };
};

describe('R-TRUST-02: a step the trace could not classify (no read saw the field)', () => {
  it('R-TRUST-02: keys that followed the focus name no field: nothing is sent, whatever has the focus now', async () => {
    const focused = login();
    password(focused).focused = 'true';
    const { report, sent } = await replay(unknownStep({ action: 'sendKeys', steps: [{ kind: 'type', text: SECRET }] }), focused);
    expect(report.steps[0]!.replayed.variable).toBe('SECRET_STEP_1');
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^not sent: SECRET_STEP_1 is typed only into the field it was recorded for/));
  });

  it('R-TRUST-02: keys at a bare point name a place, not a field: nothing is sent into whatever is there now', async () => {
    // The point of the username field: a plain field, where a password would show in clear.
    const at = centre(login(), 'login.username');
    const { report, sent } = await replay(unknownStep({ action: 'sendKeys', target: { point: at }, steps: [{ kind: 'type', text: SECRET }] }), login());
    expect(report.steps[0]!.replayed.variable).toBe('SECRET_STEP_1');
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^not sent: SECRET_STEP_1 .*names no field, only a point/));
  });

  it('R-TRUST-02: the id the step was given names the field: typed there, once, the value from the user', async () => {
    const { report, sent } = await replay(
      unknownStep({ action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: SECRET }] }),
      login(),
    );
    expect(report.steps[0]!.replayed.variable).toBe('LOGIN_PASSWORD');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: SECRET }] });
  });

  it('R-TRUST-02: an id that names no text field now (a hostile trace aimed it at the Sign In button) sends nothing: the keys would go to the focus', async () => {
    const { report, sent } = await replay(
      unknownStep({ action: 'sendKeys', target: { id: 'login.submit' }, steps: [{ kind: 'type', text: SECRET }] }),
      login(),
    );
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^not sent: LOGIN_SUBMIT .*not a text field/));
  });
});

/**
 * R-TRUST-03: keys aimed at a web `<label>` (a tap on it focused its input, and the type bar types into
 * the element tapped last) followed keyboard focus when recorded (docs/rules.md#r-act-08). On the
 * demo's checkout page, as a fixture: the recorded screen before the step (the trace's, with its focus)
 * and the replayed one (the device's, its observation's `focusedElement` read from it) are the test's.
 */
const checkout = () => screen('checkout');
const web = (root: UiNode, role: string, label: string): UiNode =>
  flattenTree(root).find((f) => f.node['web-role'] === role && f.node['content-desc'] === label)!.node;
/** The checkout page with `label`'s input focused (the WKWebView holds the focus too, as on iOS), or nothing focused. */
function focusedOn(input?: { role: string; label: string }): UiNode {
  const root = checkout();
  if (input) {
    flattenTree(root).find((f) => f.node.className === 'WKWebView')!.node.focused = 'true';
    web(root, input.role, input.label).focused = 'true';
  }
  return root;
}
const FULL_NAME = { role: 'input', label: 'Full name' };
const recordedAs = (root: UiNode) => ({ resourceJson: async () => ({ hierarchy: root }) });

/** A secret typed aimed at the element `aim` of the recorded screen, as the recorder writes it (the screen kept as the step's observation). */
function aimedStep(recorded: UiNode, aim: { role: string; label: string }): TimelineStep {
  const node = withoutChildren(web(recorded, aim.role, aim.label));
  const { action, target } = traceActionFor({ action: 'sendKeys', target: { node }, secret: true, steps: [{ kind: 'type', text: SECRET }] }, recorded);
  const step = secretStep(login());
  return { ...step, before: { ...step.before!, action, observationRef: 'obs-1', ...(target ? { target } : {}) } };
}

describe('R-TRUST-03: a secret step aimed at a label goes to the focus only when the device focuses the field it followed', () => {
  it('R-TRUST-03: recorded and replayed with Full name focused: the value is typed once, to the keyboard focus, and the report says so', async () => {
    const recorded = focusedOn(FULL_NAME);
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Full name' }), focusedOn(FULL_NAME), recordedAs(recorded));
    expect(report.steps[0]!.replayed.variable).toBe('FULL_NAME');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual({ action: 'sendKeys', steps: [{ kind: 'type', text: SECRET }], secret: true });
    expect(report.steps[0]!.replayed.sent).toBe('keyboard focus');
    expect(report.steps[0]!.ran).toBe('yes');
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^FULL_NAME goes to the keyboard focus: .*the text field "Full name"/));
    expect(JSON.stringify(report)).not.toContain(SECRET);
  });

  it('R-TRUST-03: the password field has the focus on the device instead: nothing is sent, and the refusal names both fields', async () => {
    const recorded = focusedOn(FULL_NAME);
    const { report, sent } = await replay(
      aimedStep(recorded, { role: 'label', label: 'Full name' }),
      focusedOn({ role: 'input', label: 'Account password' }),
      recordedAs(recorded),
    );
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(
        /^not sent: FULL_NAME is typed only into the field it was recorded for, .*not a text field.*the focus is on the text field "Account password", not on the field that had it when it was recorded, the text field "Full name"/,
      ),
    );
  });

  it('R-TRUST-03: the focused Full name input moved since the recording: not strictly the field the keys followed, nothing is sent', async () => {
    const recorded = focusedOn(FULL_NAME);
    const replayed = focusedOn(FULL_NAME);
    const input = web(replayed, 'input', 'Full name');
    input.bounds = { ...input.bounds!, top: input.bounds!.top + 40, bottom: input.bounds!.bottom + 40 };
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Full name' }), replayed, recordedAs(recorded));
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(/^not sent: FULL_NAME .*not on the field that had it when it was recorded, the text field "Full name" \(target moved by 40 pt/),
    );
  });

  it('R-TRUST-03: the trace says Full name had the focus, the device focuses nothing: nothing is sent (the trace alone decides nothing)', async () => {
    const recorded = focusedOn(FULL_NAME);
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Full name' }), focusedOn(), recordedAs(recorded));
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^not sent: FULL_NAME .*nothing has the focus on the device/));
  });

  it('R-TRUST-03: a hostile trace aimed at the Place order button, nothing focused when recorded or now: nothing is sent', async () => {
    const { report, sent } = await replay(aimedStep(focusedOn(), { role: 'button', label: 'Place order' }), focusedOn(), recordedAs(focusedOn()));
    expect(report.steps[0]!.replayed.variable).toBe('PLACE_ORDER');
    expect(sent).toEqual([]);
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(
        /^not sent: PLACE_ORDER .*the element found \(the UIButton "Place order"\) is not a text field.*nothing has the focus on the device/,
      ),
    );
  });

  it('R-TRUST-03: a hostile trace aimed at the Account password label while Full name has the focus, recorded and now: the secret is not typed into a field it does not name', async () => {
    const recorded = focusedOn(FULL_NAME);
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Account password' }), focusedOn(FULL_NAME), recordedAs(recorded));
    expect(report.steps[0]!.replayed.variable).toBe('ACCOUNT_PASSWORD');
    expect(sent).toEqual([]);
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(
        /^not sent: ACCOUNT_PASSWORD .*the focus is on the text field "Full name", which ACCOUNT_PASSWORD does not name \(it names FULL_NAME\)/,
      ),
    );
  });

  it('R-TRUST-03: the terms checkbox has the focus, recorded and now (no text field): nothing is sent, and the refusal names the checkbox', async () => {
    const terms = { role: 'checkbox', label: 'I agree to the terms' };
    const recorded = focusedOn(terms);
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Full name' }), focusedOn(terms), recordedAs(recorded));
    expect(sent).toEqual([]);
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(/^not sent: FULL_NAME .*the focus is on the UISwitch "I agree to the terms", which is not a text field/),
    );
  });

  it('R-TRUST-03: Full name has the focus now, but the recording shows the checkbox focused: where the keys went is not known, nothing is sent', async () => {
    const recorded = focusedOn({ role: 'checkbox', label: 'I agree to the terms' });
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Full name' }), focusedOn(FULL_NAME), recordedAs(recorded));
    expect(sent).toEqual([]);
    expect(report.steps[0]!.notes).toContainEqual(
      expect.stringMatching(/^not sent: FULL_NAME .*when it was recorded the focus was on the UISwitch "I agree to the terms", not a text field/),
    );
  });

  it('R-TRUST-03: a step that diverged (the screen before is another one) sends nothing, though Full name has the focus', async () => {
    const recorded = focusedOn(FULL_NAME);
    const replayed = focusedOn(FULL_NAME);
    // Its navigation bar names another screen: the screen key differs (docs/rules.md#r-rpl-02).
    for (const { node } of flattenTree(replayed)) if (node['resource-id'] === 'Checkout') node['resource-id'] = 'Payment';
    const { report, sent } = await replay(aimedStep(recorded, { role: 'label', label: 'Full name' }), replayed, recordedAs(recorded));
    expect(report.steps[0]!.screens.before?.differs).toBe(true);
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^not sent: FULL_NAME .*on the screen it was recorded on, and this step diverged/));
  });

  it("R-TRUST-03: keys at a bare point (the Full name label's centre), Full name focused when recorded and now: a point names no field, nothing is sent", async () => {
    const recorded = focusedOn(FULL_NAME);
    const b = web(recorded, 'label', 'Full name').bounds!;
    const point = { x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 };
    // Recorded where no read saw what lies there: the trace holds the point alone.
    const { action, target } = traceActionFor({ action: 'sendKeys', target: { point }, secret: true, steps: [{ kind: 'type', text: SECRET }] }, undefined);
    const step = secretStep(login());
    const atPoint = { ...step, before: { ...step.before!, action, observationRef: 'obs-1', ...(target ? { target } : {}) } };
    const { report, sent } = await replay(atPoint, focusedOn(FULL_NAME), recordedAs(recorded));
    expect(sent).toEqual([]);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
    expect(report.steps[0]!.notes).toContainEqual(expect.stringMatching(/^not sent: SECRET_STEP_1 .*names no field, only a point/));
  });
});

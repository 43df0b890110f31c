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

const DEMO = join(__dirname, '..', 'fixtures', 'demo-observations');
const login = (): UiNode => ViewHierarchySchema.parse(JSON.parse(readFileSync(join(DEMO, 'login.json'), 'utf8'))).hierarchy!;
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

/** A device that shows `root` and records every request it is sent. */
function device(root: UiNode) {
  const sent: ActionRequest[] = [];
  const frame = () => ({ observation: { viewHierarchy: { hierarchy: structuredClone(root) } }, screenshot: null, receivedAt: Date.now() });
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

async function replay(step: TimelineStep, root: UiNode) {
  const { connection, sent } = device(root);
  const report = await replayTrace({ ...noTrace, timeline: [step] }, connection, {
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

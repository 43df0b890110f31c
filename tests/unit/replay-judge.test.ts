/**
 * The pure judging of a replay (docs/rules.md#r-rpl): two reads of a screen compared by the stated
 * threshold, the recorded target found again by the selector the recording would export and checked
 * against its recorded identity, the secrets a trace names, which steps ran, and a recorded action in
 * the live timeline's words. On the demo app's own observations (tests/fixtures/demo-observations).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { nodeLabel, withoutChildren } from '@shared/model/node';
import { compareScreens, SCREEN_THRESHOLD, screenKeyOf } from '@shared/compare/screens';
import { findRecordedTarget, targetDiverges } from '@shared/trace/replay-target';
import { matchSelector, parseSelector } from '@shared/selectors/query';
import { assertionDifferences, compareOutcomes, recordedActionText, typesSecret, withSecret } from '@shared/trace/action-record';
import { judgedStep, ranSummary, stepRanges } from '@shared/trace/replay-report';
import { traceVariables } from '@shared/trace/variables';
import type { TimelineStep } from '@shared/trace/reader';
import type { ActionRequest } from '@shared/protocol/action';
import { recordedStep } from '../support/recorded-step';

const DEMO = join(__dirname, '..', 'fixtures', 'demo-observations');
const load = (screen: string): UiNode => ViewHierarchySchema.parse(JSON.parse(readFileSync(join(DEMO, `${screen}.json`), 'utf8'))).hierarchy!;
const clone = (root: UiNode): UiNode => structuredClone(root);

function byId(root: UiNode, id: string): UiNode[] {
  return flattenTree(root)
    .filter((f) => f.node['resource-id'] === id || f.node['sdk-element-id'] === id)
    .map((f) => f.node);
}

function shift(root: UiNode, id: string, dy: number): void {
  for (const node of byId(root, id)) {
    if (node.bounds) node.bounds = { ...node.bounds, top: node.bounds.top + dy, bottom: node.bounds.bottom + dy };
  }
}

function remove(root: UiNode, id: string): void {
  const walk = (node: UiNode) => {
    if (!node.node) return;
    node.node = node.node.filter((c) => c['resource-id'] !== id && c['sdk-element-id'] !== id);
    node.node.forEach(walk);
  };
  walk(root);
}

/** A recorded step as the recorder writes it: the action and its target resolved on `root`. */
const recorded = recordedStep;

function tapOn(root: UiNode, id: string): ActionRequest {
  const node = byId(root, id)[0]!;
  return { action: 'tap', target: { node: withoutChildren(node) } };
}

describe('two reads of a screen, compared (R-RPL-02)', () => {
  it('R-RPL-02: the same screen read twice is the same screen, nothing only on one side or moved', () => {
    const login = load('login');
    const c = compareScreens(login, clone(login));
    expect(c).toMatchObject({ differs: false, changedShare: 0, counts: { only_recorded: 0, only_replayed: 0, moved: 0 } });
    expect(c.summary).toMatch(/^same screen \(0 of \d+ elements/);
  });

  it('R-RPL-02: another screen differs, by its screen key or by more than the threshold', () => {
    const c = compareScreens(load('login'), load('feed'));
    expect(c.differs).toBe(true);
    expect(c.changedShare > SCREEN_THRESHOLD.maxChangedShare || c.screenKey.recorded !== c.screenKey.replayed).toBe(true);
  });

  it('R-RPL-02: a moved button is one moved node, named with both frames and keyed on both sides; under the threshold the screen is the same', () => {
    const login = load('login');
    const moved = clone(login);
    shift(moved, 'login.submit', 62);
    const c = compareScreens(login, moved);
    expect(c.counts.moved).toBeGreaterThanOrEqual(1);
    const d = c.differences.find((x) => x.class === 'moved')!;
    expect(d.detail).toMatch(/→/);
    expect(d.recordedKey).toBeDefined();
    expect(d.replayedKey).toBeDefined();
    expect(c.differs).toBe(false);
  });

  it('R-RPL-02: a removed row is only on the recorded side, its children not counted again', () => {
    const login = load('login');
    const removed = clone(login);
    remove(removed, 'login.passkey');
    const c = compareScreens(login, removed);
    expect(c.counts.only_recorded).toBeGreaterThanOrEqual(1);
    expect(c.counts.only_replayed).toBe(0);
  });

  it('R-RPL-02: a row gone from a list is one change, the rows it let move up another, not one each', () => {
    const row = (n: number, top: number): UiNode => ({
      className: 'XCUIElementTypeCell',
      'resource-id': `row.${n}`,
      text: `Row ${n}`,
      bounds: { left: 0, top, right: 400, bottom: top + 50 },
    });
    const list = (rows: UiNode[]): UiNode => ({
      className: 'XCUIApplication',
      bounds: { left: 0, top: 0, right: 400, bottom: 800 },
      node: [{ className: 'XCUIElementTypeTable', 'resource-id': 'list', bounds: { left: 0, top: 0, right: 400, bottom: 800 }, node: rows }],
    });
    const recordedRows = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => row(n, (n - 1) * 50));
    const replayedRows = [1, 3, 4, 5, 6, 7, 8].map((n, i) => row(n, i * 50));
    const c = compareScreens(list(recordedRows), list(replayedRows));
    expect(c.counts).toMatchObject({ only_recorded: 1, moved: 1 });
    expect(c.differs).toBe(false);
    // Two rows that swapped places are two moves.
    const swapped = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => row(n, (n === 2 ? 2 : n === 3 ? 1 : n - 1) * 50));
    expect(compareScreens(list(recordedRows), list(swapped)).counts.moved).toBe(2);
  });

  it('R-RPL-02: a screen key names an AppReveal screen or the navigation bars, null without either', () => {
    expect(screenKeyOf({ className: 'AppRevealScreen', 'resource-id': 'Feed' })).toBe('Feed');
    expect(screenKeyOf({ className: 'XCUIApplication', node: [{ className: 'XCUIElementTypeNavigationBar', 'resource-id': 'Settings' }] })).toBe('Settings');
    expect(screenKeyOf({ className: 'XCUIApplication' })).toBeNull();
  });
});

describe('the recorded target, found again (R-RPL-01)', () => {
  it('R-RPL-01: on an unchanged screen the exported selector finds the recorded element', () => {
    const login = load('login');
    const step = recorded(tapOn(login, 'login.submit'), login);
    const found = findRecordedTarget(step, { root: login }, clone(login))!;
    expect(found.check.verdict).toBe('found');
    expect(found.check.by.kind).toBe('selector');
    expect(found.check.matches).toBe(1);
    expect(found.node).toBeDefined();
  });

  it('R-RPL-01: a moved target is "elsewhere", a removed one "missing", a relabelled one "renamed"', () => {
    const login = load('login');
    const step = recorded(tapOn(login, 'login.submit'), login);

    const moved = clone(login);
    shift(moved, 'login.submit', 62);
    expect(findRecordedTarget(step, { root: login }, moved)!.check).toMatchObject({ verdict: 'elsewhere', detail: expect.stringMatching(/moved/) });

    const removed = clone(login);
    remove(removed, 'login.submit');
    expect(findRecordedTarget(step, { root: login }, removed)!.check).toMatchObject({ verdict: 'missing', matches: 0 });

    const renamed = clone(login);
    // Every reading of its label: its own, and what XCTest said of it (the twin's extras).
    for (const node of byId(renamed, 'login.submit')) Object.assign(node, JSON.parse(JSON.stringify(node).replaceAll('"Sign In"', '"Log In"')));
    expect(findRecordedTarget(step, { root: login }, renamed)!.check.verdict).toBe('renamed');
  });

  it('R-RPL-01: without a recorded screen the exported point finds it, checked against the recorded identity', () => {
    const login = load('login');
    const step = recorded(tapOn(login, 'login.submit'), login);
    const found = findRecordedTarget(step, undefined, clone(login))!;
    expect(found.check.by.kind).toBe('point');
    expect(found.check.verdict).toBe('found');
    const removed = clone(login);
    remove(removed, 'login.submit');
    expect(findRecordedTarget(step, undefined, removed)!.check.verdict).not.toBe('found');
  });
});

describe('a step exported as a point is judged by the point (R-RPL-11)', () => {
  it('R-RPL-11: XCTest reads the hostile screen as its root, so Post reply is exported as a point; moved away, the point hits another element and the detail says it was the point', () => {
    const hostile = load('hostile');
    const step = recorded(tapOn(hostile, 'hostile.post.send'), hostile);
    const same = findRecordedTarget(step, { root: hostile }, clone(hostile))!.check;
    expect(same).toMatchObject({ by: { kind: 'point' }, verdict: 'found' });

    const moved = clone(hostile);
    shift(moved, 'hostile.post.send', 200);
    const check = findRecordedTarget(step, { root: hostile }, moved)!.check;
    // Maestro taps a `point:` whatever lies there (Orchestra.kt tapOnPointV2Command): here, not Post reply.
    expect(check.verdict).toBe('another');
    expect(targetDiverges(check.verdict)).toBe(true);
    expect(check.detail).toMatch(/^target at the exported point \d+,\d+ is another element: (id "[^"]+"|one without an id), recorded "hostile\.post\.send"$/);
  });
});

/** How many elements the step's exported Maestro selector finds on `screen`, by Maestro's own rules (maestro-match.ts). */
function maestroFinds(step: TimelineStep, recordedRoot: UiNode, screen: UiNode): number {
  const check = findRecordedTarget(step, { root: recordedRoot }, recordedRoot)!.check;
  if (check.by.kind !== 'selector' || check.by.syntax !== 'maestro') throw new Error(`not a Maestro selector: ${JSON.stringify(check.by)}`);
  return matchSelector(parseSelector(check.by.selector, 'maestro'), screen).matches.length;
}

describe('a verdict says what the exported flow would do (R-RPL-10)', () => {
  it('R-RPL-10: a moved target the exported selector still finds alone runs: "moved by N pt", a change, not a divergence', () => {
    const login = load('login');
    const step = recorded(tapOn(login, 'login.submit'), login);
    const moved = clone(login);
    shift(moved, 'login.submit', 62);
    // What Maestro does with the exported `id: 'login\.submit'` on the moved screen: one element, tapped.
    expect(maestroFinds(step, login, moved)).toBe(1);
    const check = findRecordedTarget(step, { root: login }, moved)!.check;
    expect(check).toMatchObject({ verdict: 'elsewhere', movedPt: 62, detail: 'target moved by 62 pt: [16,330,386,380] → [16,392,386,442]' });
    expect(targetDiverges(check.verdict)).toBe(false);
    expect(judgedStep(check, { before: compareScreens(login, moved) }).changes).toEqual(['target moved by 62 pt']);
  });

  it('R-RPL-10: a renamed target found by its id runs ("renamed"); one found by its text is missing, as in Maestro', () => {
    const login = load('login');
    const rename = (root: UiNode, from: string, to: string) =>
      flattenTree(root).forEach((f) =>
        Object.assign(f.node, JSON.parse(JSON.stringify(withoutChildren(f.node)).replaceAll(JSON.stringify(from), JSON.stringify(to)))),
      );
    const byIdStep = recorded(tapOn(login, 'login.submit'), login);
    const renamed = clone(login);
    rename(renamed, 'Sign In', 'Log In');
    expect(maestroFinds(byIdStep, login, renamed)).toBe(1);
    const check = findRecordedTarget(byIdStep, { root: login }, renamed)!.check;
    expect(check.verdict).toBe('renamed');
    expect(targetDiverges(check.verdict)).toBe(false);
    expect(judgedStep(check, {}).changes).toEqual(['target renamed: "Sign In" → "Log In"']);

    // A label without an id of its own is exported by its text: renamed, Maestro finds nothing.
    const welcome = flattenTree(login).find((f) => nodeLabel(f.node) === 'Welcome back. Sign in to continue.' && f.node.bounds)!.node;
    const byText = recorded({ action: 'tap', target: { node: withoutChildren(welcome) } }, login);
    const reworded = clone(login);
    rename(reworded, 'Welcome back. Sign in to continue.', 'Hello again.');
    expect(maestroFinds(byText, login, reworded)).toBe(0);
    const gone = findRecordedTarget(byText, { root: login }, reworded)!.check;
    expect(gone.verdict).toBe('missing');
    expect(targetDiverges(gone.verdict)).toBe(true);
  });

  it('R-RPL-10: an element removed from or added to a compared screen that is still the same screen is named; another screen is not itemised', () => {
    const login = load('login');
    const removed = clone(login);
    remove(removed, 'login.passkey');
    const before = compareScreens(login, removed);
    expect(before.differs).toBe(false);
    // The same removal seen before and after the step is named once.
    expect(judgedStep(undefined, { before, after: before }).changes).toEqual(['removed Button "Sign in with Passkey"']);
    expect(judgedStep(undefined, { before: compareScreens(removed, login) }).changes).toEqual(['added Button "Sign in with Passkey"']);
    const other = compareScreens(login, load('feed'));
    expect(other.differs).toBe(true);
    expect(judgedStep(undefined, { before: other }).changes).toEqual([]);
  });
});

describe('what a replay reports (R-RPL-03, R-RPL-06)', () => {
  it('R-RPL-03: another backend or fallback is a note, another outcome a difference', () => {
    expect(compareOutcomes({ success: true, backend: 'xctest' }, { success: true, backend: 'sdk' })).toEqual({
      differences: [],
      notes: ['backend: recorded xctest, replayed sdk'],
    });
    expect(compareOutcomes({ success: true }, { success: false, failureReason: 'target_not_found' }).differences).toHaveLength(1);
  });

  it('R-ASRT-04: a recorded failing assertion matches the same failure; another detail names both; one that held and fails diverges', () => {
    const failed = (warning: string) =>
      ({
        success: false,
        outcome: 'failed',
        failureReason: 'assertion_failed',
        mayHaveRun: false,
        warnings: [warning],
        target: { resolvedBy: 'screen' },
        timings: {},
        requestsSent: 0,
      }) as never;
    const signIn = 'expected login.submit with label "Log In", found "Sign In"';
    const other = 'expected login.submit with label "Log In", found "Register"';
    expect(assertionDifferences({ success: false, warnings: [signIn] }, failed(signIn))).toEqual([]);
    expect(assertionDifferences({ success: false, warnings: [signIn] }, failed(other))).toEqual([
      `the assertion fails otherwise: recorded "${signIn}", replayed "${other}"`,
    ]);
    expect(assertionDifferences({ success: true }, failed(signIn))).toEqual([`the assertion does not hold: ${signIn}`]);
  });

  it('R-RPL-06: which steps ran, in filmstrip numbers', () => {
    expect(stepRanges([1, 2, 3, 5, 7, 8])).toBe('1–3, 5, 7, 8');
    const step = (number: number, ran: 'yes' | 'no' | 'maybe') => ({ number, ran });
    expect(ranSummary({ steps: [step(1, 'yes'), step(2, 'yes'), step(3, 'maybe')] as never, unreached: [4, 5] })).toBe(
      'ran: 1, 2 · may have run: 3 · not reached: 4, 5',
    );
    expect(ranSummary({ steps: [], unreached: [] })).toBe('no step ran');
  });
});

describe('secrets a trace names (R-RPL-04) and a recorded action in words (R-RPL-08)', () => {
  it('R-RPL-04: typed text the trace does not hold is marked, named as the exports name it, and filled only in the request sent', () => {
    const login = load('login');
    const password = byId(login, 'login.password')[0]!;
    const step = recorded({ action: 'sendKeys', target: { node: withoutChildren(password) }, steps: [{ kind: 'type', text: 'hunter22' }] }, login);
    expect(JSON.stringify(step.before)).not.toContain('hunter22');
    expect(typesSecret(step.before!.action)).toBe(true);
    expect(traceVariables([step])).toEqual([{ name: 'LOGIN_PASSWORD', step: 1, callIds: ['c1'], field: 'login.password' }]);
    const filled = withSecret(step.before!.action, 'hunter22');
    expect(filled['steps']).toEqual([{ kind: 'type', text: 'hunter22' }]);
    expect(step.before!.action['steps']).toEqual([{ kind: 'type', secret: true }]);
    expect(recordedActionText(step.before!.action)).toBe('type secret');
  });

  it('R-RPL-08: typed text, IME action, swipe vector and duration, as the live timeline says them', () => {
    const login = load('login');
    const username = byId(login, 'login.username')[0]!;
    const typed = recorded(
      {
        action: 'sendKeys',
        target: { node: withoutChildren(username) },
        steps: [
          { kind: 'type', text: 'alice' },
          { kind: 'ime', imeAction: 'next' },
        ],
      },
      login,
    );
    expect(recordedActionText(typed.before!.action)).toBe('type “alice”, IME next');
    const swipe = recorded({ action: 'swipe', start: { x: 200, y: 600 }, end: { x: 200, y: 312 }, durationMs: 300 }, login);
    expect(recordedActionText(swipe.before!.action)).toBe('swipe ↑ 288 pt · 300 ms');
    expect(recordedActionText(recorded({ action: 'longPress', target: { id: 'login.submit' }, durationMs: 800 }, login).before!.action)).toBe(
      'long press 800 ms',
    );
  });
});

/**
 * Recorded assertions on an AppReveal app (docs/rules.md#r-asrt-01 … #r-asrt-03), over the demo app's
 * own AppReveal server: each is checked on one read of the app's elements (no tool acts), recorded as a
 * trace step (visible, not visible, text equals, and value equals after typing), exported like a runner's, and checked again on a replay through AppReveal, where the
 * renamed-label variant (Sign In → Log In) makes the text assertion diverge naming both values.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '@shared/protocol/action';
import { replayTrace } from '@main/trace/replay';
import { openTraceFile } from '@main/trace/open';
import { exportMaestro, exportXcuiTest } from '@main/trace/export';
import { useConnectedDemo } from '../support/host-over-demo';
import { useRecordedDemoTrace } from '../support/demo-trace';

const setup = useConnectedDemo({ demo: { screen: 'login' }, via: 'appreveal', connectTimeoutMs: 10_000 });

const STEPS: ActionRequest[] = [
  { action: 'assert', target: { id: 'login.submit' }, check: 'visible' },
  { action: 'assert', target: { id: 'login.submit' }, check: 'textEquals', expected: 'Sign In' },
  { action: 'assert', target: { text: 'Post 12' }, check: 'notVisible' },
  { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'type', text: 'qa.reveal' }] },
  { action: 'assert', target: { id: 'login.username' }, check: 'valueEquals', expected: 'qa.reveal' },
];
const recorded = useRecordedDemoTrace(setup, { prefix: 'ar-assert', file: 'ar-asserts.parallax-trace', screen: 'login', steps: STEPS, via: 'appreveal' });

describe("R-ASRT-01 on AppReveal: checked on the app's own elements", () => {
  it("every assertion held while recording, checked on AppReveal's read", () => {
    expect(recorded.results.map((r) => (r.success ? r.backend : r.warnings.join('; ')))).toEqual(Array(5).fill('appreveal'));
  });

  it('a text that differs fails assertion_failed with the expected and the found label', async () => {
    await setup.reset('login');
    const { result } = await setup.connection.act({ action: 'assert', target: { id: 'login.submit' }, check: 'textEquals', expected: 'Log In' });
    expect(result).toMatchObject({ success: false, failureReason: 'assertion_failed', mayHaveRun: false, backend: 'appreveal' });
    expect(result.warnings[0]).toBe('expected login.submit with label "Log In", found "Sign In"');
  });
});

describe('R-ASRT-02 on AppReveal: exported with the selectors a tap would use', () => {
  it('Maestro assertVisible (with text:, the label or the value) and assertNotVisible; XCUITest XCTAssert lines', async () => {
    const opened = await openTraceFile(recorded.trace);
    const yaml = (await exportMaestro(opened)).yaml;
    expect(yaml).toContain("- assertVisible:\n    id: 'login\\.submit'\n    text: 'Sign In'\n");
    expect(yaml).toContain('- assertNotVisible:');
    // On iOS Maestro's text: matches a field's value (IOSDriver.kt mapViewHierarchy: the value is its `text`).
    expect(yaml).toContain("- assertVisible:\n    id: 'login\\.username'\n    text: 'qa\\.reveal'\n");
    expect(yaml).not.toContain('step 5 (assert)');
    const swift = (await exportXcuiTest(opened)).swift;
    expect(swift).toContain('XCTAssertEqual(app.buttons["login.submit"].label, "Sign In")');
    expect(swift).toMatch(/XCTAssertEqual\(app\.\w+\["login\.username"\]\.value as\? String, "qa\.reveal"\)/);
  });
});

describe('R-ASRT-03 on AppReveal: checked again on replay', () => {
  it('the same app: every step matches; Sign In renamed Log In: the text assertion diverges with both values', async () => {
    await setup.reset('login');
    const same = await replayTrace(await openTraceFile(recorded.trace), setup.connection, { stopOnDivergence: false });
    expect(same.steps.map((s) => [s.verdict, s.differences])).toEqual(Array(5).fill(['matched', []]));

    await setup.reset('login', ['renamed-label']);
    const renamed = await replayTrace(await openTraceFile(recorded.trace), setup.connection, { stopOnDivergence: false });
    expect(renamed.steps.map((s) => s.verdict)).toEqual(['matched', 'diverged', 'matched', 'matched', 'matched']);
    expect(renamed.steps[1]?.differences).toContain('the assertion does not hold: expected login.submit with label "Sign In", found "Log In"');
  }, 120_000);
});

/**
 * Recorded assertions on the demo device over its real ports (docs/rules.md#r-asrt-01 … #r-asrt-03):
 * checked on one read with nothing sent to the app, recorded as trace steps, exported as Maestro
 * assertVisible / assertNotVisible and XCUITest XCTAssert lines, and checked again on replay, where a
 * failed assertion is a divergence that shows both values (the renamed-label variant: Sign In → Log In).
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '@shared/protocol/action';
import { runTraceCommand, type TraceCommand } from '@main/cli/traces';
import { useConnectedDemo } from '../support/host-over-demo';
import { useRecordedDemoTrace } from '../support/demo-trace';

const setup = useConnectedDemo();

const reset = (screen: string, variants: string[] = []) => setup.reset(screen, variants);
const requestsToApp = async () => {
  const res = await fetch(`${setup.demo.adminUrl}/stats`);
  const counts = ((await res.json()) as { requests: Record<string, number> }).requests;
  return Object.entries(counts)
    .filter(
      ([command]) =>
        !command.startsWith('request_hierarchy') &&
        command !== 'request_screenshot' &&
        !command.startsWith('request_sdk_observation') &&
        command !== 'request_sdk_web_snapshot' &&
        command !== 'get_sdk_capabilities',
    )
    .reduce((sum, [, n]) => sum + n, 0);
};
async function cli(command: TraceCommand, ...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runTraceCommand(command, args, { log: (l) => stdout.push(l), error: (l) => stderr.push(l) });
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

const STEPS: ActionRequest[] = [
  { action: 'assert', target: { id: 'login.submit' }, check: 'visible' },
  { action: 'assert', target: { id: 'login.submit' }, check: 'textEquals', expected: 'Sign In' },
  { action: 'tap', target: { id: 'tab.checkout' } },
  { action: 'assert', target: { id: 'login.submit' }, check: 'notVisible' },
];
const recorded = useRecordedDemoTrace(setup, { prefix: 'assert', file: 'asserts.parallax-trace', screen: 'login', steps: STEPS });

it('R-ASRT-01: while recording, every step succeeded on the demo: its assertions held', () => {
  expect(recorded.results.map((r) => (r.success ? 'ok' : r.warnings.join('; ')))).toEqual(['ok', 'ok', 'ok', 'ok']);
});

describe('R-ASRT-01: an assertion is checked on one read, nothing sent to the app', () => {
  it('a text that differs fails assertion_failed with the expected and the found label', async () => {
    await reset('login');
    const { result } = await setup.connection.act({ action: 'assert', target: { id: 'login.submit' }, check: 'textEquals', expected: 'Log In' });
    expect(result).toMatchObject({ success: false, failureReason: 'assertion_failed', mayHaveRun: false });
    expect(result.warnings[0]).toBe('expected login.submit with label "Log In", found "Sign In"');
    expect(await requestsToApp()).toBe(0);
  });

  it('visible fails on a screen without the element; not visible passes there', async () => {
    await reset('checkout');
    const visible = await setup.connection.act({ action: 'assert', target: { text: 'Sign In' }, check: 'visible' });
    expect(visible.result).toMatchObject({ success: false, failureReason: 'assertion_failed' });
    const hidden = await setup.connection.act({ action: 'assert', target: { text: 'Sign In' }, check: 'notVisible' });
    expect(hidden.result.success).toBe(true);
  });
});

describe('R-ASRT-02: assertions export with the selectors a tap would use', () => {
  it('Maestro: assertVisible, assertVisible with text:, assertNotVisible', async () => {
    const { code, stdout } = await cli('export', recorded.trace, '--maestro');
    expect(code).toBe(0);
    expect(stdout).toContain("- assertVisible:\n    id: 'login\\.submit'\n- ");
    expect(stdout).toContain("- assertVisible:\n    id: 'login\\.submit'\n    text: 'Sign In'\n");
    expect(stdout).toContain("- assertNotVisible:\n    id: 'login\\.submit'");
  });

  it('XCUITest: waitForExistence, XCTAssertEqual on the label, XCTAssertFalse(exists)', async () => {
    const { code, stdout } = await cli('export', recorded.trace, '--xcuitest');
    expect(code).toBe(0);
    expect(stdout).toContain('XCTAssertTrue(app.buttons["login.submit"].waitForExistence(timeout: 5))');
    expect(stdout).toContain('XCTAssertEqual(app.buttons["login.submit"].label, "Sign In")');
    expect(stdout).toContain('XCTAssertFalse(app.descendants(matching: .any)["login.submit"].exists)');
  });
});

describe('R-ASRT-03: assertions are checked again on replay', () => {
  it('the same app: every assertion holds, every step matches', async () => {
    await reset('login');
    const { code, stdout } = await cli('replay', recorded.trace, '--device', setup.demo.runnerUrl, '--json');
    const parsed = JSON.parse(stdout) as { steps: { verdict: string; differences: string[] }[] };
    expect(parsed.steps.map((s) => [s.verdict, s.differences])).toEqual(Array(4).fill(['matched', []]));
    expect(parsed).toMatchObject({ matched: 4, total: 4 });
    expect(code).toBe(0);
  }, 60_000);

  it('Sign In renamed Log In: the text assertion diverges, and says both values', async () => {
    await reset('login', ['renamed-label']);
    const { code, stdout } = await cli('replay', recorded.trace, '--device', setup.demo.runnerUrl, '--json');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { steps: { number: number; verdict: string; differences: string[] }[] };
    const second = report.steps[1]!;
    expect(second.verdict).toBe('diverged');
    expect(second.differences).toContain('the assertion does not hold: expected login.submit with label "Sign In", found "Log In"');
  }, 60_000);
});

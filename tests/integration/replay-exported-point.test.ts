/**
 * R-RPL-11: a step the recording could only export as a point (XCTest read nothing unique of its
 * target: the hostile screen, which XCTest reads as the application root alone, or any screen read with
 * the `xctest-sparse` fault) is judged by that point, as the exported Maestro flow runs it. Maestro taps
 * a `point:` without looking anything up (mobile-dev-inc/maestro
 * maestro-orchestra/src/main/java/maestro/orchestra/Orchestra.kt at 024c6b6, `tapOnPointV2Command`:
 * `maestro.tapOnRelative(percentX, percentY, …)`, no `findElement`), so once the target moved the flow
 * taps what lies at its old place now: not the recorded element, and the replay says so at that step
 * (bench/replay's issue-27 rows: the case table expected "its id finds it", but no id was exported).
 * Where XCTest read the target's id, the same change still matches (the control). On the demo device
 * over its real ports, recorded as tests/support/replay-cases.ts records them.
 */
import { describe, expect, it } from 'vitest';
import { expectedAfter, recordCase, REPLAY_CASES, resetApp, type Variant } from '../support/replay-cases';
import { divergedAt, replayJudged } from '../support/replay-judged';
import { useConnectedDemo } from '../support/host-over-demo';

const connected = useConnectedDemo({ demo: { appReveal: false }, managed: { dirPrefix: 'replay-point' } });
const env = () => ({ manager: connected.manager, recording: connected.recording, deviceId: connected.deviceId, adminUrl: connected.demo.adminUrl });

/** The exported flow taps step `n` at a point, because XCTest read nothing unique of its target when it was recorded. */
function tapsAtPoint(n: number): RegExp {
  return new RegExp(
    `# Parallax: step ${n}: only the SDK bridge reports this element; plain XCTest cannot find it: tapping where it was\\n- tapOn:\\n {4}point: '`,
  );
}

async function replayAfter(name: string, faults: readonly string[], variant: Variant) {
  const replayCase = REPLAY_CASES.find((c) => c.name === name)!;
  const path = await recordCase(env(), replayCase, faults);
  await resetApp(connected.demo.adminUrl, replayCase.screen, faults, [variant]);
  const judged = await replayJudged(path, connected.connection, replayCase);
  return { ...judged, expected: expectedAfter(replayCase, variant, faults).diverges };
}

describe('R-RPL-11: a step exported as a point is judged by the point', () => {
  it('R-RPL-11: hostile-A after the moved button: Post reply is exported as a point (XCTest reads the hostile screen as its root), which now hits the screen, so step 5 diverges as the flow would', async () => {
    const { report, maestro, flowYaml, expected } = await replayAfter('hostile-A', [], 'moved-button');
    for (const n of [1, 2, 4, 5]) expect(flowYaml).toMatch(tapsAtPoint(n));
    expect(flowYaml).not.toMatch(/id: /);
    expect(divergedAt(report)).toBe(5);
    // Continuing past divergences, the replay taps the point as the flow would (it hits the screen's background).
    expect(report.steps[4]).toMatchObject({ verdict: 'diverged', ran: 'yes', target: { by: { kind: 'point' }, verdict: 'another' } });
    expect(maestro.failsAt).toBe(5);
    expect(expected).toBe(5);
  }, 120_000);

  it('R-RPL-11: feed-B recorded with xctest-sparse, after the moved button: the like button is exported as a point, which now hits its cell, so step 1 diverges; recorded without the fault, its id finds it and every step matches', async () => {
    const sparse = await replayAfter('feed-B', ['xctest-sparse'], 'moved-button');
    expect(sparse.flowYaml).toMatch(tapsAtPoint(1));
    expect(sparse.report.steps[0]).toMatchObject({ verdict: 'diverged', target: { by: { kind: 'point' }, verdict: 'another' } });
    expect(sparse.report.steps[0]!.differences.join(' ')).toContain('"feed.cell.9"');
    expect(divergedAt(sparse.report)).toBe(1);
    expect(sparse.maestro.failsAt).toBe(1);
    expect(sparse.expected).toBe(1);

    const plain = await replayAfter('feed-B', [], 'moved-button');
    expect(plain.flowYaml).toMatch(/- tapOn:\n {4}id: 'feed\\\.like\\\.9'/);
    expect(divergedAt(plain.report)).toBeNull();
    expect(plain.report.steps[0]).toMatchObject({ verdict: 'matched', target: { by: { kind: 'selector' }, verdict: 'elsewhere' } });
    expect(plain.maestro.failsAt).toBeNull();
    expect(plain.expected).toBeNull();
  }, 180_000);
});

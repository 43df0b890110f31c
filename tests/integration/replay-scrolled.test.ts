/**
 * Issue 27's false change over the demo's real ports (docs/rules.md#r-rpl-12): feed-A recorded as the
 * bench records it (its swipe carried by the bridge, an exact programmatic scroll), then replayed on the
 * unchanged app with the bridge gone (the fault `bridge-unregistered`), so XCTest carries the swipe as a
 * touch stroke, which scrolls the list a few points otherwise (7 to 15 pt in the runs that found it). The
 * fault is the gate: which backend carries the swipe is the test's choice, not the machine's load (under
 * load the bridge may not answer a read, and the dispatcher routes the swipe to XCTest the same way).
 */
import { describe, expect, it } from 'vitest';
import { recordCase, REPLAY_CASES, resetApp } from '../support/replay-cases';
import { replayJudged } from '../support/replay-judged';
import { useConnectedDemo } from '../support/host-over-demo';

const rig = useConnectedDemo({ demo: { appReveal: false }, managed: { dirPrefix: 'replay-scrolled' } });
const feedA = REPLAY_CASES.find((c) => c.name === 'feed-A')!;

describe('a list scrolled otherwise on replay (R-RPL-12)', () => {
  it('R-RPL-12: feed-A recorded with the bridge scrolling and replayed unchanged with XCTest scrolling matches every step and names no change', async () => {
    const path = await recordCase({ manager: rig.manager, recording: rig.recording, deviceId: rig.deviceId, adminUrl: rig.demo.adminUrl }, feedA, []);
    await resetApp(rig.demo.adminUrl, feedA.screen, ['bridge-unregistered']);
    const { report } = await replayJudged(path, rig.connection, feedA);
    const swipe = report.steps[2]!;
    // The condition held: the recording's swipe was the bridge's, the replay's plain XCTest's (no backend field).
    expect([swipe.kind, swipe.recorded.outcome?.backend, swipe.replayed.outcome?.backend]).toEqual(['swipe', 'sdk', undefined]);
    expect(swipe.notes).toContain('backend: recorded sdk, replayed none');
    const lines = report.steps.map((s) => `${s.number} ${s.verdict} ${[...s.differences, ...s.changes].join(' | ')}`);
    expect(lines).toEqual(report.steps.map((s) => `${s.number} matched `));
    expect(report).toMatchObject({ matched: 4, changed: 0 });
    // The Like tap's target line agrees: carried by the list's scroll (how far depends on the stroke), never "moved".
    const like = report.steps[3]!.target!;
    expect(like.detail).toMatch(like.verdict === 'elsewhere' ? /^target scrolled with its list by \d+ pt: / : /^found /);
  }, 180_000);
});

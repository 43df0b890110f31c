/**
 * R-TRUST-03: a secret typed after a tap on a web `<label>` replays into the field the label focused.
 * checkout-A recorded with `web-redact` (tests/support/replay-cases.ts): step 1 taps the "Full name"
 * label, which focuses its input; step 2 types the name, aimed at the label (the field tapped last), so
 * the keys followed keyboard focus (docs/rules.md#r-act-08) and, the page's values being withheld, the
 * text is a variable. The exported Maestro flow taps the text and types it; the replay must type it too,
 * into the Full name input, because the device's own read shows that input focused, as it was when
 * recorded. The value is the test's own mark, so where it lands and where it must not appear are both
 * seen. Over the demo's real runner port.
 */
import { describe, expect, it } from 'vitest';
import { openTraceFile } from '@main/trace/open';
import { replayTrace } from '@main/trace/replay';
import { flattenTree } from '@shared/model/tree';
import type { ObservedFrame } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import { traceVariables } from '@shared/trace/variables';
import { admin, untilQuiet, type DemoStats } from '../support/demo-admin';
import { maestroFlowOn } from '../support/maestro-oracle';
import { recordCase, REPLAY_CASES, resetApp } from '../support/replay-cases';
import { useConnectedDemo } from '../support/host-over-demo';
import { placesHolding } from '../support/secret-places';

const connected = useConnectedDemo({ demo: { appReveal: false }, managed: { dirPrefix: 'replay-label' } });
const env = () => ({ manager: connected.manager, recording: connected.recording, deviceId: connected.deviceId, adminUrl: connected.demo.adminUrl });

// Unlike the case's own text ("Jane Appleseed", also the field's placeholder), found only where it was typed.
const MARK = 'Zq9-Label-Typed-Name';

const keyRequests = (stats: DemoStats) => (stats.requests['request_append_text'] ?? 0) + (stats.requests['request_set_text'] ?? 0);

function fullNameInput(frame: ObservedFrame): UiNode | undefined {
  const root = frame.observation?.viewHierarchy?.hierarchy;
  return root ? flattenTree(root).find((f) => f.node['web-role'] === 'input' && f.node['content-desc'] === 'Full name')?.node : undefined;
}

describe('R-TRUST-03: a secret typed after a tap on a web label', () => {
  it('R-TRUST-03: checkout-A recorded with web-redact replays its withheld name into the Full name input, as the exported flow would, and the name is in no report, frame or push', async () => {
    const adminUrl = connected.demo.adminUrl;
    const replayCase = REPLAY_CASES.find((c) => c.name === 'checkout-A')!;
    const path = await recordCase(env(), replayCase, ['web-redact']);
    const trace = await openTraceFile(path);
    expect(traceVariables(trace.timeline).map((v) => v.name)).toEqual(['FULL_NAME']);

    await resetApp(adminUrl, replayCase.screen, ['web-redact']);
    const pushed: string[] = [];
    const onFrame = (frame: ObservedFrame) => pushed.push(JSON.stringify(frame));
    connected.connection.on('frame', onFrame);
    const keysBefore = keyRequests(await admin<DemoStats>(adminUrl, '/stats'));
    const screens = new Map<string, UiNode>();
    const kept: string[] = [];
    let report;
    try {
      report = await replayTrace(trace, connected.connection, {
        stopOnDivergence: false,
        variables: new Map([['FULL_NAME', MARK]]),
        keepFrames: (step, frames) => {
          const root = frames.before?.observation?.viewHierarchy?.hierarchy;
          if (root) screens.set(step.callId, root);
          kept.push(JSON.stringify(frames));
          return { before: true, after: true };
        },
      });
    } finally {
      connected.connection.off('frame', onFrame);
    }
    const keysAfter = keyRequests(await untilQuiet(adminUrl));

    // The exported flow passes on the same screens; so does the replay, step 2 typed to the focus.
    const observations = new Map<string, unknown>();
    for (const step of trace.timeline) {
      const ref = step.before?.observationRef;
      if (ref !== undefined) observations.set(ref, await trace.resourceJson(ref));
    }
    expect(maestroFlowOn(trace, observations, screens).failsAt).toBeNull();
    expect(report.steps.map((s) => s.verdict)).toEqual(['matched', 'matched', 'matched', 'matched']);
    const typed = report.steps[1]!;
    expect(typed).toMatchObject({ kind: 'sendKeys', ran: 'yes', replayed: { variable: 'FULL_NAME', sent: 'keyboard focus' } });
    expect(typed.notes).toContainEqual(expect.stringMatching(/^FULL_NAME goes to the keyboard focus: .*the text field "Full name"/));
    expect(keysAfter - keysBefore).toBe(1);

    // The page's own value, once the page lets values out again: the name is in the Full name input.
    await admin(adminUrl, '/faults', { remove: ['web-redact'] });
    await untilQuiet(adminUrl);
    const input = fullNameInput(await connected.connection.observe({}));
    expect(input, 'the checkout page shows its Full name input').toBeDefined();
    expect([input!.text, input!.value]).toContain(MARK);

    const places: Record<string, string> = { report: JSON.stringify(report), 'kept frames': kept.join('\n'), 'pushed frames': pushed.join('\n') };
    expect(placesHolding(places, [MARK])).toEqual([]);
  }, 180_000);
});

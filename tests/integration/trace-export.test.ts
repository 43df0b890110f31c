/**
 * A trace recorded the way the app records it (the API: recording.start, device.act with what the user
 * picked, recording.stop) on the demo device, exported to a Maestro flow and an XCUITest method:
 * the selectors are the ones XCTest can see, IME actions keep their native form, and notes carry the
 * step numbers the trace view's filmstrip shows (docs/rules.md#r-qa-08, #r-qa-09, #r-qa-10).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { withoutChildren } from '@shared/model/node';
import { flattenTree } from '@shared/model/tree';
import { TraceOpenedSchema } from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import { watchFrames } from '../support/frame-watch';

let demo: DemoDeviceHandle;
let services: AppServices;
let deviceId: string;
let tracePath: string;

async function call<T = Record<string, unknown>>(method: string, params: unknown): Promise<T> {
  const reply = await services.api.handle(method, params);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

/** The node the user would click on the current frame, as the UI sends it (identities and all, no children). */
async function picked(test: (node: UiNode) => boolean): Promise<UiNode> {
  const frame = await call<Frame>('device.observe', { deviceId });
  const root = frame.observation?.viewHierarchy?.hierarchy;
  const found = root ? flattenTree(root).find((f) => test(f.node)) : undefined;
  if (!found) throw new Error('the node to pick is not on screen');
  return withoutChildren(found.node);
}

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0 });
  await fetch(`${demo.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen: 'login', faults: [] }) });
  services = await startAppServices('web');
  deviceId = services.manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  const frames = watchFrames(services.manager.connectionOf(deviceId));
  await services.manager.connectionOf(deviceId).waitUntilConnected(10_000);
  // Between the steps, a person's pace: the frame a step left is observed before the next one.
  const settled = () => frames.until(demo.adminUrl);
  await settled();

  await call('recording.start', { deviceId });
  // Observations and a comparison between the actions: steps of the trace the filmstrip does not show.
  await call('device.observe', { deviceId });
  const comparison = await call<{ comparisonId: string }>('device.compare', { deviceId });
  await call('recording.saveComparison', { comparisonId: comparison.comparisonId });
  const submit = await picked((n) => n['resource-id'] === 'login.submit');
  await call('device.act', { deviceId, action: { action: 'tap', target: { node: submit } } });
  await settled();
  await call('device.observe', { deviceId });
  const username = await picked((n) => n['resource-id'] === 'login.username');
  await call('device.act', { deviceId, action: { action: 'tap', target: { node: username } } });
  await settled();
  await call('device.act', { deviceId, action: { action: 'sendKeys', steps: [{ kind: 'ime', imeAction: 'done' }] } });
  await settled();
  // The passkey button is disabled: the bridge refuses the tap, and the export says so for its step.
  const passkey = await picked((n) => n['resource-id'] === 'login.passkey');
  await call('device.act', { deviceId, action: { action: 'tap', target: { node: passkey } } });
  await settled();
  await call('device.observe', { deviceId });
  await call('device.act', { deviceId, action: { action: 'tap', target: { id: 'tab.feed' } } });
  const stopped = await call<{ lastTrace: string }>('recording.stop', {});
  tracePath = stopped.lastTrace;
}, 90_000);

afterAll(async () => {
  await services?.close();
  await demo?.close();
});

describe('exporting a recorded demo trace', () => {
  it('R-QA-08: a tap picked by id exports with its id, in Maestro and in XCUITest, not as a point', async () => {
    const { yaml } = await call<{ yaml: string }>('trace.exportMaestro', { path: tracePath });
    expect(yaml).toContain("- tapOn:\n    id: 'login\\.submit'");
    expect(yaml).not.toMatch(/point: '50%, 41%'/);
    const { swift } = await call<{ swift: string }>('trace.exportXcuiTest', { path: tracePath });
    expect(swift).toContain('app.buttons["login.submit"].tap()');
  });

  it('R-QA-09: an IME Done exports as the return key, with no note', async () => {
    const { yaml, notes } = await call<{ yaml: string; notes: string[] }>('trace.exportMaestro', { path: tracePath });
    expect(yaml).toContain('- pressKey: Enter');
    expect(notes.join('\n')).not.toMatch(/typed text is not in the trace/);
    const { swift } = await call<{ swift: string }>('trace.exportXcuiTest', { path: tracePath });
    expect(swift).toContain('app.keyboards.buttons["Done"].tap()');
  });

  it('R-QA-10: notes number steps as the filmstrip does, in the flow, the notes and the CLI', async () => {
    const opened = TraceOpenedSchema.parse(await call('trace.open', { path: tracePath }));
    const refused = opened.steps.findIndex((s) => s.status === 'failed');
    expect(refused).toBeGreaterThanOrEqual(0);
    const number = refused + 1;
    expect(opened.steps).toHaveLength(5);
    const { yaml, notes } = await call<{ yaml: string; notes: string[] }>('trace.exportMaestro', { path: tracePath });
    expect(yaml).toContain(`# Parallax: step ${number} (tap): not exported: the action failed`);
    expect(notes).toEqual([expect.stringMatching(new RegExp(`^note: step ${number} \\(call-\\d+\\): not exported: the action failed`))]);
    const { swift, notes: swiftNotes } = await call<{ swift: string; notes: string[] }>('trace.exportXcuiTest', { path: tracePath });
    expect(swift).toContain(`// Parallax: step ${number} (tap): not exported: the action failed`);
    expect(swiftNotes).toEqual(notes);
    for (let i = 1; i <= opened.steps.length; i++) if (i !== number) expect(swift).toContain(`// Step ${i}: `);
  });
});

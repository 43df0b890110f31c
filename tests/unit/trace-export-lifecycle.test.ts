/**
 * Launch steps in both exports (docs/rules.md#r-life-04), from trace events as the recorder writes them.
 * Maestro's launchApp stops a running app unless `stopApp: false` (Orchestra.kt launchAppCommand:
 * `stopIfRunning = command.stopApp ?: true`), so only a launch that did not stop the app says so.
 */
import { describe, expect, it } from 'vitest';
import { buildTimeline, readTraceEvents, validateManifest } from '@shared/trace/reader';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { exportXcuiTest } from '@shared/trace/xcuitest';

const manifestRead = validateManifest({
  format: 'parallax-trace',
  version: 1,
  createdAt: '2026-12-02T00:00:00.000Z',
  device: { name: 'Demo iPhone', kind: 'demo', url: 'ws://127.0.0.1:1/ws' },
  app: { bundleId: 'dev.parallax.demo' },
});
if (!manifestRead.ok) throw manifestRead.error;
const manifest = manifestRead.manifest;

function exported(actions: Record<string, unknown>[]) {
  const lines = actions.flatMap((action, i) => [
    JSON.stringify({ type: 'action.before', callId: `call-${i + 1}`, seq: 2 * i, time: 1000 + i, action }),
    JSON.stringify({
      type: 'action.after',
      callId: `call-${i + 1}`,
      seq: 2 * i + 1,
      time: 1500 + i,
      result: { success: true, warnings: [], target: { resolvedBy: 'screen' }, timings: {}, requestsSent: 1 },
    }),
  ]);
  const events = readTraceEvents(lines.join('\n'));
  if (!events.ok) throw events.error;
  const timeline = buildTimeline(events.events);
  return { maestro: exportMaestroFlow(manifest, timeline, new Map()), xcuitest: exportXcuiTest(manifest, timeline, new Map()) };
}

describe('R-LIFE-04: launch steps in the exports', () => {
  it('a relaunch is a plain launchApp and terminate() + launch(); never clearState', () => {
    const { maestro, xcuitest } = exported([{ kind: 'launch', relaunch: true }]);
    expect(maestro.yaml).toContain('---\n- launchApp\n');
    expect(maestro.yaml).not.toContain('clearState');
    expect(maestro.yaml).not.toContain('stopApp');
    expect(xcuitest.swift).toMatch(/\n {4}app\.terminate\(\)\n {4}app\.launch\(\)\n/);
  });

  it('a launch that only brought the app to the front is stopApp: false and activate()', () => {
    const { maestro, xcuitest } = exported([{ kind: 'launch', relaunch: false }]);
    expect(maestro.yaml).toContain('- launchApp:\n    stopApp: false\n');
    expect(xcuitest.swift).toMatch(/\/\/ Step 1: launch\n {4}app\.activate\(\)/);
  });

  it('another app is named: appId in Maestro, its own XCUIApplication in XCUITest', () => {
    const { maestro, xcuitest } = exported([{ kind: 'launch', relaunch: true, bundleId: 'com.example.other' }]);
    expect(maestro.yaml).toContain("- launchApp:\n    appId: 'com.example.other'\n");
    expect(xcuitest.swift).toContain('XCUIApplication(bundleIdentifier: "com.example.other").terminate()');
    expect(xcuitest.swift).toContain('XCUIApplication(bundleIdentifier: "com.example.other").launch()');
  });
});

// `parallax audit`'s exit codes for CI (docs/rules.md#r-a11y-14), each its own: 0 clean, 1 findings at the
// --fail-on level, 2 a wrong command line (saying what was wrong), 3 unauditable (the device unreachable, the
// trace unreadable or holding no screen, the report not written). The traces are written here by the real
// recorder (no device needed); the unreachable device is a closed port.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '@main/cli/main';
import type { UiNode } from '@shared/protocol/runner';
import type { ActionResult } from '@shared/protocol/action';
import { TraceRecorder } from '@main/trace/recorder';
import { recordActionStep } from '@main/trace/replay';
import { box, screenOf, xctestObservation } from '../support/a11y-frame';

async function run(...args: string[]): Promise<{ code: number; said: string }> {
  const lines: string[] = [];
  const code = await main(['audit', ...args], { log: (l) => lines.push(l), error: (l) => lines.push(l) });
  return { code, said: lines.join('\n') };
}

describe('R-A11Y-14 parallax audit: a wrong command line exits 2 and names what was wrong', () => {
  it.each([
    [['--device', 'ws://127.0.0.1:1/ws', '--fail-on', 'info'], /--fail-on is error or warning, not "info"/],
    [['--device', 'ws://127.0.0.1:1/ws', 'some.parallax-trace'], /not both/],
    [[], /needs --device URL or exactly one TRACE/],
    [['a.parallax-trace', 'b.parallax-trace'], /exactly one TRACE/],
    [['--device', '127.0.0.1:1'], /--device must be a ws:\/\/ runner URL/],
    [['--device', 'ws://127.0.0.1:1/ws', '--report', 'findings.pdf'], /--report names a \.html or \.md file/],
    [['--device', 'ws://127.0.0.1:1/ws', '--timeout', 'soon'], /--timeout is a number of milliseconds above 0, not "soon"/],
    [['--device', 'ws://127.0.0.1:1/ws', '--timeout', '0'], /--timeout is a number of milliseconds above 0, not "0"/],
    [['--device', 'ws://127.0.0.1:1/ws', '--colour'], /--colour/],
  ])('R-A11Y-14: audit %j exits 2', async (args, said) => {
    const result = await run(...args);
    expect(result.said).toMatch(said);
    expect(result.code).toBe(2);
  });
});

/** A frame of one button over the screen (no screenshot: contrast is not evaluated, and not a finding). */
function frameWith(button: UiNode) {
  return { observation: xctestObservation(screenOf([button])), screenshot: null, receivedAt: 1 };
}
const button = (label: string | undefined, size: number): UiNode => ({
  className: 'UIButton',
  role: 'button',
  'resource-id': 'save',
  clickable: 'true',
  enabled: 'true',
  ...(label ? { text: label } : {}),
  bounds: box(100, 200, size, size),
});

/** A tap that ran, as the runner reports one. */
const TAPPED: ActionResult = {
  success: true,
  backend: 'xctest',
  warnings: [],
  target: { resolvedBy: 'id', selector: 'save' },
  timings: { total: 5 },
  requestsSent: 1,
};

let dir: string;
const traces: Record<'clean' | 'warning' | 'error' | 'noScreen', string> = { clean: '', warning: '', error: '', noScreen: '' };
async function recordTrace(frame: ReturnType<typeof frameWith> | null): Promise<string> {
  const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
  await recordActionStep(recorder, {
    callId: 'tap_1',
    request: { action: 'tap', target: { id: 'save' } },
    before: frame,
    after: frame,
    result: TAPPED,
  });
  return recorder.stop();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-audit-exit-'));
  traces.clean = await recordTrace(frameWith(button('Save', 44)));
  // 30 x 30 pt: under HIG's 44 (a warning), over WCAG's 24 (an error under it).
  traces.warning = await recordTrace(frameWith(button('Save', 30)));
  traces.error = await recordTrace(frameWith(button(undefined, 44)));
  traces.noScreen = await recordTrace(null);
}, 60_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('R-A11Y-14 parallax audit: each outcome its own exit code', () => {
  it('R-A11Y-14: exit 0 for a clean trace, even at --fail-on warning', async () => {
    const result = await run(traces.clean, '--fail-on', 'warning');
    expect(result.said).toMatch(/: 0 findings/);
    expect(result.code).toBe(0);
  });

  it('R-A11Y-14: exit 1 for findings at the --fail-on level; a warning under --fail-on error is reported, exit 0', async () => {
    const error = await run(traces.error);
    expect(error.said).toMatch(/error\s+R-A11Y-03/);
    expect(error.code).toBe(1);
    const warned = await run(traces.warning, '--fail-on', 'error');
    expect(warned.said).toMatch(/warning\s+R-A11Y-07/);
    expect(warned.code).toBe(0);
    expect((await run(traces.warning, '--fail-on', 'warning')).code).toBe(1);
  });

  it('R-A11Y-14: exit 2 for a wrong command line, even beside a trace with findings', async () => {
    expect((await run(traces.error, '--fail-on', 'never')).code).toBe(2);
  });

  it('R-A11Y-14: exit 3 when the device cannot be reached, named', async () => {
    const result = await run('--device', 'ws://127.0.0.1:1/ws', '--timeout', '500');
    expect(result.said).toMatch(/cannot audit ws:\/\/127\.0\.0\.1:1\/ws/);
    expect(result.code).toBe(3);
  }, 30_000);

  it('R-A11Y-14: exit 3 for a trace that is missing, not a trace, or holds no screen to audit', async () => {
    const missing = await run(join(dir, 'gone.parallax-trace'));
    expect(missing.said).toMatch(/cannot audit .*gone\.parallax-trace/);
    expect(missing.code).toBe(3);
    const junk = join(dir, 'junk.parallax-trace');
    await writeFile(junk, 'not a zip at all');
    const unreadable = await run(junk);
    expect(unreadable.said).toMatch(/cannot audit .*junk\.parallax-trace/);
    expect(unreadable.code).toBe(3);
    const empty = await run(traces.noScreen);
    expect(empty.said).toMatch(/stores no screen to audit/);
    expect(empty.code).toBe(3);
  }, 30_000);

  it('R-A11Y-14: exit 3 when the report cannot be written, never the findings’ 1 or a clean 0', async () => {
    const folder = join(dir, 'a-folder.md');
    await mkdir(folder);
    const result = await run(traces.clean, '--report', folder);
    expect(result.said).toMatch(/the report .*a-folder\.md was not written/);
    expect(result.code).toBe(3);
  });

  it('R-A11Y-14: the help text names all four codes', async () => {
    const help = (await run('--help')).said;
    expect(help).toMatch(/exit 0 clean/);
    expect(help).toMatch(/1 findings at --fail-on/);
    expect(help).toMatch(/2 a wrong command line/);
    expect(help).toMatch(/3 unauditable/);
  });
});

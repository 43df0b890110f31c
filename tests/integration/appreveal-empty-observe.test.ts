/**
 * An observation that holds nothing to inspect is an error with its reasons, not an empty screen
 * (docs/rules.md#r-ar-31): against the demo app speaking as an AppReveal server that registers only the
 * tools every server has (the Tauri crate's example, tests/fixtures/appreveal-tauri/example: no
 * get_elements), `parallax observe` says why there is nothing and exits 1, in text and in --json.
 */
import { describe, expect, it } from 'vitest';
import { main } from '@main/cli/main';
import { useDemoDevice } from '../support/host-over-demo';

/** The demo app as a Tauri AppReveal server offering only the tools every server has. */
const started = useDemoDevice({ screen: 'login', appRevealFlavor: 'tauri', appRevealTools: 'always' });

describe('R-AR-31: observe on an app that exposes nothing to inspect', () => {
  async function observe(...flags: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['observe', '--device', started.demo.appRevealUrl ?? '', ...flags], { log: (l) => out.push(l), error: (l) => err.push(l) });
    return { code, out, err };
  }

  it('R-AR-31: the text form exits 1 and says the app registered no get_elements', async () => {
    const { code, out, err } = await observe();
    expect(code).toBe(1);
    expect(out[0]).toMatch(/quality=sparse \(appreveal_elements_not_offered\)/);
    expect(err.join('\n')).toMatch(/nothing to inspect: This app registered no get_elements tool/);
  });

  it('R-AR-31: --json still prints the observation, with the same exit code and reason', async () => {
    const { code, out, err } = await observe('--json');
    expect(code).toBe(1);
    const observation = JSON.parse(out.join('\n')) as { quality: { reason: string }; viewHierarchy?: { hierarchy?: { node?: unknown[] } } };
    expect(observation.quality.reason).toBe('appreveal_elements_not_offered');
    expect(observation.viewHierarchy?.hierarchy?.node ?? []).toEqual([]);
    expect(err.join('\n')).toMatch(/nothing to inspect/);
  });
});

describe('R-QA-15: doctor says what an app cannot show', () => {
  it('R-QA-15: an app with only the always-present tools fails the inspect check, with what it lacks, and doctor exits 1', async () => {
    const lines: string[] = [];
    const code = await main(['doctor', '--device', started.demo.appRevealUrl ?? ''], { log: (l) => lines.push(l), error: (l) => lines.push(l) });
    expect(code).toBe(1);
    const text = lines.join('\n');
    expect(text).toMatch(/ok\s+token\s+accepted; the app registered 4 tools/);
    expect(text).toMatch(/FAIL\s+inspect\s+nothing to inspect: no element tree \(get_elements\); no screenshot/);
  });
});

// `parallax audit`'s command line for CI (docs/rules.md#r-a11y-14): a wrong one exits 2, apart from 1 (findings
// at the --fail-on level), and says what was wrong; nothing is audited, so no device is needed.
import { describe, expect, it } from 'vitest';
import { main } from '@main/cli/main';

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

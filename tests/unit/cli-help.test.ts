/** R-CLI-HELP: every command answers --help with its usage and exit code 0 (observe, serve and demo-device said "Unknown option"). */
import { describe, expect, it } from 'vitest';
import { listedCommands, main } from '@main/cli/main';

// Every command the CLI's own usage lists, so a command added there is covered here (audit was not).
const COMMANDS = listedCommands();

it('R-CLI-HELP: the usage lists every command, audit and the action commands included', () => {
  expect(COMMANDS).toEqual(expect.arrayContaining(['start', 'serve', 'observe', 'tap', 'scroll-to', 'launch', 'open-link', 'audit', 'doctor', 'demo-device']));
  expect(COMMANDS).toHaveLength(19);
});

describe('R-CLI-HELP: --help on every command', () => {
  for (const command of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      it(`R-CLI-HELP: parallax ${command} ${flag} prints its usage and exits 0`, async () => {
        const logged: string[] = [];
        const errors: string[] = [];
        const code = await main([command, flag], { log: (line) => logged.push(line), error: (line) => errors.push(line) });
        expect(errors).toEqual([]);
        expect(code).toBe(0);
        expect(logged.join('\n')).toContain(command);
        expect(logged.join('\n')).toMatch(/Usage/);
      });
    }
  }
});

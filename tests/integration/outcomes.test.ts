/**
 * Every fault of the demo device, provoked once through the CLI, lands in the outcome class the one
 * table gives it (docs/rules.md#r-act-01), and no path sends an action command twice (R-ACT-04); the
 * same cases through the web host's API are tests/integration/outcomes-ui.test.ts (a file of its own, so
 * the two halves run side by side). `npm run bench -- outcomes` prints the same cases as a table.
 */
import { describe, expect, it } from 'vitest';
import { checkCase, OUTCOME_CASES, uncoveredFaults, viaCli } from '../support/outcome-cases';
import { useDemoDevice } from '../support/host-over-demo';

const started = useDemoDevice({ appReveal: false });

describe('every fault of the demo device lands in its class', () => {
  it('R-ACT-01: the cases cover every fault the demo device has', () => {
    expect(uncoveredFaults()).toEqual([]);
  });

  it('R-ACT-01, R-ACT-04: every fault of the demo device lands in its class through the CLI', async () => {
    const wrong: string[] = [];
    for (const c of OUTCOME_CASES) wrong.push(...(await checkCase(started.demo.adminUrl, 'cli', c, () => viaCli(started.demo.runnerUrl, c))));
    expect(wrong).toEqual([]);
  }, 400_000);
});

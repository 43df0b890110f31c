import { describe, expect, it } from 'vitest';
import { RUNNER_COMMANDS } from '@shared/protocol/runner';
import {
  isRunnerStallEvidence,
  isSdkServedCommand,
  sdkRequestBudgetMs,
  SDK_REQUEST_BUDGET_MS,
  SDK_TOTAL_BUDGET_MS,
  swipeBudgetMs,
  WEB_ACTION_BUDGET_MS,
} from '@shared/act/budget';
import { relayAvailable } from '@shared/act/verdict';

describe('Observation and action commands: the SDK data budget', () => {
  it('R-CMD-10: bridge requests get 2 s each and 5 s in total', () => {
    expect(SDK_REQUEST_BUDGET_MS).toBe(2000);
    expect(SDK_TOTAL_BUDGET_MS).toBe(5000);
    expect([0, 2000, 3500, 4000, 5000, 6000].map(sdkRequestBudgetMs)).toEqual([2000, 2000, 1500, 1000, 0, 0]);
  });

  it('R-TDOM-01: a click has a 5 s budget', () => {
    expect(WEB_ACTION_BUDGET_MS).toBe(5000);
  });

  it.each([
    [0, 5000],
    [1999, 5000],
    [2000, 5000],
    [2001, 5001],
    [7000, 10_000],
    [-5, 5000],
  ])('R-SWP-08: the bridge budget of a %i ms gesture is %i ms (duration + 3 s, never under 5 s)', (duration, budget) => {
    expect(swipeBudgetMs(duration)).toBe(budget);
  });

  it('R-CMD-11: a timeout of an action request reports available: true (it may have run)', () => {
    expect(relayAvailable({ kind: 'timeout' })).toBe(true);
  });

  it.each(['request_sdk_action', 'request_sdk_web_action', 'request_sdk_observation', 'request_sdk_web_snapshot', 'get_sdk_capabilities'] as const)(
    'R-CMD-12: neither a %s reply nor its timeout is stall evidence for runner recovery',
    (command) => {
      expect(isRunnerStallEvidence({ command, outcome: 'timeout' })).toBe(false);
      expect(isRunnerStallEvidence({ command, outcome: 'reply' })).toBe(false);
    },
  );

  it('R-CMD-12: a runner command of its own that times out is stall evidence; a reply never is', () => {
    const own = RUNNER_COMMANDS.filter((c) => !isSdkServedCommand(c));
    expect(own).toContain('request_hierarchy');
    for (const command of own) {
      expect(isRunnerStallEvidence({ command, outcome: 'timeout' })).toBe(true);
      expect(isRunnerStallEvidence({ command, outcome: 'reply' })).toBe(false);
      expect(isRunnerStallEvidence({ command, outcome: 'disconnected' })).toBe(false);
    }
  });
});

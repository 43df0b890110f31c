/**
 * Contract tests against the traffic recorded from AppReveal's own Rust server (tests/fixtures/appreveal-tauri):
 * every recorded reply is decoded and classified by the client as the server meant it, and every
 * recorded request gets an answer of the recorded shape from the demo's server in the Tauri flavour.
 * The cases are in appreveal-contract-cases.ts (`npm run bench -- appreveal` prints the counts).
 */
import { describe, expect, it } from 'vitest';
import { compareSetWithDemo, FIXTURE_SETS, loadExchanges, replaySetAgainstClient } from '../support/appreveal-contract-cases';

describe.each(FIXTURE_SETS)('recorded %s exchanges', (set) => {
  it(`R-AR-07, R-AR-20: the client decodes and classifies each ${set} reply as the server meant`, async () => {
    const outcomes = await replaySetAgainstClient(set);
    expect(outcomes).toHaveLength(loadExchanges(set).length);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
  });

  it(`R-AR-25: the demo's Tauri flavour answers each ${set} request in the recorded shape`, async () => {
    const comparisons = await compareSetWithDemo(set);
    expect(comparisons).toHaveLength(loadExchanges(set).length);
    expect(comparisons.filter((c) => !c.ok)).toEqual([]);
  });
});

/** A healthy observation with no data points beyond those given: the smallest thing ObservationSchema takes. */
import type { Observation } from '@shared/protocol/observation';

export function observation(fields: Partial<Observation> = {}): Observation {
  return {
    updatedAt: 1,
    updatedAtSource: 'device',
    layoutWarnings: { scope: 'full', warnings: [] },
    errors: [],
    quality: { verdict: 'healthy', reason: 'xctest_tree' },
    strategy: 'visible',
    timings: {},
    sources: {},
    ...fields,
  } as Observation;
}

/**
 * Comparisons taken through the API: each one is kept, by id, for a short while, so the user
 * can look at it first and then save it into the recording without the device being read again.
 */
import { randomUUID } from 'node:crypto';
import type { ComparisonView } from '@shared/api/api';
import type { Strategy } from '@shared/protocol/observation';
import { compareNow, type Comparison } from './compare';
import type { DeviceManager } from './manager';

/** How many comparisons are kept for saving; each holds two trees and one screenshot. */
const KEPT = 8;

export class UnknownComparisonError extends Error {
  override readonly name = 'UnknownComparisonError';
}

export class Comparisons {
  private readonly kept = new Map<string, { deviceId: string; comparison: Comparison }>();

  constructor(private readonly manager: DeviceManager) {}

  async compare(deviceId: string, options: { strategy?: Strategy } = {}): Promise<ComparisonView> {
    const connection = this.manager.connectionOf(deviceId);
    await connection.waitUntilConnected();
    const comparison = await compareNow(connection, options);
    const comparisonId = randomUUID();
    this.kept.set(comparisonId, { deviceId, comparison });
    while (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value as string);
    const { xctest, sdk, diff, stamps, sameScreen } = comparison;
    return {
      comparisonId,
      deviceId,
      xctest: { deviceId, ...xctest },
      sdk: { deviceId, ...sdk },
      diff,
      stamps,
      sameScreen: sameScreen ?? null,
    };
  }

  /** A comparison taken earlier; throws UnknownComparisonError when it is not (or no longer) kept. */
  get(comparisonId: string): { deviceId: string; comparison: Comparison } {
    const kept = this.kept.get(comparisonId);
    if (!kept) throw new UnknownComparisonError(`no comparison ${comparisonId} is kept (only the last ${KEPT} are): compare again`);
    return kept;
  }
}

/**
 * The live comparison's store: the XCTest-only against SDK-backed comparison on screen (it replaces the
 * live view until closed), whether one is being taken, and why the last one failed.
 */
import { create } from 'zustand';
import type { ComparisonView } from '@shared/api/api';
import type { Transport } from '@renderer/api/transport';
import { errorMessage } from '@renderer/state/format';

interface LiveComparisonState {
  /** The comparison on screen; null: the live view is. */
  view: ComparisonView | null;
  /** A comparison is being taken. */
  pending: boolean;
  /** Why the last comparison could not be taken. */
  error: string | null;
}

export const useLiveComparison = create<LiveComparisonState>(() => ({ view: null, pending: false, error: null }));

export async function compareDevice(api: Transport, deviceId: string): Promise<void> {
  useLiveComparison.setState({ pending: true, error: null });
  try {
    const view = await api.call('device.compare', { deviceId });
    useLiveComparison.setState({ view, pending: false });
  } catch (error) {
    useLiveComparison.setState({ pending: false, error: `Compare failed: ${errorMessage(error)}` });
  }
}

export function closeComparison(): void {
  useLiveComparison.setState({ view: null, error: null });
}

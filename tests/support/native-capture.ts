/**
 * The heavy screen's native capture without its tree: what a demo read of the heavy screen carries
 * around its root (docs/rules.md#r-perf-10). Tests that build a tree of their own put it under this.
 */
import type { NativeCapture } from '@demo/phone/capture-model';

export const HEAVY_SHELL: Omit<NativeCapture, 'root'> = {
  screen: 'heavy',
  hostile: null,
  chrome: { 'status-bar': [0, 0, 402, 54] },
  safeArea: { top: 62, bottom: 34 },
  statusBarVisible: true,
  viewport: { width: 402, height: 874 },
};

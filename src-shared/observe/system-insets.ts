/**
 * The observation's `systemInsets` (seed 002; docs/rules.md#r-obj-03): a compatibility alias for the
 * stable system-bar edges, `{top, left, bottom, right}`; new consumers read `insets`.
 *
 * The runner's own `systemInsets` wins (AutoMobile's CtrlProxy hierarchy carries it as that edge object,
 * kaeawc/auto-mobile `src/models` XCTestHierarchy); else the typed insets' safe area when they say they
 * are available. A runner that reports neither (the recorded Settings reads: `insets.available: false`)
 * gets no alias: an edge of 0 would claim a screen without system bars.
 */
import type { ViewHierarchy } from '@shared/protocol/runner';

export function systemInsetsOf(read: Pick<ViewHierarchy, 'systemInsets' | 'insets'>): ViewHierarchy['systemInsets'] {
  if (read.systemInsets) return { top: read.systemInsets.top, left: read.systemInsets.left, bottom: read.systemInsets.bottom, right: read.systemInsets.right };
  const safeArea = read.insets?.available ? read.insets.safeArea : undefined;
  return safeArea ? { top: safeArea.top, left: safeArea.left, bottom: safeArea.bottom, right: safeArea.right } : undefined;
}

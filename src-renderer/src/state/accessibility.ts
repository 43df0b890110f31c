/**
 * The Accessibility panel's UI state (docs/rules.md#r-a11y-17): whether the live audit runs, and which
 * finding the user picked (its mark on the screen is drawn stronger). The findings themselves are the
 * host's (api/accessibility.ts), never computed here.
 */
import { create } from 'zustand';

interface AccessibilityState {
  /** The host audits each new frame of the shown device while this is on. */
  auditing: boolean;
  /** The fingerprint of the finding picked in the panel. */
  focused: string | null;
  setAuditing(on: boolean): void;
  focus(fingerprint: string | null): void;
}

export const useAccessibility = create<AccessibilityState>()((set) => ({
  auditing: false,
  focused: null,
  setAuditing: (auditing) => set(auditing ? { auditing } : { auditing, focused: null }),
  focus: (focused) => set({ focused }),
}));

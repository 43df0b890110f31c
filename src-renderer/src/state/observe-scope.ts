/**
 * The view's observe-scope (docs/rules.md#r-scope-06): which of seed 002's scopes the shown frame is narrowed
 * to. The transform is the pure one the command line runs (`scopeObservation`, src-shared/observe/scope.ts);
 * the host's frame stays whole, so history, recordings and actions are never scoped, only what is shown.
 * The audit's findings are co-scoped with the shown tree (`scopeAudit`), as the layout warnings are.
 */
import { useMemo } from 'react';
import { create } from 'zustand';
import { scopeAudit, scopeObservation, type ObserveScopeRequest, type ScopedObservation } from '@shared/observe/scope';
import type { Frame } from '@shared/protocol/device';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';

export const VIEW_SCOPES = ['whole', 'app', 'content', 'overview'] as const;
export type ViewScope = (typeof VIEW_SCOPES)[number];

export const VIEW_SCOPE_TEXT: Record<ViewScope, string> = {
  whole: 'Whole tree',
  app: 'Foreground app (focus)',
  content: 'Content area (region)',
  overview: 'Overview (skeleton)',
};

/** What each choice asks of `scopeObservation`; `whole` asks nothing (the frame is shown as the host sent it). */
export function scopeRequest(scope: ViewScope): ObserveScopeRequest | null {
  if (scope === 'app') return { focus: true };
  if (scope === 'content') return { region: true };
  if (scope === 'overview') return { overview: true };
  return null;
}

interface ObserveScopeState {
  scope: ViewScope;
  setScope(scope: ViewScope): void;
}

export const useObserveScope = create<ObserveScopeState>()((set) => ({
  scope: 'whole',
  setScope: (scope) => set({ scope }),
}));

/** The frame as the chosen scope shows it, and how to find a whole-tree element in it (undefined: unscoped). */
export function useScopedFrame(frame: Frame | undefined): { frame: Frame | undefined; scoped: ScopedObservation | undefined } {
  const scope = useObserveScope((s) => s.scope);
  return useMemo(() => {
    const request = scopeRequest(scope);
    if (!frame?.observation || !request) return { frame, scoped: undefined };
    const scoped = scopeObservation(frame.observation, request);
    return { frame: { ...frame, observation: scoped.observation }, scoped };
  }, [frame, scope]);
}

/** The host's audit of the whole frame, its findings co-scoped with the shown tree (R-SCOPE-05). */
export function useScopedAudit<Q extends { data: { audit: AccessibilityAudit | null } | undefined }>(query: Q, scoped: ScopedObservation | undefined): Q {
  const data = query.data;
  const scopedData = useMemo(() => (data?.audit && scoped ? { ...data, audit: scopeAudit(data.audit, scoped) } : data), [data, scoped]);
  return scopedData === data ? query : { ...query, data: scopedData };
}

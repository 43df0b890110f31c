import './Panes.css';
/**
 * The live view's panes (docs/rules.md#r-qa-17): the sidebar, the canvas over the timeline, and the
 * inspector's panels, each resized by dragging the separator between them (react-resizable-panels) and
 * remembered in localStorage between reloads, per group and per set of panels shown.
 */
import { Panel, Separator, useDefaultLayout } from 'react-resizable-panels';
import type { ComponentProps } from 'react';
import type { LayoutStorage } from 'react-resizable-panels';

/** Where a group's layout is kept: `parallax.panes.<group>` in localStorage. */
export const PANE_STORAGE_PREFIX = 'parallax.panes.';

/** localStorage, or nothing when the page may not use it (a sandboxed frame): the panes then start at their defaults. */
function paneStorage(): LayoutStorage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** The saved layout of one group (`defaultLayout`) and the callback that saves it after the user resizes. */
export function usePaneLayout(group: string, panelIds?: string[]): Pick<ReturnType<typeof useDefaultLayout>, 'defaultLayout' | 'onLayoutChanged'> {
  const storage = paneStorage();
  const { defaultLayout, onLayoutChanged } = useDefaultLayout({
    id: `${PANE_STORAGE_PREFIX}${group}`,
    onlySaveAfterUserInteractions: true,
    ...(panelIds ? { panelIds } : {}),
    ...(storage ? { storage } : {}),
  });
  return { defaultLayout, onLayoutChanged };
}

/** The handle between two panes: a thin line that thickens under the pointer. */
export function PaneSeparator({ id, label }: { id: string; label: string }) {
  return <Separator id={id} className="pane-separator" data-testid={`separator-${id}`} aria-label={label} />;
}

/** One resizable pane: its test id is `pane-<id>` (the library would use the bare id, which names other things). */
export function Pane({ id, ...props }: Omit<ComponentProps<typeof Panel>, 'id' | 'className'> & { id: string }) {
  return <Panel id={id} className="pane" data-testid={`pane-${id}`} {...props} />;
}

/**
 * UI state (not device data): which device and node are selected, what the pointer hovers, the search
 * query, the pick stack position, which tree rows are collapsed, how to observe (strategy, XCTest only,
 * live or paused) and what the overlay draws (sources, layers).
 */
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { cycleIndex } from '@shared/inspect';
import type { NodeSource, Strategy } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { ancestorKeys, type NodeKey } from '@shared/model/tree';

/** The overlay's layers besides the boxes. */
export interface OverlayLayers {
  safeAreas: boolean;
  layoutWarnings: boolean;
  /** Advisory layout findings (edge-to-edge backgrounds, scrollable content): never failures, off by default. */
  advisories: boolean;
}
export type OverlayLayer = keyof OverlayLayers;

/** A click on the screen, in screen points, and which entry of the stack under it is selected. */
export interface PickState {
  x: number;
  y: number;
  index: number;
}

/** What a click on the screen does: pick boxes (inspect) or act on the device (interact). */
export type ScreenMode = 'inspect' | 'interact';

export interface InspectorState {
  selectedDeviceId: string | null;
  mode: ScreenMode;
  /** The timeline step whose before / after frames are open (its call id). */
  openStep: string | null;
  /** AppReveal: the window the picker outlines (null: the key window). */
  windowId: string | null;
  /**
   * AppReveal has no keyboard focus to read: the editable node the user last tapped in interact mode is
   * the field the type box types into (its element id). Per device.
   */
  typeField: Readonly<Record<string, UiNode>>;
  selectedKey: NodeKey | null;
  hoveredKey: NodeKey | null;
  searchQuery: string;
  /** Which search match Enter selected last (-1: none yet). */
  searchCursor: number;
  pick: PickState | null;
  collapsed: ReadonlySet<NodeKey>;
  /** Live mode: pushed frames replace the shown one and a screenshot loop keeps observing. */
  live: boolean;
  strategy: Strategy;
  /** Observe with the SDK observation bridge flag off: what plain XCTest sees. */
  xctestOnly: boolean;
  /** Sources whose boxes the overlay leaves out. */
  hiddenSources: ReadonlySet<NodeSource>;
  layers: OverlayLayers;

  selectDevice(deviceId: string | null): void;
  setMode(mode: ScreenMode): void;
  toggleMode(): void;
  openStepDetail(callId: string | null): void;
  setWindowId(windowId: string | null): void;
  setTypeField(deviceId: string, node: UiNode | null): void;
  /** Select a node from the tree, the attributes or the search (clears the pick stack). */
  selectNode(key: NodeKey | null): void;
  hoverNode(key: NodeKey | null): void;
  setSearchQuery(query: string): void;
  /** Select the `delta`-th next search match among `matches`. */
  stepSearch(matches: readonly NodeKey[], delta: number): void;
  /** Start a pick at a new point: selects the smallest node of `stack`. */
  pickAt(x: number, y: number, stack: readonly NodeKey[]): void;
  /** Move through the stack under the current pick point (+1: next larger box). */
  cyclePick(stack: readonly NodeKey[], delta: number): void;
  clearPick(): void;
  toggleCollapsed(key: NodeKey): void;
  setCollapsed(key: NodeKey, collapsed: boolean): void;
  setLive(live: boolean): void;
  setStrategy(strategy: Strategy): void;
  setXctestOnly(xctestOnly: boolean): void;
  setSourceShown(source: NodeSource, shown: boolean): void;
  setLayer(layer: OverlayLayer, on: boolean): void;
}

function withAncestorsExpanded(collapsed: ReadonlySet<NodeKey>, key: NodeKey | null): ReadonlySet<NodeKey> {
  if (key === null) return collapsed;
  const ancestors = ancestorKeys(key).filter((k) => collapsed.has(k));
  if (ancestors.length === 0) return collapsed;
  const next = new Set(collapsed);
  for (const k of ancestors) next.delete(k);
  return next;
}

export type InspectorStore = UseBoundStore<StoreApi<InspectorState>>;

/**
 * A fresh inspector: its own selection, hover, pick, collapsed rows and overlay filters. The app has
 * one (`useInspector`); a view that shows two trees side by side makes one per side (inspector-scope.ts).
 */
export function createInspectorStore(): InspectorStore {
  return create<InspectorState>()((set, get) => ({
    selectedDeviceId: null,
    mode: 'inspect',
    openStep: null,
    windowId: null,
    typeField: {},
    selectedKey: null,
    hoveredKey: null,
    searchQuery: '',
    searchCursor: -1,
    pick: null,
    collapsed: new Set(),
    live: true,
    strategy: 'visible',
    xctestOnly: false,
    hiddenSources: new Set(),
    layers: { safeAreas: true, layoutWarnings: true, advisories: false },

    selectDevice: (deviceId) => {
      if (get().selectedDeviceId === deviceId) return;
      set({
        selectedDeviceId: deviceId,
        selectedKey: null,
        hoveredKey: null,
        pick: null,
        collapsed: new Set(),
        searchCursor: -1,
        openStep: null,
        windowId: null,
      });
    },

    setMode: (mode) => set(mode === 'interact' ? { mode, pick: null } : { mode }),

    toggleMode: () => get().setMode(get().mode === 'inspect' ? 'interact' : 'inspect'),

    openStepDetail: (callId) => set({ openStep: callId }),

    setWindowId: (windowId) => set({ windowId }),

    setTypeField: (deviceId, node) =>
      set((s) => {
        const next = { ...s.typeField };
        if (node) next[deviceId] = node;
        else delete next[deviceId];
        return { typeField: next };
      }),

    selectNode: (key) => set((s) => ({ selectedKey: key, pick: null, collapsed: withAncestorsExpanded(s.collapsed, key) })),

    hoverNode: (key) => {
      if (get().hoveredKey !== key) set({ hoveredKey: key });
    },

    setSearchQuery: (query) => set({ searchQuery: query, searchCursor: -1 }),

    stepSearch: (matches, delta) => {
      if (matches.length === 0) return;
      const s = get();
      const start = s.searchCursor < 0 ? (delta > 0 ? -1 : 0) : s.searchCursor;
      const cursor = cycleIndex(start, delta, matches.length);
      const key = matches[cursor] ?? null;
      set({ searchCursor: cursor, selectedKey: key, pick: null, collapsed: withAncestorsExpanded(s.collapsed, key) });
    },

    pickAt: (x, y, stack) => {
      const key = stack[0] ?? null;
      set((s) => ({
        pick: stack.length > 0 ? { x, y, index: 0 } : null,
        selectedKey: key,
        collapsed: withAncestorsExpanded(s.collapsed, key),
      }));
    },

    cyclePick: (stack, delta) => {
      const s = get();
      if (!s.pick || stack.length === 0) return;
      const index = cycleIndex(Math.min(s.pick.index, stack.length - 1), delta, stack.length);
      const key = stack[index] ?? null;
      set({ pick: { ...s.pick, index }, selectedKey: key, collapsed: withAncestorsExpanded(s.collapsed, key) });
    },

    clearPick: () => set({ pick: null }),

    toggleCollapsed: (key) => get().setCollapsed(key, !get().collapsed.has(key)),

    setCollapsed: (key, collapsed) =>
      set((s) => {
        if (s.collapsed.has(key) === collapsed) return {};
        const next = new Set(s.collapsed);
        if (collapsed) next.add(key);
        else next.delete(key);
        return { collapsed: next };
      }),

    setLive: (live) => set({ live }),

    setStrategy: (strategy) => set({ strategy }),

    setXctestOnly: (xctestOnly) => set({ xctestOnly }),

    setSourceShown: (source, shown) =>
      set((s) => {
        if (s.hiddenSources.has(source) === !shown) return {};
        const next = new Set(s.hiddenSources);
        if (shown) next.delete(source);
        else next.add(source);
        return { hiddenSources: next };
      }),

    setLayer: (layer, on) => set((s) => (s.layers[layer] === on ? {} : { layers: { ...s.layers, [layer]: on } })),
  }));
}

/** The app's inspector: the live view's and the trace view's. */
export const useInspector = createInspectorStore();

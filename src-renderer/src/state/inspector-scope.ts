/**
 * Which inspector store the screen, tree, attributes and legend work on. Outside any scope it is the
 * app's own (`useInspector`), so the live and trace views need no provider; the Compare view gives each
 * of its two sides a store of its own, so each keeps its own selection, hover and collapsed rows.
 */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import { useInspector, type InspectorState, type InspectorStore } from './store';

export const InspectorScope = createContext<InspectorStore>(useInspector);

/** The store of the nearest scope, for reading it in handlers (`getState()`) without re-rendering. */
export function useInspectorStore(): InspectorStore {
  return useContext(InspectorScope);
}

/** A slice of the nearest scope's state; the component re-renders when it changes. */
export function useScopedInspector<T>(selector: (state: InspectorState) => T): T {
  return useStore(useInspectorStore(), selector);
}

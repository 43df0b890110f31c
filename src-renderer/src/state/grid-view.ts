/**
 * Which view shows: the usual device view, or the grid of every device (docs/rules.md#r-perf-09).
 * Opening a device from the grid selects it and goes back to the device view.
 */
import { create } from 'zustand';
import { useInspector } from './store';

interface GridViewState {
  open: boolean;
  show(): void;
  close(): void;
  openDevice(deviceId: string): void;
}

export const useGridView = create<GridViewState>((set) => ({
  open: false,
  show: () => set({ open: true }),
  close: () => set({ open: false }),
  openDevice: (deviceId) => {
    useInspector.getState().selectDevice(deviceId);
    set({ open: false });
  },
}));

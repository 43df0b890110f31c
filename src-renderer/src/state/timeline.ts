/**
 * The action timeline, per device, newest first: every step the host reports (`device.action`, whoever
 * acted: this window, another one, the CLI through the same host) and the actions this window has sent
 * that have not answered yet.
 *
 * A step carries two whole frames (screenshots of a few hundred kB each). Each gets small thumbnails as it
 * arrives; the whole frames are kept for the newest FULL_FRAMES steps of a device only, so a long session
 * does not hold hundreds of screenshots. The trace (Record) keeps them all.
 */
import { create } from 'zustand';
import { framesDropped, insertStep, withoutFrames } from '@shared/inspect';
import type { ActionRequest } from '@shared/protocol/action';
import type { ActionStep } from '@shared/api/api';

/** Steps listed per device. */
export const MAX_STEPS = 200;
/** Steps per device that keep their whole before / after frames. */
export const FULL_FRAMES = 30;
const THUMB_WIDTH = 72;

export interface TimelineEntry {
  callId: string;
  startedAt: number;
  step: ActionStep;
  thumbs: { before?: string; after?: string };
  /** The whole frames were let go (older than the newest FULL_FRAMES steps). */
  framesDropped: boolean;
}

/** An action this window sent that has not answered yet, or whose call failed before any step existed. */
export interface PendingAction {
  id: string;
  deviceId: string;
  request: ActionRequest;
  startedAt: number;
  /** The call failed at the host (not an action result): what it said. */
  error?: string;
}

interface TimelineState {
  byDevice: Readonly<Record<string, readonly TimelineEntry[]>>;
  pending: readonly PendingAction[];
  add(step: ActionStep): void;
  begin(deviceId: string, request: ActionRequest): string;
  end(id: string, error?: string): void;
  dismiss(id: string): void;
  clear(deviceId: string): void;
}

let nextPending = 1;

export const useTimeline = create<TimelineState>()((set, get) => ({
  byDevice: {},
  pending: [],

  add: (step) => {
    const current = get().byDevice[step.deviceId] ?? [];
    const known = current.find((e) => e.callId === step.callId);
    if (known) return;
    // A step from the host's history may come with its frames already let go.
    const entry: TimelineEntry = { callId: step.callId, startedAt: step.startedAt, step, thumbs: {}, framesDropped: framesDropped(step) };
    const next = insertStep(current, entry, MAX_STEPS).map((e, i) => (i >= FULL_FRAMES && !e.framesDropped ? dropFrames(e) : e));
    set((s) => ({ byDevice: { ...s.byDevice, [step.deviceId]: next } }));
    void thumbnails(step).then((thumbs) => {
      set((s) => {
        const list = s.byDevice[step.deviceId];
        if (!list) return {};
        return { byDevice: { ...s.byDevice, [step.deviceId]: list.map((e) => (e.callId === step.callId ? { ...e, thumbs } : e)) } };
      });
    });
  },

  begin: (deviceId, request) => {
    const id = `pending-${nextPending++}`;
    set((s) => ({ pending: [{ id, deviceId, request, startedAt: Date.now() }, ...s.pending] }));
    return id;
  },

  end: (id, error) =>
    set((s) => ({
      pending: error === undefined ? s.pending.filter((p) => p.id !== id) : s.pending.map((p) => (p.id === id ? { ...p, error } : p)),
    })),

  dismiss: (id) => set((s) => ({ pending: s.pending.filter((p) => p.id !== id) })),

  clear: (deviceId) =>
    set((s) => {
      const byDevice = { ...s.byDevice };
      delete byDevice[deviceId];
      return { byDevice, pending: s.pending.filter((p) => p.deviceId !== deviceId || p.error === undefined) };
    }),
}));

function dropFrames(entry: TimelineEntry): TimelineEntry {
  return { ...entry, framesDropped: true, step: withoutFrames(entry.step) };
}

async function thumbnails(step: ActionStep): Promise<TimelineEntry['thumbs']> {
  const [before, after] = await Promise.all([thumbnail(step.before?.screenshot?.dataBase64), thumbnail(step.after?.screenshot?.dataBase64)]);
  return { ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

/** A small JPEG of a PNG screenshot, as a data URL (undefined when there is none or it cannot be decoded). */
async function thumbnail(base64: string | undefined): Promise<string | undefined> {
  if (!base64) return undefined;
  try {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }), {
      resizeWidth: THUMB_WIDTH * 2,
      resizeQuality: 'medium',
    });
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
    bitmap.close();
    return canvas.toDataURL('image/jpeg', 0.82);
  } catch {
    return undefined;
  }
}

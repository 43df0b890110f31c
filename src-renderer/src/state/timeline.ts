/**
 * The action timeline, per device, newest first: every step the host reports (`device.action`, whoever
 * acted: this window, another one, the CLI through the same host) and the actions still running: the
 * ones this window sent and the ones the host reports in flight (`device.actionProgress`).
 *
 * An action runs for as long as the host runs it (docs/rules.md#r-act-05): its row shows its stages as
 * they come and is replaced by its step whenever that comes (matched by call id, or by the window's own
 * client ref), and the device stays busy until then; no timeout here turns it into a failure. A lost
 * connection to the host says so and leaves the row waiting for the step the host still reports.
 *
 * A step carries two whole frames (screenshots of a few hundred kB each). Each gets small thumbnails as it
 * arrives; the whole frames are kept for the newest FULL_FRAMES steps of a device only (fewer on a heavy
 * screen, FRAME_NODE_BUDGET), so a long session does not hold hundreds of screenshots or of 50,000-node
 * trees. The trace (Record) keeps them all.
 */
import { create } from 'zustand';
import { framedStepCount, framesDropped, insertStep, withoutFrames } from '@shared/inspect';
import { inFlightRequest } from '@shared/act/secret';
import type { ActionRequest } from '@shared/protocol/action';
import type { ActionProgress } from '@shared/api/api';
import type { ActionStep } from '@shared/protocol/device';

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
  /** The whole frames were let go (older than the newest FULL_FRAMES steps, or past FRAME_NODE_BUDGET). */
  framesDropped: boolean;
}

/** One stage an action in flight entered, with when (ms after it started). */
export interface PendingStage {
  stage: string;
  atMs: number;
}

/** An action in flight (this window's or the host's report of another's), or a call that failed before any step existed. */
export interface PendingAction {
  id: string;
  deviceId: string;
  request: ActionRequest;
  startedAt: number;
  /** This window's name for its own call (sent as the call's clientRef). */
  clientRef?: string;
  /** The host's call id, once a progress event named it. */
  callId?: string;
  /** The stages so far, in order. */
  stages: readonly PendingStage[];
  /** The host refused the call (not an action result): what it said. Such a row no longer holds the device. */
  error?: string;
  /** The connection to the host dropped while it ran: it may still be running, and its step may still come. */
  lost?: string;
}

/** Something this window did not send, and why ("Not sent: …"). */
export interface Notice {
  deviceId: string;
  text: string;
  at: number;
}

interface TimelineState {
  byDevice: Readonly<Record<string, readonly TimelineEntry[]>>;
  pending: readonly PendingAction[];
  notice: Notice | null;
  add(step: ActionStep): void;
  begin(deviceId: string, request: ActionRequest): PendingAction;
  progress(progress: ActionProgress): void;
  end(id: string, error?: string): void;
  lose(id: string, message: string): void;
  dismiss(id: string): void;
  clear(deviceId: string): void;
  refuse(deviceId: string, text: string): void;
  clearNotice(): void;
}

let nextPending = 1;
/** Per page load, so two windows' refs never meet. */
const WINDOW = Math.random().toString(36).slice(2, 10);

/** Whether the device has an action still running (its result not in yet): it takes no second one. */
export function deviceBusy(pending: readonly PendingAction[], deviceId: string): boolean {
  return pending.some((p) => p.deviceId === deviceId && p.error === undefined);
}

function settles(pending: PendingAction, step: Pick<ActionStep, 'callId' | 'clientRef' | 'deviceId'>): boolean {
  if (pending.deviceId !== step.deviceId) return false;
  return (pending.callId !== undefined && pending.callId === step.callId) || (pending.clientRef !== undefined && pending.clientRef === step.clientRef);
}

export const useTimeline = create<TimelineState>()((set, get) => ({
  byDevice: {},
  pending: [],
  notice: null,

  add: (step) => {
    // Its step replaces the running row, whenever it comes.
    if (get().pending.some((p) => settles(p, step))) set((s) => ({ pending: s.pending.filter((p) => !settles(p, step)) }));
    const current = get().byDevice[step.deviceId] ?? [];
    const known = current.find((e) => e.callId === step.callId);
    if (known) return;
    // A step from the host's history may come with its frames already let go.
    const entry: TimelineEntry = { callId: step.callId, startedAt: step.startedAt, step, thumbs: {}, framesDropped: framesDropped(step) };
    const listed = insertStep(current, entry, MAX_STEPS);
    const framed = framedStepCount(
      listed.map((e) => e.step),
      FULL_FRAMES,
    );
    const next = listed.map((e, i) => (i >= framed && !e.framesDropped ? dropFrames(e) : e));
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
    const n = nextPending++;
    // The row in flight quotes no typed text: only the host's step says whether it was a secret (r-secret-05).
    const shown = inFlightRequest(request);
    const pending: PendingAction = { id: `pending-${n}`, deviceId, request: shown, startedAt: Date.now(), clientRef: `${WINDOW}-${n}`, stages: [] };
    set((s) => ({ pending: [pending, ...s.pending] }));
    return pending;
  },

  progress: (progress) => {
    const { callId, deviceId, clientRef } = progress;
    // A step already in (events can cross) ends it: nothing to show running.
    if ((get().byDevice[deviceId] ?? []).some((e) => e.callId === callId)) return;
    const stage = { stage: progress.stage, atMs: progress.elapsedMs };
    set((s) => {
      const at = s.pending.findIndex((p) => p.deviceId === deviceId && (p.callId === callId || (clientRef !== undefined && p.clientRef === clientRef)));
      if (at < 0) {
        // Another window's, or the CLI's through this host: it holds the device all the same.
        const remote: PendingAction = { id: `host-${callId}`, deviceId, request: progress.request, startedAt: progress.startedAt, callId, stages: [stage] };
        return { pending: [remote, ...s.pending] };
      }
      const p = s.pending[at]!;
      const stages = p.stages.at(-1)?.stage === stage.stage ? p.stages : [...p.stages, stage];
      return { pending: s.pending.map((q, i) => (i === at ? { ...p, callId, stages } : q)) };
    });
  },

  end: (id, error) =>
    set((s) => ({
      pending: error === undefined ? s.pending.filter((p) => p.id !== id) : s.pending.map((p) => (p.id === id ? { ...p, error } : p)),
    })),

  lose: (id, message) => set((s) => ({ pending: s.pending.map((p) => (p.id === id ? { ...p, lost: message } : p)) })),

  dismiss: (id) => set((s) => ({ pending: s.pending.filter((p) => p.id !== id) })),

  refuse: (deviceId, text) => set({ notice: { deviceId, text, at: Date.now() } }),

  clearNotice: () => set({ notice: null }),

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

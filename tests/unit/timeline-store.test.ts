/**
 * The timeline's running actions (docs/rules.md#r-act-05): a row per action in flight with its stages,
 * replaced by its step whenever that comes; the device busy until then, whoever sent the action.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ActionProgress } from '@shared/api/api';
import type { ActionStep } from '@shared/protocol/device';
import { FRAME_NODE_BUDGET } from '@shared/inspect';
import type { UiNode } from '@shared/protocol/runner';
import { deviceBusy, FULL_FRAMES, useTimeline } from '@renderer/state/timeline';

const tap = { action: 'tap' as const, target: { point: { x: 10, y: 20 } } };
const progress = (over: Partial<ActionProgress>): ActionProgress => ({
  callId: 'call-1',
  deviceId: 'd1',
  request: tap,
  startedAt: 1,
  stage: 'started',
  elapsedMs: 0,
  ...over,
});
const step = (over: Partial<ActionStep>): ActionStep => ({
  callId: 'call-1',
  deviceId: 'd1',
  request: tap,
  result: { success: true, outcome: 'done', warnings: [], target: { resolvedBy: 'point' }, timings: {}, requestsSent: 2 },
  startedAt: 1,
  before: null,
  after: null,
  ...over,
});

beforeEach(() => useTimeline.setState({ byDevice: {}, pending: [], notice: null }));

describe('actions in flight on the timeline', () => {
  it('R-ACT-05: this window’s action runs with its stages until its step, matched by its client ref, replaces it', () => {
    const pending = useTimeline.getState().begin('d1', tap);
    expect(deviceBusy(useTimeline.getState().pending, 'd1')).toBe(true);
    for (const stage of ['started', 'freshRead', 'resolve', 'dispatch', 'observeAfter']) {
      useTimeline.getState().progress(progress({ clientRef: pending.clientRef, stage, elapsedMs: 40_000 }));
    }
    const row = useTimeline.getState().pending[0]!;
    expect(row.callId).toBe('call-1');
    expect(row.stages.map((s) => s.stage)).toEqual(['started', 'freshRead', 'resolve', 'dispatch', 'observeAfter']);
    useTimeline.getState().add(step({ clientRef: pending.clientRef }));
    expect(useTimeline.getState().pending).toEqual([]);
    expect(useTimeline.getState().byDevice['d1']?.map((e) => e.callId)).toEqual(['call-1']);
    expect(deviceBusy(useTimeline.getState().pending, 'd1')).toBe(false);
  });

  it('R-ACT-05: an action another window or the CLI runs holds the device too, until its step', () => {
    useTimeline.getState().progress(progress({ callId: 'call-7', stage: 'dispatch' }));
    expect(deviceBusy(useTimeline.getState().pending, 'd1')).toBe(true);
    expect(deviceBusy(useTimeline.getState().pending, 'd2')).toBe(false);
    useTimeline.getState().add(step({ callId: 'call-7' }));
    expect(deviceBusy(useTimeline.getState().pending, 'd1')).toBe(false);
  });

  it('R-ACT-05: a lost connection keeps the row waiting (and the device held); a refused call lets it go', () => {
    const lost = useTimeline.getState().begin('d1', tap);
    useTimeline.getState().lose(lost.id, 'host connection lost before the answer came');
    expect(useTimeline.getState().pending[0]).toMatchObject({ lost: 'host connection lost before the answer came' });
    expect(deviceBusy(useTimeline.getState().pending, 'd1')).toBe(true);
    // The host reports the step once it is back (history or the event): the row goes.
    useTimeline.getState().add(step({ clientRef: lost.clientRef, callId: 'call-9' }));
    expect(useTimeline.getState().pending).toEqual([]);

    const refused = useTimeline.getState().begin('d1', tap);
    useTimeline.getState().end(refused.id, 'bad_request: device.act: action: invalid');
    expect(deviceBusy(useTimeline.getState().pending, 'd1')).toBe(false);
  });

  it('R-ACT-05: a step already in ends it: a progress event that arrives after its step adds no row', () => {
    useTimeline.getState().add(step({ callId: 'call-3' }));
    useTimeline.getState().progress(progress({ callId: 'call-3', stage: 'observeAfter' }));
    expect(useTimeline.getState().pending).toEqual([]);
  });
});

describe('R-PERF-12: the whole frames a device keeps on the timeline', () => {
  const framedWith = (nodes: number) => {
    const hierarchy: UiNode = { className: 'UIView', node: Array.from({ length: nodes - 1 }, () => ({ className: 'UIView' })) };
    return { deviceId: 'd1', observation: { viewHierarchy: { hierarchy } }, screenshot: null, receivedAt: 1 } as unknown as NonNullable<ActionStep['before']>;
  };
  const add = (count: number, nodes: number) => {
    const frame = framedWith(nodes);
    for (let n = 1; n <= count; n++) useTimeline.getState().add(step({ callId: `call-${n}`, startedAt: n, before: frame, after: frame }));
    return useTimeline
      .getState()
      .byDevice['d1']!.filter((e) => !e.framesDropped)
      .map((e) => e.callId);
  };

  it('R-PERF-12: light screens keep the newest FULL_FRAMES steps whole', () => {
    expect(add(FULL_FRAMES + 5, 200)).toHaveLength(FULL_FRAMES);
  });

  it('R-PERF-12: 50,000-node screens keep only the newest that fit the node budget, newest first', () => {
    // Each step holds two trees of 50,000 nodes: the budget holds this many of them, the newest first.
    const fit = Math.max(1, Math.floor(FRAME_NODE_BUDGET / 100_000));
    expect(fit).toBeLessThan(6);
    expect(add(6, 50_000)).toEqual(Array.from({ length: fit }, (_, i) => `call-${6 - i}`));
  });
});

describe('R-SECRET-05: an action in flight quotes no typed text', () => {
  it('this window’s pending row holds the request without its text until the host’s step decides', () => {
    const typing = { action: 'sendKeys' as const, target: { id: 'login.password' }, steps: [{ kind: 'type' as const, text: 'hunter2' }] };
    const pending = useTimeline.getState().begin('d1', typing);
    expect(JSON.stringify(useTimeline.getState().pending)).not.toContain('hunter2');
    expect(pending.request).toMatchObject({ action: 'sendKeys', secret: true, steps: [{ kind: 'type', text: '' }] });
    // A request that types nothing is kept as it was.
    expect(useTimeline.getState().begin('d1', tap).request).toEqual(tap);
  });
});

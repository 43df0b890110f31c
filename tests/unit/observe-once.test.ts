/**
 * R-PERF-13: work done once. An observe projects its XCTest tree once. The observer needs the visible projection to
 * choose the SDK reads, and the assembly needs it as the observation's tree: it is made once and handed
 * on. Counted by wrapping the one projection function every caller imports. And a device has one action
 * queue, its DeviceGate: the dispatcher keeps none of its own.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HierarchyUpdate, UiNode } from '@shared/protocol/runner';
import type { RunnerClient } from '@main/runner/client';
import type * as Projection from '@shared/observe/projection';

const calls = vi.hoisted(() => ({ visible: 0 }));
vi.mock('@shared/observe/projection', async (importOriginal) => {
  const real = await importOriginal<typeof Projection>();
  return {
    ...real,
    projectVisible: (...args: Parameters<typeof real.projectVisible>) => {
      calls.visible++;
      return real.projectVisible(...args);
    },
  };
});

const { Observer } = await import('@main/runner/observer');
const { Dispatcher } = await import('@main/runner/dispatch/dispatcher');

const node = (fields: Record<string, unknown>, children: UiNode[] = []): UiNode =>
  ({ ...fields, ...(children.length > 0 ? { node: children } : {}) }) as unknown as UiNode;

const pushed: HierarchyUpdate = {
  type: 'hierarchy_update',
  data: {
    packageName: 'com.example.app',
    screenWidth: 400,
    screenHeight: 800,
    hierarchy: node({ className: 'XCUIApplication', bounds: { left: 0, top: 0, right: 400, bottom: 800 } }, [
      node({ className: 'Button', text: 'Sign in', bounds: { left: 20, top: 100, right: 380, bottom: 150 } }),
      // Off screen: the visible projection leaves it out.
      node({ className: 'Button', text: 'Hidden', bounds: { left: 20, top: 900, right: 380, bottom: 950 } }),
    ]),
  },
} as HierarchyUpdate;

/** A runner that is asked for nothing: the hierarchy came with the push, and the bridge is off. */
const client = {
  on: () => undefined,
  supports: () => false,
  connectedInfo: undefined,
  request: () => Promise.reject(new Error('nothing is asked of this runner')),
} as unknown as RunnerClient;

beforeEach(() => {
  calls.visible = 0;
});

describe('R-PERF-13: one projection per observe', () => {
  it('projects a pushed tree once, and the observation holds that projection', async () => {
    const frame = await new Observer(client).observe({ xctestOnly: true, screenshot: false }, pushed);
    expect(calls.visible).toBe(1);
    const texts = JSON.stringify(frame.observation?.viewHierarchy?.hierarchy);
    expect(texts).toContain('Sign in');
    expect(texts).not.toContain('Hidden');
    expect(frame.observation?.timings['projection']).toBeGreaterThanOrEqual(0);
  });
});

describe('R-PERF-13: one queue per device', () => {
  it('the dispatcher queues nothing of its own: a second action while one runs is refused, the device gate being the queue', async () => {
    let fail: (error: Error) => void = () => {};
    const hanging = new Promise<never>((_, reject) => (fail = reject));
    const slow = { ...client, on: () => undefined, supports: () => true, request: () => hanging } as unknown as RunnerClient;
    const dispatcher = new Dispatcher(slow, new Observer(slow));
    const first = dispatcher.dispatch({ action: 'tap', target: { id: 'login.submit' } });
    await expect(dispatcher.dispatch({ action: 'tap', target: { id: 'login.submit' } })).rejects.toThrow(/one action at a time/);
    // The first one ends with its own read's failure, and the dispatcher takes the next one then.
    fail(new Error('gone'));
    await first.catch(() => undefined);
    const next = dispatcher.dispatch({ action: 'tap', target: { id: 'login.submit' } });
    await expect(next).resolves.toMatchObject({ success: false });
  });
});

describe('R-PERF-13: one decode per request', () => {
  it('a request handed to the dispatcher is decoded once, not again by the kind it is', async () => {
    const { ActionRequestSchema, SendKeysRequestSchema, SwipeRequestSchema, ScrollToRequestSchema } = await import('@shared/protocol/action');
    const { TapLikeRequestSchema } = await import('@main/runner/dispatch/tap');
    const schemas = [ActionRequestSchema, TapLikeRequestSchema, SendKeysRequestSchema, SwipeRequestSchema, ScrollToRequestSchema];
    const spies = schemas.map((schema) => vi.spyOn(schema, 'safeParse'));
    try {
      const dispatcher = new Dispatcher(client, new Observer(client));
      for (const request of [
        { action: 'tap', target: { id: 'login.submit' } },
        { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'type', text: 'a' }] },
        { action: 'swipe', start: { x: 200, y: 600 }, end: { x: 200, y: 200 } },
        { action: 'scrollTo', lookFor: { elementId: 'feed.row.40' } },
      ]) {
        expect(ActionRequestSchema.safeParse(request).success, request.action).toBe(true);
        for (const spy of spies) spy.mockClear();
        // The runner answers nothing, so each ends in its own failure; only the decoding is counted.
        await dispatcher.dispatch(request).catch(() => undefined);
        expect(
          spies.reduce((n, spy) => n + spy.mock.calls.length, 0),
          request.action,
        ).toBe(1);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

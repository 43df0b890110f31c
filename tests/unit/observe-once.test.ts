/**
 * R-PERF-13: work done once. An observe projects its XCTest tree once. The observer needs the visible projection to
 * choose the SDK reads, and the assembly needs it as the observation's tree: it is made once and handed
 * on. Counted by wrapping the one projection function every caller imports. And a device has one action
 * queue, its DeviceGate: the dispatcher keeps none of its own.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HierarchyUpdate, UiNode } from '@shared/protocol/runner';
import type { RunnerClient } from '@main/runner/client';
import type { DeviceManager } from '@main/devices/manager';
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
  const requests = [
    { action: 'tap', target: { id: 'login.submit' } },
    { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'type', text: 'a' }] },
    { action: 'swipe', start: { x: 200, y: 600 }, end: { x: 200, y: 200 } },
    { action: 'scrollTo', lookFor: { elementId: 'feed.row.40' } },
  ];

  it('the host API decodes device.act once, action included, and hands the decoded request on', async () => {
    const { apiMethods } = await import('@shared/api/api');
    const { createApiService } = await import('@main/host/api');
    const received: unknown[] = [];
    const manager = {
      on: () => undefined,
      off: () => undefined,
      list: () => [],
      act: (_deviceId: string, request: unknown) => {
        received.push(request);
        return Promise.reject(new Error('no device behind this manager'));
      },
    } as unknown as DeviceManager;
    const api = createApiService({ manager }, { host: 'web', version: 'test' });
    const spy = vi.spyOn(apiMethods['device.act'].input, 'safeParse');
    try {
      for (const action of requests) {
        spy.mockClear();
        await api.handle('device.act', { deviceId: 'd1', action });
        expect(spy.mock.calls.length, action.action).toBe(1);
      }
      // Decoded: the defaults its schema fills in (a search's direction and swipes) are there.
      const { ActionRequestSchema } = await import('@shared/protocol/action');
      expect(received).toEqual(requests.map((request) => ActionRequestSchema.parse(request)));
      expect(received[3]).toMatchObject({ direction: 'up', maxSwipes: 10 });
      // A malformed action is refused at that one decode, naming the field; nothing reaches the manager.
      const refused = await api.handle('device.act', { deviceId: 'd1', action: { action: 'tap', target: { id: 7 } } });
      expect(refused).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringMatching(/^device\.act: action\.target/) } });
      expect(received).toHaveLength(requests.length);
    } finally {
      spy.mockRestore();
    }
  });

  it('the dispatcher decodes nothing again: the request arrives decoded from its boundary', async () => {
    const { ActionRequestSchema, SendKeysRequestSchema, SwipeRequestSchema, ScrollToRequestSchema } = await import('@shared/protocol/action');
    const { TapLikeRequestSchema } = await import('@main/runner/dispatch/tap');
    const schemas = [ActionRequestSchema, TapLikeRequestSchema, SendKeysRequestSchema, SwipeRequestSchema, ScrollToRequestSchema];
    const decoded = requests.map((request) => ActionRequestSchema.parse(request));
    const spies = schemas.flatMap((schema) => [vi.spyOn(schema, 'safeParse'), vi.spyOn(schema, 'parse')]);
    try {
      const dispatcher = new Dispatcher(client, new Observer(client));
      for (const request of decoded) {
        for (const spy of spies) spy.mockClear();
        // The runner answers nothing, so each ends in its own failure; only the decoding is counted.
        await dispatcher.dispatch(request).catch(() => undefined);
        expect(
          spies.reduce((n, spy) => n + spy.mock.calls.length, 0),
          request.action,
        ).toBe(0);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

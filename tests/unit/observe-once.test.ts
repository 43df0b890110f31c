/**
 * R-PERF-13: an observe projects its XCTest tree once. The observer needs the visible projection to
 * choose the SDK reads, and the assembly needs it as the observation's tree: it is made once and handed
 * on. Counted by wrapping the one projection function every caller imports.
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

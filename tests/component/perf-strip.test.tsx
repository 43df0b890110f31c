// @vitest-environment jsdom
/**
 * The live performance strip as a QA engineer reads it (docs/rules.md#r-perfstrip): the newest CPU and
 * memory from the device's pushes (and the ones before the strip opened), the runner's frame rate under
 * its own name, the last actions marked on the time axis with the action on hover, and the pushes drawn
 * without a React render per sample. The host is a test double of the API's two calls the strip makes;
 * e2e/perf-strip.spec.ts drives the real host and demo device in Chromium.
 *
 * jsdom has no canvas: uPlot draws into a context that accepts every call and draws nothing, so what is
 * checked here is what the strip says and where it puts its marks; the drawing is Chromium's to check.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiEvent, ApiEventPayload } from '@shared/api/api';
import type { ActionStep, DeviceSummary } from '@shared/protocol/device';
import type { PerfSample, PerfSeries } from '@shared/protocol/perf';
import { ApiContext } from '@renderer/api/queries';
import type { Transport } from '@renderer/api/transport';
import { MAX_MARKS, PerfStrip, STRIP_SPAN_S } from '@renderer/components/PerfStrip';
import { useTimeline } from '@renderer/state/timeline';

// Before uPlot is imported (it reads the pixel ratio's media query when it loads).
vi.hoisted(() => {
  // What uPlot asks of a browser that jsdom lacks: a 2D context and paths (drawing nothing), media queries.
  const context = new Proxy({} as Record<string | symbol, unknown>, {
    get: (target, key) => (key in target ? target[key] : key === 'measureText' ? () => ({ width: 8 }) : () => undefined),
    set: (target, key, value) => {
      target[key] = value;
      return true;
    },
  });

  HTMLCanvasElement.prototype.getContext = (() => context) as unknown as HTMLCanvasElement['getContext'];
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    addEventListener() {},
    removeEventListener() {},
  })) as unknown as typeof window.matchMedia;
  globalThis.Path2D ??= class {
    constructor() {
      return new Proxy(this, { get: (target, key) => (key in target ? (target as Record<string | symbol, unknown>)[key] : () => undefined) });
    }
  } as unknown as typeof Path2D;
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
});

const device: DeviceSummary = { id: 'd1', kind: 'runner', name: 'iPhone', url: 'ws://127.0.0.1:1', state: 'connected', supportedCommands: [] };
const T0 = 1_700_000_000_000;

function sample(t: number, cpu: number, memory: number, fps: number | null = 60): PerfSample {
  return { t, fps, jankFrames: fps === null ? null : 2, touchLatencyMs: null, cpuUsagePercent: cpu, memoryUsageMb: memory };
}

/** The host as the strip sees it: a backlog for `device.perfSamples`, and `device.perf` pushes the test sends. */
function fakeHost(backlog: PerfSeries) {
  const listeners = new Set<(payload: ApiEventPayload<'device.perf'>) => void>();
  const api = {
    on<E extends ApiEvent>(event: E, listener: (payload: ApiEventPayload<E>) => void) {
      if (event !== 'device.perf') return () => {};
      const typed = listener as (payload: ApiEventPayload<'device.perf'>) => void;
      listeners.add(typed);
      return () => listeners.delete(typed);
    },
    call: (method: string) => (method === 'device.perfSamples' ? Promise.resolve(backlog) : Promise.reject(new Error(`unexpected ${method}`))),
  } as unknown as Transport;
  return { api, push: (s: PerfSample, deviceId = device.id) => listeners.forEach((l) => l({ deviceId, sample: s })) };
}

/** Animation frames the test runs when it chooses. */
const frames: (() => void)[] = [];
const schedule = (work: () => void) => void frames.push(work);
async function nextFrame(): Promise<void> {
  await act(async () => {
    await Promise.resolve();
    for (const work of frames.splice(0)) work();
    await Promise.resolve(); // uPlot draws in a microtask after setData
  });
}

const runnerSources: PerfSeries['sources'] = {
  fps: 'runnerProcessFrames',
  jank: 'runnerProcessFrames',
  touchLatencyMs: 'none',
  cpu: 'runnerReported',
  memoryMb: 'runnerReported',
};

function mount(backlog: PerfSeries, onCommit?: () => void) {
  const host = fakeHost(backlog);
  const strip = (
    <ApiContext.Provider value={host.api}>
      <Profiler id="strip" onRender={() => onCommit?.()}>
        <PerfStrip device={device} schedule={schedule} />
      </Profiler>
    </ApiContext.Provider>
  );
  render(strip);
  return host;
}

function step(callId: string, startedAt: number, success = true): ActionStep {
  return {
    callId,
    deviceId: device.id,
    request: { action: 'tap', target: { id: 'feed.like' } },
    result: success
      ? { success: true, outcome: 'done', warnings: [], target: { resolvedBy: 'id', selector: 'feed.like' }, timings: {}, requestsSent: 2 }
      : {
          success: false,
          outcome: 'refused',
          failureReason: 'target_not_found',
          warnings: [],
          target: { resolvedBy: 'id', selector: 'feed.like' },
          timings: {},
          requestsSent: 1,
        },
    startedAt,
    before: null,
    after: null,
  };
}

beforeEach(() => useTimeline.setState({ byDevice: {}, pending: [], notice: null }));
afterEach(() => {
  cleanup();
  frames.splice(0);
});

describe('PerfStrip', () => {
  it('R-PERFSTRIP-01: shows the newest push, after the samples the host kept from before the strip opened', async () => {
    const host = mount({ samples: [sample(T0, 5, 200), sample(T0 + 1_000, 6, 201)], sources: runnerSources });
    expect(screen.getByTestId('perf-readout').textContent).toMatch(/waiting/i);
    await nextFrame();
    const strip = screen.getByTestId('perf-strip');
    expect(strip.dataset.samples).toBe('2');
    expect(screen.getByTestId('perf-readout').textContent).toBe('CPU 6.0 % · memory 201.0 MB');

    host.push(sample(T0 + 2_000, 83.4, 216.25));
    // Another device's push is not this strip's.
    host.push(sample(T0 + 2_500, 1, 1), 'd2');
    await nextFrame();
    expect(strip.dataset.samples).toBe('3');
    expect(screen.getByTestId('perf-readout').textContent).toBe('CPU 83.4 % · memory 216.3 MB');
    expect(strip.dataset.cpuLatest).toBe('83.4');
  });

  it('R-PERFSTRIP-03: pushes reach the plots without a React render per sample', async () => {
    let commits = 0;
    const host = mount({ samples: [], sources: runnerSources }, () => commits++);
    await nextFrame();
    const before = commits;
    for (let i = 0; i < 5; i++) {
      host.push(sample(T0 + i * 1_000, 10 + i, 200 + i));
      await nextFrame();
    }
    expect(screen.getByTestId('perf-readout').textContent).toBe('CPU 14.0 % · memory 204.0 MB');
    expect(Number(screen.getByTestId('perf-strip').dataset.updates)).toBeGreaterThanOrEqual(5);
    expect(commits).toBe(before);
    // Five pushes before one frame: one update, not five.
    const updates = Number(screen.getByTestId('perf-strip').dataset.updates);
    for (let i = 5; i < 10; i++) host.push(sample(T0 + i * 1_000, 20, 210));
    await nextFrame();
    expect(Number(screen.getByTestId('perf-strip').dataset.updates)).toBe(updates + 1);
  });

  it("R-PERFSTRIP-02: the runner's fps and jank are labelled as the test runner's own, never the app's", async () => {
    const host = mount({ samples: [], sources: runnerSources });
    host.push(sample(T0, 5, 200, 59.6));
    await nextFrame();
    const frames = screen.getByTestId('perf-frames');
    expect(frames.hidden).toBe(false);
    expect(frames.textContent).toBe('Test runner’s own frame rate (not the app’s): 60 fps, 2 janky');
    expect(screen.getByTestId('perf-strip').textContent).not.toMatch(/app.s (fps|frame rate)/i);
  });

  it('R-PERFSTRIP-02: with no frame source nothing is shown as a frame rate', async () => {
    const host = mount({ samples: [], sources: { ...runnerSources, fps: 'none', jank: 'none' } });
    await act(async () => Promise.resolve()); // the backlog's answer names the sources
    host.push(sample(T0, 5, 200, 60));
    await nextFrame();
    expect(screen.getByTestId('perf-frames').hidden).toBe(true);
  });

  it('R-PERFSTRIP-04: the last actions are marked at their time on the axis; hovering a mark shows the action', async () => {
    const host = mount({ samples: [], sources: runnerSources });
    for (let i = 0; i <= 30; i++) host.push(sample(T0 + i * 1_000, 10, 200));
    act(() => {
      useTimeline.getState().add(step('call-old', T0 - (STRIP_SPAN_S + 20) * 1_000 + 30_000));
      useTimeline.getState().add(step('call-early', T0 + 10_000));
      useTimeline.getState().add(step('call-late', T0 + 25_000, false));
    });
    await nextFrame();
    const marks = screen.getAllByTestId('perf-mark');
    expect(marks.map((m) => m.dataset.callId)).toEqual(['call-late', 'call-early', 'call-old']);
    const [late, early, old] = marks as [HTMLElement, HTMLElement, HTMLElement];
    // The minute shown ends at the newest push (T0 + 30 s): 50 s before it is outside, hidden.
    expect(old.hidden).toBe(true);
    expect(early.hidden).toBe(false);
    expect(parseFloat(late.style.left)).toBeGreaterThan(parseFloat(early.style.left));
    expect(early.getAttribute('aria-label')).toMatch(/^tap: done, at /);

    fireEvent.mouseEnter(late);
    expect(screen.getByTestId('perf-mark-tip').textContent).toMatch(/^tap: not sent \(target_not_found\), at /);
    fireEvent.mouseLeave(late);
    expect(screen.queryByTestId('perf-mark-tip')).toBeNull();
    // The keyboard reaches the same words.
    fireEvent.focus(early);
    expect(screen.getByTestId('perf-mark-tip').textContent).toMatch(/^tap: done/);
  });

  it(`R-PERFSTRIP-04: at most ${MAX_MARKS} actions are marked, the newest`, async () => {
    mount({ samples: [sample(T0, 1, 1)], sources: runnerSources });
    act(() => {
      for (let i = 0; i < MAX_MARKS + 5; i++) useTimeline.getState().add(step(`call-${i}`, T0 - i * 100));
    });
    await nextFrame();
    const marks = screen.getAllByTestId('perf-mark');
    expect(marks).toHaveLength(MAX_MARKS);
    expect(marks[0]!.dataset.callId).toBe('call-0');
  });
});

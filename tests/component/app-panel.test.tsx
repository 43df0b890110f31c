// @vitest-environment jsdom
/**
 * The App panel as a QA engineer reads it (docs/rules.md#r-ar-32): it follows the app after every step,
 * whoever ran it and whether or not the step brought a reading, and after a screen change a later frame
 * shows; and a network call opens to its request and response in full (get_network_call_detail, in the
 * shape AppReveal's MCPRouterTests.swift testNetworkCallDetailExposesHeadersBodiesAndSSEFrames checks).
 * The host is a test double of the two calls the panel makes; e2e/appreveal-app-panel.spec.ts drives
 * the real host and demo app in Chromium.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppState } from '@shared/protocol/appreveal-tools';
import type { ActionStep, DeviceSummary, Frame } from '@shared/protocol/device';
import { ApiContext } from '@renderer/api/queries';
import type { Transport } from '@renderer/api/transport';
import { AppPanel } from '@renderer/components/AppPanel';
import { useTimeline } from '@renderer/state/timeline';

const TOOLS = ['get_state', 'get_network_calls', 'get_network_call_detail'];
const device: DeviceSummary = { id: 'ar1', kind: 'appreveal', name: 'Demo', url: 'http://127.0.0.1:1/', state: 'connected', supportedCommands: TOOLS };

function appState(screenName: string, readAt: number): AppState {
  return {
    readAt,
    readings: [
      { tool: 'get_state', ok: true, value: { screen: screenName } },
      {
        tool: 'get_network_calls',
        ok: true,
        value: {
          calls: [{ id: 'call-1', method: 'GET', url: 'https://api.example.com/converse/stream', statusCode: '200', duration: '0.050s', error: '' }],
          count: 1,
        },
      },
    ],
  };
}

/** The host: `device.appState` answers what the app says now; `device.networkCall` the call in full. */
function fakeHost() {
  const host = { now: appState('login', 1), appStateCalls: 0, detailCalls: [] as string[] };
  const api = {
    on: () => () => {},
    call: (method: string, input: { id?: string }) => {
      if (method === 'device.appState') {
        host.appStateCalls += 1;
        return Promise.resolve(host.now);
      }
      if (method === 'device.networkCall') {
        host.detailCalls.push(input.id ?? '');
        return Promise.resolve({
          id: input.id,
          value: {
            id: 'call-1',
            method: 'GET',
            url: 'https://api.example.com/converse/stream',
            statusCode: 200,
            request: { headers: { Authorization: '[REDACTED]' }, body: null, bodySize: null, bodyTruncated: false },
            response: { headers: { 'Content-Type': 'text/event-stream' }, body: 'data: hello\n\n', bodySize: 13, bodyTruncated: true },
            sseEvents: [{ event: 'message', data: 'hello' }],
            sseEventCount: 1,
          },
        });
      }
      return Promise.reject(new Error(`unexpected ${method}`));
    },
  } as unknown as Transport;
  return { api, host };
}

function frame(screenKey: string, app?: AppState): Frame {
  return {
    deviceId: device.id,
    observation: null,
    screenshot: null,
    receivedAt: Date.now(),
    appReveal: { screen: { screenKey, controllerChain: [], presentedModals: [] }, tools: TOOLS, windows: [], ...(app ? { app } : {}) },
  } as unknown as Frame;
}

function step(callId: string, startedAt: number, after: Frame | null): ActionStep {
  return {
    callId,
    deviceId: device.id,
    request: { action: 'tap', target: { id: 'login.submit' } },
    result: { success: true, outcome: 'done', warnings: [], target: { resolvedBy: 'id', selector: 'login.submit' }, timings: {}, requestsSent: 1 },
    startedAt,
    before: null,
    after,
  } as ActionStep;
}

function mount(api: Transport, shown: Frame) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const tree = (f: Frame) => (
    <ApiContext.Provider value={api}>
      <QueryClientProvider client={client}>
        <AppPanel device={device} frame={f} />
      </QueryClientProvider>
    </ApiContext.Provider>
  );
  const view = render(tree(shown));
  return { rerender: (f: Frame) => view.rerender(tree(f)) };
}

const stateText = () => screen.getByTestId('app-readings').querySelector('[data-tool="get_state"]')?.textContent ?? '';

beforeEach(() => useTimeline.setState({ byDevice: {}, pending: [], notice: null }));
afterEach(() => cleanup());

describe('AppPanel', () => {
  it('R-AR-32: a step’s own reading stays shown after a newer frame without one replaces the step’s frame', async () => {
    const { api } = fakeHost();
    const panel = mount(api, frame('login'));
    await waitFor(() => expect(stateText()).toContain('login'));
    // The action's result came with the app's state after it (the app moved to Feed)…
    const after = frame('feed', appState('feed', Date.now() + 1_000));
    act(() => useTimeline.getState().add(step('s1', 10, after)));
    panel.rerender(after);
    await waitFor(() => expect(stateText()).toContain('feed'));
    // …and a live frame of the same screen, without a reading, does not bring Login back.
    panel.rerender(frame('feed'));
    expect(stateText()).toContain('feed');
    expect(stateText()).not.toContain('login');
  });

  it('R-AR-32: a step without a reading (another client’s, or one whose read failed) reads the app again', async () => {
    const { api, host } = fakeHost();
    mount(api, frame('login'));
    await waitFor(() => expect(stateText()).toContain('login'));
    const before = host.appStateCalls;
    host.now = appState('feed', 2);
    act(() => useTimeline.getState().add(step('s2', 20, null)));
    await waitFor(() => expect(stateText()).toContain('feed'));
    expect(host.appStateCalls).toBe(before + 1);
  });

  it('R-AR-32: a navigation a later frame shows (the app moved by itself) reads the app again', async () => {
    const { api, host } = fakeHost();
    const panel = mount(api, frame('login'));
    await waitFor(() => expect(stateText()).toContain('login'));
    host.now = appState('feed', 3);
    panel.rerender(frame('feed'));
    await waitFor(() => expect(stateText()).toContain('feed'));
    // The same screen again is no navigation: no further read.
    const calls = host.appStateCalls;
    panel.rerender(frame('feed'));
    await Promise.resolve();
    expect(host.appStateCalls).toBe(calls);
  });

  it('R-AR-32: a network call opens to its headers, bodies and SSE frames, read when opened', async () => {
    const { api, host } = fakeHost();
    mount(api, frame('login'));
    const row = await screen.findByTestId('app-network-row');
    expect(host.detailCalls).toEqual([]);
    fireEvent.click(row);
    const detail = await screen.findByTestId('app-network-detail');
    expect(host.detailCalls).toEqual(['call-1']);
    expect(screen.getByTestId('app-network-request').textContent).toContain('Authorization');
    expect(screen.getByTestId('app-network-request').textContent).toContain('[REDACTED]');
    expect(screen.getByTestId('app-network-request').textContent).toContain('no body captured');
    expect(screen.getByTestId('app-network-response').textContent).toContain('text/event-stream');
    expect(screen.getByTestId('app-network-response').querySelector('pre')?.textContent).toBe('data: hello\n\n');
    expect(screen.getByTestId('app-network-response').textContent).toContain('13 bytes, only the start was captured');
    expect(screen.getByTestId('app-network-sse').textContent).toContain('hello');
    expect(detail).toBeTruthy();
    // Clicked again, it closes.
    fireEvent.click(row);
    expect(screen.queryByTestId('app-network-detail')).toBeNull();
  });

  it('R-AR-32: without get_network_call_detail a call is a plain row that opens nothing', async () => {
    const { api, host } = fakeHost();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const plain = { ...device, supportedCommands: ['get_state', 'get_network_calls'] };
    render(
      <ApiContext.Provider value={api}>
        <QueryClientProvider client={client}>
          <AppPanel device={plain} frame={frame('login')} />
        </QueryClientProvider>
      </ApiContext.Provider>,
    );
    fireEvent.click(await screen.findByTestId('app-network-row'));
    expect(screen.queryByTestId('app-network-detail')).toBeNull();
    expect(host.detailCalls).toEqual([]);
  });
});

// @vitest-environment jsdom
/**
 * R-LIFE-05: "Record from launch" starts a recording and then relaunches the app, so the trace begins
 * with the relaunch. While an action still runs on the device the relaunch would not be sent (one action
 * at a time, R-ACT-05), and a recording started then would not begin with it: the button waits. Found
 * in the web host (e2e/lifecycle): a Relaunch still finishing, Record from launch pressed, and the
 * recording began without its launch. The host is a stub transport.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeviceSummary } from '@shared/protocol/device';
import { LaunchControls } from '@renderer/components/LaunchControls';
import { ApiContext } from '@renderer/api/queries';
import type { Transport } from '@renderer/api/transport';
import { useTimeline } from '@renderer/state/timeline';

const device = { id: 'demo-1', name: 'Demo', kind: 'demo', state: 'connected', supportedCommands: ['request_launch_app'] } as unknown as DeviceSummary;

function show() {
  const calls: string[] = [];
  const transport = {
    kind: 'websocket',
    call: async (method: string) => {
      calls.push(method);
      if (method === 'recording.status') return { recording: false };
      if (method === 'recording.start') return { recording: true, deviceId: device.id };
      throw new Error(`unexpected ${method}`);
    },
    on: () => () => {},
  } as unknown as Transport;
  const sent = vi.fn(async () => undefined);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <ApiContext.Provider value={transport}>
      <QueryClientProvider client={client}>
        <LaunchControls device={device} act={sent} />
      </QueryClientProvider>
    </ApiContext.Provider>,
  );
  return { sent, calls };
}

afterEach(() => {
  cleanup();
  for (const p of useTimeline.getState().pending) useTimeline.getState().end(p.id);
});

describe('R-LIFE-05: Record from launch', () => {
  it('R-LIFE-05: starts the recording, then sends the relaunch', async () => {
    const { sent, calls } = show();
    const button = await screen.findByTestId('record-from-launch');
    expect((button as HTMLButtonElement).disabled).toBe(false);
    await act(async () => fireEvent.click(button));
    expect(calls).toContain('recording.start');
    expect(sent).toHaveBeenCalledWith({ action: 'launch', relaunch: true });
  });

  it('R-LIFE-05: waits while an action runs on the device: nothing recorded, nothing sent, and it says why', async () => {
    const { sent, calls } = show();
    act(() => void useTimeline.getState().begin(device.id, { action: 'launch', relaunch: true }));
    const button = (await screen.findByTestId('record-from-launch')) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.title).toMatch(/still running/);
    await act(async () => fireEvent.click(button));
    expect(calls).not.toContain('recording.start');
    expect(sent).not.toHaveBeenCalled();
    // Its result in, the button is offered again.
    act(() => useTimeline.getState().end(useTimeline.getState().pending[0]!.id));
    expect(button.disabled).toBe(false);
  });
});

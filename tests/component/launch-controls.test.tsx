// @vitest-environment jsdom
/**
 * R-LIFE-05: "Record from launch" starts a recording and then relaunches the app, so the trace begins
 * with the relaunch. While an action still runs on the device the relaunch would not be sent (one action
 * at a time, R-ACT-05), and a recording started then would not begin with it: the button waits. Found
 * in the web host (e2e/lifecycle): a Relaunch still finishing, Record from launch pressed, and the
 * recording began without its launch. The host is a stub transport.
 */
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeviceSummary } from '@shared/protocol/device';
import { LaunchControls } from '@renderer/components/LaunchControls';
import { useTimeline } from '@renderer/state/timeline';
import { renderOverHost, stubTransport } from '../support/stub-host';

const device = { id: 'demo-1', name: 'Demo', kind: 'demo', state: 'connected', supportedCommands: ['request_launch_app'] } as unknown as DeviceSummary;

function show() {
  const calls: string[] = [];
  const transport = stubTransport((method) => {
    calls.push(method);
    if (method === 'recording.status') return { recording: false };
    if (method === 'recording.start') return { recording: true, deviceId: device.id };
    throw new Error(`unexpected ${method}`);
  });
  const sent = vi.fn(async () => undefined);
  renderOverHost(transport, <LaunchControls device={device} act={sent} />);
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

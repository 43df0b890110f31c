// @vitest-environment jsdom
/**
 * A new read of an unchanged screen keeps the shown tree's objects (docs/rules.md#r-perf-03): every view
 * of the tree (rows, boxes, match marks) is keyed on them, and a live read brings a new observation each
 * time (its own timings, decoded anew), so a 50,000-node screen would be laid out and drawn again for
 * nothing. Through `useFrame`'s own query, as the page holds it: its observe replies (paused, Refresh)
 * and the frames put in it (live reads, pushes, an action's after frame). e2e/heavy-screen "R-PERF-03:
 * live frames of an unchanged 50,000-node screen redraw no tree row and no box" checks the page.
 */
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { ApiContext, PUSH_OPTIONS, queryKeys, showFrame, useFrame } from '@renderer/api/queries';
import type { Transport } from '@renderer/api/transport';
import { observation } from '../support/observation';

const device: DeviceSummary = { id: 'd1', kind: 'replay', name: 'Board', url: 'ws://127.0.0.1:1/', state: 'connected', supportedCommands: [] };

/** A board of `tiles` cells, built anew each time (the objects a new decode makes). */
function board(tiles: number, label = 'tile'): UiNode {
  const cells: UiNode[] = [];
  for (let i = 0; i < tiles; i++) {
    cells.push({
      'resource-id': `heavy.tile.${i}`,
      text: `${label} ${i}`,
      bounds: { left: i * 10, top: 0, right: i * 10 + 9, bottom: 9 },
      node: [{ text: `value ${i}`, bounds: { left: i * 10, top: 0, right: i * 10 + 5, bottom: 5 } }],
    } as UiNode);
  }
  return { className: 'UICollectionView', node: cells } as UiNode;
}

function frame(at: number, root: UiNode, updatedAt = 1): Frame {
  const viewHierarchy: ViewHierarchy = { updatedAt, packageName: 'com.example.board', screenWidth: 400, screenHeight: 800, hierarchy: root };
  return { deviceId: device.id, observation: observation({ viewHierarchy, timings: { total: at } }), screenshot: null, receivedAt: at };
}

/** The host's observe: answers the next frame it is given, counting the calls. */
function host(frames: Frame[]) {
  let served = 0;
  const api = {
    on: () => () => {},
    call: (method: string) => {
      if (method !== 'device.observe') return Promise.reject(new Error(`unexpected ${method}`));
      const next = frames[Math.min(served, frames.length - 1)]!;
      served++;
      return Promise.resolve(next);
    },
  } as unknown as Transport;
  return { api, served: () => served };
}

function mount(api: Transport, live: boolean) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>
      <ApiContext.Provider value={api}>{children}</ApiContext.Provider>
    </QueryClientProvider>
  );
  return { client, ...renderHook(() => useFrame(device, PUSH_OPTIONS, live), { wrapper }) };
}

afterEach(cleanup);

describe('R-PERF-03: an unchanged tree stays the shown one across frames', () => {
  it('R-PERF-03: a Refresh of the same screen keeps its view hierarchy; a changed screen brings the new one', async () => {
    const frames = [frame(1, board(300)), frame(2, board(300)), frame(3, board(300, 'moved'))];
    const { api, served } = host(frames);
    const { result } = mount(api, false);
    await waitFor(() => expect(result.current.data?.receivedAt).toBe(1));
    const shown = result.current.data!.observation!.viewHierarchy!;

    await act(() => result.current.refetch());
    // The new read is shown (its own timings), with the tree already on screen.
    await waitFor(() => expect(result.current.data?.receivedAt).toBe(2));
    const same = result.current.data!;
    expect(served()).toBe(2);
    expect(same.observation!.timings).toEqual({ total: 2 });
    expect(same.observation!.viewHierarchy).toBe(shown);
    // The frame as it came stays as it came: the decoded observation is shared with the timeline.
    expect(frames[1]!.observation!.viewHierarchy).not.toBe(shown);

    await act(() => result.current.refetch());
    await waitFor(() => expect(result.current.data?.receivedAt).toBe(3));
    const changed = result.current.data!.observation!.viewHierarchy!;
    expect(changed).not.toBe(shown);
    expect(changed.hierarchy!.node![0]!.text).toBe('moved 0');
  });

  it('R-PERF-03: a live read of the same screen keeps its root node even when the read is stamped anew', async () => {
    const { api } = host([]);
    const { client, result } = mount(api, true);
    const key = queryKeys.frame(device.id, PUSH_OPTIONS);
    const show = async (f: Frame) => {
      act(() => void showFrame(client, key, f));
      await waitFor(() => expect(result.current.data?.receivedAt).toBe(f.receivedAt));
    };
    await show(frame(1, board(300), 100));
    const first = result.current.data!.observation!.viewHierarchy!;

    // Same stamp, same tree: the whole view hierarchy stays.
    await show(frame(2, board(300), 100));
    expect(result.current.data!.observation!.viewHierarchy).toBe(first);

    // A later stamp on the same tree: the new stamp is shown, the nodes are the ones on screen.
    await show(frame(3, board(300), 200));
    const stamped = result.current.data!.observation!.viewHierarchy!;
    expect(stamped.updatedAt).toBe(200);
    expect(stamped.hierarchy).toBe(first.hierarchy);

    // One cell's text changed at the end of the tree: the new tree is shown.
    const last = board(300);
    last.node![299]!.node![0]!.text = 'value changed';
    await show(frame(4, last, 200));
    const changed = result.current.data!.observation!.viewHierarchy!;
    expect(changed.hierarchy).not.toBe(first.hierarchy);
    expect(changed.hierarchy!.node![299]!.node![0]!.text).toBe('value changed');
  });
});

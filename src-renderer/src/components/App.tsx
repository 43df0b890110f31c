import { useEffect, useMemo } from 'react';
import { indexTree, nodesAtIn, searchNodesIn } from '../../../src-shared/inspect';
import type { DeviceSummary, Frame } from '../../../src-shared/protocol/api';
import { useDevices, useFrame, useHostEvents } from '../api/queries';
import { errorMessage, formatTime } from '../state/format';
import { useInspector } from '../state/store';
import { Attributes } from './Attributes';
import { ConnectForm } from './ConnectForm';
import { DeviceList } from './DeviceList';
import { DeviceStatus } from './DeviceStatus';
import { PickStack } from './PickStack';
import { Screen } from './Screen';
import { SearchBox } from './SearchBox';
import { TopBar } from './TopBar';
import { Tree } from './Tree';

/** The device to show when the user has not chosen one: the first connected, else the first. */
function defaultDevice(devices: readonly DeviceSummary[]): DeviceSummary | undefined {
  return devices.find((d) => d.state === 'connected') ?? devices[0];
}

/** Both halves of the frame are stamped and the stamps differ: the boxes would be from another moment. */
function frameMismatch(frame: Frame | undefined): boolean {
  const shot = frame?.screenshot?.frameContext;
  const tree = frame?.hierarchyFrameContext;
  return Boolean(frame?.observation?.viewHierarchy && shot && tree && shot !== tree);
}

export function App() {
  useHostEvents();
  const devices = useDevices();
  const selectedDeviceId = useInspector((s) => s.selectedDeviceId);
  const selectDevice = useInspector((s) => s.selectDevice);
  const searchQuery = useInspector((s) => s.searchQuery);
  const pickX = useInspector((s) => s.pick?.x);
  const pickY = useInspector((s) => s.pick?.y);

  useEffect(() => {
    if (selectedDeviceId !== null || !devices.data) return;
    const first = defaultDevice(devices.data);
    if (first) selectDevice(first.id);
  }, [devices.data, selectedDeviceId, selectDevice]);

  const device = devices.data?.find((d) => d.id === selectedDeviceId);
  const frameQuery = useFrame(device);
  const frame = frameQuery.data;
  const hierarchy = frame?.observation?.viewHierarchy ?? null;

  const tree = useMemo(() => indexTree(hierarchy?.hierarchy), [hierarchy]);
  const matches = useMemo(() => searchNodesIn(tree.nodes, searchQuery), [tree, searchQuery]);
  const matchKeys = useMemo(() => new Set(matches.map((m) => m.key)), [matches]);
  const pickStack = useMemo(
    () => (pickX === undefined || pickY === undefined ? [] : nodesAtIn(tree.nodes, pickX, pickY)),
    [tree, pickX, pickY],
  );
  const mismatch = frameMismatch(frame);

  const placeholder = !device
    ? selectedDeviceId
      ? 'This device is gone from the host.'
      : 'No device. Connect one by its runner URL.'
    : frameQuery.isError && !frame
      ? `Observe failed: ${errorMessage(frameQuery.error)}`
      : !frame
        ? device.state === 'connected'
          ? 'Observing…'
          : device.state === 'connecting'
            ? 'Waiting for the device to connect…'
            : 'The device is disconnected and has shown nothing yet.'
        : !frame.observation?.viewHierarchy && !frame.screenshot
          ? `The frame has neither a tree nor a screenshot${frame.screenshotError ? ` (${frame.screenshotError})` : ''}.`
          : null;

  return (
    <div className="app">
      <TopBar />
      <aside className="sidebar">
        <ConnectForm />
        <DeviceList />
      </aside>
      <main className="canvas">
        <div className="canvas-bar">
          <DeviceStatus device={device} frame={frame} />
          <span className="spacer" />
          {device && (
            <button
              type="button"
              className="tool-button"
              data-testid="refresh"
              disabled={device.state !== 'connected' || frameQuery.isFetching}
              onClick={() => void frameQuery.refetch()}
            >
              {frameQuery.isFetching ? 'Observing…' : 'Refresh'}
            </button>
          )}
        </div>
        <div className="canvas-bar secondary">
          <SearchBox matches={matches} />
          <PickStack stack={pickStack} />
        </div>
        {device && device.state === 'disconnected' && frame && (
          <div className="banner warn" data-testid="disconnected-banner">
            {device.name} disconnected{device.error ? `: ${device.error}` : ''}. Showing the last frame, from{' '}
            {formatTime(frame.receivedAt)}.
          </div>
        )}
        {frameQuery.isError && frame && (
          <div className="banner warn">Observe failed: {errorMessage(frameQuery.error)}. Showing the last frame.</div>
        )}
        {mismatch && (
          <div className="banner warn" data-testid="frame-mismatch">
            The screenshot and the tree come from different frames; the boxes are drawn on the outline.
          </div>
        )}
        {frame && !frame.screenshot && frame.observation?.viewHierarchy && (
          <div className="banner info" data-testid="screenshot-error">
            No screenshot{frame.screenshotError ? `: ${frame.screenshotError}` : ''}. Showing the screen outline.
          </div>
        )}
        <Screen
          frame={frame}
          tree={tree}
          matchKeys={matchKeys}
          pickStack={pickStack}
          mismatch={mismatch}
          placeholder={placeholder}
        />
        {hierarchy && (
          <div className="frame-info" data-testid="frame-info">
            <span>{hierarchy.packageName}</span>
            <span>
              {hierarchy.screenWidth}×{hierarchy.screenHeight} pt @{hierarchy.screenScale}x
            </span>
            <span>{tree.nodes.length} nodes</span>
            {frame && <span>received {formatTime(frame.receivedAt)}</span>}
          </div>
        )}
      </main>
      <aside className="inspector">
        <Tree tree={tree} matchKeys={matchKeys} />
        <Attributes tree={tree} />
      </aside>
    </div>
  );
}

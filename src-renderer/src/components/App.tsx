import './App.css';
import { useCallback, useEffect, useMemo, useState } from 'react';
import {
  frameMismatch,
  gestureRequest,
  isEditableNode,
  isOcrNode,
  nodesShownIn,
  offeredActions,
  pickableAmong,
  pickStackAt,
  searchNodesIn,
  sourceCounts,
  type ScreenGesture,
} from '@shared/inspect';
import type { DeviceSummary } from '@shared/protocol/device';
import { Group } from 'react-resizable-panels';
import { useLiveLoop } from '@renderer/api/live';
import type { ActionRequest } from '@shared/protocol/action';
import { LaunchControls } from './LaunchControls';
import { AssertControls } from './AssertControls';
import { useAct, useDevices, useFrame, useHostEvents, type FrameOptions } from '@renderer/api/queries';
import { useTimeline } from '@renderer/state/timeline';
import { errorMessage, formatTime } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';
import { useZoom } from '@renderer/state/zoom';
import { Attributes } from './Attributes';
import { ConnectForm } from './ConnectForm';
import { DeviceList } from './DeviceList';
import { DeviceStatus } from './DeviceStatus';
import { DiscoveredList } from './DiscoveredList';
import { InteractBar } from './InteractBar';
import { CompareButton, LiveCompareView } from './LiveCompare';
import { useLiveComparison } from '@renderer/state/live-compare';
import { WebViewPanel } from './WebViewPanel';
import { AppPanel } from './AppPanel';
import { EmptyObservation } from './EmptyObservation';
import { ModeToggle } from './ModeToggle';
import { DemoPanel } from './DemoPanel';
import { Pane, PaneSeparator, usePaneLayout } from './Panes';
import { SelectorsPanelWithTry } from './SelectorsPanel';
import { MarkedTree } from './TryMarks';
import { Screen } from './Screen';
import { AccessibilityPanel } from './AccessibilityPanel';
import { findingMarks, findingsByNode } from './AccessibilityMarks';
import { useDeviceAudit } from '@renderer/api/accessibility';
import { useAccessibility } from '@renderer/state/accessibility';
import { ZoomControls } from './ZoomControls';
import { RecordControls, RecoverOffer, SavedTraceNotice } from './Recording';
import { StepDetail, useOpenStep } from './StepDetail';
import { Timeline } from './Timeline';
import { PerfStrip } from './PerfStrip';
import { FrameFooter, FrameHeader, ObservationBanners } from './FrameHeader';
import { GridView } from './GridView';
import { useGridView } from '@renderer/state/grid-view';
import { LiveControls, ObserveOptionsControls } from './LiveControls';
import { ScopeControl } from './ScopeControl';
import { useScopedAudit, useScopedFrame } from '@renderer/state/observe-scope';
import { PickStack } from './PickStack';
import { SearchBox } from './SearchBox';
import { SourceLegend } from './SourceLegend';
import { TopBar } from './TopBar';
import { TraceView } from './TraceView';
import { useTraceView } from '@renderer/state/trace-view';
import { useTraceDrop } from '@renderer/hooks/useTraceDrop';
import { useTraceOpenRequests } from '@renderer/hooks/useTraceOpenRequests';
import { useFollowSelection } from '@renderer/hooks/useFollowSelection';
import { boundsOf } from '@shared/model/node';
import { indexTree } from '@shared/model/tree';

/** The device to show when the user has not chosen one: the first connected, else the first. */
function defaultDevice(devices: readonly DeviceSummary[]): DeviceSummary | undefined {
  return devices.find((d) => d.state === 'connected') ?? devices[0];
}

/** Key I switches between inspect and interact, unless the key is typed into a field. */
function useModeKey(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'i' && e.key !== 'I') return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      e.preventDefault();
      useInspector.getState().toggleMode();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function App() {
  useTraceDrop();
  useTraceOpenRequests();
  const traceOpen = useTraceView((s) => s.opening !== null || s.trace !== null || s.error !== null);
  const comparing = useLiveComparison((s) => s.view !== null);
  const grid = useGridView((s) => s.open);
  if (traceOpen) {
    return (
      <div className="app trace-mode">
        <TopBar />
        <TraceView />
      </div>
    );
  }
  if (comparing) {
    return (
      <div className="app compare-mode">
        <TopBar />
        <LiveCompareView />
      </div>
    );
  }
  if (grid) {
    // The device view's own loops stop while the grid shows: the grid runs one for every device.
    return (
      <div className="app grid-mode">
        <TopBar />
        <div className="grid-columns">
          <aside className="sidebar">
            <ConnectForm />
            <DeviceList />
            <DiscoveredList />
          </aside>
          <GridView />
        </div>
      </div>
    );
  }
  return <LiveApp />;
}

function LiveApp() {
  useHostEvents();
  useModeKey();
  const devices = useDevices();
  const selectedDeviceId = useInspector((s) => s.selectedDeviceId);
  const selectDevice = useInspector((s) => s.selectDevice);
  const searchQuery = useInspector((s) => s.searchQuery);
  const pickX = useInspector((s) => s.pick?.x);
  const pickY = useInspector((s) => s.pick?.y);
  const live = useInspector((s) => s.live);
  const strategy = useInspector((s) => s.strategy);
  const xctestOnly = useInspector((s) => s.xctestOnly);
  const hiddenSources = useInspector((s) => s.hiddenSources);
  const mode = useInspector((s) => s.mode);
  const windowId = useInspector((s) => s.windowId);
  const [refusal, setRefusal] = useState<string | null>(null);
  const options: FrameOptions = useMemo(() => ({ strategy, xctestOnly, ...(windowId !== null ? { windowId } : {}) }), [strategy, xctestOnly, windowId]);

  useEffect(() => {
    if (selectedDeviceId !== null || !devices.data) return;
    const first = defaultDevice(devices.data);
    if (first) selectDevice(first.id);
  }, [devices.data, selectedDeviceId, selectDevice]);

  const device = devices.data?.find((d) => d.id === selectedDeviceId);
  const frameQuery = useFrame(device, options, live);
  // The shown frame, narrowed to the view's observe-scope (docs/rules.md#r-scope-06); the host's stays whole.
  const { frame, scoped } = useScopedFrame(frameQuery.data);
  const loop = useLiveLoop(device, options, live, frame !== undefined && frame.screenshot === null);
  const hierarchy = frame?.observation?.viewHierarchy ?? null;
  const observeError: unknown = loop.error ?? (frameQuery.isError ? frameQuery.error : null);

  // Per root node: a frame whose tree is unchanged keeps the last one's (queries.ts, keepUnchangedTree),
  // even when the read's own stamps moved on.
  const root = hierarchy?.hierarchy;
  const tree = useMemo(() => indexTree(root), [root]);
  const selectionNote = useFollowSelection(tree);
  const shownNodes = useMemo(() => nodesShownIn(tree.nodes, hiddenSources), [tree, hiddenSources]);
  const counts = useMemo(() => sourceCounts(tree.nodes), [tree]);
  const matches = useMemo(() => searchNodesIn(tree.nodes, searchQuery), [tree, searchQuery]);
  // A selector being tried highlights what it finds, else the search's matches (docs/rules.md#r-qa-22): the
  // selectors panel owns the box and its worker (docs/rules.md#r-hand-13), the screen's boxes (followTry) and
  // the tree (MarkedTree) read its answers, so neither typing nor an answer renders App again.
  const pickStack = useMemo(() => {
    if (pickX === undefined || pickY === undefined) return [];
    return pickStackAt(tree.nodes, pickX, pickY, { pickable: pickableAmong(shownNodes, tree.nodes) });
  }, [tree, shownNodes, pickX, pickY]);
  const mismatch = frameMismatch(frame);
  const appReveal = device?.kind === 'appreveal';
  const offered = useMemo(() => offeredActions(device), [device]);
  const act = useAct(device, options);
  // A failed step run again: the same request as a new action, only on the user's click (Timeline).
  const retryStep = useCallback((request: ActionRequest) => void act(request), [act]);
  const openEntry = useOpenStep(device?.id);
  const ocrCount = useMemo(() => (appReveal ? tree.nodes.filter((f) => isOcrNode(f.node)).length : 0), [appReveal, tree]);
  const windowOutline = useMemo(() => {
    const w = windowId ? frame?.appReveal?.windows.find((x) => x.id === windowId) : undefined;
    return w?.frame ? boundsOf({ bounds: { left: w.frame.x, top: w.frame.y, right: w.frame.x + w.frame.width, bottom: w.frame.y + w.frame.height } }) : null;
  }, [windowId, frame]);

  const onGesture = useCallback(
    (gesture: ScreenGesture) => {
      if (!device) return;
      const built = gestureRequest(gesture, offered, device.kind === 'appreveal');
      if ('refused' in built) {
        setRefusal(built.refused);
        return;
      }
      setRefusal(null);
      useTimeline.getState().clearNotice();
      // The field the user tapped (native, bridge or DOM) is where the type box types next, until focus
      // moves: another tap moves it (docs/rules.md#r-act-03).
      if (gesture.kind === 'tap' || gesture.kind === 'doubleTap' || gesture.kind === 'longPress') {
        const field = gesture.target && isEditableNode(gesture.target.node) ? gesture.target.node : null;
        useInspector.getState().setTypeField(device.id, field);
      }
      void act(built.request);
    },
    [device, offered, act],
  );
  const interactOptions = useMemo(
    () => (device && device.state === 'connected' ? { offered, onGesture, onRefused: (reason: string) => setRefusal(reason) } : undefined),
    [device, offered, onGesture],
  );
  const notice = useTimeline((s) => (s.notice && s.notice.deviceId === device?.id ? s.notice.text : null));
  const shownRefusal = refusal ?? notice;
  const interacting = mode === 'interact' && device !== undefined;
  const appRevealPanel = device !== undefined && appReveal;
  const webViewPanel = device !== undefined && appReveal && device.supportedCommands.includes('get_dom_interactive');
  const audit = useScopedAudit(useDeviceAudit(device, frame), scoped);
  const focusedFinding = useAccessibility((s) => s.focused);
  const marks = useMemo(() => findingMarks(audit.data, frame?.receivedAt, focusedFinding), [audit.data, frame?.receivedAt, focusedFinding]);
  const markedNodes = useMemo(() => findingsByNode(marks), [marks]);
  const attachZoom = useZoom((s) => s.attach);
  const reportZoom = useZoom((s) => s.report);

  const placeholder = !device
    ? selectedDeviceId
      ? 'This device is gone from the host.'
      : 'No device. Connect one by its URL, or from the Discovered list.'
    : observeError != null && !frame
      ? `Observe failed: ${errorMessage(observeError)}`
      : !frame
        ? device.state === 'connected'
          ? 'Observing…'
          : device.state === 'connecting'
            ? 'Waiting for the device to connect…'
            : 'The device is disconnected and has shown nothing yet.'
        : !frame.observation?.viewHierarchy && !frame.screenshot
          ? `The frame has neither a tree nor a screenshot${frame.screenshotError ? ` (${frame.screenshotError})` : ''}.`
          : appReveal && !frame.screenshot && frame.observation?.quality.reason === 'appreveal_elements_not_offered'
            ? 'This app offers neither its elements nor a screenshot: what it does offer is in the App panel.'
            : null;

  const inspectorPanels = ['tree', 'attributes', 'selectors', ...(appRevealPanel ? ['app'] : []), ...(webViewPanel ? ['web'] : []), 'accessibility'];
  const columns = usePaneLayout('columns');
  const inspectorLayout = usePaneLayout('inspector', inspectorPanels);

  return (
    <div className="app">
      <TopBar />
      <Group className="app-panes" orientation="horizontal" id="columns" {...columns}>
        <Pane id="sidebar" defaultSize={250} minSize={180} maxSize="35%">
          <aside className="sidebar">
            <ConnectForm />
            <DeviceList />
            <DiscoveredList />
            <DemoPanel device={device} frame={frame} />
          </aside>
        </Pane>
        <PaneSeparator id="sidebar" label="Resize the device list" />
        <Pane id="main" minSize={360}>
          <main className="canvas">
            <RecoverOffer />
            <div className="canvas-bar">
              <DeviceStatus device={device} frame={frame} />
              <CompareButton device={device} />
              <RecordControls device={device} />
              <LaunchControls device={device} act={act} />
              {device && (
                <LiveControls connected={device.state === 'connected'} refreshing={frameQuery.isFetching} onRefresh={() => void frameQuery.refetch()} />
              )}
            </div>
            <SavedTraceNotice />
            {/* One row, the same height in both modes, so switching never moves the screen. */}
            {interacting && device ? (
              <InteractBar device={device} frame={frame} offered={offered} act={act} />
            ) : (
              <div className="canvas-bar mode-row">
                <PickStack stack={pickStack} />
              </div>
            )}

            <div className="stage">
              {/* The view's controls, legend and frame status in a column beside the screen, never over it: a phone is
                  tall, so the canvas's height goes to the picture (docs/rules.md#r-layout-01, #r-qa-16). */}
              <aside className="stage-side" data-testid="stage-side" aria-label="View">
                <div className="stage-tools">
                  <ModeToggle disabled={!device} />
                  <SearchBox matches={matches} />
                  <ZoomControls />
                  {device && <ObserveOptionsControls appReveal={appReveal} />}
                  {device && <ScopeControl observeScope={frame?.observation?.observeScope} />}
                </div>
                {/* The frame's status in the column too: a banner over the stage would take the phone's height (docs/rules.md#r-layout-01). */}
                {device && device.state === 'disconnected' && frame && (
                  <div className="banner warn" data-testid="disconnected-banner">
                    {device.name} disconnected{device.error ? `: ${device.error}` : ''}. Showing the last frame, from {formatTime(frame.receivedAt)}.
                  </div>
                )}
                {observeError != null && frame && (
                  <div className="banner warn" data-testid="observe-error">
                    Observe failed: {errorMessage(observeError)}. Showing the last frame.
                  </div>
                )}
                {mismatch && (
                  <div className="banner warn" data-testid="frame-mismatch">
                    The screenshot and the tree come from different moments (screenshot {frame?.screenshot?.frameContext}, tree {frame?.hierarchyFrameContext});
                    the boxes are drawn on the outline, not on the screenshot.
                  </div>
                )}
                <ObservationBanners frame={frame} />
                <EmptyObservation frame={frame} />
                {frame && !frame.screenshot && frame.observation?.viewHierarchy && (
                  <div className="banner info" data-testid="screenshot-error">
                    No screenshot{frame.screenshotError ? `: ${frame.screenshotError}` : ''}. Showing the screen outline.
                  </div>
                )}
                {selectionNote && (
                  <div className="banner info" data-testid="selection-note" role="status">
                    {selectionNote}
                  </div>
                )}
                {hierarchy && <SourceLegend counts={counts} observation={frame?.observation ?? null} appReveal={appReveal ? { ocr: ocrCount } : undefined} />}
                <FrameHeader frame={frame} />
                {hierarchy && (
                  <div className="frame-info" data-testid="frame-info">
                    <span>{hierarchy.packageName}</span>
                    <span>
                      {hierarchy.screenWidth}×{hierarchy.screenHeight} pt{hierarchy.screenScale ? ` @${hierarchy.screenScale}x` : ''}
                    </span>
                    <span>{tree.nodes.length} nodes</span>
                    {frame && <span>received {formatTime(frame.receivedAt)}</span>}
                    {!live && <span className="paused-note">paused</span>}
                    <FrameFooter frame={frame} />
                  </div>
                )}
                {/* In the column, not under the screen: the strip's plots would take the phone's height (docs/rules.md#r-layout-01). */}
                {device && !appReveal && <PerfStrip device={device} />}
              </aside>
              <Screen
                frame={frame}
                nodes={shownNodes}
                treeNodes={tree.nodes}
                matchKeys={matches.keySet}
                followTry
                pickStack={pickStack}
                mismatch={mismatch}
                placeholder={placeholder}
                interact={interactOptions}
                windowOutline={windowOutline}
                onZoomControls={attachZoom}
                onZoom={reportZoom}
                findingMarks={marks}
              />
              {interacting && shownRefusal && (
                <div
                  className="stage-toast"
                  data-testid="gesture-refused"
                  role="status"
                  onClick={() => {
                    setRefusal(null);
                    useTimeline.getState().clearNotice();
                  }}
                >
                  Not sent: {shownRefusal}.
                </div>
              )}
              {openEntry && <StepDetail entry={openEntry} />}
            </div>
          </main>
          <Timeline device={device} onRetry={retryStep} />
        </Pane>
        <PaneSeparator id="inspector" label="Resize the inspector" />
        <Pane id="inspector" defaultSize={360} minSize={260} maxSize="50%">
          <Group className="inspector" orientation="vertical" id="inspector-panels" {...inspectorLayout}>
            <Pane id="tree" minSize={80}>
              <MarkedTree
                tree={tree}
                searched={matches.keySet}
                frameContext={frame?.hierarchyFrameContext ?? frame?.observation?.frameContext}
                findings={markedNodes}
              />
            </Pane>
            <PaneSeparator id="tree" label="Resize the tree" />
            <Pane id="attributes" minSize={60}>
              <AssertControls device={device} tree={tree} act={act} />
              <Attributes tree={tree} appReveal={appReveal} />
            </Pane>
            <PaneSeparator id="attributes" label="Resize the attributes" />
            <Pane id="selectors" minSize={60}>
              <SelectorsPanelWithTry
                root={appReveal ? undefined : root}
                tryRoot={root}
                unavailable={
                  appReveal
                    ? "Selectors are made from what XCTest reports; this app's elements come from AppReveal, not XCTest, so none are offered here."
                    : undefined
                }
              />
            </Pane>
            {appRevealPanel && device && (
              <>
                <PaneSeparator id="selectors" label="Resize the selectors" />
                <Pane id="app" minSize={60}>
                  <AppPanel device={device} frame={frame} />
                </Pane>
              </>
            )}
            {webViewPanel && device && (
              <>
                <PaneSeparator id={appRevealPanel ? 'app' : 'selectors'} label="Resize the panel above" />
                <Pane id="web" minSize={60}>
                  <WebViewPanel device={device} frame={frame} act={act} />
                </Pane>
              </>
            )}
            <PaneSeparator id={webViewPanel ? 'web' : appRevealPanel ? 'app' : 'selectors'} label="Resize the panel above" />
            <Pane id="accessibility" minSize={60}>
              <AccessibilityPanel device={device} frame={frame} audit={audit} />
            </Pane>
          </Group>
        </Pane>
      </Group>
    </div>
  );
}

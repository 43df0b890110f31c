import './GridView.css';
/**
 * Every device at once (docs/rules.md#r-perf-09): one tile per device that takes screenshots, each with
 * its name, kind, state, live picture and frame rate; a click (or Enter) opens it in the device view.
 * The pictures come from the grid's own loop (grid-live.ts) and are drawn through refs, never through
 * React state, so eight live devices re-render nothing here but the frame-rate text.
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { DEVICE_KIND_LABELS, type DeviceSummary, type Screenshot } from '@shared/protocol/device';
import { gridDevices, gridLayout, takesScreenshots, type GridLayout } from '@shared/inspect/grid';
import { type GridLoop, gridTuning, TilePainter, useGridLoop, usePageVisible, type GridDraw } from '@renderer/api/grid-live';
import { useApi, useDevices, useHostEvents } from '@renderer/api/queries';
import { useGridView } from '@renderer/state/grid-view';
import { useInspector } from '@renderer/state/store';
import { useElementSize } from '@renderer/hooks/useElementSize';
import { errorMessage } from '@renderer/state/format';

/** A portrait phone (the demo's iPhone 17 is 402 x 874 points); another shape is letterboxed in it. */
const TILE_ASPECT = 402 / 874;
/** Tile padding, border and the two caption lines (GridView.css): what a tile adds around its picture. */
const LAYOUT = { aspect: TILE_ASPECT, gap: 12, chrome: 54, sideChrome: 14 } as const;

const STATE_LABEL: Record<DeviceSummary['state'], string> = {
  connecting: 'connecting…',
  connected: 'connected',
  disconnected: 'disconnected',
};

export function GridView() {
  useHostEvents();
  const api = useApi();
  const devices = useDevices();
  const live = useInspector((s) => s.live);
  const setLive = useInspector((s) => s.setLive);
  const close = useGridView((s) => s.close);
  const visible = usePageVisible();
  const shown = useMemo(() => gridDevices(devices.data ?? []), [devices.data]);
  const liveIds = useMemo(() => shown.filter((d) => d.state === 'connected' && takesScreenshots(d)).map((d) => d.id), [shown]);
  const [tuning] = useState(() => gridTuning());
  const loop = useGridLoop(api, liveIds, live && visible, tuning.inFlight);
  const { draw } = tuning;
  const area = useRef<HTMLDivElement>(null);
  const size = useElementSize(area);
  const layout = useMemo(() => gridLayout(shown.length, size.width, size.height, LAYOUT), [shown.length, size.width, size.height]);

  return (
    <main className="grid-view" data-testid="grid-view">
      <div className="canvas-bar grid-bar">
        <span className="grid-title">All devices</span>
        <span className="grid-count" data-testid="grid-count">
          {shown.length} {shown.length === 1 ? 'device' : 'devices'}
        </span>
        {!live && (
          <span className="paused-note" data-testid="grid-paused">
            paused
          </span>
        )}
        <span className="spacer" />
        <button type="button" data-testid="grid-live-toggle" data-live={String(live)} onClick={() => setLive(!live)}>
          {live ? 'Pause live' : 'Resume live'}
        </button>
        <button type="button" data-testid="grid-close" onClick={close}>
          Device view
        </button>
      </div>
      {devices.isError && <div className="form-error">Cannot list devices: {errorMessage(devices.error)}</div>}
      <div className="grid-area">
        <div className="grid-fit" ref={area}>
          {shown.length === 0 ? (
            <div className="empty-note" data-testid="grid-empty">
              No device that takes screenshots is connected.
            </div>
          ) : (
            <div className="grid-tiles" style={{ gridTemplateColumns: `repeat(${layout.columns}, max-content)` }}>
              {shown.map((device) => (
                <GridTile key={device.id} device={device} loop={loop} layout={layout} draw={draw} />
              ))}
            </div>
          )}
        </div>
      </div>
    </main>
  );
}

interface TileProps {
  device: DeviceSummary;
  loop: GridLoop;
  layout: GridLayout;
  draw: GridDraw;
}

const GridTile = memo(function GridTile({ device, loop, layout, draw }: TileProps) {
  const openDevice = useGridView((s) => s.openDevice);
  const canvas = useRef<HTMLCanvasElement>(null);
  const tile = useRef<HTMLButtonElement>(null);
  const rate = useRef<HTMLSpanElement>(null);
  const problem = useRef<HTMLDivElement>(null);
  // Only the comparison the bench makes (`?gridDraw=img`) keeps the picture in React state.
  const [imageSrc, setImageSrc] = useState<string | null>(null);
  const painter = useMemo(() => new TilePainter(() => canvas.current), []);
  const dpr = typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1;
  const canvasWidth = Math.round(layout.pictureWidth * dpr);
  const canvasHeight = Math.round(layout.pictureHeight * dpr);

  useEffect(() => painter.reset(), [painter, canvasWidth, canvasHeight]);
  useEffect(
    () =>
      loop.attach(device.id, {
        show: async (screenshot: Screenshot) => {
          if (draw === 'img') setImageSrc(`data:image/png;base64,${screenshot.dataBase64}`);
          else await painter.show(screenshot);
          tile.current?.setAttribute('data-pictures', String(Number(tile.current.getAttribute('data-pictures') ?? '0') + 1));
        },
        rate: (fps, total) => {
          if (rate.current) rate.current.textContent = `${fps.toFixed(1)} fps`;
          tile.current?.setAttribute('data-frames', String(total));
          tile.current?.setAttribute('data-fps', fps.toFixed(1));
        },
        failed: (message) => {
          if (!problem.current) return;
          problem.current.textContent = message ?? '';
          problem.current.hidden = message === null;
        },
      }),
    [loop, device.id, painter, draw],
  );

  return (
    <button
      type="button"
      ref={tile}
      className={`grid-tile state-${device.state}`}
      data-testid="grid-tile"
      data-device-id={device.id}
      data-state={device.state}
      title={`Open ${device.name}`}
      onClick={() => openDevice(device.id)}
    >
      <div className="grid-picture" style={{ width: layout.pictureWidth, height: layout.pictureHeight }}>
        {draw === 'img' ? (
          imageSrc && <img data-testid="grid-picture" src={imageSrc} alt="" />
        ) : (
          <canvas
            data-testid="grid-picture"
            ref={canvas}
            width={canvasWidth}
            height={canvasHeight}
            style={{ width: layout.pictureWidth, height: layout.pictureHeight }}
          />
        )}
        <div className="grid-problem" ref={problem} data-testid="grid-problem" hidden />
      </div>
      <div className="grid-caption" style={{ width: layout.pictureWidth }}>
        <div className="device-line">
          <span className={`state-dot state-${device.state}`} aria-hidden />
          <span className="grid-name" data-testid="grid-name" title={device.appName ? `${device.name} · ${device.appName}` : device.name}>
            {device.name}
          </span>
          <span className="spacer" />
          <span className="grid-rate" ref={rate} data-testid="grid-rate">
            {device.state === 'connected' ? '…' : ''}
          </span>
        </div>
        <div className="device-line grid-meta">
          <span data-testid="grid-kind">{DEVICE_KIND_LABELS[device.kind]}</span>
          <span className={`state-text-${device.state}`} data-testid="grid-state">
            {STATE_LABEL[device.state]}
          </span>
        </div>
      </div>
    </button>
  );
});

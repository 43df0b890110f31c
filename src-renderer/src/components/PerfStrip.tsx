/**
 * The live performance strip of the selected device (docs/rules.md#r-perfstrip): CPU and memory over the
 * last minute, drawn with uPlot, the last actions marked on the time axis (hover or focus a mark for the
 * action), and the runner's frame rate under its own name, never as the app's (R-PERFSTRIP-02).
 *
 * The pushes never pass through React (R-PERFSTRIP-03): each one goes into a PerfSeries and, once per
 * animation frame at most, to the plots' setData and the readout's text. React renders when the device
 * or the marks change (an action), not per sample.
 */
import './PerfStrip.css';
import 'uplot/dist/uPlot.min.css';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { describeRequest, frameRateText, perfReadout, stepOutcome } from '@shared/inspect';
import type { DeviceSummary } from '@shared/protocol/device';
import type { PerfMetricSource } from '@shared/protocol/perf';
import { useApi } from '@renderer/api/queries';
import { useElementSize } from '@renderer/hooks/useElementSize';
import { formatTime } from '@renderer/state/format';
import { PerfSeries, StripCost } from '@renderer/state/perf-series';
import { useTimeline, type TimelineEntry } from '@renderer/state/timeline';

/** The time the plots show, in seconds (the newest push at the right edge). */
export const STRIP_SPAN_S = 60;
/** Actions marked at most. */
export const MAX_MARKS = 10;
/** Each plot's own area, where its line is drawn, in CSS pixels (the x axis below the memory plot is extra). */
const PLOT_AREA_HEIGHT = 32;
const Y_AXIS_SIZE = 44;
const X_AXIS_SIZE = 22;
/**
 * The plots' padding (top, right, bottom, left), the same for both, so their minutes line up and the marks
 * placed on the CPU plot's scale fall at the same time on the memory plot. uPlot's own padding (null) is
 * a third of its default 50 px axis above and below a plot with no x axis (uPlot.esm.js `autoPadSide`),
 * which left the CPU line 2 px to be drawn in, and pads only the plot with an x axis on the right.
 * Top and bottom: half a tick label, so the highest and lowest figures are not cut; right: half a time label.
 */
const PADDING = [6, 14, 6, 0] satisfies uPlot.Padding;
const NO_ENTRIES: readonly TimelineEntry[] = [];

/** Runs `work` before the next paint; a test passes its own. */
export type Schedule = (work: () => void) => void;
const onAnimationFrame: Schedule = (work) => void requestAnimationFrame(work);

/** The strip's cost so far, for a bench reading it from the page (R-PERFSTRIP-03). */
export const stripCost = new StripCost();

interface Mark {
  callId: string;
  t: number;
  label: string;
}

function markOf(entry: TimelineEntry): Mark {
  const outcome = stepOutcome(entry.step.result);
  const words = `${describeRequest(entry.step.request)}: ${outcome.ok ? 'done' : `${outcome.outcomeText} (${outcome.label})`}`;
  return { callId: entry.callId, t: entry.startedAt, label: `${words}, at ${formatTime(entry.startedAt)}` };
}

function token(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'currentColor';
}

function plotOptions(label: string, unit: string, width: number, showX: boolean, yRange: uPlot.Scale.Range): uPlot.Options {
  const stroke = token(unit === '%' ? '--accent' : '--warn');
  const axisStroke = token('--text-muted');
  return {
    width,
    height: PLOT_AREA_HEIGHT + PADDING[0] + PADDING[2] + (showX ? X_AXIS_SIZE : 0),
    padding: PADDING,
    legend: { show: false },
    cursor: { y: false, points: { show: false } },
    scales: {
      x: {
        time: true,
        range: (_u, _min, max) => (max === null || !Number.isFinite(max) ? [Date.now() / 1000 - STRIP_SPAN_S, Date.now() / 1000] : [max - STRIP_SPAN_S, max]),
      },
      y: { range: yRange },
    },
    axes: [
      // One line per time (uPlot's own puts the date on a second line, cut by the axis's height), as the marks say it.
      {
        show: showX,
        stroke: axisStroke,
        size: X_AXIS_SIZE,
        grid: { show: false },
        ticks: { size: 3 },
        values: (_u, splits) => splits.map((s) => formatTime(s * 1000)),
      },
      {
        stroke: axisStroke,
        size: Y_AXIS_SIZE,
        // A figure every 14 px at the most, so the short plot names more than its zero.
        space: 14,
        grid: { show: false },
        ticks: { size: 3 },
        values: (_u, splits) => splits.map((v) => `${v}${unit === '%' ? '%' : ''}`),
      },
    ],
    series: [{}, { label, stroke, width: 1.5, fill: `color-mix(in srgb, ${stroke} 18%, transparent)`, points: { show: false }, spanGaps: false }],
  };
}

/**
 * CPU from 0 to a little above the minute's highest figure (at least 10 %), so a rise from a few percent
 * shows as a rise; the axis says the figures. Memory around what it holds.
 */
const CPU_RANGE: uPlot.Scale.Range = (_u, _min, max) => [0, Math.max(10, Math.ceil((max ?? 0) * 1.1))];
const MEMORY_RANGE: uPlot.Scale.Range = (_u, min, max) => {
  if (min === null || max === null) return [0, 1];
  const pad = Math.max(8, (max - min) * 0.15);
  return [Math.max(0, Math.floor(min - pad)), Math.ceil(max + pad)];
};

export const PerfStrip = memo(function PerfStrip({ device, schedule = onAnimationFrame }: { device: DeviceSummary; schedule?: Schedule }) {
  const api = useApi();
  const rootRef = useRef<HTMLElement>(null);
  const plotsRef = useRef<HTMLDivElement>(null);
  const cpuRef = useRef<HTMLDivElement>(null);
  const memoryRef = useRef<HTMLDivElement>(null);
  const readoutRef = useRef<HTMLSpanElement>(null);
  const framesRef = useRef<HTMLDivElement>(null);
  const marksRef = useRef<HTMLDivElement>(null);
  const requestFlush = useRef<() => void>(() => {});
  const plotsOf = useRef<{ cpu: uPlot; memory: uPlot } | null>(null);
  const { width: measured } = useElementSize(plotsRef);
  const width = Math.max(160, measured);
  const entries = useTimeline((s) => s.byDevice[device.id] ?? NO_ENTRIES);
  const marks = useMemo(() => entries.slice(0, MAX_MARKS).map(markOf), [entries]);
  const [hovered, setHovered] = useState<Mark | null>(null);

  // One pair of plots per device; the pushes feed them directly.
  useEffect(() => {
    const cpuHost = cpuRef.current;
    const memoryHost = memoryRef.current;
    if (!cpuHost || !memoryHost) return;
    const series = new PerfSeries();
    let fpsSource: PerfMetricSource = 'runnerProcessFrames';
    // uPlot draws in a microtask after setData: its draw hooks time the drawing, and place the marks on
    // the scale just drawn.
    const timed = (after?: (u: uPlot) => void): uPlot.Hooks.Arrays => {
      let drawStart = 0;
      return {
        drawClear: [() => void (drawStart = performance.now())],
        draw: [
          (u) => {
            after?.(u);
            stripCost.totalMs += performance.now() - drawStart;
          },
        ],
      };
    };
    const cpu = new uPlot(
      {
        ...plotOptions('CPU', '%', width, false, CPU_RANGE),
        hooks: timed((u) => {
          placeMarks(u, marksRef.current);
          // The figure at the plot's top edge as just drawn, beside the figures: a test reads the pixels against it.
          if (rootRef.current) rootRef.current.dataset.cpuScaleTop = String(u.scales.y?.max ?? '');
        }),
      },
      series.cpuData(),
      cpuHost,
    );
    const memory = new uPlot({ ...plotOptions('Memory', 'MB', width, true, MEMORY_RANGE), hooks: timed() }, series.memoryData(), memoryHost);
    plotsOf.current = { cpu, memory };
    let pending = false;
    let disposed = false;

    const flush = () => {
      pending = false;
      if (disposed) return;
      stripCost.measure(() => {
        stripCost.updates++;
        cpu.setData(series.cpuData());
        memory.setData(series.memoryData());
        const latest = series.latest;
        if (readoutRef.current) readoutRef.current.textContent = perfReadout(latest);
        const frames = frameRateText(latest, fpsSource);
        if (framesRef.current) {
          framesRef.current.textContent = frames ?? '';
          framesRef.current.hidden = frames === null;
        }
        const root = rootRef.current;
        if (root) {
          root.dataset.samples = String(series.size);
          root.dataset.latestT = String(latest?.t ?? '');
          root.dataset.cpuLatest = String(latest?.cpuUsagePercent ?? '');
          root.dataset.memoryLatest = String(latest?.memoryUsageMb ?? '');
          root.dataset.costMs = stripCost.totalMs.toFixed(3);
          root.dataset.updates = String(stripCost.updates);
        }
      });
    };
    requestFlush.current = () => {
      if (pending || disposed) return;
      pending = true;
      schedule(flush);
    };
    const offPush = api.on('device.perf', ({ deviceId, sample }) => {
      if (deviceId !== device.id) return;
      if (series.push(sample)) requestFlush.current();
    });
    void api.call('device.perfSamples', { deviceId: device.id }).then(
      (backlog) => {
        if (disposed) return;
        fpsSource = backlog.sources.fps;
        series.insertOlder(backlog.samples);
        requestFlush.current();
      },
      () => {
        // A device that keeps no samples (or a host gone): the live pushes still draw.
      },
    );
    requestFlush.current();
    return () => {
      disposed = true;
      offPush();
      plotsOf.current = null;
      cpu.destroy();
      memory.destroy();
    };
    // The width changes the plots' size (below), never makes new plots: it is left out on purpose.
  }, [api, device.id, schedule]);

  // A resize redraws at the new width; new marks are placed at the next flush.
  useEffect(() => {
    const shown = plotsOf.current;
    if (shown && shown.cpu.width !== width) {
      shown.cpu.setSize({ width, height: shown.cpu.height });
      shown.memory.setSize({ width, height: shown.memory.height });
    }
    requestFlush.current();
  }, [width, marks]);

  return (
    <section className="perf-strip" data-testid="perf-strip" aria-label="Performance" ref={rootRef}>
      <div className="perf-strip-head">
        <span className="perf-strip-title">Performance</span>
        <span className="perf-readout" data-testid="perf-readout" ref={readoutRef} aria-live="off">
          {perfReadout(undefined)}
        </span>
        <span className="perf-frames" data-testid="perf-frames" ref={framesRef} hidden />
      </div>
      <div className="perf-plots" ref={plotsRef}>
        <div className="perf-plot" data-testid="perf-cpu" ref={cpuRef} aria-label="CPU, percent of one core, last minute" role="img" />
        <div className="perf-plot" data-testid="perf-memory" ref={memoryRef} aria-label="Memory in MB, last minute" role="img" />
        <div className="perf-marks" ref={marksRef}>
          {marks.map((mark) => (
            <button
              key={mark.callId}
              type="button"
              className="perf-mark"
              data-testid="perf-mark"
              data-call-id={mark.callId}
              data-t={mark.t}
              aria-label={mark.label}
              onMouseEnter={() => setHovered(mark)}
              onMouseLeave={() => setHovered(null)}
              onFocus={() => setHovered(mark)}
              onBlur={() => setHovered(null)}
            />
          ))}
        </div>
        {hovered && (
          <div className="perf-mark-tip" role="tooltip" data-testid="perf-mark-tip" style={{ left: tipLeft(marksRef.current, hovered.callId) }}>
            {hovered.label}
          </div>
        )}
      </div>
    </section>
  );
});

/** Each mark at its action's time on the plots' x axis; one outside the shown minute is hidden. */
function placeMarks(plot: uPlot, container: HTMLDivElement | null): void {
  if (!container) return;
  container.style.left = `${plot.over.offsetLeft}px`;
  container.style.width = `${plot.over.clientWidth || plot.bbox.width / devicePixelRatio}px`;
  const { min, max } = plot.scales.x ?? {};
  for (const element of container.querySelectorAll<HTMLElement>('[data-testid="perf-mark"]')) {
    const t = Number(element.dataset.t) / 1000;
    const inside = min != null && max != null && t >= min && t <= max;
    element.hidden = !inside;
    if (inside) element.style.left = `${plot.valToPos(t, 'x')}px`;
  }
}

function tipLeft(container: HTMLDivElement | null, callId: string): string | undefined {
  const mark = [...(container?.querySelectorAll<HTMLElement>('[data-testid="perf-mark"]') ?? [])].find((m) => m.dataset.callId === callId);
  return mark ? `calc(${container!.style.left} + ${mark.style.left})` : undefined;
}

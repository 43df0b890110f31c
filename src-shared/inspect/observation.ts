/**
 * What the UI says about one observation (docs/architecture.md#a-seen): which backend
 * served it and why it fell back, its quality verdict, its partial failures, its safe areas, the scroll
 * containers with hidden content, its layout warnings, and the capture stamps of its two halves.
 * Pure: plain data in, plain data out.
 */
import type { Frame } from '@shared/protocol/device';
import type { LayoutWarning, Observation, ObservationError, Quality, QualityReason, QualityVerdict, SourceOutcome } from '@shared/protocol/observation';
import type { FlatNode, NodeKey } from '@shared/model/tree';
import { boundsOf, type Rect } from '@shared/model/node';

// ---- Backend ----------------------------------------------------------------------------------------

/**
 * The frame header's backend line: "backend: sdk", "backend: xctest · fallback: unavailable". An
 * observation without a backend (no registered bridge or merged web view took part) is "XCTest only".
 */
export function backendLine(observation: Pick<Observation, 'backend' | 'fallbackReason'> | null | undefined): string {
  const backend = observation?.backend ?? 'XCTest only';
  const fallback = observation?.fallbackReason;
  return fallback ? `backend: ${backend} · fallback: ${fallback}` : `backend: ${backend}`;
}

// ---- Quality ----------------------------------------------------------------------------------------

export const QUALITY_REASON_TEXT: Readonly<Record<QualityReason, string>> = {
  xctest_tree: 'XCTest returned controls or content.',
  application_root_only: 'XCTest returned the application node and nothing under it.',
  non_interactive_wrappers_only: 'XCTest returned only wrappers, with no content and nothing interactive.',
  sdk_bridge_supplied_controls: 'XCTest saw too little here; the SDK bridge supplied the controls.',
  web_bridge_supplied_controls: 'XCTest saw too little here; the web view snapshot supplied the controls.',
  ax_failure: 'The runner reported an accessibility serialization failure instead of a tree.',
  hierarchy_error: 'The runner reported a hierarchy error instead of a tree.',
  hierarchy_unavailable: 'No hierarchy arrived (timeout or disconnect).',
  appreveal_elements: 'The app listed its own elements through AppReveal (not an XCTest read).',
  appreveal_no_elements: 'The app answered get_elements with no elements.',
  appreveal_elements_not_offered: 'This app registered no get_elements tool: there is no element tree, only what its other tools show.',
  appreveal_elements_failed: 'The app did not answer get_elements: no element tree this time.',
};

export const QUALITY_VERDICT_TITLE: Readonly<Record<QualityVerdict, string>> = {
  healthy: 'Healthy',
  recovered: 'Recovered',
  sparse: 'Sparse',
};

export interface QualityBanner {
  verdict: Exclude<QualityVerdict, 'healthy'>;
  title: string;
  text: string;
  reason: QualityReason;
}

/** The banner a recovered or sparse verdict shows; none for a healthy one. */
export function qualityBanner(quality: Quality | null | undefined): QualityBanner | null {
  if (!quality || quality.verdict === 'healthy') return null;
  return {
    verdict: quality.verdict,
    title: QUALITY_VERDICT_TITLE[quality.verdict],
    text: QUALITY_REASON_TEXT[quality.reason] ?? quality.reason,
    reason: quality.reason,
  };
}

/**
 * Why an observation holds nothing to inspect, or undefined when it holds at least one node below its root
 * (docs/rules.md#r-ar-31). An empty observation is an error, never an empty screen: an AppReveal app that
 * lists no elements (or registers no get_elements, or did not answer it), or a device whose tree could not
 * be read, says so with the verdict's words and each failed read's line.
 */
export function emptyObservationReasons(observation: Pick<Observation, 'viewHierarchy' | 'quality' | 'errors'>): string[] | undefined {
  const root = observation.viewHierarchy?.hierarchy;
  if (root && (root.node ?? []).length > 0) return undefined;
  return [
    QUALITY_REASON_TEXT[observation.quality.reason] ?? observation.quality.reason,
    ...(root ? [] : ['no element tree was read']),
    ...observation.errors.map(observationErrorLine),
  ];
}

// ---- Partial failures and sources ---------------------------------------------------------------------

/** One line per error: "bridge · bridge_no_answer: no answer within 2 s (timeout)". */
export function observationErrorLine(error: ObservationError): string {
  const failure = error.failure ? ` (${error.failure})` : '';
  return `${error.stage} · ${error.code}: ${error.message}${failure}`;
}

/** How a source took part, in a few words: "merged, 11 nodes", "not merged: coordinate_space_window". */
export function sourceOutcomeText(outcome: SourceOutcome | undefined): string {
  if (!outcome) return 'not read';
  if (outcome.status === 'merged') return outcome.nodes === undefined ? 'merged' : `merged, ${outcome.nodes} nodes`;
  return `${outcome.status === 'not_merged' ? 'not merged' : 'not read'}: ${outcome.reason}`;
}

// ---- Scroll containers with hidden content ----------------------------------------------------------------

export type HiddenDirection = 'above' | 'below';

export interface HiddenContentMark {
  nodeKey: NodeKey;
  direction: HiddenDirection;
  bounds: Rect;
}

function extra(node: unknown, key: string): unknown {
  const extras: unknown = (node as { extras?: unknown }).extras;
  return extras !== null && typeof extras === 'object' ? (extras as Record<string, unknown>)[key] : undefined;
}

/** Every scroll container that says it has content above or below what it shows, one mark per side. */
export function hiddenContentMarks(nodes: readonly FlatNode[]): HiddenContentMark[] {
  const marks: HiddenContentMark[] = [];
  for (const flat of nodes) {
    const bounds = boundsOf(flat.node);
    if (!bounds) continue;
    if (extra(flat.node, 'hiddenContentAbove') === 'true') marks.push({ nodeKey: flat.key, direction: 'above', bounds });
    if (extra(flat.node, 'hiddenContentBelow') === 'true') marks.push({ nodeKey: flat.key, direction: 'below', bounds });
  }
  return marks;
}

// ---- Safe areas ---------------------------------------------------------------------------------------------

export type SafeAreaSide = 'top' | 'bottom' | 'left' | 'right' | 'cutout';

export interface SafeAreaRegion {
  side: SafeAreaSide;
  rect: Rect;
}

interface EdgeInsets {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export interface InsetsLike {
  safeArea?: EdgeInsets | undefined;
  displayCutoutInfo?: { classification: string; bounds?: Rect[] | undefined } | undefined;
}

/**
 * The unsafe regions of a `width`×`height` screen (points): a band per non-zero safe-area inset
 * (the side bands stop at the top and bottom bands, so no area is shaded twice) and each cutout.
 */
export function safeAreaRegions(insets: InsetsLike | null | undefined, width: number, height: number): SafeAreaRegion[] {
  if (!insets || !(width > 0) || !(height > 0)) return [];
  const out: SafeAreaRegion[] = [];
  const clamp = (v: number, max: number) => Math.max(0, Math.min(max, Number.isFinite(v) ? v : 0));
  const s = insets.safeArea;
  if (s) {
    const top = clamp(s.top, height);
    const bottom = clamp(s.bottom, height - top);
    const left = clamp(s.left, width);
    const right = clamp(s.right, width - left);
    if (top > 0) out.push({ side: 'top', rect: { left: 0, top: 0, right: width, bottom: top } });
    if (bottom > 0) out.push({ side: 'bottom', rect: { left: 0, top: height - bottom, right: width, bottom: height } });
    if (left > 0) out.push({ side: 'left', rect: { left: 0, top, right: left, bottom: height - bottom } });
    if (right > 0) out.push({ side: 'right', rect: { left: width - right, top, right: width, bottom: height - bottom } });
  }
  for (const b of insets.displayCutoutInfo?.bounds ?? []) {
    if (b.right > b.left && b.bottom > b.top) out.push({ side: 'cutout', rect: { ...b } });
  }
  return out;
}

/** The observation's insets, else the hierarchy's, else its bare system insets. */
export function insetsOf(observation: Observation | null | undefined): InsetsLike | null {
  if (!observation) return null;
  const hierarchy = observation.viewHierarchy;
  if (observation.insets) return observation.insets;
  if (hierarchy?.insets) return hierarchy.insets;
  if (hierarchy?.systemInsets) return { safeArea: hierarchy.systemInsets };
  return null;
}

// ---- Layout warnings ----------------------------------------------------------------------------------------

const REGION_TEXT: Readonly<Record<LayoutWarning['region'], string>> = {
  statusBar: 'the status bar',
  homeIndicator: 'the home indicator',
  leftInset: 'the left inset',
  rightInset: 'the right inset',
  displayCutout: 'the display cutout',
};

/** The tooltip of a layout-warning outline: what, where, by how much. */
export function layoutWarningTitle(w: LayoutWarning): string {
  const who = w.caption ?? w.className ?? w.nodeKey;
  const advisory = w.advisory ? ` (advisory: ${w.advisory})` : '';
  return `${w.severity} · ${who}: ${w.side} — overflowPx ${w.overflowPx} into ${REGION_TEXT[w.region] ?? w.region}, insetPx ${w.insetPx}${advisory}`;
}

export interface LayoutWarningSummary {
  error: number;
  warning: number;
  advisory: number;
  /** The pre-cap count when the list was capped, else the list's length. */
  total: number;
  scope: 'full' | 'truncated' | 'scoped';
}

export function layoutWarningSummary(observation: Observation | null | undefined): LayoutWarningSummary {
  const lw = observation?.layoutWarnings;
  const summary: LayoutWarningSummary = { error: 0, warning: 0, advisory: 0, total: 0, scope: lw?.scope ?? 'full' };
  for (const w of lw?.warnings ?? []) summary[w.severity]++;
  summary.total = lw?.total ?? lw?.warnings.length ?? 0;
  return summary;
}

// ---- Frame stamps ------------------------------------------------------------------------------------

/** The stamps of a frame's two halves (tree and screenshot) and whether they agree. */
export interface FrameStamps {
  /** The merged bridge snapshot's capture identity: a UInt64 as its decimal digits, exactly as sent. */
  captureIdentity?: string;
  /** The frame context the tree came from. */
  treeContext?: string;
  /** The frame context the screenshot came from. */
  shotContext?: string;
  webSnapshotId?: string;
  /** `same`: both halves stamped alike; `different`: stamped from different moments; `unstamped`: a stamp is missing. */
  agreement: 'same' | 'different' | 'unstamped';
}

export function frameStamps(frame: Frame | null | undefined): FrameStamps {
  const observation = frame?.observation ?? null;
  const treeContext = frame?.hierarchyFrameContext ?? observation?.frameContext;
  const shotContext = frame?.screenshot?.frameContext;
  const stamp: FrameStamps = {
    agreement: treeContext && shotContext ? (treeContext === shotContext ? 'same' : 'different') : 'unstamped',
  };
  if (observation?.captureIdentity !== undefined) stamp.captureIdentity = observation.captureIdentity;
  if (treeContext) stamp.treeContext = treeContext;
  if (shotContext) stamp.shotContext = shotContext;
  if (observation?.webSnapshotId) stamp.webSnapshotId = observation.webSnapshotId;
  return stamp;
}

/** Both halves of the frame are stamped and the stamps differ: the boxes would be from another moment. */
export function frameMismatch(frame: Frame | null | undefined): boolean {
  const shot = frame?.screenshot?.frameContext;
  const tree = frame?.hierarchyFrameContext;
  return Boolean(frame?.observation?.viewHierarchy && shot && tree && shot !== tree);
}

/**
 * A frame context short enough for a header: its last two `:`-separated parts when it has them
 * (the demo runner's "<session>:<generation>:<hash>" becomes "2:50458a32"), else its last 12 characters.
 */
export function shortContext(context: string): string {
  const parts = context.split(':');
  if (parts.length >= 3) {
    const [generation, hash] = parts.slice(-2) as [string, string];
    return `${generation}:${hash.slice(0, 8)}`;
  }
  return context.length > 14 ? `…${context.slice(-12)}` : context;
}

// ---- Timings ----------------------------------------------------------------------------------------------------

/** "total 158 ms · xctest 18 · screenshot 139 · bridge 19 …", stages in the order they ran. */
export function timingsLine(timings: Readonly<Record<string, number>> | undefined): string {
  if (!timings) return '';
  const entries = Object.entries(timings).filter(([k]) => k !== 'total');
  const head = timings['total'] !== undefined ? [`total ${Math.round(timings['total'])} ms`] : [];
  return [...head, ...entries.map(([k, v]) => `${k} ${v < 1 ? v.toFixed(1) : Math.round(v)}`)].join(' · ');
}

/** The app's name as XCTest reports it: the label of the XCUIApplication root, if the observation has one. */
export function appNameOf(observation: Pick<Observation, 'viewHierarchy'> | null | undefined): string | undefined {
  const root = observation?.viewHierarchy?.hierarchy;
  if (!root || root.className !== 'XCUIApplication') return undefined;
  const name = (root.text ?? root['content-desc'])?.trim();
  return name === undefined || name === '' ? undefined : name;
}

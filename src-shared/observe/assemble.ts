/**
 * The one entry point the main process calls once an observe pass has its stage results: XCTest
 * projection, bridge merge, web merge, quality, focus and layout, into one Observation.
 *
 * Partial failures never lose the other stages' data: each failing stage adds to `errors`, and a bug in
 * a pure stage is caught and reported the same way.
 */
import type { Observation, ObservationError, SourceOutcome, Strategy } from '@shared/protocol/observation';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import type { SdkRelayFailure } from '@shared/protocol/sdk';
import type { BackendFields } from './backend-fields';
import { selectBackendFor, type BackendSelection } from './backend';
import { mergeBridgeRead, type BridgeRead } from './bridge-merge';
import type { SdkDiscovery } from './discovery';
import { focusedElement } from './focus';
import { layoutWarnings, NO_LAYOUT_WARNINGS } from './layout';
import { DEFAULT_RAW_MAX_BYTES, projectRaw, projectVisible } from './projection';
import { isAxFailure, qualityVerdict } from './quality';
import { mergeWebRead, type WebRead } from './web-merge';
import { systemInsetsOf } from './system-insets';

/** The XCTest read: a decoded hierarchy (which may itself carry the runner's `error`), or no reply. */
export type HierarchyStage =
  { ok: true; hierarchy: ViewHierarchy; frameContext?: string | undefined } | { ok: false; kind: 'timeout' | 'error'; message: string };

export interface ObservationStages {
  strategy: Strategy;
  /** The raw strategy's transport limit in bytes (default: the largest frame a peer decodes). */
  rawMaxBytes?: number | undefined;
  /** The `ios-sdk-observation-bridge` flag; absent means on. */
  flagEnabled?: boolean | undefined;
  /** The inspector's clock, for `updatedAt` when the device stated none. */
  now: number;
  hierarchy: HierarchyStage;
  /**
   * `hierarchy` already projected visible by the caller (the observer needs it to choose the SDK reads):
   * used as is, so an observe projects its tree once. Absent: projected here.
   */
  visible?: ViewHierarchy | undefined;
  /** From the capability cache or a fresh probe; undefined when none was made. */
  discovery: SdkDiscovery | undefined;
  /** The bridge read, if one was made; undefined when selection asked for one means it never answered. */
  bridge?: BridgeRead | undefined;
  web?: WebRead | undefined;
  /** Milliseconds the I/O stages took (`xctest`, `discovery`, `bridge`, `web`), as the caller measured. */
  timings?: Record<string, number> | undefined;
  /** A monotonic clock in ms; given, the pure stages are timed too. */
  clock?: (() => number) | undefined;
}

export function assembleObservation(stages: ObservationStages): Observation {
  const clock = stages.clock;
  const started = clock?.();
  const errors: ObservationError[] = [];
  const timings: Record<string, number> = { ...stages.timings };
  const timed = <T>(name: string, run: () => T): T => {
    if (!clock) return run();
    const start = clock();
    try {
      return run();
    } finally {
      timings[name] = (timings[name] ?? 0) + Math.max(0, clock() - start);
    }
  };
  const guarded = <T>(stage: ObservationError['stage'], run: () => T, fallback: T): T => {
    try {
      return run();
    } catch (error) {
      errors.push({ stage, code: 'internal_error', message: error instanceof Error ? error.message : String(error) });
      return fallback;
    }
  };

  const { discovery } = stages;
  if (discovery && !discovery.ok) errors.push({ stage: 'discovery', code: 'capability_query_failed', message: discovery.error.message });

  // ---- XCTest --------------------------------------------------------------------------------------
  const read = stages.hierarchy.ok ? stages.hierarchy.hierarchy : undefined;
  if (!stages.hierarchy.ok) errors.push({ stage: 'xctest', code: 'hierarchy_unavailable', message: stages.hierarchy.message });
  else if (read?.error !== undefined && read.error !== null) {
    // A real AX serialization failure stays an error; it is never an empty screen (docs/rules.md#r-str-09).
    errors.push({ stage: 'xctest', code: isAxFailure(read.error) ? 'ax_failure' : 'hierarchy_error', message: read.error });
  }

  // ---- Projection ----------------------------------------------------------------------------------
  let xctest: ViewHierarchy | undefined = read;
  let carriable = true;
  if (read?.hierarchy) {
    xctest = timed('projection', () => guarded('projection', () => (stages.strategy === 'visible' ? (stages.visible ?? projectVisible(read)) : read), read));
    if (stages.strategy === 'raw') carriable = fitsRaw(xctest, stages.rawMaxBytes, errors);
  }
  const xctestRoot = carriable ? xctest?.hierarchy : undefined;

  // ---- Merges --------------------------------------------------------------------------------------
  const selection = selectBackendFor(stages.flagEnabled, discovery, xctestRoot);
  const merge = timed('merge', () => mergeSources(xctestRoot, selection, stages, errors, guarded));
  let root = merge.root;

  // A raw tree must still fit once the bridges added to it.
  if (stages.strategy === 'raw' && root && root !== xctestRoot && xctest) {
    const merged: ViewHierarchy = { ...xctest, hierarchy: root };
    if (!fitsRaw(merged, stages.rawMaxBytes, errors)) root = undefined;
  }

  // ---- Quality, focus, layout -----------------------------------------------------------------------
  const quality = qualityVerdict({ xctest, merged: root });
  const focused = root ? focusedElement(root) : undefined;
  const layout =
    root && read
      ? timed('layout', () =>
          guarded(
            'layout',
            () =>
              layoutWarnings({
                root: root!,
                screenWidth: read.screenWidth,
                screenHeight: read.screenHeight,
                screenScale: read.screenScale,
                insets: read.insets,
                systemInsets: read.systemInsets,
              }),
            NO_LAYOUT_WARNINGS,
          ),
        )
      : NO_LAYOUT_WARNINGS;

  if (clock && started !== undefined) timings['assemble'] = Math.max(0, clock() - started);

  const observation: Observation = {
    updatedAt: read?.updatedAt ?? stages.now,
    updatedAtSource: read?.updatedAt !== undefined ? 'device' : 'server',
    errors,
    layoutWarnings: layout,
    quality,
    strategy: stages.strategy,
    timings,
    sources: merge.sources,
  };
  if (read) {
    if (read.screenWidth !== undefined && read.screenHeight !== undefined) {
      observation.screenSize = { width: read.screenWidth, height: read.screenHeight, ...(read.screenScale !== undefined ? { scale: read.screenScale } : {}) };
    }
    if (read.insets) observation.insets = read.insets;
    const systemInsets = systemInsetsOf(read);
    if (systemInsets) observation.systemInsets = systemInsets;
    if (read.rotation !== undefined) observation.rotation = read.rotation;
    if (read.packageName !== undefined || read.windowInfo) {
      observation.activeWindow = {
        ...(read.packageName !== undefined ? { bundleId: read.packageName } : {}),
        ...(read.windowInfo ? { window: read.windowInfo } : {}),
      };
    }
  }
  if (root && xctest) observation.viewHierarchy = { ...xctest, hierarchy: root };
  if (focused) observation.focusedElement = focused;
  if (merge.backend) observation.backend = merge.backend;
  if (merge.fallbackReason) observation.fallbackReason = merge.fallbackReason;
  if (merge.captureIdentity !== undefined) observation.captureIdentity = merge.captureIdentity;
  if (stages.hierarchy.ok && stages.hierarchy.frameContext !== undefined) observation.frameContext = stages.hierarchy.frameContext;
  if (merge.webSnapshotId !== undefined) observation.webSnapshotId = merge.webSnapshotId;
  if (discovery?.ok) observation.bridge = discovery.bridge;
  return observation;
}

type Guard = <T>(stage: ObservationError['stage'], run: () => T, fallback: T) => T;

interface Merged extends BackendFields {
  root: UiNode | undefined;
  captureIdentity?: string | undefined;
  webSnapshotId?: string | undefined;
  sources: Observation['sources'];
}

/** The bridge, then the web views, over the projected XCTest tree, as selection allows. */
function mergeSources(
  xctestRoot: UiNode | undefined,
  selection: BackendSelection,
  stages: ObservationStages,
  errors: ObservationError[],
  guarded: Guard,
): Merged {
  const out: Merged = { root: xctestRoot, sources: {} };
  const bridgeSkip = notRead(selection.readBridge, selection.bridgeReason);
  if (bridgeSkip) out.sources.bridge = bridgeSkip;
  else if (!out.root) out.sources.bridge = { status: 'not_merged', reason: 'no_hierarchy' };
  else {
    const before = out.root;
    const outcome = guarded('bridge', () => mergeBridgeRead(before, stages.bridge, { keepXctestTwins: stages.strategy === 'raw' }), undefined);
    if (outcome) {
      out.root = outcome.root;
      out.backend = outcome.backend;
      if (outcome.fallbackReason) out.fallbackReason = outcome.fallbackReason;
      out.captureIdentity = outcome.captureIdentity;
      out.sources.bridge = outcome.merged
        ? { status: 'merged', reason: 'merged', nodes: outcome.nodes, leaves: outcome.duplicatesRemoved }
        : { status: 'not_merged', reason: outcome.reason };
      const error = bridgeError(stages.bridge);
      if (error) errors.push(error);
    }
  }

  const webSkip = notRead(selection.readWebViews, selection.webReason);
  const webRead = stages.web;
  if (webSkip) out.sources.web = webSkip;
  else if (!out.root) out.sources.web = { status: 'not_merged', reason: 'no_hierarchy' };
  else if (!webRead) out.sources.web = { status: 'not_read', reason: 'no_read' };
  else {
    const before = out.root;
    const outcome = guarded('web', () => mergeWebRead(before, webRead), undefined);
    if (outcome?.merged) {
      out.root = outcome.root;
      // A web merge reports sdk unless the native bridge already set the backend.
      if (out.backend === undefined) out.backend = 'sdk';
      out.webSnapshotId = outcome.snapshotId;
      out.sources.web = { status: 'merged', reason: 'merged', nodes: outcome.nodes, leaves: outcome.leavesReplaced };
    } else if (outcome) {
      out.sources.web = { status: 'not_merged', reason: outcome.reason };
      // An unreadable reply is logged; the web view keeps its XCTest nodes.
      if (outcome.unreadable) errors.push(webError(webRead, outcome.reason));
    }
  }
  return out;
}

function notRead(willRead: boolean, reason: string): SourceOutcome | undefined {
  return willRead ? undefined : { status: 'not_read', reason };
}

function fitsRaw(h: ViewHierarchy, maxBytes: number | undefined, errors: ObservationError[]): boolean {
  const raw = projectRaw(h, { maxBytes: maxBytes ?? DEFAULT_RAW_MAX_BYTES });
  if (raw.ok) return true;
  errors.push({ stage: 'projection', code: 'raw_too_large', message: raw.error.message });
  return false;
}

/** Failures that explain themselves through the fallback (the bridge went away, the app resigned active). */
const BRIDGE_STATES: ReadonlySet<SdkRelayFailure> = new Set(['bridge_unavailable', 'app_not_active']);

function bridgeError(read: BridgeRead | undefined): ObservationError | undefined {
  if (!read) return { stage: 'bridge', code: 'bridge_no_answer', message: 'the bridge was not read or did not answer' };
  if (read.kind === 'timeout') return { stage: 'bridge', code: 'bridge_no_answer', message: 'the bridge snapshot timed out' };
  if (read.kind === 'error') return { stage: 'bridge', code: 'bridge_no_answer', message: read.message };
  const failure = read.reply.failure;
  if (failure === undefined || BRIDGE_STATES.has(failure)) return undefined;
  return { stage: 'bridge', code: 'bridge_failure', message: `request_sdk_observation failed: ${failure}`, failure };
}

function webError(read: WebRead, reason: string): ObservationError {
  if (read.kind === 'timeout') return { stage: 'web', code: 'web_no_answer', message: 'the web snapshot timed out' };
  if (read.kind === 'error') return { stage: 'web', code: 'web_no_answer', message: read.message };
  const failure = read.reply.failure;
  return {
    stage: 'web',
    code: 'web_failure',
    message: failure ? `request_sdk_web_snapshot failed: ${failure}` : `the web snapshot could not be merged: ${reason}`,
    ...(failure ? { failure } : {}),
  };
}

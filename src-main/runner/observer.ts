/**
 * One observe pass against a runner: the I/O around the pure assembleObservation.
 *
 * Round trips, in the order their inputs allow: the XCTest hierarchy and the screenshot together (the
 * hierarchy names the foreground app), and beside them the bridge read when the cached discovery of the
 * current app says the bridge is there (docs/rules.md#r-perf-04); discovery from the capability cache,
 * or one probe when the foreground app or the connection changed (docs/rules.md#r-disc-03: a reply for
 * one app never answers for another); then the bridge (unless it already went) and web view reads
 * together, each on the SDK budget. A push that already
 * carries the hierarchy skips the first read. A bridge read that finds no bridge where the cache said
 * there was one costs one more probe, so the observation never reports a stale discovery.
 */
import type { Frame, ObservedFrame } from '@shared/protocol/device';
import type { ObserveOptions } from '@main/connection/connection';
import type { PerfSnapshot } from '@shared/protocol/perf';
import type { HierarchyUpdate, HierarchyUpdateReply, ViewHierarchy, RunnerReply } from '@shared/protocol/runner';
import { assembleObservation, type HierarchyStage } from '@shared/observe/assemble';
import { CapabilityCache, type GenerationBinding } from '@shared/observe/capability-cache';
import { discoverSdk, needsCapabilityProbe, type CapabilityProbe, type SdkDiscovery } from '@shared/observe/discovery';
import { selectBackendFor } from '@shared/observe/backend';
import { projectVisible } from '@shared/observe/projection';
import { limitDepth } from '@shared/model/node';
import type { BridgeRead } from '@shared/observe/bridge-merge';
import type { WebRead } from '@shared/observe/web-merge';
import { epochNow, liveTrace } from '@main/connection/live-trace';
import { letIoIn } from '@main/connection/io-turn';
import { RunnerError, type RunnerClient } from './client';

/** R-OBS-01, R-OWV-01: every SDK read has 2 s. */
export const SDK_READ_BUDGET_MS = 2_000;
/**
 * How long a cached answer that the bridge (or every web view) is unavailable stands before it is asked
 * again. A host may register its bridge after launch, and no read tells us: none is made while the
 * answer is no. An available answer stands for the binding, since a read contradicts it when it goes.
 */
export const UNAVAILABLE_RECHECK_MS = 5_000;
const HIERARCHY_TIMEOUT_MS = 10_000;
const SCREENSHOT_TIMEOUT_MS = 5_000;

/** The device's perf rollup at the end of an observe, or undefined while its perf mode is off. */
export type PerfSnapshotSource = () => PerfSnapshot | undefined;

export class Observer {
  private readonly cache = new CapabilityCache();
  private binding: GenerationBinding | undefined;
  private generation = 0;
  /** When the cached discovery was probed, on `clock`. */
  private probedAt = 0;
  /** The screen's size in points as the latest hierarchy that reported it said (docs/rules.md#r-tap-11). */
  private screen: { width: number; height: number } | undefined;

  /** The screen's size in points as the latest read (by anyone: the live view, an action) reported it. */
  get latestScreen(): { width: number; height: number } | undefined {
    return this.screen;
  }

  /** Set by the connection that owns the performance pushes (docs/rules.md#r-perfsnap). */
  perfSnapshot: PerfSnapshotSource | undefined;

  constructor(
    private readonly client: RunnerClient,
    private readonly clock: () => number = () => performance.now(),
  ) {
    // A new connection may be a relaunched app: nothing probed before it may answer after it.
    client.on('state', (state) => {
      if (state === 'connected') this.bumpGeneration();
    });
  }

  async observe(options: ObserveOptions = {}, pushed?: HierarchyUpdate): Promise<ObservedFrame> {
    const started = this.clock();
    const timings: Record<string, number> = {};
    const timed = async <T>(stage: string, run: () => Promise<T>): Promise<T> => {
      const start = this.clock();
      try {
        return await run();
      } finally {
        timings[stage] = this.clock() - start;
      }
    };

    const flagEnabled = !options.xctestOnly;
    // The bridge read goes out beside the hierarchy when the discovery for this app is known and says
    // the bridge is there (docs/rules.md#r-perf-04): its answer is used only if the hierarchy names the
    // same app in the same binding; otherwise it is dropped, never merged (R-DISC-03).
    // A pushed hierarchy names the app at once: the bridge read then waits for nothing anyway.
    const readsHierarchy = !(pushed && options.strategy !== 'raw');
    // The hierarchy goes out first, then the rest in the same turn: the order on the wire stays what it
    // was (a fault aimed at "the next request" still meets the hierarchy).
    const hierarchyRead =
      !readsHierarchy && pushed ? Promise.resolve(hierarchyStage(pushed)) : timed('xctest', () => this.readHierarchy(options.strategy === 'raw'));
    const screenshotRead = options.screenshot === false ? Promise.resolve(undefined) : timed('screenshot', () => this.readScreenshot());
    const early = flagEnabled && readsHierarchy ? this.earlyBridgeRead(timed) : undefined;
    const [hierarchy, screenshot] = await Promise.all([hierarchyRead, screenshotRead]);

    if (hierarchy.ok && hierarchy.hierarchy.screenWidth !== undefined && hierarchy.hierarchy.screenHeight !== undefined) {
      this.screen = { width: hierarchy.hierarchy.screenWidth, height: hierarchy.hierarchy.screenHeight };
    }
    const bundleId = hierarchy.ok ? hierarchy.hierarchy.packageName : undefined;
    let discovery = flagEnabled && bundleId ? await timed('discovery', () => this.discover(bundleId)) : undefined;

    let bridge: BridgeRead | undefined;
    let web: WebRead | undefined;
    // The visible projection decides the SDK reads and, for the visible strategy, is the observation's
    // XCTest tree: made once here and handed to the assembly (a 50k tree costs it tens of ms).
    let visible: ViewHierarchy | undefined;
    if (hierarchy.ok && hierarchy.hierarchy.hierarchy) {
      const read = hierarchy.hierarchy;
      visible = await timed('projection', async () => projectVisible(read));
      const projected = visible.hierarchy;
      let selection = selectBackendFor(flagEnabled, discovery, projected);
      const sameApp = early !== undefined && early.binding === this.binding && early.binding.bundleId === bundleId;
      [bridge, web] = await Promise.all([
        selection.readBridge ? (sameApp ? early.read : timed('bridge', () => this.readBridge())) : Promise.resolve(undefined),
        selection.readWebViews ? timed('web', () => this.readWebViews()) : Promise.resolve(undefined),
      ]);
      // The relay found no bridge where the cached probe said there was one (the app went, or its host
      // unregistered): the probe is stale, and this observe reports what a fresh one says.
      if (bundleId && bridge?.kind === 'reply' && bridge.reply.failure === 'bridge_unavailable') {
        discovery = await timed('rediscovery', () => this.discover(bundleId, { fresh: true }));
        selection = selectBackendFor(flagEnabled, discovery, projected);
        if (!selection.readBridge) bridge = undefined;
        if (!selection.readWebViews) web = undefined;
      }
    }

    // The reads just decoded (on a heavy screen, two 50,000-view trees) held the event loop already, and
    // the merge will hold it again: screenshots asked for and answered meanwhile go on first (R-PERF-15).
    await letIoIn();
    const observation = assembleObservation({
      strategy: options.strategy ?? 'visible',
      flagEnabled,
      now: Date.now(),
      hierarchy,
      visible,
      discovery,
      bridge,
      web,
      timings,
      clock: this.clock,
    });
    const perfStarted = this.clock();
    const perfSnapshot = this.perfSnapshot?.();
    if (perfSnapshot) {
      observation.perfSnapshot = perfSnapshot;
      observation.timings.perf = this.clock() - perfStarted;
    }
    observation.timings.total = this.clock() - started;
    return {
      observation,
      screenshot: screenshot?.screenshot ?? null,
      ...(screenshot?.screenshotError ? { screenshotError: screenshot.screenshotError } : {}),
      ...(options.screenshot === false ? { screenshotError: 'not requested' } : {}),
      ...(hierarchy.ok && hierarchy.frameContext ? { hierarchyFrameContext: hierarchy.frameContext } : {}),
      receivedAt: Date.now(),
    };
  }

  /** The bridge read, started now, when the cached discovery of the current binding says it is there. */
  private earlyBridgeRead(
    timed: <T>(stage: string, run: () => Promise<T>) => Promise<T>,
  ): { binding: GenerationBinding; read: Promise<BridgeRead> } | undefined {
    const binding = this.binding;
    const cached = binding ? this.cache.get(binding) : undefined;
    if (!binding || !cached?.bridge.available) return undefined;
    return { binding, read: timed('bridge', () => this.readBridge()) };
  }

  /**
   * The app was launched or relaunched through this connection (docs/rules.md#r-life-06): whatever was
   * probed before belongs to the process that was there, so nothing cached answers after it. A cached
   * "unavailable" would otherwise stand for UNAVAILABLE_RECHECK_MS although the new process registers
   * its bridge at start; the runner's connection stays up across a launch, so no `connected` state says
   * so (the demo runner: src-demo/runner/commands.ts, `request_launch_app`). A new generation, not a
   * cleared entry: a probe still in flight from before the launch is refused when it lands (R-DISC-03).
   */
  appLaunched(): void {
    this.bumpGeneration();
  }

  private bumpGeneration(): void {
    this.generation++;
    if (this.binding) {
      this.binding = { bundleId: this.binding.bundleId, generation: this.generation };
      this.cache.advance(this.binding);
    }
  }

  private async discover(bundleId: string, options: { fresh?: boolean } = {}): Promise<SdkDiscovery> {
    if (this.binding?.bundleId !== bundleId) {
      this.generation++;
      this.binding = { bundleId, generation: this.generation };
      this.cache.advance(this.binding);
    }
    const binding = this.binding;
    // A contradicted answer must not outlive a failed re-probe.
    if (options.fresh) this.cache.clear();
    const cached = this.cache.get(binding);
    if (cached && !(isIncomplete(cached) && this.clock() - this.probedAt >= UNAVAILABLE_RECHECK_MS)) return cached;
    const runnerCommands = this.client.connectedInfo?.supportedCommands ?? [];
    const probe = needsCapabilityProbe(runnerCommands) ? await this.probeCapabilities() : undefined;
    const discovery = discoverSdk({ foregroundBundleId: bundleId, runnerCommands, probe });
    if (this.cache.set(binding, discovery)) this.probedAt = this.clock();
    return discovery;
  }

  private async probeCapabilities(): Promise<CapabilityProbe> {
    try {
      const reply = await this.client.request('get_sdk_capabilities', {}, { timeoutMs: SDK_READ_BUDGET_MS });
      return { ok: true, reply: reply as never };
    } catch (error) {
      return { ok: false, kind: error instanceof RunnerError && error.code === 'timeout' ? 'timeout' : 'transport', message: (error as Error).message };
    }
  }

  /** `raw` asks the runner for its unfiltered tree (the raw strategy, R-STR-01). */
  private async readHierarchy(raw: boolean): Promise<HierarchyStage> {
    const command = this.client.supports('request_hierarchy') ? 'request_hierarchy' : 'request_hierarchy_if_stale';
    try {
      const payload = raw ? { disableAllFiltering: true } : {};
      return hierarchyStage((await this.client.request(command, payload, { timeoutMs: HIERARCHY_TIMEOUT_MS })) as HierarchyUpdateReply);
    } catch (error) {
      return { ok: false, kind: error instanceof RunnerError && error.code === 'timeout' ? 'timeout' : 'error', message: (error as Error).message };
    }
  }

  /** A screenshot alone: live mode's loop, which leaves the tree to the device's pushes. */
  async readScreenshot(): Promise<Pick<Frame, 'screenshot' | 'screenshotError'>> {
    if (!this.client.supports('request_screenshot')) return { screenshot: null, screenshotError: 'this runner takes no screenshots' };
    const started = liveTrace ? epochNow() : 0;
    try {
      return screenshotFields(await this.client.request('request_screenshot', {}, { timeoutMs: SCREENSHOT_TIMEOUT_MS }));
    } catch (error) {
      return { screenshot: null, screenshotError: (error as Error).message };
    } finally {
      liveTrace?.span('shot-device', started);
    }
  }

  private async readBridge(): Promise<BridgeRead> {
    return relayRead(
      () => this.client.request('request_sdk_observation', {}, { timeoutMs: SDK_READ_BUDGET_MS }),
      (reply) => ({
        kind: 'reply',
        reply: reply as Extract<BridgeRead, { kind: 'reply' }>['reply'],
      }),
    );
  }

  private async readWebViews(): Promise<WebRead> {
    // One unnamed read: the runner answers with the registered list and the first web view's snapshot.
    return relayRead(
      () => this.client.request('request_sdk_web_snapshot', {}, { timeoutMs: SDK_READ_BUDGET_MS }),
      (reply) => ({
        kind: 'reply',
        reply: { webViews: [], ...(reply as object) } as Extract<WebRead, { kind: 'reply' }>['reply'],
      }),
    );
  }
}

/** A discovery that rules a read out: an unavailable bridge, or a web view list known to be empty. */
function isIncomplete(discovery: Extract<SdkDiscovery, { ok: true }>): boolean {
  return !discovery.bridge.available || (discovery.webSnapshotRelay && discovery.webViews?.length === 0);
}

async function relayRead<R extends { kind: string }>(
  send: () => Promise<RunnerReply>,
  wrap: (reply: RunnerReply) => R,
): Promise<R | { kind: 'timeout' } | { kind: 'error'; message: string }> {
  try {
    return wrap(await send());
  } catch (error) {
    if (error instanceof RunnerError && error.code === 'timeout') return { kind: 'timeout' };
    return { kind: 'error', message: (error as Error).message };
  }
}

/**
 * A reply with a tree, or with the runner's own error (an AX serialization failure is a real answer and
 * stays one, R-STR-09), or with neither.
 */
function hierarchyStage(update: HierarchyUpdate | HierarchyUpdateReply): HierarchyStage {
  const frameContext = update.frameContext ?? undefined;
  if (update.data) {
    // A tree deeper than the pipeline walks is flattened below MAX_VIEW_DEPTH (docs/rules.md#r-lim-02):
    // every node still shows, where a recursion would have failed the whole observe.
    const tree = update.data.hierarchy;
    const hierarchy = tree ? { ...update.data, hierarchy: limitDepth(tree).root } : update.data;
    return { ok: true, hierarchy, frameContext };
  }
  if (typeof update.error === 'string') return { ok: true, hierarchy: { error: update.error } as ViewHierarchy, frameContext };
  return { ok: false, kind: 'error', message: 'the runner sent no hierarchy' };
}

export function screenshotFields(reply: RunnerReply): Pick<Frame, 'screenshot' | 'screenshotError'> {
  if (reply.type === 'screenshot' && 'data' in reply && typeof reply.data === 'string') {
    return {
      screenshot: {
        format: 'png',
        dataBase64: reply.data,
        ...('frameContext' in reply && typeof reply.frameContext === 'string' ? { frameContext: reply.frameContext } : {}),
      },
    };
  }
  return { screenshot: null, screenshotError: 'error' in reply && typeof reply.error === 'string' ? reply.error : 'no screenshot' };
}

/**
 * One action's run against a runner: what it sent (its ledger), how long each stage took, what it
 * wants to say, and the device I/O every action shares (the fresh read, the observation after, bridge
 * relays and XCTest commands with their budgets). The per-action files (tap, send-keys, swipe,
 * scroll-to) decide what to send; this is how it goes out. Rules: docs/rules.md.
 */
import { z } from 'zod';
import type { FailureReason, Point, TargetRecord, TargetSelector } from '@shared/protocol/action';
import type { Observation, FallbackReason } from '@shared/protocol/observation';
import type { RunnerCommand, UiNode, RunnerReply } from '@shared/protocol/runner';
import { WebSnapshotSchema, WebViewBridgeEntrySchema, type ObservationBridgeState, type WebSnapshot } from '@shared/protocol/sdk';
import {
  checkPointsOnScreen,
  displayFenceOf,
  interpretRunnerOutcome,
  isRunnerStallEvidence,
  nodeIdentity,
  PLAIN_XCTEST,
  SDK,
  SDK_REQUEST_BUDGET_MS,
  SDK_TOTAL_BUDGET_MS,
  sdkRequestBudgetMs,
  type BridgeContext,
  type CommandOutcome,
  type DisplayFence,
  type ScreenSize,
  type Ending,
  type FailClosed,
  type RelayOutcome,
  type RelayReply,
  type RequestOutcome,
  type RunnerOutcome,
  type RunnerReplyStatus,
  type RunnerVerdict,
  type Served,
  type SendKeysFocus,
  type TapTarget,
  type XctestSwipe,
  type XctestTap,
} from '@shared/act';
import { RunnerError, type RunnerClient } from '@main/runner/client';
import type { Observer } from '@main/runner/observer';
import { neverSent, RequestLedger } from '@main/runner/ledger';
import { selectorValue, type Resolution } from '@shared/act/resolve';
import type { ObservedFrame } from '@shared/protocol/device';

/** How a request that threw ended: never sent, refused by the runner, unreadable, timed out or cut off. */
function requestErrorOutcome<R>(error: unknown): RequestOutcome<R> {
  const code = error instanceof RunnerError ? error.code : undefined;
  if (code === 'timeout') return { kind: 'timeout' };
  if (neverSent(error)) return { kind: 'disconnected', sent: false };
  if (code === 'refused') return { kind: 'runnerRefused', error: (error as RunnerError).detail ?? (error as Error).message };
  // A sent request whose answer cannot be read (R-CMD-06: bad_reply): it may have run.
  if (code === 'unexpected_reply') return { kind: 'garbled', message: (error as Error).message };
  return { kind: 'disconnected', sent: true };
}

/** An XCTest gesture or key command has this long, plus its own duration; it is the runner's own work. */
export const XCTEST_COMMAND_TIMEOUT_MS = 10_000;

/** The stage an action's read after it runs under (a connection drops pushes older than it: R-PERF-07). */
export const AFTER_READ_STAGE = 'observeAfter';

/** What a run needs of the device and of the dispatcher that owns it. */
export interface DispatchDevice {
  readonly client: RunnerClient;
  readonly observer: Observer;
  /** Whether the observation after an action carries a screenshot. */
  readonly screenshotAfter: boolean;
  /** The display of the latest read (a swipe's stroke is fenced against it). */
  latestDisplay: DisplayFence | undefined;
  /** The observation after the latest action. */
  latestFrame: ObservedFrame | undefined;
  onFrame(frame: ObservedFrame): void;
  onStall(outcome: CommandOutcome): void;
}

export interface Read {
  readonly frame: ObservedFrame;
  readonly observation: Observation | undefined;
  readonly root: UiNode | undefined;
  readonly frameContext: string | undefined;
  readonly context: BridgeContext;
  /** Where this read's replies start in the ledger. */
  readonly ledgerFrom: number;
}

export interface Outcome {
  readonly served: Served;
  readonly ending: Ending;
  readonly target: TargetRecord;
  readonly warnings?: readonly string[] | undefined;
}

export const ok: Ending = { ok: true };
export const fail = (failureReason: FailureReason, mayHaveRun: boolean, deviceMessage?: string): Ending => ({
  ok: false,
  failureReason,
  mayHaveRun,
  ...(deviceMessage !== undefined ? { deviceMessage } : {}),
});
/** A verdict's failure as the action's ending, with the device's words. */
export const failWith = (verdict: FailClosed): Ending => fail(verdict.failureReason, verdict.mayHaveRun, verdict.deviceMessage);

function bridgeStateOf(observation: Observation | undefined): ObservationBridgeState | undefined {
  const state = observation?.bridge;
  if (!state) return undefined;
  return state.available
    ? { schemaVersion: 1, available: true, supportedActions: state.supportedActions }
    : { schemaVersion: 1, available: false, reason: state.reason, supportedActions: [] };
}

export function selectorRecord(selector: TargetSelector | undefined, resolvedBy: TargetRecord['resolvedBy']): TargetRecord {
  return selector ? { resolvedBy, selector: selectorValue(selector) } : { resolvedBy };
}

function resolvedByOf(selector: TargetSelector): TargetRecord['resolvedBy'] {
  return 'id' in selector ? 'id' : 'text' in selector ? 'text' : 'point' in selector ? 'point' : 'node';
}

/**
 * A failure decided before anything was sent names the SDK only for a node the bridge or a web view
 * serves (or claims to): a plain XCTest node without bounds is not a bridge failure.
 */
export function servedBeforeSending(target: TapTarget | SendKeysFocus | undefined): Served {
  const node = target && 'node' in target ? target.node : undefined;
  return node && nodeIdentity(node).kind !== 'none' ? SDK : PLAIN_XCTEST;
}

export class ActionRun {
  readonly ledger = new RequestLedger();
  readonly timings: Record<string, number> = {};
  readonly warnings: string[] = [];
  /** An action request (not a read) went out: the screen may have changed, so it is observed after. */
  actionSent = false;
  /** Time spent in SDK action requests, against the 5 s total. */
  sdkSpentMs = 0;

  constructor(
    readonly device: DispatchDevice,
    /** The ios-sdk-observation-bridge flag off for this action: XCTest only, no backend fields. */
    readonly xctestOnly: boolean,
    /** Told each stage as it begins. */
    private readonly onStage?: (stage: string) => void,
  ) {}

  async timed<T>(stage: string, work: () => Promise<T> | T): Promise<T> {
    this.onStage?.(stage);
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.timings[stage] = (this.timings[stage] ?? 0) + (performance.now() - started);
    }
  }

  async read(stage: string, screenshot: boolean): Promise<Read> {
    const ledgerFrom = this.ledger.entries.length;
    const frame = await this.timed(stage, () => this.device.observer.observe({ screenshot, xctestOnly: this.xctestOnly }));
    const observation = frame.observation ?? undefined;
    const hierarchy = observation?.viewHierarchy;
    if (hierarchy?.hierarchy) this.device.latestDisplay = displayFenceOf(hierarchy);
    return {
      frame,
      observation,
      root: hierarchy?.hierarchy,
      frameContext: frame.hierarchyFrameContext ?? observation?.frameContext,
      context: {
        flagEnabled: !this.xctestOnly,
        observationBridge: bridgeStateOf(observation),
        webViews: this.webViewsOf(ledgerFrom),
      },
      ledgerFrom,
    };
  }

  /**
   * The registered web views, from the web snapshot reply this read already got: a reply without a
   * usable list (bad_reply, or no read at all) leaves them unknown, and the runner decides.
   */
  webViewsOf(from: number): BridgeContext['webViews'] {
    const reply = this.ledger.lastReply('request_sdk_web_snapshot', from) as { failure?: string; webViews?: unknown } | undefined;
    if (!reply || reply.failure === 'bad_reply') return undefined;
    const list = z.array(WebViewBridgeEntrySchema).safeParse(reply.webViews ?? []);
    return list.success ? list.data : undefined;
  }

  /** The raw snapshot of the web view the read merged: it lists the off-screen elements the tree drops. */
  mergedWebSnapshot(read: Read): { webViewId: string; snapshot: WebSnapshot } | undefined {
    const observation = read.observation;
    if (observation?.sources.web?.status !== 'merged' || observation.webSnapshotId === undefined) return undefined;
    const reply = this.ledger.lastReply('request_sdk_web_snapshot', read.ledgerFrom) as { webViewId?: unknown; snapshot?: unknown } | undefined;
    const snapshot = WebSnapshotSchema.safeParse(reply?.snapshot);
    if (!snapshot.success || typeof reply?.webViewId !== 'string' || snapshot.data.snapshotId !== observation.webSnapshotId) return undefined;
    return { webViewId: reply.webViewId, snapshot: snapshot.data };
  }

  async observeAfter(stage = AFTER_READ_STAGE): Promise<Read> {
    const read = await this.read(stage, this.device.screenshotAfter);
    this.device.latestFrame = read.frame;
    this.device.onFrame(read.frame);
    return read;
  }

  /** A read that holds no tree: say why in the terms of an action failure. */
  readFailure(read: Read): FailureReason {
    const error = read.observation?.errors.find((e) => e.stage === 'xctest');
    if (error) this.warnings.push(`The fresh read got no tree: ${error.message}`);
    return this.device.client.state === 'connected' ? 'target_not_found' : 'runner_disconnected';
  }

  async relay(
    command: 'request_sdk_action' | 'request_sdk_web_action',
    payload: { actionJson: string; webViewId?: string },
    budgetMs: number,
  ): Promise<RelayOutcome> {
    const started = performance.now();
    try {
      const reply = await this.timed('dispatch', () => this.device.client.request(command, payload as never, { timeoutMs: budgetMs }));
      this.actionSent = true;
      return { kind: 'reply', reply: reply as unknown as RelayReply };
    } catch (error) {
      if (!neverSent(error)) this.actionSent = true;
      return this.relayErrorOutcome(error);
    } finally {
      this.sdkSpentMs += performance.now() - started;
    }
  }

  relayErrorOutcome(error: unknown): RelayOutcome {
    return requestErrorOutcome<RelayReply>(error);
  }

  /** One XCTest command, and how it ended (docs/rules.md#r-act-01 reads it). */
  async runner(stage: string, command: RunnerCommand, payload: Record<string, unknown>, timeoutMs: number): Promise<RunnerOutcome> {
    try {
      const reply: RunnerReply = await this.timed(stage, () => this.device.client.request(command, payload as never, { timeoutMs }));
      this.actionSent = true;
      return { kind: 'reply', reply: reply as RunnerReplyStatus };
    } catch (error) {
      if (!neverSent(error)) this.actionSent = true;
      const outcome = requestErrorOutcome<RunnerReplyStatus>(error);
      if (outcome.kind === 'timeout') {
        const evidence: CommandOutcome = { command, outcome: 'timeout' };
        if (isRunnerStallEvidence(evidence)) this.device.onStall(evidence);
      }
      if (outcome.kind === 'garbled') this.warnings.push(`The runner's reply to ${command} could not be read: ${outcome.message}`);
      return outcome;
    }
  }

  async runnerVerdict(stage: string, command: RunnerCommand, payload: Record<string, unknown>, timeoutMs: number): Promise<RunnerVerdict> {
    return interpretRunnerOutcome(await this.runner(stage, command, payload, timeoutMs));
  }

  /**
   * The screen in points, as the latest read that reported it says: this action's own, else any read of
   * the device (the live view's), so a point still converts when this action's read got no tree.
   */
  get screen(): ScreenSize | undefined {
    const display = this.device.latestDisplay;
    if (display?.screenWidth !== undefined && display.screenHeight !== undefined) return { width: display.screenWidth, height: display.screenHeight };
    return this.device.observer.latestScreen;
  }

  /** Points are points (docs/rules.md#r-tap-11): a coordinate off the screen is refused before anything is sent. */
  offScreen(points: readonly Point[]): FailClosed | undefined {
    const check = checkPointsOnScreen(points, this.screen);
    if (check.kind === 'pass') return undefined;
    const at = points.map((p) => `${p.x},${p.y}`).join(' → ');
    this.warnings.push(
      check.failureReason === 'screen_size_unknown'
        ? `No read of this device has reported its screen size in points, so ${at} was not sent.`
        : `${at} lies outside the ${this.screen?.width} x ${this.screen?.height} pt screen, so it was not sent.`,
    );
    return check;
  }

  /** request_tap_coordinates once, or twice for a double tap; only the first names the read's frame. */
  async xctestTap(tap: XctestTap, frameContext: string | undefined, stage = 'xctest'): Promise<RunnerVerdict> {
    const off = this.offScreen([{ x: tap.x, y: tap.y }]);
    if (off) return off;
    for (let i = 0; i < tap.taps; i++) {
      const payload = { x: tap.x, y: tap.y, duration: tap.durationMs, ...(i === 0 && frameContext ? { frameContext } : {}) };
      const verdict = await this.runnerVerdict(stage, 'request_tap_coordinates', payload, XCTEST_COMMAND_TIMEOUT_MS + tap.durationMs);
      // The first tap of a double tap already landed.
      if (verdict.kind === 'failClosed') return i > 0 ? { ...verdict, mayHaveRun: true } : verdict;
    }
    return { kind: 'done' };
  }

  /** request_swipe; a boomerang has no command of its own, so it is the stroke and its way back. */
  async xctestSwipe(swipe: XctestSwipe, frameContext: string | undefined): Promise<RunnerVerdict> {
    const strokes = swipe.boomerang
      ? [
          { x1: swipe.x1, y1: swipe.y1, x2: swipe.x2, y2: swipe.y2 },
          { x1: swipe.x2, y1: swipe.y2, x2: swipe.x1, y2: swipe.y1 },
        ]
      : [{ x1: swipe.x1, y1: swipe.y1, x2: swipe.x2, y2: swipe.y2 }];
    const off = this.offScreen([
      { x: swipe.x1, y: swipe.y1 },
      { x: swipe.x2, y: swipe.y2 },
    ]);
    if (off) return off;
    for (const [i, stroke] of strokes.entries()) {
      const payload = { ...stroke, duration: swipe.durationMs, ...(i === 0 && frameContext ? { frameContext } : {}) };
      const verdict = await this.runnerVerdict('xctest', 'request_swipe', payload, XCTEST_COMMAND_TIMEOUT_MS + swipe.durationMs);
      if (verdict.kind === 'failClosed') return i > 0 ? { ...verdict, mayHaveRun: true } : verdict;
    }
    return { kind: 'done' };
  }

  /**
   * The time the next SDK request may take: 2 s each and 5 s in total for the command. A native plan's
   * budget may hold a press's duration on top of the 2 s, which the press needs whatever was spent.
   */
  budgetFor(via: 'sdk' | 'web', planned: number): number {
    if (via === 'web') return Math.min(planned, Math.max(0, SDK_TOTAL_BUDGET_MS - this.sdkSpentMs));
    const press = Math.max(0, planned - SDK_REQUEST_BUDGET_MS);
    const left = sdkRequestBudgetMs(this.sdkSpentMs);
    return left > 0 ? left + press : 0;
  }

  /**
   * A node with no identity on a screen whose read fell back (a registered bridge did not answer): the
   * node would have been a bridge node, and XCTest is standing in for it.
   */
  readFellBack(read: Read): FallbackReason | undefined {
    if (this.xctestOnly || read.observation?.backend !== 'xctest' || read.observation.fallbackReason !== 'unavailable') return undefined;
    return 'unavailable';
  }

  unresolved(read: Read, resolution: Resolution, selector: TargetSelector): Outcome | undefined {
    if (resolution.kind !== 'notFound') return undefined;
    const reason = read.root ? 'target_not_found' : this.readFailure(read);
    return { served: PLAIN_XCTEST, ending: fail(reason, false), target: selectorRecord(selector, resolvedByOf(selector)) };
  }
}

/**
 * The action dispatcher's I/O (issue 5): one fresh read, one routing decision from the pure core
 * (src-shared/act), the requests that decision names, and one observation after.
 *
 * Rules the code below keeps, all from seed 000 and design principle 3:
 * - XCTest stands in only on a verdict's fallback (unavailable / unsupported), never after `done`,
 *   never after a timeout or any other failure: the action may already have run.
 * - Nothing is re-sent. A timed-out SDK request is `mayHaveRun`, is not stall evidence, and causes no
 *   reconnect; only an XCTest command's own timeout is reported as stall evidence.
 * - An action costs at most one fresh read before it and one observation after it. sendKeys has two
 *   actions of its own (the XCTest focus tap, then the text entry), so the read after the focus tap is
 *   also the fresh read the seed asks for before the first bridge action.
 * Actions on one device run one at a time, as a finger on one screen would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EventEmitter } from 'node:events';
import { z } from 'zod';
import {
  ActionRequestSchema,
  DoubleTapRequestSchema,
  LongPressRequestSchema,
  ScrollToRequestSchema,
  SendKeysRequestSchema,
  SwipeRequestSchema,
  TapRequestSchema,
  type ActionResult,
  type FailureReason,
  type LookFor,
  type Point,
  type TargetRecord,
  type TargetSelector,
} from '@shared/protocol/action';
import type { Observation } from '@shared/protocol/observation';
import type { RunnerCommand, UiNode } from '@shared/protocol/runner';
import { WebSnapshotSchema, WebViewBridgeEntrySchema, type ObservationBridgeState, type WebSnapshot } from '@shared/protocol/sdk';
import {
  buildActionResult,
  checkDisplayFence,
  displayFenceOf,
  expandSendKeysSteps,
  failKeyCommand,
  interpretBridgeOutcome,
  interpretLookForStep,
  interpretRunnerOutcome,
  isRunnerStallEvidence,
  nodeIdentity,
  nodeTargetRecord,
  observeForSendKeys,
  planKeyOp,
  planLookFor,
  PLAIN_XCTEST,
  recordKeyOutcome,
  routeSwipe,
  routeTap,
  SDK,
  SDK_REQUEST_BUDGET_MS,
  SDK_TOTAL_BUDGET_MS,
  sdkRequestBudgetMs,
  searchAfterWebStep,
  servedByXctest,
  startSendKeys,
  summarizeSendKeys,
  verifyTypedText,
  type BridgeContext,
  type CommandOutcome,
  type DisplayFence,
  type Ending,
  type KeyOp,
  type KeyStepResult,
  type RelayOutcome,
  type RelayReply,
  type RunnerOutcome,
  type RunnerVerdict,
  type Served,
  type SendKeysFocus,
  type SendKeysSession,
  type TapGesture,
  type TapTarget,
  type TextVerification,
  type XctestKeyCommand,
  type XctestSwipe,
  type XctestTap,
} from '@shared/act';
import { flattenTree } from '@shared/model/tree';
import { RunnerError, type RunnerClient } from '@main/runner/client';
import { type Observer } from '@main/runner/observer';
import { attributeRequests, neverSent, RequestLedger, withLedger } from '@main/runner/ledger';
import {
  describeSelector,
  findLookFor,
  findSameField,
  resolveScope,
  resolveTarget,
  scrollableAt,
  twinWithIdentity,
  type Resolution,
} from '@shared/act/resolve';
import { centerOf, hidesText } from '@shared/model/node';
import { type FallbackReason } from '@shared/protocol/observation';
import { type ObservedFrame } from '@shared/api/api';
import { type RunnerReply } from '@shared/protocol/runner';

/** An XCTest gesture or key command has this long, plus its own duration; it is the runner's own work. */
const XCTEST_COMMAND_TIMEOUT_MS = 10_000;

export type TapLikeRequestInput = z.input<typeof TapRequestSchema> | z.input<typeof LongPressRequestSchema> | z.input<typeof DoubleTapRequestSchema>;
export type SendKeysRequestInput = z.input<typeof SendKeysRequestSchema>;
export type SwipeRequestInput = z.input<typeof SwipeRequestSchema>;
export type ScrollToRequestInput = z.input<typeof ScrollToRequestSchema>;

const TapLikeRequestSchema = z.discriminatedUnion('action', [TapRequestSchema, LongPressRequestSchema, DoubleTapRequestSchema]);

export interface DispatcherOptions {
  /** Whether the observation after an action carries a screenshot (the UI's next frame). Default true. */
  screenshotAfter?: boolean;
  /** The ios-sdk-observation-bridge flag off for every action: XCTest only, no backend fields. */
  xctestOnly?: boolean;
}

export interface DispatchOptions {
  /** The flag off for this action only. */
  xctestOnly?: boolean;
  /**
   * The display a swipe's stroke was planned on (the frame the user looked at). Default: the display
   * of this dispatcher's latest read, else the fresh read itself.
   */
  plannedFor?: DisplayFence;
}

interface DispatcherEvents {
  /** The observation after an action (and every re-read a scroll search makes). */
  frame: [frame: ObservedFrame];
  /** An XCTest command of the runner's own timed out: the recovery logic's business, not the dispatcher's. */
  stallEvidence: [outcome: CommandOutcome];
}

export class DispatchRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DispatchRequestError';
  }
}

/** The per-action scratch: what it sent, how long each stage took, and what it wants to say. */
interface Run {
  readonly ledger: RequestLedger;
  readonly timings: Record<string, number>;
  readonly warnings: string[];
  readonly xctestOnly: boolean;
  /** An action request (not a read) went out: the screen may have changed, so it is observed after. */
  actionSent: boolean;
  /** Time spent in SDK action requests, against the 5 s total. */
  sdkSpentMs: number;
}

interface Read {
  readonly frame: ObservedFrame;
  readonly observation: Observation | undefined;
  readonly root: UiNode | undefined;
  readonly frameContext: string | undefined;
  readonly context: BridgeContext;
  /** Where this read's replies start in the ledger. */
  readonly ledgerFrom: number;
}

interface Outcome {
  readonly served: Served;
  readonly ending: Ending;
  readonly target: TargetRecord;
  readonly warnings?: readonly string[] | undefined;
}

const ok: Ending = { ok: true };
const fail = (failureReason: FailureReason, mayHaveRun: boolean): Ending => ({ ok: false, failureReason, mayHaveRun });

function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DispatchRequestError(`invalid action request${issue ? ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` : ''}`);
  }
  return parsed.data;
}

function bridgeStateOf(observation: Observation | undefined): ObservationBridgeState | undefined {
  const state = observation?.bridge;
  if (!state) return undefined;
  return state.available
    ? { schemaVersion: 1, available: true, supportedActions: state.supportedActions }
    : { schemaVersion: 1, available: false, reason: state.reason, supportedActions: [] };
}

function selectorRecord(selector: TargetSelector | undefined, resolvedBy: TargetRecord['resolvedBy']): TargetRecord {
  return selector ? { resolvedBy, selector: describeSelector(selector) } : { resolvedBy };
}

function resolvedByOf(selector: TargetSelector): TargetRecord['resolvedBy'] {
  return 'id' in selector ? 'id' : 'text' in selector ? 'text' : 'point' in selector ? 'point' : 'node';
}

/** What a field shows before typing, when that can be known: an empty field reads as its placeholder or label. */
function initialText(node: UiNode): string | undefined {
  const shown = node.text ?? node.value;
  if (shown === undefined) return node['value-redacted'] === 'true' ? undefined : '';
  if (node.password === 'true') return undefined;
  if (shown === node['hint-text'] || shown === node['content-desc']) return '';
  return shown;
}

/** A secure field the bridge reports without its value (it never leaves the app) cannot be read back. */
function verifyField(expected: string, node: UiNode | undefined): TextVerification {
  if (node && node.text === undefined && node.value === undefined && hidesText(node)) {
    return { status: 'unverifiable', reason: 'secure_field' };
  }
  return verifyTypedText(expected, node);
}

function keyPayload(command: XctestKeyCommand): { command: RunnerCommand; payload: Record<string, unknown> } {
  switch (command.command) {
    case 'request_append_text':
      return { command: command.command, payload: { text: command.text } };
    case 'request_clear_text':
      return { command: command.command, payload: {} };
    case 'request_ime_action':
      return { command: command.command, payload: { action: command.action } };
    case 'request_press_key':
      return { command: command.command, payload: { key: command.key } };
  }
}

export class Dispatcher extends EventEmitter<DispatcherEvents> {
  private chain: Promise<unknown> = Promise.resolve();
  private latestFrame: ObservedFrame | undefined;
  private latestDisplay: DisplayFence | undefined;
  private readonly screenshotAfter: boolean;
  private readonly xctestOnly: boolean;

  constructor(
    private readonly client: RunnerClient,
    private readonly observer: Observer,
    options: DispatcherOptions = {},
  ) {
    super();
    this.screenshotAfter = options.screenshotAfter ?? true;
    this.xctestOnly = options.xctestOnly ?? false;
    attributeRequests(client);
  }

  /** The observation after the latest action, if any. */
  get lastFrame(): ObservedFrame | undefined {
    return this.latestFrame;
  }

  /** Any ActionRequest, decoded here (the API and the CLI hand over untrusted input). */
  async dispatch(input: unknown, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(ActionRequestSchema, input);
    switch (request.action) {
      case 'tap':
      case 'longPress':
      case 'doubleTap':
        return this.tap(request, options);
      case 'sendKeys':
        return this.sendKeys(request, options);
      case 'swipe':
        return this.swipe(request, options);
      case 'scrollTo':
        return this.scrollTo(request, options);
      case 'webTool':
        return {
          success: false,
          failureReason: 'appreveal_unknown_tool',
          mayHaveRun: false,
          warnings: [`${request.tool} is an AppReveal web view tool: this device has none`],
          target: { resolvedBy: 'screen', selector: request.selector },
          timings: {},
          requestsSent: 0,
        };
      case 'back':
        // A runner has no back navigation of its own: fail closed, nothing sent.
        return {
          success: false,
          failureReason: 'no_back_form',
          mayHaveRun: false,
          warnings: ['this device has no back action: only an AppReveal app that registered navigate_back offers one'],
          target: { resolvedBy: 'screen' },
          timings: {},
          requestsSent: 0,
        };
    }
  }

  tap(input: TapLikeRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(TapLikeRequestSchema, input);
    return this.exclusive(options, (run) => this.runTap(run, request));
  }

  sendKeys(input: SendKeysRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(SendKeysRequestSchema, input);
    return this.exclusive(options, (run) => this.runSendKeys(run, request));
  }

  swipe(input: SwipeRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(SwipeRequestSchema, input);
    return this.exclusive(options, (run) => this.runSwipe(run, request, options.plannedFor));
  }

  scrollTo(input: ScrollToRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(ScrollToRequestSchema, input);
    return this.exclusive(options, (run) => this.runScrollTo(run, request));
  }

  // ---- Plumbing -------------------------------------------------------------------------------------

  private exclusive(options: DispatchOptions, body: (run: Run) => Promise<Outcome>): Promise<ActionResult> {
    const go = async (): Promise<ActionResult> => {
      const run: Run = {
        ledger: new RequestLedger(),
        timings: {},
        warnings: [],
        xctestOnly: options.xctestOnly ?? this.xctestOnly,
        actionSent: false,
        sdkSpentMs: 0,
      };
      const started = performance.now();
      const outcome = await withLedger(run.ledger, () => body(run));
      run.timings.total = performance.now() - started;
      return buildActionResult(outcome.served, outcome.ending, {
        target: outcome.target,
        requestsSent: run.ledger.sent,
        timings: run.timings,
        warnings: [...run.warnings, ...(outcome.warnings ?? [])],
      });
    };
    const next = this.chain.then(go, go);
    this.chain = next.catch(() => {});
    return next;
  }

  private async timed<T>(run: Run, stage: string, work: () => Promise<T> | T): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      run.timings[stage] = (run.timings[stage] ?? 0) + (performance.now() - started);
    }
  }

  private async read(run: Run, stage: string, screenshot: boolean): Promise<Read> {
    const ledgerFrom = run.ledger.entries.length;
    const frame = await this.timed(run, stage, () => this.observer.observe({ screenshot, xctestOnly: run.xctestOnly }));
    const observation = frame.observation ?? undefined;
    const hierarchy = observation?.viewHierarchy;
    if (hierarchy?.hierarchy) this.latestDisplay = displayFenceOf(hierarchy);
    return {
      frame,
      observation,
      root: hierarchy?.hierarchy,
      frameContext: frame.hierarchyFrameContext ?? observation?.frameContext,
      context: {
        flagEnabled: !run.xctestOnly,
        observationBridge: bridgeStateOf(observation),
        webViews: this.webViewsOf(run, ledgerFrom),
      },
      ledgerFrom,
    };
  }

  /**
   * The registered web views, from the web snapshot reply this read already got: a reply without a
   * usable list (bad_reply, or no read at all) leaves them unknown, and the runner decides.
   */
  private webViewsOf(run: Run, from: number): BridgeContext['webViews'] {
    const reply = run.ledger.lastReply('request_sdk_web_snapshot', from) as { failure?: string; webViews?: unknown } | undefined;
    if (!reply || reply.failure === 'bad_reply') return undefined;
    const list = z.array(WebViewBridgeEntrySchema).safeParse(reply.webViews ?? []);
    return list.success ? list.data : undefined;
  }

  /** The raw snapshot of the web view the read merged: it lists the off-screen elements the tree drops. */
  private mergedWebSnapshot(run: Run, read: Read): { webViewId: string; snapshot: WebSnapshot } | undefined {
    const observation = read.observation;
    if (observation?.sources.web?.status !== 'merged' || observation.webSnapshotId === undefined) return undefined;
    const reply = run.ledger.lastReply('request_sdk_web_snapshot', read.ledgerFrom) as { webViewId?: unknown; snapshot?: unknown } | undefined;
    const snapshot = WebSnapshotSchema.safeParse(reply?.snapshot);
    if (!snapshot.success || typeof reply?.webViewId !== 'string' || snapshot.data.snapshotId !== observation.webSnapshotId) return undefined;
    return { webViewId: reply.webViewId, snapshot: snapshot.data };
  }

  private async observeAfter(run: Run, stage = 'observeAfter'): Promise<Read> {
    const read = await this.read(run, stage, this.screenshotAfter);
    this.latestFrame = read.frame;
    this.emit('frame', read.frame);
    return read;
  }

  /** A read that holds no tree: say why in the terms of an action failure. */
  private readFailure(run: Run, read: Read): FailureReason {
    const error = read.observation?.errors.find((e) => e.stage === 'xctest');
    if (error) run.warnings.push(`The fresh read got no tree: ${error.message}`);
    return this.client.state === 'connected' ? 'target_not_found' : 'runner_disconnected';
  }

  private async relay(
    run: Run,
    command: 'request_sdk_action' | 'request_sdk_web_action',
    payload: { actionJson: string; webViewId?: string },
    budgetMs: number,
  ): Promise<RelayOutcome> {
    const started = performance.now();
    try {
      const reply = await this.timed(run, 'dispatch', () => this.client.request(command, payload as never, { timeoutMs: budgetMs }));
      run.actionSent = true;
      return { kind: 'reply', reply: reply as unknown as RelayReply };
    } catch (error) {
      if (!neverSent(error)) run.actionSent = true;
      return this.relayErrorOutcome(error);
    } finally {
      run.sdkSpentMs += performance.now() - started;
    }
  }

  private relayErrorOutcome(error: unknown): RelayOutcome {
    const code = error instanceof RunnerError ? error.code : undefined;
    if (code === 'timeout') return { kind: 'timeout' };
    if (neverSent(error)) return { kind: 'disconnected', sent: false };
    // A sent request whose answer cannot be read is the seed's bad_reply: it may have run.
    if (code === 'unexpected_reply') return { kind: 'reply', reply: { available: true, failure: 'bad_reply' } };
    return { kind: 'disconnected', sent: true };
  }

  /**
   * One XCTest command. `garbled` marks a reply that arrived but could not be read: the runner may
   * have acted, which interpretRunnerOutcome cannot know from a refusal, so callers widen mayHaveRun.
   */
  private async runner(
    run: Run,
    stage: string,
    command: RunnerCommand,
    payload: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<{ outcome: RunnerOutcome; garbled: boolean }> {
    try {
      const reply: RunnerReply = await this.timed(run, stage, () => this.client.request(command, payload as never, { timeoutMs }));
      run.actionSent = true;
      return { outcome: { kind: 'reply', reply: reply as { success?: boolean; error?: string | null } }, garbled: false };
    } catch (error) {
      if (!neverSent(error)) run.actionSent = true;
      const code = error instanceof RunnerError ? error.code : undefined;
      if (code === 'timeout') {
        const evidence: CommandOutcome = { command, outcome: 'timeout' };
        if (isRunnerStallEvidence(evidence)) this.emit('stallEvidence', evidence);
        return { outcome: { kind: 'timeout' }, garbled: false };
      }
      if (neverSent(error)) return { outcome: { kind: 'disconnected', sent: false }, garbled: false };
      if (code === 'unexpected_reply') {
        run.warnings.push(`The runner's reply to ${command} could not be read: ${(error as Error).message}`);
        return { outcome: { kind: 'reply', reply: { success: false, error: (error as Error).message } }, garbled: true };
      }
      return { outcome: { kind: 'disconnected', sent: true }, garbled: false };
    }
  }

  private async runnerVerdict(run: Run, stage: string, command: RunnerCommand, payload: Record<string, unknown>, timeoutMs: number): Promise<RunnerVerdict> {
    const { outcome, garbled } = await this.runner(run, stage, command, payload, timeoutMs);
    const verdict = interpretRunnerOutcome(outcome);
    return verdict.kind === 'failClosed' && garbled ? { ...verdict, mayHaveRun: true } : verdict;
  }

  /** request_tap_coordinates once, or twice for a double tap; only the first names the read's frame. */
  private async xctestTap(run: Run, tap: XctestTap, frameContext: string | undefined, stage = 'xctest'): Promise<RunnerVerdict> {
    for (let i = 0; i < tap.taps; i++) {
      const payload = { x: tap.x, y: tap.y, duration: tap.durationMs, ...(i === 0 && frameContext ? { frameContext } : {}) };
      const verdict = await this.runnerVerdict(run, stage, 'request_tap_coordinates', payload, XCTEST_COMMAND_TIMEOUT_MS + tap.durationMs);
      // The first tap of a double tap already landed.
      if (verdict.kind === 'failClosed') return i > 0 ? { ...verdict, mayHaveRun: true } : verdict;
    }
    return { kind: 'done' };
  }

  /** request_swipe; a boomerang has no command of its own, so it is the stroke and its way back. */
  private async xctestSwipe(run: Run, swipe: XctestSwipe, frameContext: string | undefined): Promise<RunnerVerdict> {
    const strokes = swipe.boomerang
      ? [
          { x1: swipe.x1, y1: swipe.y1, x2: swipe.x2, y2: swipe.y2 },
          { x1: swipe.x2, y1: swipe.y2, x2: swipe.x1, y2: swipe.y1 },
        ]
      : [{ x1: swipe.x1, y1: swipe.y1, x2: swipe.x2, y2: swipe.y2 }];
    for (const [i, stroke] of strokes.entries()) {
      const payload = { ...stroke, duration: swipe.durationMs, ...(i === 0 && frameContext ? { frameContext } : {}) };
      const verdict = await this.runnerVerdict(run, 'xctest', 'request_swipe', payload, XCTEST_COMMAND_TIMEOUT_MS + swipe.durationMs);
      if (verdict.kind === 'failClosed') return i > 0 ? { ...verdict, mayHaveRun: true } : verdict;
    }
    return { kind: 'done' };
  }

  /**
   * The time the next SDK request may take: 2 s each and 5 s in total for the command. A native plan's
   * budget may hold a press's duration on top of the 2 s, which the press needs whatever was spent.
   */
  private budgetFor(run: Run, via: 'sdk' | 'web', planned: number): number {
    if (via === 'web') return Math.min(planned, Math.max(0, SDK_TOTAL_BUDGET_MS - run.sdkSpentMs));
    const press = Math.max(0, planned - SDK_REQUEST_BUDGET_MS);
    const left = sdkRequestBudgetMs(run.sdkSpentMs);
    return left > 0 ? left + press : 0;
  }

  // ---- tapOn ----------------------------------------------------------------------------------------

  private async runTap(run: Run, request: z.output<typeof TapLikeRequestSchema>): Promise<Outcome> {
    const gesture: TapGesture =
      request.action === 'tap'
        ? { kind: 'tap' }
        : request.action === 'longPress'
          ? { kind: 'longPress', durationMs: request.durationMs }
          : { kind: 'doubleTap' };
    const read = await this.read(run, 'freshRead', false);
    const resolution = await this.timed(run, 'resolve', () => resolveTarget(request.target, read.root));
    const notFound = this.unresolved(run, read, resolution, request.target);
    if (notFound) return notFound;
    const resolved = resolution as Exclude<Resolution, { kind: 'notFound' }>;

    const target: TapTarget =
      resolved.kind === 'point'
        ? { kind: 'point', point: resolved.point }
        : { kind: 'node', node: resolved.node, resolvedBy: resolved.resolvedBy === 'point' ? 'node' : resolved.resolvedBy, selector: resolved.selector };
    const route = routeTap(target, gesture, read.context);
    const record: TargetRecord = resolved.kind === 'node' && resolved.resolvedBy === 'point' ? { ...route.target, resolvedBy: 'point' } : route.target;
    const warnings = resolved.kind === 'node' ? resolved.warnings : [];
    const unrevalidated = resolved.kind === 'node' ? resolved.unrevalidated : undefined;

    /** XCTest touching for the bridge: only the element as the fresh read shows it. */
    const standIn = async (tap: XctestTap, fallbackReason: FallbackReason | undefined): Promise<Outcome> => {
      const served = servedByXctest(fallbackReason);
      let point: Point | undefined = { x: tap.x, y: tap.y };
      if (unrevalidated) point = unrevalidated.counterpart ? centerOf(unrevalidated.counterpart) : undefined;
      if (!point) {
        run.warnings.push('XCTest could stand in, but the fresh read does not show the picked element, so nothing was touched.');
        return { served, ending: fail('target_not_found', false), target: record, warnings };
      }
      const verdict = await this.xctestTap(run, { ...tap, ...point }, read.frameContext, fallbackReason ? 'standIn' : 'xctest');
      return { served, ending: verdict.kind === 'done' ? ok : fail(verdict.failureReason, verdict.mayHaveRun), target: record, warnings };
    };

    let outcome: Outcome;
    switch (route.via) {
      case 'failClosed':
        return { served: servedBeforeSending(target), ending: fail(route.failureReason, route.mayHaveRun), target: record, warnings };
      case 'xctest': {
        const plain = route.fallbackReason === undefined && target.kind === 'node' && nodeIdentity(target.node).kind === 'none';
        outcome = await standIn(route.tap, route.fallbackReason ?? (plain ? this.readFellBack(run, read) : undefined));
        break;
      }
      case 'sdk':
      case 'web': {
        const outcomeOf =
          route.via === 'sdk'
            ? await this.relay(run, 'request_sdk_action', { actionJson: route.actionJson }, this.budgetFor(run, 'sdk', route.budgetMs))
            : await this.relay(
                run,
                'request_sdk_web_action',
                { webViewId: route.webViewId, actionJson: route.actionJson },
                this.budgetFor(run, 'web', route.budgetMs),
              );
        const verdict = interpretBridgeOutcome(route, outcomeOf);
        if (verdict.kind === 'done') outcome = { served: SDK, ending: ok, target: record, warnings };
        else if (verdict.kind === 'fallback') outcome = await standIn(verdict.standIn, verdict.fallbackReason);
        else outcome = { served: SDK, ending: fail(verdict.failureReason, verdict.mayHaveRun), target: record, warnings };
        break;
      }
    }
    if (run.actionSent) await this.observeAfter(run);
    return outcome;
  }

  /**
   * A node with no identity on a screen whose read fell back (a registered bridge did not answer): the
   * node would have been a bridge node, and XCTest is standing in for it.
   */
  private readFellBack(run: Run, read: Read): FallbackReason | undefined {
    if (run.xctestOnly || read.observation?.backend !== 'xctest' || read.observation.fallbackReason !== 'unavailable') return undefined;
    return 'unavailable';
  }

  private unresolved(run: Run, read: Read, resolution: Resolution, selector: TargetSelector): Outcome | undefined {
    if (resolution.kind !== 'notFound') return undefined;
    const reason = read.root ? 'target_not_found' : this.readFailure(run, read);
    return { served: PLAIN_XCTEST, ending: fail(reason, false), target: selectorRecord(selector, resolvedByOf(selector)) };
  }

  // ---- sendKeys -------------------------------------------------------------------------------------

  private async runSendKeys(run: Run, request: z.output<typeof SendKeysRequestSchema>): Promise<Outcome> {
    let read: Read | undefined;
    let focus: SendKeysFocus | undefined;
    let focusPoint: Point | undefined;
    let resolvedWarnings: readonly string[] = [];
    let pointTarget: TargetRecord | undefined;

    if (request.target) {
      read = await this.read(run, 'freshRead', false);
      const resolution = await this.timed(run, 'resolve', () => resolveTarget(request.target as TargetSelector, read?.root, { preferEditable: true }));
      const notFound = this.unresolved(run, read, resolution, request.target);
      if (notFound) return notFound;
      if (resolution.kind === 'point') {
        focusPoint = resolution.point;
        pointTarget = { resolvedBy: 'point', point: resolution.point };
      } else if (resolution.kind === 'node') {
        resolvedWarnings = resolution.warnings;
        focus = { node: resolution.node, resolvedBy: resolution.resolvedBy === 'point' ? 'node' : resolution.resolvedBy, selector: resolution.selector };
        if (resolution.unrevalidated) {
          focusPoint = resolution.unrevalidated.counterpart ? centerOf(resolution.unrevalidated.counterpart) : undefined;
          if (!focusPoint) return { served: PLAIN_XCTEST, ending: fail('target_not_found', false), target: nodeTargetRecord(resolution.node, 'node') };
        }
      }
    }

    let context: BridgeContext = read?.context ?? { flagEnabled: !run.xctestOnly };
    const start = startSendKeys(focus, context);
    let session: SendKeysSession = start.session;
    const target: TargetRecord = pointTarget ?? start.target;
    if (session.failed) {
      return { served: servedBeforeSending(focus), ending: fail(session.failed.failureReason, session.failed.mayHaveRun), target, warnings: resolvedWarnings };
    }

    // The focus tap stays on XCTest (seed 000), so an XCTest stand-in finds the field focused as usual.
    const focusTap: XctestTap | undefined = start.focusTap
      ? { ...start.focusTap, ...(focusPoint ?? {}) }
      : focusPoint
        ? { ...focusPoint, durationMs: 0, taps: 1 }
        : undefined;
    if (focusTap) {
      const verdict = await this.xctestTap(run, focusTap, read?.frameContext, 'focusTap');
      if (verdict.kind === 'failClosed') {
        if (run.actionSent) await this.observeAfter(run);
        return { served: PLAIN_XCTEST, ending: fail(verdict.failureReason, verdict.mayHaveRun), target, warnings: resolvedWarnings };
      }
    }

    // Read-back: the whole value the field should show, while the command still knows the field.
    let expected = focus ? initialText(focus.node) : undefined;
    let verifiable = true;
    let readsSinceFocus = 0;

    for (const op of expandSendKeysSteps(request.steps)) {
      let plan = planKeyOp(session, op, context);
      if (plan.via === 'observe') {
        // The read after the focus tap: the capture (or snapshot) the first bridge action must name.
        const fresh = await this.read(run, readsSinceFocus === 0 ? 'readAfterFocus' : 'reread', false);
        readsSinceFocus++;
        context = fresh.context;
        session = observeForSendKeys(session, fresh.root);
        plan = planKeyOp(session, op, context);
        if (plan.via === 'observe') plan = { via: 'failClosed', failureReason: 'invalid_action', mayHaveRun: false };
      }
      let step: KeyStepResult;
      if (plan.via === 'failClosed') {
        session = failKeyCommand(session, plan);
        break;
      } else if (plan.via === 'xctest') {
        step = await this.keyStep(run, session, op, plan);
      } else {
        const budgetMs = this.budgetFor(run, plan.via, plan.budgetMs);
        if (budgetMs <= 0) {
          // Nothing is sent that could not be waited for: a request cut short could run unseen.
          run.warnings.push('The 5 s SDK budget of this command was spent before this step; it was not sent.');
          session = failKeyCommand(session, { failureReason: 'timeout', mayHaveRun: false });
          break;
        }
        const outcome =
          plan.via === 'sdk'
            ? await this.relay(run, 'request_sdk_action', { actionJson: plan.actionJson }, budgetMs)
            : await this.relay(run, 'request_sdk_web_action', { webViewId: plan.webViewId, actionJson: plan.actionJson }, budgetMs);
        step = recordKeyOutcome(session, op, plan, outcome);
        if (step.kind === 'standIn') step = await this.keyStep(run, step.session, op, step.plan);
      }
      session = step.session;
      if (step.kind === 'failClosed') break;
      expected = nextExpected(expected, op);
      if (op.op === 'ime' || op.op === 'tab') verifiable = false;
    }

    const after = run.actionSent ? await this.observeAfter(run) : undefined;
    const summary = summarizeSendKeys(session);
    const served: Served =
      summary.backend === 'sdk' ? SDK : summary.backend === 'xctest' ? { backend: 'xctest', fallbackReason: summary.fallbackReason } : PLAIN_XCTEST;
    const warnings = [...resolvedWarnings, ...summary.warnings];
    if (session.failed) return { served, ending: fail(session.failed.failureReason, session.failed.mayHaveRun), target, warnings };

    let ending: Ending = ok;
    if (verifiable && expected !== undefined && after) {
      const field = focus ? findSameField(focus.node, after.root) : after.observation?.focusedElement?.node;
      const verification = await this.timed(run, 'verify', () => verifyField(expected as string, field));
      if (verification.status === 'mismatch') {
        warnings.push(`Read-back shows "${verification.actual}", expected "${expected}".`);
        ending = fail('text_mismatch', true);
      } else if (verification.status === 'unverifiable') {
        warnings.push(`The typed text could not be read back (${verification.reason}).`);
      }
    } else if (request.steps.some((s) => s.kind !== 'ime' && s.kind !== 'tab')) {
      warnings.push('The typed text was not read back: what the field held before is unknown, or focus may have moved.');
    }
    return { served, ending, target, warnings };
  }

  private async keyStep(run: Run, session: SendKeysSession, op: KeyOp, plan: Extract<ReturnType<typeof planKeyOp>, { via: 'xctest' }>): Promise<KeyStepResult> {
    const { command, payload } = keyPayload(plan.command);
    const { outcome, garbled } = await this.runner(run, plan.fallbackReason ? 'standIn' : 'xctest', command, payload, XCTEST_COMMAND_TIMEOUT_MS);
    const step = recordKeyOutcome(session, op, plan, outcome);
    if (step.kind !== 'failClosed' || !garbled) return step;
    return { ...step, mayHaveRun: true, session: { ...step.session, failed: { failureReason: step.failureReason, mayHaveRun: true } } };
  }

  // ---- swipeOn --------------------------------------------------------------------------------------

  private async runSwipe(run: Run, request: z.output<typeof SwipeRequestSchema>, plannedFor: DisplayFence | undefined): Promise<Outcome> {
    const expectedDisplay = plannedFor ?? this.latestDisplay;
    const read = await this.read(run, 'freshRead', false);
    const current = read.observation?.viewHierarchy ? displayFenceOf(read.observation.viewHierarchy) : {};

    let container: { node: UiNode; resolvedBy: 'container' | 'autoContainer' } | undefined;
    const containerFound = await this.timed(run, 'resolve', () => {
      if (request.container) {
        const selector = request.container;
        const node = 'point' in selector ? scrollableAt(read.root, selector.point) : nodeOf(resolveTarget(selector, read.root));
        if (!node) return false;
        container = { node: twinOf(node, read.root), resolvedBy: 'container' };
      } else if (request.autoTarget) {
        const node = scrollableAt(read.root, request.start);
        if (node) container = { node, resolvedBy: 'autoContainer' };
      }
      return true;
    });
    if (!containerFound && request.container) {
      const reason = read.root ? 'target_not_found' : this.readFailure(run, read);
      return { served: PLAIN_XCTEST, ending: fail(reason, false), target: selectorRecord(request.container, 'container') };
    }

    const plan = routeSwipe(
      {
        stroke: { start: request.start, end: request.end },
        durationMs: request.durationMs,
        edge: request.edge,
        boomerang: request.boomerang,
        container,
        screen: read.root,
        fence: expectedDisplay ?? current,
      },
      read.context,
    );
    if (plan.via === 'failClosed') return { served: SDK, ending: fail(plan.failureReason, plan.mayHaveRun), target: plan.target };

    const fence = checkDisplayFence(plan.steps[0].expected, current);
    if (fence.kind === 'failClosed') {
      const served: Served = plan.via === 'sdk' ? SDK : servedByXctest(plan.fallbackReason);
      return { served, ending: fail(fence.failureReason, fence.mayHaveRun), target: plan.target };
    }

    let outcome: Outcome;
    if (plan.via === 'xctest') {
      const verdict = await this.xctestSwipe(run, plan.steps[1].swipe, read.frameContext);
      outcome = {
        served: servedByXctest(plan.fallbackReason),
        ending: verdict.kind === 'done' ? ok : fail(verdict.failureReason, verdict.mayHaveRun),
        target: plan.target,
      };
    } else {
      const step = plan.steps[1];
      const relayed = await this.relay(run, 'request_sdk_action', { actionJson: step.actionJson }, step.budgetMs);
      const verdict = interpretBridgeOutcome({ via: 'sdk', standIn: plan.standIn }, relayed);
      if (verdict.kind === 'done') {
        outcome = { served: { backend: 'sdk', durationIgnored: plan.durationIgnored }, ending: ok, target: plan.target, warnings: plan.warnings };
      } else if (verdict.kind === 'fallback') {
        const standIn = await this.xctestSwipe(run, verdict.standIn.steps[1].swipe, read.frameContext);
        outcome = {
          served: servedByXctest(verdict.fallbackReason),
          ending: standIn.kind === 'done' ? ok : fail(standIn.failureReason, standIn.mayHaveRun),
          target: plan.target,
        };
      } else {
        outcome = { served: SDK, ending: fail(verdict.failureReason, verdict.mayHaveRun), target: plan.target, warnings: plan.warnings };
      }
    }
    if (run.actionSent) await this.observeAfter(run);
    return outcome;
  }

  // ---- Scroll search (lookFor) ----------------------------------------------------------------------

  private async runScrollTo(run: Run, request: z.output<typeof ScrollToRequestSchema>): Promise<Outcome> {
    const lookFor: LookFor = request.lookFor;
    const selector = 'text' in lookFor ? lookFor.text : lookFor.elementId;
    const miss: TargetRecord = { resolvedBy: 'lookFor', selector };
    let read = await this.read(run, 'freshRead', false);
    if (!read.root) return { served: PLAIN_XCTEST, ending: fail(this.readFailure(run, read), false), target: miss };

    const scopeSelector = request.container ?? lookFor.container;
    const search = (root: UiNode | undefined): { found?: UiNode | undefined; scope?: UiNode | undefined } => {
      const scope = resolveScope(scopeSelector, root);
      if (scope === 'notFound') return {};
      return { scope, found: findLookFor(lookFor, scope) };
    };
    const first = await this.timed(run, 'resolve', () => search(read.root));
    if (!first.scope)
      return { served: PLAIN_XCTEST, ending: fail('target_not_found', false), target: scopeSelector ? selectorRecord(scopeSelector, 'container') : miss };
    const found = (node: UiNode, served: Served, warnings: readonly string[] = []): Outcome => ({
      served,
      ending: ok,
      target: nodeTargetRecord(node, 'lookFor', { selector }),
      warnings,
    });
    if (first.found) return found(first.found, PLAIN_XCTEST);

    const plan = planLookFor(
      {
        lookFor,
        container: request.container,
        layer: request.layer,
        targetInView: false,
        screen: read.root,
        webSnapshot: this.mergedWebSnapshot(run, read),
      },
      read.context,
    );

    let fallbackReason: FallbackReason | undefined;
    const searchWarnings: string[] = [];
    if (plan.kind === 'webStep') {
      const relayed = await this.relay(
        run,
        'request_sdk_web_action',
        { webViewId: plan.webViewId, actionJson: plan.actionJson },
        this.budgetFor(run, 'web', plan.budgetMs),
      );
      const verdict = interpretLookForStep(plan, relayed);
      if (verdict.kind === 'failClosed') {
        await this.observeAfter(run);
        return { served: SDK, ending: fail(verdict.failureReason, verdict.mayHaveRun), target: miss };
      }
      if (verdict.kind === 'settleAndSearch') {
        // The page posts its next snapshot (coalesced to one per 100 ms) after the scroll.
        await this.timed(run, 'settle', () => sleep(verdict.waitMs));
        read = await this.observeAfter(run, 'reread');
        const again = search(read.root);
        const after = searchAfterWebStep(again.found !== undefined);
        if (after.kind === 'found' && again.found) return found(again.found, SDK);
        if (after.kind === 'swipe') searchWarnings.push(...after.warnings);
      } else {
        fallbackReason = verdict.fallbackReason;
      }
    } else if (plan.kind === 'swipe') {
      fallbackReason = plan.fallbackReason;
    }

    // Swipe with XCTest, each swipe followed by the one read that shows what it revealed.
    const served = servedByXctest(fallbackReason);
    for (let i = 0; i < request.maxSwipes; i++) {
      const stroke = searchStroke(request.direction, search(read.root).scope ?? read.root, read.observation);
      const verdict = await this.xctestSwipe(run, { ...stroke, durationMs: 300, boomerang: false }, read.frameContext);
      if (verdict.kind === 'failClosed') {
        await this.observeAfter(run);
        return { served, ending: fail(verdict.failureReason, verdict.mayHaveRun || i > 0), target: miss, warnings: searchWarnings };
      }
      read = await this.observeAfter(run, 'reread');
      const hit = search(read.root).found;
      if (hit) return found(hit, served, searchWarnings);
    }
    searchWarnings.push(`Not found after ${request.maxSwipes} swipes ${request.direction}.`);
    return { served, ending: fail('target_not_found', request.maxSwipes > 0), target: miss, warnings: searchWarnings };
  }
}

/**
 * A failure decided before anything was sent names the SDK only for a node the bridge or a web view
 * serves (or claims to): a plain XCTest node without bounds is not a bridge failure.
 */
function servedBeforeSending(target: TapTarget | SendKeysFocus | undefined): Served {
  const node = target && 'node' in target ? target.node : undefined;
  return node && nodeIdentity(node).kind !== 'none' ? SDK : PLAIN_XCTEST;
}

function nodeOf(resolution: Resolution): UiNode | undefined {
  return resolution.kind === 'node' ? resolution.node : undefined;
}

function twinOf(node: UiNode, root: UiNode | undefined): UiNode {
  return root ? (twinWithIdentity(node, flattenTree(root)) ?? node) : node;
}

function nextExpected(expected: string | undefined, op: KeyOp): string | undefined {
  switch (op.op) {
    case 'insertText':
      return expected === undefined ? undefined : expected + op.text;
    case 'clear':
      return '';
    default:
      return expected;
  }
}

/** A scroll search's stroke: through the middle of the scope, clear of the bars at the screen's edges. */
function searchStroke(
  direction: 'up' | 'down' | 'left' | 'right',
  scope: UiNode | undefined,
  observation: Observation | undefined,
): { x1: number; y1: number; x2: number; y2: number } {
  const width = observation?.screenSize?.width ?? 402;
  const height = observation?.screenSize?.height ?? 874;
  const b = scope?.bounds;
  const left = Math.max(0, b?.left ?? 0);
  const right = Math.min(width, b?.right ?? width);
  const top = Math.max(height * 0.15, b?.top ?? 0);
  const bottom = Math.min(height * 0.85, b?.bottom ?? height);
  const cx = (left + right) / 2;
  const cy = (top + bottom) / 2;
  const dy = (bottom - top) * 0.3;
  const dx = (right - left) * 0.3;
  switch (direction) {
    case 'up':
      return { x1: cx, y1: cy + dy, x2: cx, y2: cy - dy };
    case 'down':
      return { x1: cx, y1: cy - dy, x2: cx, y2: cy + dy };
    case 'left':
      return { x1: cx + dx, y1: cy, x2: cx - dx, y2: cy };
    case 'right':
      return { x1: cx - dx, y1: cy, x2: cx + dx, y2: cy };
  }
}

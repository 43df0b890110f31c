/**
 * The action dispatcher's I/O (docs/architecture.md#a-act): one fresh read, one routing decision from the
 * pure core (src-shared/act), the requests that decision names, and one observation after.
 *
 * Rules the code below keeps, from docs/rules.md and docs/architecture.md#a-fail-closed:
 * - XCTest stands in only on a verdict's fallback (unavailable / unsupported), never after `done`,
 *   never after a timeout or any other failure: the action may already have run (R-TAP-03, R-TAP-04,
 *   R-TAP-05).
 * - Nothing is re-sent. A timed-out SDK request is `mayHaveRun`, is not stall evidence, and causes no
 *   reconnect; only an XCTest command's own timeout is reported as stall evidence (R-CMD-11, R-CMD-12).
 * - An action costs at most one fresh read before it and one observation after it. sendKeys has two
 *   actions of its own (the XCTest focus tap, then the text entry), so the read after the focus tap is
 *   also the fresh read R-KEY-07 asks for before the first bridge action.
 * Actions on one device run one at a time, as a finger on one screen would (R-KEY-09).
 */
import { EventEmitter } from 'node:events';
import type { z } from 'zod';
import {
  type ActionRequest,
  type DoubleTapRequestSchema,
  type LongPressRequestSchema,
  ScrollToRequestSchema,
  SendKeysRequestSchema,
  SwipeRequestSchema,
  type TapRequestSchema,
  type ActionResult,
} from '@shared/protocol/action';
import { buildActionResult, type CommandOutcome, type DisplayFence } from '@shared/act';
import type { RunnerClient } from '@main/runner/client';
import type { Observer } from '@main/runner/observer';
import { attributeRequests, withLedger } from '@main/runner/ledger';
import type { ObservedFrame } from '@shared/protocol/device';
import { ActionRun, type DispatchDevice, type Outcome } from './run';
import { runTap, TapLikeRequestSchema } from './tap';
import { runSendKeys } from './send-keys';
import { runSwipe } from './swipe';
import { runScrollTo } from './scroll-to';
import { runLaunch } from './launch';
import { runAssert } from './assert';

export type TapLikeRequestInput = z.input<typeof TapRequestSchema> | z.input<typeof LongPressRequestSchema> | z.input<typeof DoubleTapRequestSchema>;
export type SendKeysRequestInput = z.input<typeof SendKeysRequestSchema>;
export type SwipeRequestInput = z.input<typeof SwipeRequestSchema>;
export type ScrollToRequestInput = z.input<typeof ScrollToRequestSchema>;

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
  /** Told each stage as the action enters it (docs/rules.md#r-act-05: the UI shows them as they happen). */
  onStage?: (stage: string) => void;
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
function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DispatchRequestError(`invalid action request${issue ? ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` : ''}`);
  }
  return parsed.data;
}

export class Dispatcher extends EventEmitter<DispatcherEvents> {
  /** The action running now: the device's one queue is its DeviceGate (src-main/connection/gate.ts), not a second one here. */
  private running = false;
  private readonly xctestOnly: boolean;
  /** What every action's run shares: the device's I/O and what the last action left behind. */
  private readonly device: DispatchDevice;

  constructor(client: RunnerClient, observer: Observer, options: DispatcherOptions = {}) {
    super();
    this.xctestOnly = options.xctestOnly ?? false;
    attributeRequests(client);
    this.device = {
      client,
      observer,
      screenshotAfter: options.screenshotAfter ?? true,
      latestDisplay: undefined,
      latestFrame: undefined,
      onFrame: (frame) => this.emit('frame', frame),
      onStall: (outcome) => this.emit('stallEvidence', outcome),
    };
  }

  /** The observation after the latest action, if any. */
  get lastFrame(): ObservedFrame | undefined {
    return this.device.latestFrame;
  }

  /**
   * Any ActionRequest, decoded once at the boundary it came through (the host API's params, the CLI's
   * flags, a trace's record): the dispatcher and the kind's own run take it as it is
   * (docs/rules.md#r-perf-13).
   */
  async dispatch(request: ActionRequest, options: DispatchOptions = {}): Promise<ActionResult> {
    switch (request.action) {
      case 'tap':
      case 'longPress':
      case 'doubleTap':
        return this.exclusive(options, (run) => runTap(run, request));
      case 'sendKeys':
        return this.exclusive(options, (run) => runSendKeys(run, request));
      case 'swipe':
        return this.exclusive(options, (run) => runSwipe(run, request, options.plannedFor));
      case 'scrollTo':
        return this.exclusive(options, (run) => runScrollTo(run, request));
      case 'webTool':
        return {
          success: false,
          outcome: 'refused',
          failureReason: 'appreveal_unknown_tool',
          mayHaveRun: false,
          warnings: [`${request.tool} is an AppReveal web view tool: this device has none`],
          target: { resolvedBy: 'screen', selector: request.selector },
          timings: {},
          requestsSent: 0,
        };
      case 'launch':
        return this.exclusive(options, (run) => runLaunch(run, request));
      case 'assert':
        return this.exclusive(options, (run) => runAssert(run, request));
      case 'openLink':
        // The runner's command list has no way to open a URL (its `connected` push:
        // resources/recordings/settings-tap-general/0001-push-connected.json): fail closed, nothing sent.
        return {
          success: false,
          outcome: 'refused',
          failureReason: 'no_lifecycle_form',
          mayHaveRun: false,
          warnings: ['this device has no deep link command: only an AppReveal app (open_deeplink) opens links'],
          target: { resolvedBy: 'screen', selector: request.url },
          timings: {},
          requestsSent: 0,
        };
      case 'back':
        // A runner has no back navigation of its own: fail closed, nothing sent.
        return {
          success: false,
          outcome: 'refused',
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
    return this.exclusive(options, (run) => runTap(run, request));
  }

  sendKeys(input: SendKeysRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(SendKeysRequestSchema, input);
    return this.exclusive(options, (run) => runSendKeys(run, request));
  }

  swipe(input: SwipeRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(SwipeRequestSchema, input);
    return this.exclusive(options, (run) => runSwipe(run, request, options.plannedFor));
  }

  scrollTo(input: ScrollToRequestInput, options: DispatchOptions = {}): Promise<ActionResult> {
    const request = parseRequest(ScrollToRequestSchema, input);
    return this.exclusive(options, (run) => runScrollTo(run, request));
  }

  // ---- Plumbing -------------------------------------------------------------------------------------

  /**
   * One action at a time on this device, as a finger on one screen would. The caller queues them: the
   * device's DeviceGate (`RunnerConnection.act` runs each in `gate.exclusive`, which also keeps reads
   * out of its turn). A second action while one runs is a caller's bug, refused loudly rather than
   * queued a second time (docs/rules.md#r-perf-13).
   */
  private async exclusive(options: DispatchOptions, body: (run: ActionRun) => Promise<Outcome>): Promise<ActionResult> {
    if (this.running) throw new Error('the dispatcher runs one action at a time: queue actions through the device gate');
    this.running = true;
    try {
      const run = new ActionRun(this.device, options.xctestOnly ?? this.xctestOnly, options.onStage);
      const started = performance.now();
      const outcome = await withLedger(run.ledger, () => body(run));
      run.timings.total = performance.now() - started;
      return buildActionResult(outcome.served, outcome.ending, {
        target: outcome.target,
        requestsSent: run.ledger.sent,
        actionSent: run.actionSent,
        timings: run.timings,
        warnings: [...run.warnings, ...(outcome.warnings ?? [])],
      });
    } finally {
      this.running = false;
    }
  }
}

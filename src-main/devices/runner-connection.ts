/**
 * A device behind an iOS runner: the WebSocket client, the observer, and live frames from its pushes.
 */
import { EventEmitter } from 'node:events';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { HierarchyUpdate } from '@shared/protocol/runner';
import { RunnerClient, type RunnerClientOptions } from '@main/runner/client';
import type { ActedStep, ActOptions, ConnectionEvents, DeviceConnection, DeviceKind, ObserveOptions } from '@main/connection/connection';
import { DeviceGate } from '@main/connection/gate';
import { Dispatcher, type DispatcherOptions } from '@main/runner/dispatch/dispatcher';
import { AFTER_READ_STAGE } from '@main/runner/dispatch/run';
import { Observer } from '@main/runner/observer';
import { epochNow, liveTrace } from '@main/connection/live-trace';
import { PerfMode } from '@main/runner/perf-mode';
import type { ObservedFrame, PhoneFacts } from '@shared/protocol/device';
import { httpGet } from '@main/discovery/http-probe';
import { RunnerHealthSchema } from '@main/discovery/runner-probe';

export interface RunnerConnectionOptions {
  /**
   * Whether the runner's hierarchy pushes become live frames (default true). A command line shows no live
   * screen: observing the push the runner sends on connect would read the bridge and a screenshot that
   * nothing shows, and the action would wait behind that read (docs/rules.md#r-cli-02).
   */
  livePushes?: boolean;
  /**
   * Whether the runner's `/health` is read once connected, for the phone's UDID (CtrlProxy's
   * `deviceId`, docs/rules.md#r-phone-01). The host's device list wants it; a command line does not.
   */
  phoneHealth?: boolean;
}

/** A /health answer is a few dozen bytes; this bounds a peer that floods it. */
const MAX_RUNNER_HEALTH_BYTES = 16 * 1024;
const RUNNER_HEALTH_TIMEOUT_MS = 3_000;

export class RunnerConnection extends EventEmitter<ConnectionEvents> implements DeviceConnection {
  readonly client: RunnerClient;
  readonly observer: Observer;
  readonly dispatcher: Dispatcher;
  /** The performance pushes and whether observations carry their rollup (docs/rules.md#r-perfsnap). */
  readonly perf: PerfMode;
  /** The newest hierarchy push not yet observed (numbered as it arrived), and whether a pass is running. */
  private pendingPush: { update: HierarchyUpdate; seq: number } | undefined;
  private observingPush = false;
  private pushes = 0;
  /**
   * Pushes up to this number arrived before the reply of an action's observation after: that read is
   * newer, so they are not observed (docs/rules.md#r-perf-07).
   */
  private supersededPushes = 0;
  /** Pushes observed and pushes dropped as older than an action's after read (the actions bench prints them). */
  readonly pushPasses = { observed: 0, superseded: 0 };
  private closed = false;
  private readonly gate = new DeviceGate();

  constructor(
    readonly kind: DeviceKind,
    url: string,
    options: RunnerClientOptions = {},
    dispatcherOptions: DispatcherOptions = {},
    connectionOptions: RunnerConnectionOptions = {},
  ) {
    super();
    this.client = new RunnerClient(url, options);
    this.observer = new Observer(this.client);
    this.dispatcher = new Dispatcher(this.client, this.observer, dispatcherOptions);
    this.perf = new PerfMode(this.client);
    this.observer.perfSnapshot = () => this.perf.snapshot();
    this.perf.on('sample', (sample) => this.emit('perf', sample));
    this.client.on('state', (state) => {
      if (state === 'connected' && connectionOptions.phoneHealth === true && this.phone === undefined) void this.readHealth();
      this.emit('state');
    });
    if (connectionOptions.livePushes !== false) this.client.on('hierarchy', (update) => void this.onHierarchyPush(update));
  }

  get url(): string {
    return this.client.url;
  }
  get state() {
    return this.client.state;
  }
  get error() {
    return this.client.state === 'connected' ? undefined : this.client.error;
  }
  get capabilities(): readonly string[] {
    return this.client.connectedInfo?.supportedCommands ?? [];
  }
  /** The UDID the runner's /health named, once read. */
  phone: Pick<PhoneFacts, 'udid'> | undefined;

  /** One bounded read of `/health` beside the socket (same host and port); a failure leaves the UDID unknown. */
  private async readHealth(): Promise<void> {
    let at: URL;
    try {
      at = new URL(this.url);
    } catch {
      return;
    }
    const secure = at.protocol === 'wss:';
    const host = at.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(at.port || (secure ? 443 : 80));
    const outcome = await httpGet(host, port, '/health', { timeoutMs: RUNNER_HEALTH_TIMEOUT_MS, maxBytes: MAX_RUNNER_HEALTH_BYTES, secure });
    if (this.closed || outcome.kind !== 'answered' || outcome.status !== 200) return;
    let body: unknown;
    try {
      body = JSON.parse(outcome.body);
    } catch {
      return;
    }
    const health = RunnerHealthSchema.safeParse(body);
    const udid = health.success ? health.data.deviceId?.trim() : undefined;
    if (!udid) return;
    this.phone = { udid };
    this.emit('state');
  }

  start(): void {
    this.client.start();
  }

  async waitUntilConnected(timeoutMs?: number): Promise<void> {
    await this.client.waitUntilConnected(timeoutMs);
  }

  observe(options: ObserveOptions): Promise<ObservedFrame> {
    return this.gate.read(() => this.observer.observe(options));
  }

  screenshot() {
    return this.gate.read(() => this.observer.readScreenshot());
  }

  async act(request: ActionRequest, options: ActOptions = {}): Promise<ActedStep> {
    // The dispatcher's own reads (before and after the action) run inside its turn.
    const result = await this.gate.exclusive(async () => {
      const lastFrame = this.dispatcher.lastFrame;
      let pushesBeforeAfterRead: number | undefined;
      let afterReadStarted = false;
      // The bound is taken when the after read's hierarchy reply arrives, not when the read starts: a push
      // the runner sent before answering (while the request was on its way) arrives after the start and
      // shows an older frame than the reply. The socket delivers in order, so every push counted by the
      // reply's arrival is older than or the same as the after frame, and every later one is newer. A
      // re-read after it (scroll-to's) moves the bound to its own reply.
      const onReply = (command: string) => {
        if (afterReadStarted && (command === 'request_hierarchy' || command === 'request_hierarchy_if_stale')) pushesBeforeAfterRead = this.pushes;
      };
      const onStage = (stage: string) => {
        if (stage === AFTER_READ_STAGE) afterReadStarted = true;
        options.onStage?.(stage);
      };
      this.client.on('reply', onReply);
      let dispatched: ActionResult;
      try {
        dispatched = await this.dispatcher.dispatch(request, { ...(options.xctestOnly ? { xctestOnly: true } : {}), onStage });
      } finally {
        this.client.off('reply', onReply);
      }
      // A push that arrived before the observation after began shows an older screen than it: observing
      // it now would read the bridge and a screenshot again for a frame that undoes the action's after
      // frame. Decided inside the action's turn, before any waiting push pass runs (R-PERF-07).
      const after = this.dispatcher.lastFrame;
      if (pushesBeforeAfterRead !== undefined && after !== lastFrame && after?.observation?.viewHierarchy) {
        this.supersededPushes = Math.max(this.supersededPushes, pushesBeforeAfterRead);
      }
      return dispatched;
    });
    return { result, after: this.dispatcher.lastFrame };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.close();
  }

  /**
   * A pushed hierarchy becomes a live frame: observed (bridge and web merged, screenshot of the same
   * moment) without reading the hierarchy again. Pushes that arrive during a pass collapse into the newest.
   */
  private async onHierarchyPush(update: HierarchyUpdate): Promise<void> {
    this.pendingPush = { update, seq: ++this.pushes };
    if (this.observingPush) return;
    this.observingPush = true;
    try {
      while (this.pendingPush && !this.closed) {
        const push = this.pendingPush;
        this.pendingPush = undefined;
        const frame = await this.gate.read<ObservedFrame | undefined>(() => {
          if (push.seq <= this.supersededPushes) {
            this.pushPasses.superseded++;
            return Promise.resolve(undefined);
          }
          this.pushPasses.observed++;
          const started = liveTrace ? epochNow() : 0;
          return this.observer.observe({}, push.update).finally(() => liveTrace?.span('push', started));
        });
        if (frame && !this.closed) this.emit('frame', frame);
      }
    } catch {
      // A pass that failed outright (the runner went away) leaves the last frame standing.
    } finally {
      this.observingPush = false;
    }
  }
}

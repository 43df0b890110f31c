/**
 * The try box's evaluations, run in a worker with a time limit (docs/rules.md#r-hand-13): the page only
 * posts the typed text (and a new tree once), so no selector and no tree can block it; an evaluation
 * still running at the limit is stopped (the worker is ended and a fresh one started) and refused with
 * that reason. Keystrokes that arrive while one runs wait for it: only the latest text is evaluated next.
 */
import type { UiNode } from '@shared/protocol/runner';
import { SelectorError, type SelectorSyntax, type SelectorTry } from '@shared/selectors';
import { tryResultOf, type TryAnswer, type TryRequest } from '@shared/selectors/try-worker';

/**
 * How long one evaluation may run. Over it, the selector is refused: the worst a legitimate selector
 * took was a path inside a predicate on the 65-element feed screen, 261 ms on a loaded 2-core machine
 * (docs/rules.md#r-hand-08's measure), and linear selectors on 50,000 nodes take tens of ms (bench/selectors).
 */
export const TRY_TIME_LIMIT_MS = 2_000;

/** What the runner needs of a worker: Worker's own shape, so a Node worker thread can stand in (tests). */
export interface TryWorker {
  postMessage(message: TryRequest): void;
  onmessage: ((event: { data: TryAnswer }) => void) | null;
  onerror: ((event: { message?: string }) => void) | null;
  terminate(): void;
}

export function createBrowserTryWorker(): TryWorker {
  return new Worker(new URL('../workers/selector-try.worker.ts', import.meta.url), { type: 'module', name: 'selector-try' }) as unknown as TryWorker;
}

/** The latest answer: for which text and tree, and what it found. */
export interface TryShown {
  input: string;
  root: UiNode | undefined;
  result: SelectorTry;
}

interface Running {
  seq: number;
  input: string;
  root: UiNode | undefined;
  syntax: SelectorSyntax | undefined;
  /** Set once the worker is ready. */
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface TryRunnerOptions {
  createWorker?: () => TryWorker;
  limitMs?: number;
}

export class SelectorTryRunner {
  private readonly createWorker: () => TryWorker;
  readonly limitMs: number;
  private worker: TryWorker | null = null;
  /** The tree the current worker holds (undefined: none sent yet). */
  private sent: { root: UiNode | null; id: number } | undefined;
  private screens = 0;
  private seq = 0;
  private running: Running | null = null;
  private wanted: { input: string; root: UiNode | undefined } | null = null;
  private disposed = false;
  /** The current worker has said it is ready. */
  private ready = false;

  constructor(
    private readonly show: (shown: TryShown) => void,
    options: TryRunnerOptions = {},
  ) {
    this.createWorker = options.createWorker ?? createBrowserTryWorker;
    this.limitMs = options.limitMs ?? TRY_TIME_LIMIT_MS;
  }

  /** Evaluate `input` on `root` next; what runs now finishes (or is stopped at the limit) first. */
  request(input: string, root: UiNode | undefined): void {
    if (this.disposed) return;
    this.wanted = { input, root };
    if (!this.running) this.start();
  }

  dispose(): void {
    this.disposed = true;
    if (this.running) clearTimeout(this.running.timer);
    this.running = null;
    this.wanted = null;
    this.worker?.terminate();
    this.worker = null;
  }

  private ensureWorker(): TryWorker {
    if (this.worker) return this.worker;
    const worker = this.createWorker();
    worker.onmessage = (event) => this.answered(event.data);
    worker.onerror = (event) => this.failed(`the evaluating worker failed${event.message ? `: ${event.message}` : ''}`);
    this.worker = worker;
    this.ready = false;
    this.sent = undefined;
    return worker;
  }

  private start(): void {
    const next = this.wanted;
    if (!next) return;
    this.wanted = null;
    const worker = this.ensureWorker();
    const root = next.root ?? null;
    if (this.sent?.root !== root) {
      this.sent = { root, id: ++this.screens };
      worker.postMessage({ kind: 'screen', screen: this.sent.id, root });
    }
    const seq = ++this.seq;
    this.running = { seq, input: next.input, root: next.root, syntax: undefined, timer: undefined };
    if (this.ready) this.startClock(this.running);
    worker.postMessage({ kind: 'try', seq, screen: this.sent.id, input: next.input });
  }

  private startClock(running: Running): void {
    running.timer = setTimeout(() => this.stopped(running.seq), this.limitMs);
  }

  private answered(answer: TryAnswer): void {
    if (answer.kind === 'ready') {
      // A new worker's boot (loading its code) is not the evaluation's time.
      this.ready = true;
      if (this.running && this.running.timer === undefined) this.startClock(this.running);
      return;
    }
    const running = this.running;
    if (!running || answer.seq !== running.seq) return;
    if (answer.kind === 'parsed') {
      running.syntax = answer.syntax;
      return;
    }
    this.finish(running, tryResultOf(answer.result));
  }

  private finish(running: Running, result: SelectorTry): void {
    clearTimeout(running.timer);
    this.running = null;
    // Only the latest text's answer is worth drawing; an older one gives way to it.
    if (!this.wanted || this.wanted.input === running.input) this.show({ input: running.input, root: running.root, result });
    if (this.wanted) this.start();
  }

  /** At the limit: the worker is ended (its evaluation with it) and the next request gets a fresh one. */
  private stopped(seq: number): void {
    const running = this.running;
    if (!running || running.seq !== seq) return;
    this.worker?.terminate();
    this.worker = null;
    this.finish(running, {
      ok: false,
      error: new SelectorError(
        running.syntax,
        `evaluating it took longer than ${this.limitMs.toLocaleString('en-US')} ms on this screen: stopped, so the page stays responsive (a simpler selector, or one without a path inside a predicate, is evaluated in time)`,
      ),
    });
  }

  private failed(reason: string): void {
    const running = this.running;
    this.worker?.terminate();
    this.worker = null;
    if (running) this.finish(running, { ok: false, error: new SelectorError(running.syntax, reason) });
  }
}

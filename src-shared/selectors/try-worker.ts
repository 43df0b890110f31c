/**
 * The try box's evaluation, as it runs off the page's main thread (docs/rules.md#r-hand-13): the
 * messages between the page and the evaluating worker, the worker's side (`createTryEvaluator`) and the
 * decoding of its answer back into a SelectorTry. Pure: the web worker (src-renderer/src/workers) and a
 * Node worker thread (the tests) wire the same evaluator to their own `postMessage`.
 *
 * The screen travels once per tree (`screen`), the typed text once per keystroke (`try`); the worker
 * keeps the last tree's index, so a keystroke costs the page a short string, not the tree.
 */
import type { UiNode } from '@shared/protocol/runner';
import { SELECTOR_SYNTAXES, SelectorError, type SelectorSyntax } from './errors';
import { matchSelectorIn, parseSelector, type ParsedSelector, type SelectorMatches, type SelectorTry } from './query';
import { indexScreen, type ScreenIndex } from './screen';

export type TryRequest = { kind: 'screen'; screen: number; root: UiNode | null } | { kind: 'try'; seq: number; screen: number; input: string };

/** A selector's failure as it crosses to the page (an Error's class and fields do not survive structured cloning). */
export interface TryFailure {
  syntax: SelectorSyntax | undefined;
  reason: string;
  at: number | undefined;
}

export type TryAnswer =
  /** The worker has loaded and takes requests: the time limit counts from here, not from its boot. */
  | { kind: 'ready' }
  /** Read, about to be evaluated: the page can name the syntax if the evaluation has to be stopped. */
  | { kind: 'parsed'; seq: number; syntax: SelectorSyntax; strategy: ParsedSelector['strategy'] }
  | { kind: 'result'; seq: number; result: ({ ok: true } & SelectorMatches) | { ok: false; error: TryFailure } };

export interface TryEvaluator {
  handle(request: TryRequest, answer: (a: TryAnswer) => void): void;
}

/** The worker's side: keeps the last screen, answers each `try` on it. */
export function createTryEvaluator(): TryEvaluator {
  let screenId = -1;
  let root: UiNode | null = null;
  let index: ScreenIndex | null = null;
  return {
    handle(request, answer) {
      if (request.kind === 'screen') {
        screenId = request.screen;
        root = request.root;
        index = null;
        return;
      }
      const { seq } = request;
      try {
        if (request.screen !== screenId) throw new SelectorError(undefined, `the screen to evaluate on (${request.screen}) was not sent`);
        const parsed = parseSelector(request.input);
        answer({ kind: 'parsed', seq, syntax: parsed.syntax, strategy: parsed.strategy });
        if (!root) {
          answer({ kind: 'result', seq, result: { ok: true, syntax: parsed.syntax, strategy: parsed.strategy, matches: [], onlyMerged: [] } });
          return;
        }
        index ??= indexScreen(root);
        answer({ kind: 'result', seq, result: { ok: true, ...matchSelectorIn(parsed, index) } });
      } catch (error) {
        // Whatever the readers or engines throw (a RangeError from a deep expression included) is an
        // answer that says why, never a dead worker.
        const failure: TryFailure =
          error instanceof SelectorError
            ? { syntax: error.syntax, reason: error.reason, at: error.at }
            : { syntax: undefined, reason: `evaluating it failed: ${error instanceof Error ? error.message : String(error)}`, at: undefined };
        answer({ kind: 'result', seq, result: { ok: false, error: failure } });
      }
    },
  };
}

/** The page's side: a worker's answer as the SelectorTry the views show. */
export function tryResultOf(result: Extract<TryAnswer, { kind: 'result' }>['result']): SelectorTry {
  if (result.ok) return result;
  const { syntax, reason, at } = result.error;
  const known = syntax !== undefined && (SELECTOR_SYNTAXES as readonly string[]).includes(syntax) ? syntax : undefined;
  return { ok: false, error: new SelectorError(known, reason, at) };
}

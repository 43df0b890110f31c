/**
 * The try box's evaluating worker (docs/rules.md#r-hand-13): the shared evaluator wired to this
 * worker's messages, so a hostile selector or a huge tree takes the worker's time, never the page's.
 */
import { createTryEvaluator, type TryAnswer, type TryRequest } from '@shared/selectors/try-worker';

/** The part of a dedicated worker's global scope used here (the web tsconfig has the DOM lib, not WebWorker). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<TryRequest>) => void) | null;
  postMessage(message: TryAnswer): void;
}

const scope = globalThis as unknown as WorkerScope;
const evaluator = createTryEvaluator();
scope.onmessage = (event) => evaluator.handle(event.data, (answer) => scope.postMessage(answer));
scope.postMessage({ kind: 'ready' });

/**
 * The try box's evaluator in a Node worker thread, behind the page's TryWorker shape, for component
 * tests (jsdom has no Worker): the same createTryEvaluator the web worker runs, really off the test's
 * thread. A gate the test opens holds each evaluation after its selector is read (`hold()`), so a test can keep
 * one running as long as it likes without depending on the machine's speed.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { TryAnswer, TryRequest } from '@shared/selectors/try-worker';
import type { TryWorker } from '@renderer/state/selector-try-runner';

interface Data {
  gate: SharedArrayBuffer;
  /** This file, which the thread loads through tsx (a worker does not inherit the test runner's loader). */
  entry: string;
  tsconfig: string;
}

// tsx's ESM API (the package's "import" condition; require.resolve names its CommonJS twin).
const TSX_API = pathToFileURL(
  createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs'),
).href;
const BOOT = `(async () => {
  const { workerData } = require('node:worker_threads');
  const { register } = await import(${JSON.stringify(TSX_API)});
  register({ tsconfig: workerData.tsconfig });
  await import(workerData.entry);
})();`;

if (!isMainThread && parentPort) {
  const { createTryEvaluator } = await import('@shared/selectors/try-worker');
  const gate = new Int32Array((workerData as Data).gate);
  const evaluator = createTryEvaluator();
  const port = parentPort;
  port.on('message', (request: TryRequest) => {
    evaluator.handle(request, (answer) => {
      port.postMessage(answer);
      // Read, not yet evaluated: held here while the gate is closed (0), as a long evaluation would
      // hold the thread; a terminate() ends the thread while it waits.
      if (answer.kind === 'parsed') while (Atomics.load(gate, 0) === 0) Atomics.wait(gate, 0, 0);
    });
  });
  port.postMessage({ kind: 'ready' } satisfies TryAnswer);
}

export interface ThreadWorkers {
  create(): TryWorker;
  /** Workers created so far, and which of them were terminated. */
  created: { terminated: boolean; exited: Promise<number> }[];
  /** Evaluations wait from now until `open()`. */
  hold(): void;
  open(): void;
  /** Terminates whatever is still running. */
  close(): Promise<void>;
}

export function threadWorkers(): ThreadWorkers {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(gate, 0, 1);
  const threads: Worker[] = [];
  const created: ThreadWorkers['created'] = [];
  return {
    created,
    create() {
      const thread = new Worker(BOOT, {
        eval: true,
        workerData: {
          gate: gate.buffer,
          entry: import.meta.url,
          tsconfig: join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'tsconfig.tsx.json'),
        } satisfies Data,
      });
      threads.push(thread);
      const record = { terminated: false, exited: new Promise<number>((resolve) => thread.once('exit', resolve)) };
      created.push(record);
      const worker: TryWorker = {
        onmessage: null,
        onerror: null,
        postMessage: (message) => thread.postMessage(message),
        terminate: () => {
          record.terminated = true;
          void thread.terminate();
        },
      };
      thread.on('message', (data: TryAnswer) => worker.onmessage?.({ data }));
      thread.on('error', (error) => worker.onerror?.({ message: error.message }));
      return worker;
    },
    hold: () => Atomics.store(gate, 0, 0),
    open() {
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
    },
    async close() {
      this.open();
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}

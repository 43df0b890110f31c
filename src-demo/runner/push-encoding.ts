/**
 * The runner's messages as text, a heavy screen's tree written once per frame (docs/rules.md#r-perf-10).
 *
 * A hierarchy message's tree (`data.hierarchy`, 50,000 views on the heavy screen) is the same object in
 * the push and in every reply for that frame (xctest-projection.ts keeps one per capture), so its text is
 * kept beside it and spliced into each message: a message costs its own few fields, not a stringify of
 * 8 MB each time (which held the device's event loop for 100-300 ms at every live tree read).
 * `writeTreeSliced` writes a tree's text letting the event loop run every few milliseconds. The text is
 * exactly what `encodeRunnerMessage` writes for the whole message.
 */
import { encodeRunnerMessage } from '@shared/protocol/runner';
import { isRecord, stringifyJsonLossless } from '@shared/protocol/json';

/** Trees already written, by the tree object. */
const written = new WeakMap<object, string>();

/** Stands for the tree in a message's text until the tree's own text takes its place. */
const PLACEHOLDER = '\u0000parallax-tree\u0000';
const PLACEHOLDER_TEXT = JSON.stringify(PLACEHOLDER);

/** Views written between two chances to yield. */
const STEP_VIEWS = 256;
/** How long the sliced writer works before it lets the event loop run. */
const SLICE_MS = 8;

/** A message's text, its tree's text taken from (or kept in) the cache. Same text as encodeRunnerMessage. */
export function encodeMessage(message: object): string {
  const tree = treeOf(message);
  if (!tree) return encodeRunnerMessage(message);
  let text = written.get(tree);
  if (text === undefined) written.set(tree, (text = stringifyJsonLossless(tree)));
  return splice(message, text);
}

/** Writes a tree's text in slices and keeps it, so the messages that carry it cost their own fields only. */
export async function writeTreeSliced(tree: object): Promise<void> {
  if (written.has(tree)) return;
  const steps = treeSteps(tree);
  let deadline = performance.now() + SLICE_MS;
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) {
      written.set(tree, step.value);
      return;
    }
    if (performance.now() >= deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      deadline = performance.now() + SLICE_MS;
    }
  }
}

function treeOf(message: object): object | undefined {
  const data = (message as { data?: unknown }).data;
  return isRecord(data) && isRecord(data.hierarchy) ? data.hierarchy : undefined;
}

function splice(message: object, tree: string): string {
  const { data } = message as { data: Record<string, unknown> };
  const outer = encodeRunnerMessage({ ...message, data: { ...data, hierarchy: PLACEHOLDER } });
  const at = outer.indexOf(PLACEHOLDER_TEXT);
  return `${outer.slice(0, at)}${tree}${outer.slice(at + PLACEHOLDER_TEXT.length)}`;
}

/**
 * A tree's text, a view at a time with an explicit stack, yielding every STEP_VIEWS views: each view's
 * own fields as stringifyJsonLossless writes them, its children (`node`) where that key stands.
 */
function* treeSteps(root: object): Generator<void, string> {
  const out: string[] = [];
  const pending: Array<object | string> = [root];
  for (let done = 1; pending.length; done++) {
    const item = pending.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const view = item as Record<string, unknown>;
    const children = view.node;
    // Anything but a list of views under `node` is written whole, as it is.
    if (!Array.isArray(children) || !children.every(isRecord)) out.push(stringifyJsonLossless(view));
    else {
      const before: Record<string, unknown> = {};
      const after: Record<string, unknown> = {};
      let seen = false;
      for (const key of Object.keys(view)) {
        if (key === 'node') seen = true;
        else (seen ? after : before)[key] = view[key];
      }
      const head = stringifyJsonLossless(before);
      const tail = stringifyJsonLossless(after);
      out.push(`${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"node":[`);
      pending.push(tail.length > 2 ? `],${tail.slice(1)}` : ']}');
      for (let i = children.length - 1; i >= 0; i--) {
        pending.push(children[i] as object);
        if (i > 0) pending.push(',');
      }
    }
    if (done % STEP_VIEWS === 0) yield;
  }
  return out.join('');
}

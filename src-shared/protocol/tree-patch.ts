/**
 * A view tree as the subtrees that changed since a tree the renderer holds (docs/protocol.md#p-api-wire,
 * docs/rules.md#r-perf-16). A tap on a 50,000-view screen changes a few views, yet the new observation was
 * 6-9 MiB of JSON: the host wrote it whole and the page parsed it whole, each holding its thread for
 * hundreds of milliseconds, while the live pictures waited behind. A patch names each changed subtree by
 * its path of child indexes (`node` holds a view's children: an array, or one child as an object) and
 * carries it whole; every other view is the base's own object, shared.
 *
 * A view is followed into its children only when its own fields (all but `node`) are equal and its
 * children keep their number and form, so every shared view keeps its path: what the renderer keys by
 * path or by view object stays right. Pure and bounded: the patch's length, a path's length and the
 * indexes it names are checked before anything is built.
 */
import { isRecord, sameJson } from './json';

const CHILDREN = 'node';

/** More changed subtrees than this and the tree goes whole: a patch that long saves little. */
export const MAX_PATCH_ENTRIES = 2_048;
/** Deeper than any tree the pipeline keeps (MAX_VIEW_DEPTH and then some). */
export const MAX_PATCH_DEPTH = 1_024;

/** One changed subtree: where it is (child indexes from the root) and what it is now. */
export type TreePatchEntry = [path: number[], node: unknown];

/** A patch that cannot be applied to its base (a path past the tree, a malformed entry). */
export class TreePatchError extends Error {
  override readonly name = 'TreePatchError';
}

/**
 * A field whose value names the capture a view came from (a bridge view's `sdk-capture-identity`, a web
 * view's `web-snapshot-id`): every view of a new capture carries the new one, so a view whose only change
 * is `from` becoming `to` is the same view, and putting the tree back renames it in every view.
 */
export type TreeRename = [key: string, from: string, to: string];

function sameOwnFields(a: Record<string, unknown>, b: Record<string, unknown>, renames: readonly TreeRename[]): boolean {
  let count = 0;
  for (const key in a) {
    if (key === CHILDREN) continue;
    const value = a[key];
    if (value === undefined) continue;
    count++;
    const other = b[key];
    // Put back, the base's `from` becomes `to`: the next view must say `to` (one still saying `from` differs).
    const rename = renames.find(([renamed, from]) => renamed === key && value === from);
    if (rename) {
      if (other === rename[2]) continue;
      return false;
    }
    if (value === other) continue;
    if (!sameJson(value, other)) return false;
  }
  for (const key in b) if (key !== CHILDREN && b[key] !== undefined) count--;
  return count === 0;
}

/**
 * The subtrees of `next` that differ from `base`, outermost first along each path; `undefined` when the
 * root itself differs or more than MAX_PATCH_ENTRIES changed (send the tree whole).
 */
export function treePatch(base: unknown, next: unknown, renames: readonly TreeRename[] = []): TreePatchEntry[] | undefined {
  const patch: TreePatchEntry[] = [];
  const stack: Array<[unknown, unknown, number[]]> = [[base, next, []]];
  while (stack.length > 0) {
    const [a, b, path] = stack.pop()!;
    if (a === b && renames.length === 0) continue;
    const same = isRecord(a) && isRecord(b) && sameOwnFields(a, b, renames);
    const ca = same ? a[CHILDREN] : undefined;
    const cb = same ? b[CHILDREN] : undefined;
    if (same && Array.isArray(ca) && Array.isArray(cb) && ca.length === cb.length) {
      for (let i = ca.length - 1; i >= 0; i--) stack.push([ca[i], cb[i], [...path, i]]);
      continue;
    }
    if (same && isRecord(ca) && isRecord(cb)) {
      stack.push([ca, cb, [...path, 0]]);
      continue;
    }
    if (same && ca === undefined && cb === undefined) continue;
    if (path.length === 0 || path.length > MAX_PATCH_DEPTH) return undefined;
    patch.push([path, b]);
    if (patch.length > MAX_PATCH_ENTRIES) return undefined;
  }
  return patch;
}

const isIndex = (step: unknown): step is number => typeof step === 'number' && Number.isInteger(step) && step >= 0;

/**
 * `base` with each entry's subtree put in place: the views along a patched path are copied (each once),
 * every other view is the base's own object. Throws TreePatchError for a patch that does not fit `base`.
 */
export function applyTreePatch(base: unknown, patch: unknown, renames: readonly TreeRename[] = []): unknown {
  if (!Array.isArray(patch)) throw new TreePatchError('a tree patch is a list of [path, node] entries');
  if (patch.length > MAX_PATCH_ENTRIES) throw new TreePatchError(`a tree patch holds at most ${MAX_PATCH_ENTRIES} entries`);
  if (patch.length === 0 && renames.length === 0) return base;
  if (!isRecord(base)) throw new TreePatchError('the base tree is not a view');
  const copied = new Set<object>();
  const copy = (view: Record<string, unknown>) => copyView(view, copied);
  let root = renames.length > 0 ? renamed(base, renames, copied, 0) : base;
  if (!copied.has(root)) root = copy(root);
  patch.forEach((entry: unknown, at) => {
    if (!Array.isArray(entry) || entry.length !== 2) throw new TreePatchError(`tree patch entry ${at} is not [path, node]`);
    const [path, node] = entry as [unknown, unknown];
    if (!Array.isArray(path) || path.length === 0 || path.length > MAX_PATCH_DEPTH || !path.every(isIndex)) {
      throw new TreePatchError(`tree patch entry ${at}: its path is not 1 to ${MAX_PATCH_DEPTH} child indexes`);
    }
    if (!isRecord(node)) throw new TreePatchError(`tree patch entry ${at}: its node is not a view`);
    let parent = root;
    for (let depth = 0; depth < path.length; depth++) {
      const index = path[depth] as number;
      const children = parent[CHILDREN];
      const last = depth === path.length - 1;
      if (Array.isArray(children)) {
        if (index >= children.length) throw new TreePatchError(`tree patch entry ${at}: no child ${index} at depth ${depth}`);
        if (last) children[index] = node;
        else {
          const child: unknown = children[index];
          if (!isRecord(child)) throw new TreePatchError(`tree patch entry ${at}: child ${index} at depth ${depth} is not a view`);
          parent = copied.has(child) ? child : (children[index] = copy(child));
        }
      } else if (isRecord(children) && index === 0) {
        if (last) parent[CHILDREN] = node;
        else parent = copied.has(children) ? children : (parent[CHILDREN] = copy(children));
      } else throw new TreePatchError(`tree patch entry ${at}: no child ${index} at depth ${depth}`);
    }
  });
  return root;
}

/** A view's own copy (its children list too), remembered as one this put-back may change. */
function copyView(view: Record<string, unknown>, copied: Set<object>): Record<string, unknown> {
  const children = view[CHILDREN];
  const out: Record<string, unknown> = { ...view, ...(Array.isArray(children) ? { [CHILDREN]: [...children] } : {}) };
  copied.add(out);
  return out;
}

/** `view` with every rename made below and in it: the view itself when none applies, else a copy. */
function renamed(view: Record<string, unknown>, renames: readonly TreeRename[], copied: Set<object>, depth: number): Record<string, unknown> {
  if (depth > MAX_PATCH_DEPTH) throw new TreePatchError(`the base tree is deeper than ${MAX_PATCH_DEPTH} views`);
  let out: Record<string, unknown> | undefined;
  const own = () => (out ??= copyView(view, copied));
  for (const [key, from, to] of renames) if (view[key] === from) own()[key] = to;
  const children = view[CHILDREN];
  if (Array.isArray(children)) {
    for (let i = 0; i < children.length; i++) {
      const child: unknown = children[i];
      if (!isRecord(child)) continue;
      const next = renamed(child, renames, copied, depth + 1);
      if (next !== child) (own()[CHILDREN] as unknown[])[i] = next;
    }
  } else if (isRecord(children)) {
    const next = renamed(children, renames, copied, depth + 1);
    if (next !== children) own()[CHILDREN] = next;
  }
  return out ?? view;
}

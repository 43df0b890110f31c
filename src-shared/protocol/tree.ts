/**
 * Trees decoded without recursion (docs/rules.md#r-lim-02). A recursive zod schema overflows the stack
 * on a tree about 1,000 deep, which a hostile or buggy device can send; this walks the tree with an
 * explicit stack, checks each node's own fields with a flat schema, and stops at a stated depth and node
 * count. Issues come in the order a recursive schema would give them (depth first), with the same paths.
 */
import { z } from 'zod';

/** Deeper than any real UI (XCTest trees are a few dozen levels); at least 5,000 must decode. */
export const MAX_TREE_DEPTH = 10_000;
/** A 100,000-node hierarchy is real traffic; this is five times that. */
export const MAX_TREE_NODES = 500_000;

export type TreeOf<F, K extends string> = F & { [key in K]?: TreeOf<F, K>[] };
/** A tree whose children default to an empty list, so every decoded node has them. */
export type FullTreeOf<F, K extends string> = F & { [key in K]: FullTreeOf<F, K>[] };

interface TreeOptions {
  childrenDefault?: boolean;
  /**
   * A node's fields decoded without zod, for the common case: returns exactly what `fields` would, or
   * undefined to let `fields` decide (and word the error). Zod cannot compile its object parsers in
   * the page (the CSP forbids eval), where 50,000 nodes cost it half a second (issue 29.2).
   */
  fast?: ((raw: unknown) => Record<string, unknown> | undefined) | undefined;
  /**
   * Whether a node is, as it stands, what `fields` would give (plus its children under the child key,
   * last): a tree whose every node is decodes to itself, with nothing copied. A frame the host wrote
   * from decoded nodes is such a tree: 100,000 fewer objects on a heavy screen (issue 29.2).
   */
  asIs?: ((raw: unknown) => boolean) | undefined;
  maxDepth?: number;
  maxNodes?: number;
}

/** Whether every node of the tree is as `asIs` says, within the limits; false leaves it to the decode. */
function wholeTreeAsIs(raw: unknown, childKey: string, asIs: (raw: unknown) => boolean, limits: { depth: number; nodes: number }): boolean {
  const nodes: unknown[] = [raw];
  const depths: number[] = [1];
  let count = 0;
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (++count > limits.nodes || depth > limits.depth || !asIs(node)) return false;
    const children = (node as Record<string, unknown>)[childKey];
    if (children === undefined) continue;
    if (!Array.isArray(children)) return false;
    for (let i = children.length - 1; i >= 0; i--) {
      nodes.push(children[i]);
      depths.push(depth + 1);
    }
  }
  return true;
}

/**
 * A node waiting to be decoded. Its path is its parent's task and its index there, so a deep tree
 * does not copy a path per node and a wide one makes one object per node.
 */
interface Task {
  raw: unknown;
  up: Task | undefined;
  index: number;
  depth: number;
  /** Where the decoded node goes. */
  into: unknown[];
}

function pathOf(task: Task, childKey: string): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Task | undefined = task; at?.up; at = at.up) path.push(at.index, childKey);
  return path.reverse();
}

type TreeResult<T> = { ok: true; value: T } | { ok: false; path: PropertyKey[]; message: string };

function decodeTree<T>(
  raw: unknown,
  fields: z.ZodType,
  childKey: string,
  childrenDefault: boolean,
  limits: { depth: number; nodes: number },
  fast: TreeOptions['fast'],
): TreeResult<T> {
  const root: unknown[] = [undefined];
  const stack: Task[] = [{ raw, up: undefined, depth: 1, into: root, index: 0 }];
  const fail = (task: Task, tail: PropertyKey[], message: string): TreeResult<T> => ({ ok: false, path: [...pathOf(task, childKey), ...tail], message });
  let nodes = 0;
  while (stack.length > 0) {
    const task = stack.pop()!;
    if (++nodes > limits.nodes) return fail(task, [], `the tree has more than ${limits.nodes} nodes, over the limit`);
    if (task.depth > limits.depth) return fail(task, [], `the tree is deeper than ${limits.depth} levels, over the limit`);
    let node = fast?.(task.raw);
    if (node === undefined) {
      const parsed = fields.safeParse(task.raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return fail(task, issue.path, issue.message);
      }
      node = parsed.data as Record<string, unknown>;
    }
    const children = (task.raw as Record<string, unknown>)[childKey];
    if (children === undefined) {
      if (childrenDefault) node[childKey] = [];
    } else if (!Array.isArray(children)) {
      return fail(task, [childKey], 'Invalid input: expected array');
    } else {
      const decoded: unknown[] = new Array<unknown>(children.length);
      node[childKey] = decoded;
      // Pushed last-first, so the first child is decoded first, as a recursive schema would.
      for (let i = children.length - 1; i >= 0; i--) {
        stack.push({ raw: children[i], up: task, index: i, depth: task.depth + 1, into: decoded });
      }
    }
    task.into[task.index] = node;
  }
  return { ok: true, value: root[0] as T };
}

/**
 * A zod schema for a tree whose nodes are `fields` plus a list of children under `childKey`. `fields`
 * must not declare `childKey` (it is an object schema, so the children are stripped from what it sees).
 */
export function treeSchema<S extends z.ZodType, K extends string>(
  fields: S,
  childKey: K,
  options: TreeOptions & { childrenDefault: true },
): z.ZodType<FullTreeOf<z.output<S>, K>, TreeOf<z.input<S>, K>>;
export function treeSchema<S extends z.ZodType, K extends string>(
  fields: S,
  childKey: K,
  options?: TreeOptions,
): z.ZodType<TreeOf<z.output<S>, K>, TreeOf<z.input<S>, K>>;
export function treeSchema<S extends z.ZodType, K extends string>(
  fields: S,
  childKey: K,
  options: TreeOptions = {},
): z.ZodType<TreeOf<z.output<S>, K>, TreeOf<z.input<S>, K>> {
  const limits = { depth: options.maxDepth ?? MAX_TREE_DEPTH, nodes: options.maxNodes ?? MAX_TREE_NODES };
  const asIs = options.asIs;
  const schema = z.unknown().transform((raw, ctx) => {
    if (asIs && !options.childrenDefault && wholeTreeAsIs(raw, childKey, asIs, limits)) return raw as TreeOf<z.output<S>, K>;
    const result = decodeTree<TreeOf<z.output<S>, K>>(raw, fields, childKey, options.childrenDefault ?? false, limits, options.fast);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.message, path: result.path });
    return z.NEVER;
  });
  // The input type is what the fields take, so a writer of trees (the demo) is still type-checked.
  return schema as unknown as z.ZodType<TreeOf<z.output<S>, K>, TreeOf<z.input<S>, K>>;
}

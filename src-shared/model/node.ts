/**
 * The node model: one home for what every layer asks of a node of a runner hierarchy (merged or not).
 * Its children, where it came from, its string-boolean flags, its frame and the point XCTest touches,
 * the attributes the inspector's merge adds, and whether its text is a secret. Everything that reads a
 * node asks these functions, so the answer is the same in the observer, the dispatcher, the recorder,
 * the replay, the exports and the UI (docs/protocol.md#p-node).
 *
 * Readers are tolerant: a node may come from a trace file or a renderer message rather than a decoder,
 * so a field of the wrong type reads as absent instead of throwing.
 */
import type { Point } from '@shared/protocol/action';
import type { NodeSource } from '@shared/protocol/observation';
import type { NodeFlag, UiNode } from '@shared/protocol/runner';

// ---- Children ---------------------------------------------------------------------------------------

/** The children of a node: its `node` list, a lone child object (an older encoder's shape), or none. */
export function childrenOf(node: UiNode): readonly UiNode[] {
  const children: unknown = (node as { node?: unknown }).node;
  if (Array.isArray(children)) return children as UiNode[];
  if (children !== null && typeof children === 'object') return [children as UiNode];
  return [];
}

/** How many nodes the tree under `root` holds, counting no further than one past `atMost`. */
export function countNodes(root: UiNode, atMost = Infinity): number {
  let count = 0;
  const stack: UiNode[] = [root];
  while (stack.length > 0 && count <= atMost) {
    count++;
    for (const child of childrenOf(stack.pop()!)) stack.push(child);
  }
  return count;
}

/** The node's own attributes, without its subtree. */
export function withoutChildren(node: UiNode): UiNode {
  const { node: _subtree, ...rest } = node as UiNode & { node?: unknown };
  return rest as UiNode;
}

/** The node with `children` (a fresh array the caller hands over) as its children; `node` is left out when there are none. */
export function withChildren(node: UiNode, children: UiNode[]): UiNode {
  if (children.length > 0) return { ...node, node: children };
  return node.node === undefined ? { ...node } : withoutChildren(node);
}

/**
 * How deep a tree the observe pipeline and the UI walk (they recurse; the decoders do not, and take
 * 10,000 levels: docs/rules.md#r-lim-02). Real UIs are a few dozen levels deep.
 */
export const MAX_VIEW_DEPTH = 1_000;

/** How a depth limit reads and rebuilds one kind of tree (a runner's `node`, an SDK bridge's `children`). */
export interface TreeShape<T> {
  children(node: T): readonly T[];
  /** The node alone, as a fresh object the limit may give children to. */
  bare(node: T): T;
  setChildren(bare: T, children: T[]): void;
}

const UI_NODE_SHAPE: TreeShape<UiNode> = {
  children: childrenOf,
  bare: withoutChildren,
  setChildren: (bare, children) => {
    bare.node = children;
  },
};

/**
 * The tree with every node below `maxDepth` moved up to be a child of its ancestor at `maxDepth`, in
 * document order: each keeps its own frame and attributes, only the nesting is lost. Iterative, so any
 * decoded depth is safe; a tree within the depth is returned as it is (docs/rules.md#r-lim-02).
 */
export function limitTreeDepth<T>(root: T, shape: TreeShape<T>, maxDepth = MAX_VIEW_DEPTH): { root: T; flattened: number } {
  const measure: Array<[T, number]> = [[root, 1]];
  let deepest = 0;
  while (measure.length > 0 && deepest <= maxDepth) {
    const [node, depth] = measure.pop()!;
    deepest = Math.max(deepest, depth);
    for (const child of shape.children(node)) measure.push([child, depth + 1]);
  }
  if (deepest <= maxDepth) return { root, flattened: 0 };
  let flattened = 0;
  const top = shape.bare(root);
  const stack: Array<{ from: T; into: T; depth: number }> = [{ from: root, into: top, depth: 1 }];
  while (stack.length > 0) {
    const { from, into, depth } = stack.pop()!;
    const children = shape.children(from);
    if (children.length === 0) continue;
    if (depth < maxDepth) {
      const copies = children.map((child) => shape.bare(child));
      shape.setChildren(into, copies);
      children.forEach((child, i) => stack.push({ from: child, into: copies[i]!, depth: depth + 1 }));
      continue;
    }
    // At the limit: every descendant, in document order, as a direct child.
    const flat: T[] = [];
    const pending = [...children].reverse();
    while (pending.length > 0) {
      const node = pending.pop()!;
      flat.push(shape.bare(node));
      const below = shape.children(node);
      flattened += below.length;
      for (let i = below.length - 1; i >= 0; i--) pending.push(below[i]!);
    }
    shape.setChildren(into, flat);
  }
  return { root: top, flattened };
}

/** A runner tree within `maxDepth` (limitTreeDepth). */
export function limitDepth(root: UiNode, maxDepth = MAX_VIEW_DEPTH): { root: UiNode; flattened: number } {
  return limitTreeDepth(root, UI_NODE_SHAPE, maxDepth);
}

export function withExtras(node: UiNode, extras: Record<string, string>): UiNode {
  return { ...node, extras: { ...node.extras, ...extras } };
}

// ---- Source -----------------------------------------------------------------------------------------

/** The extras key that says which SDK bridge produced a merged node (docs/protocol.md#p-merge-attrs). */
export const SDK_SOURCE_KEY = 'sdk.source';

/** The node's source: the native SDK bridge, a web view's DOM, or (anything else) XCTest. */
export function nodeSource(node: UiNode): NodeSource {
  const extras: unknown = (node as { extras?: unknown }).extras;
  if (extras === null || typeof extras !== 'object') return 'xctest';
  const source = (extras as Record<string, unknown>)[SDK_SOURCE_KEY];
  return source === 'sdkBridge' || source === 'sdkWebBridge' ? source : 'xctest';
}

/** What the inspector's merge adds to a node, in the order a reader wants them (docs/protocol.md#p-merge-attrs). */
export const MERGED_ATTRIBUTES = [
  'sdk-element-id',
  'sdk-capture-identity',
  'web-view-id',
  'web-element-id',
  'web-snapshot-id',
  'web-document-id',
  'web-origin',
  'web-role',
  'value-redacted',
] as const;

// ---- What plain XCTest saw of a merged node ---------------------------------------------------------

/**
 * A bridge or DOM node that stands for an element XCTest also reported carries that XCTest node's
 * identifying attributes in its extras, under this prefix (docs/protocol.md#p-merge-attrs): the merge
 * is the one place that knows which XCTest node a merged node stands for, and after it the XCTest
 * leaf is gone (a bridge duplicate) or overlaid (a DOM element merged over its leaf).
 */
export const XCTEST_TWIN_PREFIX = 'xctest.';
/** `replaced`: the XCTest node is no longer in the tree, this node stands for it; `kept`: it is still there, beside this one. */
export const XCTEST_TWIN_KEY = `${XCTEST_TWIN_PREFIX}twin`;
export type XctestTwinKind = 'replaced' | 'kept';
/** The attributes of the XCTest node a merged node keeps: what XCTest identifies and labels it by. */
export const XCTEST_TWIN_ATTRIBUTES = ['className', 'role', 'resource-id', 'text', 'value', 'content-desc', 'hint-text'] as const;

/** The extras that say a merged node stands for `xctest`. */
export function xctestTwinExtras(xctest: UiNode, kind: XctestTwinKind): Record<string, string> {
  const twin: Record<string, string> = { [XCTEST_TWIN_KEY]: kind };
  for (const name of XCTEST_TWIN_ATTRIBUTES) {
    const value: unknown = (xctest as Record<string, unknown>)[name];
    if (typeof value === 'string') twin[`${XCTEST_TWIN_PREFIX}${name}`] = value;
  }
  return twin;
}

/** `merged` with the identifying attributes of the XCTest node it stands for. */
export function withXctestTwin(merged: UiNode, xctest: UiNode, kind: XctestTwinKind): UiNode {
  return withExtras(merged, xctestTwinExtras(xctest, kind));
}

export interface XctestTwin {
  kind: XctestTwinKind;
  /** The XCTest node as XCTest reported it: its identifying attributes, with the merged node's frame and flags. */
  node: UiNode;
}

/** A merged node's attributes that are not XCTest's (read once per node of an audit or a diff: a set, not a scan). */
const NOT_THE_TWINS: ReadonlySet<string> = new Set<string>(['node', 'extras', ...XCTEST_TWIN_ATTRIBUTES, ...MERGED_ATTRIBUTES]);
const TWIN_EXTRAS = XCTEST_TWIN_ATTRIBUTES.map((name) => `${XCTEST_TWIN_PREFIX}${name}`);

/** The XCTest node a merged node stands for, or undefined (an XCTest node, or a merged node XCTest did not report). */
export function xctestTwinOf(node: UiNode): XctestTwin | undefined {
  const extras: unknown = (node as { extras?: unknown }).extras;
  if (extras === null || typeof extras !== 'object') return undefined;
  const record = extras as Record<string, unknown>;
  const kind = record[XCTEST_TWIN_KEY];
  if (kind !== 'replaced' && kind !== 'kept') return undefined;
  const twin: Record<string, unknown> = {};
  for (const key in node) {
    // The frame and the flags are the element's; identity and text are what XCTest reported.
    if (Object.hasOwn(node, key) && !NOT_THE_TWINS.has(key)) twin[key] = (node as Record<string, unknown>)[key];
  }
  for (let i = 0; i < XCTEST_TWIN_ATTRIBUTES.length; i++) {
    const value = record[TWIN_EXTRAS[i]!];
    if (typeof value === 'string') twin[XCTEST_TWIN_ATTRIBUTES[i]!] = value;
  }
  return { kind, node: twin as UiNode };
}

/** The class XCTest reports for a web view. */
export const WEB_VIEW_CLASS = 'WKWebView';

/**
 * A web view: XCTest's WKWebView, or the bridge node that replaced it (its `xctest.className`,
 * docs/rules.md#r-obs-09). A DOM element is never one.
 */
export function isWebView(node: UiNode): boolean {
  if (node.className === WEB_VIEW_CLASS) return nodeSource(node) !== 'sdkWebBridge';
  const extras: unknown = (node as { extras?: unknown }).extras;
  if (extras === null || typeof extras !== 'object') return false;
  const record = extras as Record<string, unknown>;
  // A kept twin stands beside the WKWebView it describes, which is the web view (the raw strategy).
  return record[XCTEST_TWIN_KEY] === 'replaced' && record[`${XCTEST_TWIN_PREFIX}className`] === WEB_VIEW_CLASS;
}

// ---- Flags ------------------------------------------------------------------------------------------

/**
 * A node boolean. The wire sends the strings "true"/"false" (a real boolean from a lenient peer counts
 * too); absent means false, except `enabled`, which absent means true.
 */
export function nodeFlag(node: Partial<Record<NodeFlag, unknown>>, name: NodeFlag): boolean {
  const value = (node as Record<string, unknown>)[name];
  if (value === undefined || value === null) return name === 'enabled';
  return value === true || value === 'true';
}

// ---- Frame ------------------------------------------------------------------------------------------

/** A rectangle in screen points, as the runner sends it. */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The node's bounds when it has usable ones (finite numbers), else null. */
export function boundsOf(node: UiNode): Rect | null {
  const b: unknown = (node as { bounds?: unknown }).bounds;
  if (b === null || typeof b !== 'object') return null;
  const { left, top, right, bottom } = b as Record<string, unknown>;
  if (![left, top, right, bottom].every((v) => typeof v === 'number' && Number.isFinite(v))) return null;
  return { left: left as number, top: top as number, right: right as number, bottom: bottom as number };
}

/** The same frame, edge for edge; no frame is never the same as another. */
export function sameRect(a: Rect | null, b: Rect | null): boolean {
  return a !== null && b !== null && a.left === b.left && a.top === b.top && a.right === b.right && a.bottom === b.bottom;
}

export function rectWidth(r: Rect): number {
  return Math.max(0, r.right - r.left);
}

export function rectHeight(r: Rect): number {
  return Math.max(0, r.bottom - r.top);
}

export function rectArea(r: Rect): number {
  return rectWidth(r) * rectHeight(r);
}

/**
 * Where a finger (XCTest, a replay, an export) touches the node: the exact centre of its frame, in
 * screen points, unrounded, so every path that taps a node taps the same point.
 */
export function centerOf(node: UiNode): Point | undefined {
  const b = boundsOf(node);
  if (!b) return undefined;
  return { x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 };
}

// ---- Secrets ----------------------------------------------------------------------------------------

/** Class names and roles of a secure text entry: XCUIElementTypeSecureTextField, UISecureTextField, … */
const SECURE = /secure/i;

/**
 * Autofill hints that name a password or a one-time code: HTML `autocomplete` tokens (WHATWG
 * "autofill detail tokens": current-password, new-password, one-time-code) and UIKit's
 * `textContentType` raw values (UITextContentType.password = "password", .newPassword = "new-password",
 * .oneTimeCode = "one-time-code"). A field so hinted holds a secret even where its type says nothing.
 */
const SECRET_HINTS = new Set(['password', 'current-password', 'new-password', 'one-time-code']);
/** The attribute names a hint arrives under, across the bridge, the DOM snapshot and AppReveal's DOM tools. */
const HINT_FIELDS = ['autocomplete', 'autoComplete', 'textContentType', 'text-content-type', 'contentType'] as const;

/**
 * Mask characters iOS and the web draw for a secure value: iOS reports a secure UITextField's
 * `accessibilityValue` as one U+2022 per character (AppReveal passes it on verbatim:
 * iOS/Sources/AppReveal/Elements/ElementInventory.swift:75 `value: view.accessibilityValue`; its `classifyView` (:90-93) has no secure type, a UISecureTextField-backed UITextField is `.textField`); Chromium
 * and WebKit draw U+25CF. A value made only of these is a masked secret, never text.
 */
const MASK = /^[\u2022\u25cf]+$/;

/** Whether a value read from a field is a mask (bullets only), i.e. the device is hiding a secret. */
export function isMaskedValue(value: unknown): boolean {
  return typeof value === 'string' && MASK.test(value);
}

function isPasswordType(value: unknown): boolean {
  return typeof value === 'string' && value.trim().toLowerCase() === 'password';
}

function isSecretHint(hint: string): boolean {
  return hint
    .toLowerCase()
    .split(/\s+/)
    .some((token) => SECRET_HINTS.has(token));
}

/**
 * Whether a field's text is a secret: never shown, recorded, exported or compared. The one rule for
 * every kind of field (docs/rules.md#r-secret), from every signal a platform gives:
 *  1. a declared secure type: the `password` flag, a secure class or role (XCUIElementTypeSecureTextField,
 *     UISecureTextField, AppReveal's and Parallax's secureTextField);
 *  2. an HTML input type password, as `inputType` (AppReveal iOS web controls, the web bridge) or `type`
 *     on a DOM record (Tauri's snapshot, whose `type` is the HTML attribute);
 *  3. an autofill hint naming a password or one-time code (`autocomplete`, `textContentType`);
 *  4. a value made only of mask bullets (iOS AppReveal has no secure type: a secure UITextField is a
 *     `textField` whose value is bullets);
 *  5. a value the device redacted (`value-redacted`, `valueRedacted`), or anything the caller marked
 *     `sensitive` (the type bar's "treat as secret").
 * The sixth signal, bullets read back where text was typed, needs the action: `typedTextIsSecret`
 * (src-shared/act/secret.ts) adds it. Takes any record, since it is asked of nodes, web elements and
 * recorded targets alike.
 */
export function hidesText(fields: Readonly<Record<string, unknown>>): boolean {
  if (fields['password'] === 'true' || fields['password'] === true) return true;
  if (fields['value-redacted'] === 'true' || fields['value-redacted'] === true || fields['valueRedacted'] === true) return true;
  if (fields['sensitive'] === true || fields['sensitive'] === 'true') return true;
  const raw = fields['extras'];
  const extras = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : undefined;
  if (isPasswordType(fields['inputType']) || (extras !== undefined && isPasswordType(extras['appreveal.inputType']))) return true;
  // `type` is the HTML attribute only on a DOM record (one with a tag); elsewhere it is a kind ("button").
  const type = fields['type'];
  if ((fields['tag'] !== undefined || fields['tagName'] !== undefined) && isPasswordType(type)) return true;
  for (const name of HINT_FIELDS) {
    const hint = fields[name] ?? extras?.[name];
    if (typeof hint === 'string' && hint !== '' && isSecretHint(hint)) return true;
  }
  // A value, never a label: a "•••" menu button's caption is no secret.
  if (isMaskedValue(fields['value'])) return true;
  const className = fields['className'];
  const role = fields['role'];
  if (typeof type === 'string' && SECURE.test(type)) return true;
  return (typeof className === 'string' && SECURE.test(className)) || (typeof role === 'string' && SECURE.test(role));
}

// ---- Names ------------------------------------------------------------------------------------------

/** A name longer than this is cut: it is a caption, not a copy of the screen's text. */
const MAX_LABEL_CHARS = 80;

/**
 * What a person calls the element (the type bar, the timeline, the trace): its accessibility label
 * ("Full name"), else its placeholder, else the text it shows, else its id. A field's text is its
 * value, so it names the field only when it is no secret (hidesText) and no field at all; a web
 * element's DOM id ("e5") never stands for it.
 */
export function nodeLabel(node: UiNode): string | undefined {
  const field = node.role === 'textfield' || (node.actions ?? []).includes('set_text');
  const shown = field || hidesText(node) ? undefined : (node.text ?? node.value);
  for (const v of [node['content-desc'], node['hint-text'], shown, node['resource-id']]) {
    const text = typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
    if (text !== '') return text.length > MAX_LABEL_CHARS ? `${text.slice(0, MAX_LABEL_CHARS - 1)}…` : text;
  }
  return undefined;
}

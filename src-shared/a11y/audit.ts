/**
 * The accessibility audit of one observation (docs/rules.md#r-a11y): pure and linear in the tree (the
 * overlap check buckets targets on a grid), so a 5,000-node screen audits well within a frame budget.
 * Every check is a rule of rules.ts; a finding names the element by its NodeKey, its identity and frame.
 *
 * Over 500 lines on purpose: the checks share one walk of the tree and one target grid, and that single
 * pass is what keeps the audit linear; the rule texts, colours and element kinds live in their own files.
 */
import type { A11yFinding, A11yKind, A11ySeverity, AccessibilityAudit } from '@shared/protocol/accessibility';
import { A11Y_KINDS, A11Y_SEVERITIES, MAX_A11Y_FINDINGS } from '@shared/protocol/accessibility';
import type { Observation } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { sameJson } from '@shared/protocol/json';
import { boundsOf, childrenOf, nodeFlag, nodeSource, type Rect, rectHeight, rectWidth } from '@shared/model/node';
import { childKey, ROOT_KEY, type NodeKey } from '@shared/model/tree';
import { contrastRatio, frameColors, hex, type FrameColors, type Pixels } from './color';
import { announcedLabel, authoredId, elementKind, isControl, xctestKind, xctestView, type ElementKind } from './elements';
import { A11Y_RULES, type A11yRuleId } from './rules';

export interface AuditInput {
  /** The merged tree (an observation's viewHierarchy.hierarchy). */
  root: UiNode | undefined;
  /** The screen in points; the screenshot's scale is its width over this. */
  screen?: { width: number; height: number } | undefined;
  /** The safe area's insets in points: the status bar and home indicator are drawn over these strips. */
  safeArea?: { top: number; bottom: number } | undefined;
  /** Why XCTest returned no usable tree, when it did not (the observation's quality reason). */
  xctestUnreadable?: string | undefined;
  /** The screenshot of the same frame, decoded; without it contrast is not evaluated. */
  pixels?: Pixels | undefined;
}

/** Apple's minimum hit region (HIG: Buttons) and WCAG 2.2 SC 2.5.8's minimum target, in points. */
export const HIG_MIN_TARGET = 44;
export const WCAG_MIN_TARGET = 24;
/** WCAG 2.2 SC 1.4.3: 4.5:1, or 3:1 for large text (18 pt, or 14 pt bold: the weight is unknown here). */
export const MIN_CONTRAST = 4.5;
export const MIN_CONTRAST_LARGE = 3;
const LARGE_TEXT_PT = 18;
/**
 * Pixels one audit samples at most for contrast (about 1,000 text frames of 4,096 samples): past it the
 * remaining texts are reported as not evaluated, so a screen of 50,000 labels stays within a frame budget.
 */
export const CONTRAST_SAMPLE_BUDGET = 4_000_000;
/** Extras key an SDK may set with a text's natural width in points (R-A11Y-12). */
export const TEXT_WIDTH_KEY = 'text.width';

interface Item {
  key: NodeKey;
  node: UiNode;
  kind: ElementKind;
  rect: Rect;
  /** The part of the frame its ancestors leave on screen. */
  visible: Rect | null;
  /** The frame of the nearest bar (navigation, tab, tool bar) the node lies in. */
  inBar: Rect | null;
  /** What XCTest reports for it (xctestView), read once. */
  view: UiNode | undefined;
  /** What VoiceOver announces for it (from `view`, else the node's own label), read once. */
  label: string;
  /** A bar drawn later covers part of it (a tab bar over a list's last row): its frame is not what a finger or an eye gets. */
  covered: boolean;
  order: number;
}

const intersect = (a: Rect, b: Rect): Rect | null => {
  const r = { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
  return r.right > r.left && r.bottom > r.top ? r : null;
};
const contains = (outer: Rect, inner: Rect) => inner.left >= outer.left && inner.top >= outer.top && inner.right <= outer.right && inner.bottom <= outer.bottom;
const sameRect = (a: Rect, b: Rect) => a.left === b.left && a.top === b.top && a.right === b.right && a.bottom === b.bottom;
const rectText = (r: Rect) => `${r.left},${r.top} ${rectWidth(r)}×${rectHeight(r)}`;

/** Every node with its kind and on-screen part, in document order (drawing order: later is on top). */
function walk(root: UiNode, screen: Rect | null): Item[] {
  const out: Item[] = [];
  const stack: Array<{ node: UiNode; key: NodeKey; clip: Rect | null; inBar: Rect | null }> = [{ node: root, key: ROOT_KEY, clip: screen, inBar: null }];
  while (stack.length > 0) {
    const { node, key, clip, inBar } = stack.pop()!;
    const rect = boundsOf(node);
    const kind = elementKind(node);
    let visible: Rect | null = null;
    let childClip = clip;
    if (rect) {
      visible = clip ? intersect(rect, clip) : rect;
      // An empty container does not clip (UIKit draws subviews outside a zero-size view).
      if (rectWidth(rect) > 0 && rectHeight(rect) > 0) childClip = visible ?? { left: 0, top: 0, right: 0, bottom: 0 };
      const view = xctestView(node);
      const label = announcedLabel(view ?? node) || (view ? announcedLabel(node) : '');
      out.push({ key, node, kind, rect, visible, inBar, view, label, covered: false, order: out.length });
    }
    const childBar = kind === 'bar' && rect ? rect : inBar;
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, key: childKey(key, i), clip: childClip, inBar: childBar });
  }
  markCovered(out);
  return out;
}

/**
 * Marks each item a bar drawn after it covers (not its own bar, nor an ancestor). Bars are bucketed on
 * the same 44-pt grid as the overlap check, so an item looks only at the bars over its own cells, newest
 * first, and stops at the first one drawn before it: linear in the items however many bars a screen has.
 */
function markCovered(items: Item[]): void {
  const bars = items.filter((item) => item.kind === 'bar' && item.visible);
  if (bars.length === 0) return;
  const grid = new Map<number, Item[]>();
  for (const bar of bars) forCells(bar.rect, (cell) => pushTo(grid, cell, bar));
  for (const item of items) {
    forCells(item.rect, (cell) => {
      if (item.covered) return;
      const here = grid.get(cell);
      if (!here) return;
      // `here` is in drawing order: from its end down to the first bar drawn before the item.
      for (let i = here.length - 1; i >= 0 && here[i]!.order > item.order; i--) {
        const bar = here[i]!;
        if (item.key.startsWith(`${bar.key}.`) || (item.inBar && sameRect(bar.rect, item.inBar))) continue;
        if (intersect(bar.rect, item.rect) !== null) {
          item.covered = true;
          return;
        }
      }
    });
  }
}

/**
 * The 44-pt grid cells a frame touches, clamped to 64 cells a side (2,816 pt, past an iPad's screen), so
 * a huge frame costs at most 4,096 cells; frames past the edge share the edge's cells (and are still compared exactly).
 */
const GRID = HIG_MIN_TARGET;
const GRID_SPAN = 64;
function forCells(r: Rect, visit: (cell: number) => void): void {
  const clamp = (v: number) => Math.max(0, Math.min(GRID_SPAN - 1, Math.floor(v / GRID)));
  const x0 = clamp(r.left);
  const x1 = clamp(r.right - 1);
  const y0 = clamp(r.top);
  const y1 = clamp(r.bottom - 1);
  for (let gx = x0; gx <= x1; gx++) for (let gy = y0; gy <= y1; gy++) visit(gx * GRID_SPAN + gy);
}

function pushTo<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * A machine-made name: words joined by `.`, `_` or `/` ("login.submit", "btn_close") or camelCase
 * ("closeButton"). Not `-` or `:`, which people write ("Wi-Fi", "10:30").
 */
const ID_LIKE = /^(?=.*[a-z])[A-Za-z0-9]+(?:[._/][A-Za-z0-9]+)+$|^[a-z]{2,}(?:[A-Z][a-z0-9]+)+$/;
const FILE_NAME = /\.(?:png|jpe?g|gif|svg|pdf|webp|heic|tiff?|bmp|ico)$/i;
const PUNCTUATION_ONLY = /^[\p{P}\p{S}\s]+$/u;

/** Why a label says nothing, or undefined when it says something. */
function emptyLabelReason(label: string): string | undefined {
  if (FILE_NAME.test(label)) return 'a file name';
  if (PUNCTUATION_ONLY.test(label)) return 'only punctuation or symbols';
  if (ID_LIKE.test(label)) return 'an identifier, not words';
  return undefined;
}

export function identityOf(node: UiNode, label: string, rect: Rect): string {
  // By frame, not class: a merged node and the XCTest node kept beside it are one element.
  return authoredId(node) ?? (label ? `label:${label}` : `at:${rect.left},${rect.top},${rectWidth(rect)}x${rectHeight(rect)}`);
}

/** What a finding says, built only for the findings an audit keeps (a screen can hold thousands it cuts). */
interface Detail {
  message: string;
  evidence: A11yFinding['evidence'];
  colors?: A11yFinding['colors'];
}

/** A finding before it is kept: its rule, element and severity; the words and evidence are made later, for at most MAX_A11Y_FINDINGS. */
interface Pending {
  rule: A11yRuleId;
  item: Item;
  severity: A11ySeverity;
  fingerprint: string;
  detail: () => Detail;
}

class Findings {
  readonly list: Pending[] = [];
  private readonly seen = new Set<string>();

  add(rule: A11yRuleId, item: Item, detail: () => Detail, severity?: A11ySeverity): void {
    const fingerprint = `${rule}|${identityOf(item.node, item.label, item.rect)}`;
    if (this.seen.has(fingerprint)) return;
    this.seen.add(fingerprint);
    this.list.push({ rule, item, severity: severity ?? A11Y_RULES[rule].severity, fingerprint, detail });
  }
}

/** A kept finding, whole. */
function materialise({ rule, item, severity, fingerprint, detail }: Pending): A11yFinding {
  const r = A11Y_RULES[rule];
  const { message, evidence, colors } = detail();
  const element: A11yFinding['element'] = { source: nodeSource(item.node) };
  if (item.node.className) element.className = item.node.className;
  const id = item.node['resource-id'];
  if (id) element.id = id;
  if (item.label) element.label = item.label;
  const finding: A11yFinding = {
    rule,
    kind: r.kind,
    severity,
    nodeKey: item.key,
    element,
    bounds: { left: Math.round(item.rect.left), top: Math.round(item.rect.top), right: Math.round(item.rect.right), bottom: Math.round(item.rect.bottom) },
    message,
    evidence,
    fix: r.fix,
    fingerprint,
  };
  if (colors) finding.colors = colors;
  return finding;
}

/** The audit of one observation, with the screenshot of the same frame when there is one. */
export function auditObservation(observation: Observation, pixels?: Pixels): AccessibilityAudit {
  return auditTree({ ...observationAuditInput(observation), pixels });
}

/**
 * Whether two observations give the audit the same input (the tree, the screen, the safe area, XCTest's
 * failure): then, with the same screenshot, their audits are the same, and one answers for both. A live
 * re-read of an unchanged screen differs only in what the audit does not read (its time, its timings).
 */
export function sameAuditInput(a: Observation, b: Observation): boolean {
  return sameJson(observationAuditInput(a), observationAuditInput(b));
}

/** What auditObservation reads of an observation: everything else in it leaves the findings as they are. */
function observationAuditInput(observation: Observation): Omit<AuditInput, 'pixels'> {
  // XCTest's read failed (R-A11Y-02): the quality says so when nothing stood in, the errors when the bridge did.
  const reason = observation.quality.reason;
  const failed = observation.errors.find((e) => e.stage === 'xctest' && (e.code === 'ax_failure' || e.code === 'hierarchy_error'));
  // A sparse XCTest read the bridge stood in for (docs/rules.md#r-strategies) is as good as none for VoiceOver.
  const sparse =
    reason === 'sdk_bridge_supplied_controls' || reason === 'web_bridge_supplied_controls' || reason === 'ax_failure' || reason === 'hierarchy_error';
  const unreadable = failed?.code ?? (sparse ? reason : undefined);
  const safe = observation.insets?.safeArea ?? observation.viewHierarchy?.insets?.safeArea;
  return {
    root: observation.viewHierarchy?.hierarchy,
    screen: observation.screenSize,
    safeArea: safe ? { top: safe.top, bottom: safe.bottom } : undefined,
    xctestUnreadable: unreadable,
  };
}

export function auditTree(input: AuditInput): AccessibilityAudit {
  const findings = new Findings();
  const notEvaluated: AccessibilityAudit['summary']['notEvaluated'] = [];
  const screen = input.screen ? { left: 0, top: 0, right: input.screen.width, bottom: input.screen.height } : null;
  const items = input.root ? walk(input.root, screen) : [];
  const onScreen = items.filter((item) => item.visible !== null);

  // ---- Element detection (R-A11Y-01, R-A11Y-02)
  const appSide = onScreen.filter((item) => nodeSource(item.node) !== 'xctest');
  const unreadable = input.xctestUnreadable;
  if (unreadable && appSide.length > 0 && input.root) {
    const rootItem = items[0]!;
    findings.add('R-A11Y-02', rootItem, () => ({
      message: `XCTest could not read this screen (${unreadable}); the app’s SDK bridge reports ${appSide.length} elements on it.`,
      evidence: { xctest: unreadable, bridgeElements: appSide.length },
    }));
  } else {
    for (const item of appSide) {
      if (item.view) continue;
      const label = item.label;
      if (!isControl(item.kind) && !label && item.kind !== 'image') continue;
      const where = nodeSource(item.node) === 'sdkWebBridge' ? 'the web view' : 'the SDK bridge';
      findings.add('R-A11Y-01', item, () => ({
        message: `${describe(item, label)} is on screen (${where} reports it) but XCTest does not: VoiceOver will not find it.`,
        evidence: {
          reportedBy: nodeSource(item.node),
          xctest: 'absent',
        },
      }));
    }
  }

  // What VoiceOver reaches: XCTest's view of each element (all of the app's, when XCTest read nothing).
  const reached = onScreen
    .map((item) => ({ item, view: item.view ?? (input.xctestUnreadable ? item.node : undefined) }))
    .filter((x): x is { item: Item; view: UiNode } => x.view !== undefined);

  // ---- Description (R-A11Y-03 to R-A11Y-06)
  const byLabel = new Map<string, Array<{ item: Item; identity: string }>>();
  for (const { item, view } of reached) {
    const kind = isControl(item.kind) ? item.kind : xctestKind(view);
    const label = announcedLabel(view);
    if (isControl(kind)) {
      if (!label) {
        findings.add('R-A11Y-03', item, () => ({ message: `This ${kind} has no label: VoiceOver says only “${kind}”.`, evidence: { label: '' } }));
        continue;
      }
      const why = emptyLabelReason(label);
      if (why) findings.add('R-A11Y-04', item, () => ({ message: `This ${kind}’s label “${label}” is ${why}.`, evidence: { label, reason: why } }));
      const key = label.toLowerCase();
      const group = byLabel.get(key) ?? [];
      group.push({ item, identity: authoredId(item.node) ?? rectText(item.rect) });
      byLabel.set(key, group);
    } else if ((item.kind === 'image' || kind === 'image') && !label) {
      findings.add('R-A11Y-05', item, () => ({ message: 'This image has no description.', evidence: { label: '' } }));
    } else if (label && (kind === 'image' || item.kind === 'image')) {
      const why = emptyLabelReason(label);
      if (why) findings.add('R-A11Y-04', item, () => ({ message: `This image’s description “${label}” is ${why}.`, evidence: { label, reason: why } }));
    }
  }
  for (const [, group] of byLabel) {
    const distinct = new Set(group.map((g) => g.identity));
    if (distinct.size < 2) continue;
    for (const { item } of group) {
      const label = item.label;
      findings.add('R-A11Y-06', item, () => ({
        message: `${distinct.size} different controls on this screen are all announced as “${label}”.`,
        evidence: {
          label,
          controls: distinct.size,
        },
      }));
    }
  }

  // ---- Hit region (R-A11Y-07, R-A11Y-08)
  const targets = onScreen.filter(
    (item) => isControl(item.kind) && !item.covered && nodeFlag(item.node, 'enabled') && rectWidth(item.rect) > 0 && rectHeight(item.rect) > 0,
  );
  for (const item of targets) {
    const w = rectWidth(item.rect);
    const h = rectHeight(item.rect);
    if (w >= HIG_MIN_TARGET && h >= HIG_MIN_TARGET) continue;
    const severity: A11ySeverity = w < WCAG_MIN_TARGET || h < WCAG_MIN_TARGET ? 'error' : 'warning';
    findings.add(
      'R-A11Y-07',
      item,
      () => ({
        message: `${describe(item, announcedLabel(item.node))} is ${w} × ${h} pt, under 44 × 44 pt${severity === 'error' ? ' (and under WCAG’s 24 × 24 pt)' : ''}.`,
        evidence: { width: w, height: h, minimum: HIG_MIN_TARGET },
      }),
      severity,
    );
  }
  overlaps(targets, findings);

  // ---- Contrast (R-A11Y-09)
  if (!input.pixels || !input.screen) {
    notEvaluated.push({ kind: 'contrast', reason: 'no screenshot of this frame' });
  } else {
    const skipped = contrast(reached, input, findings);
    if (skipped > 0) notEvaluated.push({ kind: 'contrast', reason: `${skipped} texts past the sampling budget were not measured` });
  }

  // ---- Traits (R-A11Y-10, R-A11Y-11): what the app says the element is against what XCTest gives it.
  for (const item of onScreen) {
    if (nodeSource(item.node) === 'xctest') continue;
    const view = item.view;
    if (!view) continue;
    const given = xctestKind(view);
    if ((item.kind === 'button' || item.kind === 'link') && !isControl(given) && given !== 'cell') {
      findings.add('R-A11Y-10', item, () => ({
        message: `${describe(item, announcedLabel(view))} handles taps (${sourceName(item.node)} says ${item.kind}) but XCTest reports it as ${given}, without the button trait.`,
        evidence: {
          app: item.kind,
          xctest: given,
        },
      }));
    } else if (item.kind === 'header' && given !== 'header') {
      findings.add('R-A11Y-11', item, () => ({
        message: `“${announcedLabel(view)}” is a heading to ${sourceName(item.node)} but XCTest reports it as ${given}, without the header trait.`,
        evidence: {
          app: 'header',
          xctest: given,
        },
      }));
    }
  }

  // ---- Clipping (R-A11Y-12). No source reports how wide a text wants to be: XCTest (XCUIElement) gives a
  // frame and the whole label, the SDK bridge and the page the same. So a text is judged on what is
  // reported: its natural width where a source sets `text.width`, else its frame against the screen, the one
  // edge that always cuts (a superview's frame may not clip, UIView.clipsToBounds is off by default). A text
  // under a scroll view is not cut: the user can scroll it into view. Truncation inside its own frame (an
  // ellipsis) leaves no trace in any report: that part stays not evaluated, and is said so.
  let measured = 0;
  const scrollers = new Set(items.filter((item) => isScroller(item.node)).map((item) => item.key));
  const underScroller = (key: NodeKey) => {
    for (let at = key.lastIndexOf('.'); at > 0; at = key.lastIndexOf('.', at - 1)) if (scrollers.has(key.slice(0, at))) return true;
    return false;
  };
  for (const item of onScreen) {
    const raw = item.node.extras?.[TEXT_WIDTH_KEY];
    const natural = raw === undefined ? NaN : Number(raw);
    const w = rectWidth(item.rect);
    if (Number.isFinite(natural)) {
      measured++;
      if (natural > w + 1) {
        findings.add('R-A11Y-12', item, () => ({
          message: `“${item.label}” needs ${Math.round(natural)} pt but its frame is ${w} pt wide: it is cut off.`,
          evidence: { basis: `natural width reported by ${sourceName(item.node)} (${TEXT_WIDTH_KEY})`, naturalWidth: Math.round(natural), frameWidth: w },
        }));
      }
      continue;
    }
    if (!screen || !isText(item) || underScroller(item.key)) continue;
    const cut = Math.max(0, screen.left - item.rect.left) + Math.max(0, item.rect.right - screen.right);
    if (cut > 1) {
      findings.add('R-A11Y-12', item, () => ({
        message: `“${item.label}” runs ${cut} pt past the screen's edge (frame ${rectText(item.rect)} on a ${rectWidth(screen)}-pt-wide screen): that part is not shown.`,
        evidence: {
          basis: 'the text’s frame as XCTest reports it, against the screen',
          frame: rectText(item.rect),
          screenWidth: rectWidth(screen),
          cutPt: cut,
        },
      }));
    }
  }
  notEvaluated.push({
    kind: 'textClipped',
    reason:
      measured === 0
        ? 'no source reported a text’s natural width: only text cut at the screen’s edge (by its XCTest frame) was looked for; text truncated inside its own frame cannot be seen'
        : 'text without a reported natural width was looked at only against the screen’s edge; truncation inside its frame cannot be seen',
  });

  return summarise(findings.list, notEvaluated);
}

/** A text an eye reads: a static text (or a header) with something announced. */
function isText(item: Item): boolean {
  return (item.kind === 'text' || item.kind === 'header') && item.label !== '';
}

/** A view the user scrolls: what lies past its frame is brought into view, not cut. */
function isScroller(node: UiNode): boolean {
  return nodeFlag(node, 'scrollable') || /scroll|table|collection|webview/i.test(node.className ?? '');
}

function sourceName(node: UiNode): string {
  return nodeSource(node) === 'sdkWebBridge' ? 'the web page' : 'the SDK bridge';
}

function describe(item: Item, label: string): string {
  return label ? `The ${item.kind} “${label}”` : `An unlabelled ${item.kind}`;
}

/** Targets that overlap without one containing the other (a button in a cell is fine), by a grid of 44-pt buckets. */
const BUCKET_LIMIT = 32;

function overlaps(targets: Item[], findings: Findings): void {
  const buckets = new Map<number, Item[]>();
  const seenBy = new Map<Item, number>();
  for (const item of targets) {
    const r = item.rect;
    // The targets met in this target's cells, each once (a stamp, not a Set: no allocation per target).
    const candidates: Item[] = [];
    forCells(r, (cell) => {
      let bucket = buckets.get(cell);
      if (!bucket) buckets.set(cell, (bucket = []));
      for (const other of bucket) {
        if (seenBy.get(other) === item.order) continue;
        seenBy.set(other, item.order);
        candidates.push(other);
      }
      // A pathological screen of stacked targets: a bucket stops growing past what anyone could read,
      // so the check stays linear (the first BUCKET_LIMIT targets of a spot are still compared).
      if (bucket.length < BUCKET_LIMIT) bucket.push(item);
    });
    for (const other of candidates) {
      const shared = intersect(r, other.rect);
      if (!shared || rectWidth(shared) < 1 || rectHeight(shared) < 1) continue;
      if (sameRect(r, other.rect) || contains(r, other.rect) || contains(other.rect, r)) continue;
      const otherLabel = other.label || other.kind;
      findings.add('R-A11Y-08', item, () => ({
        message: `${describe(item, item.label)} overlaps “${otherLabel}” by ${rectWidth(shared)} × ${rectHeight(shared)} pt.`,
        evidence: {
          other: otherLabel,
          otherNodeKey: other.key,
          overlap: rectText(shared),
        },
      }));
      // One finding per target (its fingerprint): the first overlap found names the other.
      break;
    }
  }
}

/** Contrast of every text VoiceOver reaches; the number of texts the sample budget left unmeasured. */
function contrast(reached: Array<{ item: Item; view: UiNode }>, input: AuditInput, findings: Findings): number {
  let budget = CONTRAST_SAMPLE_BUDGET;
  let skipped = 0;
  const sampled = new Map<string, FrameColors | undefined>();
  const pixels = input.pixels!;
  const scale = pixels.width / input.screen!.width;
  const safeTop = input.safeArea?.top ?? 0;
  const safeBottom = input.screen!.height - (input.safeArea?.bottom ?? 0);
  for (const { item, view } of reached) {
    const kind = isControl(item.kind) ? item.kind : xctestKind(view);
    if (kind !== 'text' && kind !== 'header' && kind !== 'button' && kind !== 'link') continue;
    // Disabled controls are exempt (WCAG 2.2 SC 1.4.3: "part of an inactive user interface component").
    if (!nodeFlag(item.node, 'enabled')) continue;
    const label = announcedLabel(view);
    const r = item.rect;
    if (!label || !item.visible || !sameRect(item.visible, r)) continue;
    // The system draws the status bar and home indicator over these strips: their pixels are not the app's.
    if (r.top < safeTop || r.bottom > safeBottom) continue;
    // A bar drawn over the text (a tab bar over a list's last row) hides it: its pixels are the bar's.
    if (item.covered) continue;
    // Inset from the frame's edge: rounded corners and borders show what is behind the control, not its text.
    const inset = Math.min(4, rectHeight(r) * 0.15, rectWidth(r) * 0.15);
    // Frames stacked on one spot (a merged node and the XCTest node kept beside it, cells of a carousel
    // laid over each other) are one set of pixels: each is read once, so stacking costs no samples.
    const spot = `${r.left},${r.top},${r.right},${r.bottom}`;
    let colors = sampled.get(spot);
    if (!sampled.has(spot)) {
      if (budget <= 0) {
        skipped++;
        continue;
      }
      colors = frameColors(pixels, (r.left + inset) * scale, (r.top + inset) * scale, (r.right - inset) * scale, (r.bottom - inset) * scale);
      sampled.set(spot, colors);
      if (colors) budget -= colors.samples;
    }
    if (!colors) continue;
    const fontPt = kind === 'text' || kind === 'header' ? singleLineFontPt(label, r) : undefined;
    const large = fontPt !== undefined && fontPt >= LARGE_TEXT_PT;
    const required = large ? MIN_CONTRAST_LARGE : MIN_CONTRAST;
    const ratio = Math.round(contrastRatio(colors.foreground, colors.background) * 100) / 100;
    if (ratio >= required) continue;
    const fg = hex(colors.foreground);
    const bg = hex(colors.background);
    findings.add('R-A11Y-09', item, () => ({
      message: `“${label}” is ${fg} on ${bg}: ${ratio.toFixed(2)}:1, under the ${required}:1 ${large ? 'large text' : 'text'} needs.`,
      evidence: {
        ratio,
        required,
        foreground: fg,
        background: bg,
        textSize: large ? `large (about ${Math.round(fontPt!)} pt)` : 'normal',
        samples: colors.samples,
      },
      colors: { foreground: fg, background: bg, ratio, required },
    }));
  }
  return skipped;
}

/**
 * The font size a one-line label's frame implies (a line is about 1.2 × the font size), or undefined
 * when the text would not fit on one line at that size (then its size is unknown, and the stricter
 * normal-text minimum applies).
 */
function singleLineFontPt(label: string, r: Rect): number | undefined {
  const font = rectHeight(r) / 1.2;
  return [...label].length * font * 0.5 <= rectWidth(r) * 1.15 ? font : undefined;
}

function summarise(all: Pending[], notEvaluated: AccessibilityAudit['summary']['notEvaluated']): AccessibilityAudit {
  const rank = (s: A11ySeverity) => A11Y_SEVERITIES.indexOf(s);
  const bySeverity = Object.fromEntries(A11Y_SEVERITIES.map((s) => [s, 0])) as Record<A11ySeverity, number>;
  const byKind = Object.fromEntries(A11Y_KINDS.map((k) => [k, 0])) as Record<A11yKind, number>;
  for (const f of all) {
    bySeverity[f.severity]++;
    byKind[A11Y_RULES[f.rule].kind]++;
  }
  // Most severe first, in the order found (a stable sort); only the kept ones are made whole.
  const kept = [...all].sort((a, b) => rank(a.severity) - rank(b.severity)).slice(0, MAX_A11Y_FINDINGS);
  const audit: AccessibilityAudit = {
    violations: kept.map(materialise),
    summary: { total: all.length, bySeverity, byKind, notEvaluated },
  };
  if (all.length > MAX_A11Y_FINDINGS) audit.truncated = { total: all.length, omitted: all.length - MAX_A11Y_FINDINGS };
  return audit;
}

/**
 * The screen as XCTest (through the AutoMobile runner) reports it: UIElementInfo nodes with string
 * booleans, integer point bounds truncated the way the runner truncates frames, an XCUIApplication
 * root, and web content as anonymous leaves (labels and values, never DOM ids). Pure functions of a
 * ScreenCapture, so the same capture always projects to the same tree.
 */
import { createHash } from 'node:crypto';
import type { Bounds, UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { DEVICE_GEOMETRY } from './browser';
import type { NativeCapture, NativeNode, Rect, ScreenCapture, WebLeaf } from './capture-model';

export const DEMO_BUNDLE_ID = 'dev.parallax.demo';
export const DEMO_APP_NAME = 'Parallax Demo';

export interface ProjectionOptions {
  bundleId?: string;
  /** Only the application root, the sparse shape of docs/rules.md#r-qua-02. */
  sparse?: boolean;
  now?: number;
}

/** The runner truncates each edge of a CGRect to an Int. */
export function truncateBounds([x, y, w, h]: Rect): Bounds {
  return { left: Math.trunc(x), top: Math.trunc(y), right: Math.trunc(x + w), bottom: Math.trunc(y + h) };
}

/** Ids already derived: a heavy screen asks for 50,000 per read, the same ones each time. */
const viewIds = new Map<string, string>();
const MAX_VIEW_IDS = 250_000;

/** A stable stand-in for the runner's per-element UUID, derived from where the element sits. */
function viewId(seed: string): string {
  const known = viewIds.get(seed);
  if (known !== undefined) return known;
  const hex = createHash('sha1').update(seed).digest('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  if (viewIds.size >= MAX_VIEW_IDS) viewIds.clear();
  viewIds.set(seed, id);
  return id;
}

const CLICKABLE = new Set(['UIButton', 'UITextField', 'UISecureTextField', 'UITextView', 'UISwitch', 'UICollectionViewCell', 'UITableViewCell']);

function roleFor(node: NativeNode): string | undefined {
  if (node.role === 'heading' || node.role === 'text') return node.role;
  switch (node.cls) {
    case 'UIButton':
      return 'button';
    case 'UILabel':
      return 'text';
    case 'UITextField':
    case 'UISecureTextField':
    case 'UITextView':
      return 'textfield';
    case 'UIImageView':
      return 'image';
    case 'UISwitch':
      return 'switch';
    case 'UICollectionView':
    case 'UITableView':
      return 'list';
    case 'UICollectionViewCell':
    case 'UITableViewCell':
      return 'listitem';
    default:
      return node.role;
  }
}

/** UIKit reads a secure field's value as bullets, one per character (XCTest and AppReveal alike). */
export const bullets = (value: string) => '•'.repeat([...value].length);

/** One view's own fields, as XCTest reads them (its children are the caller's). */
function nativeFields(node: NativeNode, path: string): UiNode {
  const ui: UiNode = { className: node.cls, bounds: truncateBounds(node.rect) };
  const role = roleFor(node);
  if (role) ui.role = role;

  readText(ui, { ...node, editable: node.editable === true });
  if (node.id) {
    ui['resource-id'] = node.id;
    ui['view-id'] = node.id;
  } else {
    ui['view-id'] = viewId(`${path}|${node.cls}`);
  }
  if (CLICKABLE.has(node.cls)) ui.clickable = 'true';
  if (!node.enabled) ui.enabled = 'false';
  if (node.focused) ui.focused = 'true';
  if (node.scrollable) ui.scrollable = 'true';
  if (node.checkable) {
    ui.checkable = 'true';
    ui.checked = node.checked ? 'true' : 'false';
  }
  if (node.selected) ui.selected = 'true';
  return ui;
}

/** How many views the projection makes between two chances to yield. */
const STEP_VIEWS = 256;

/**
 * A view and everything under it, depth by depth with an explicit stack (a heavy screen is 50,000 views),
 * yielding every STEP_VIEWS views so a caller may let its event loop run. `children` false: the view
 * alone. Each view's fields come first and its children (`node`) last, as they always did.
 */
function* nativeToUi(root: NativeNode, capture: ScreenCapture, children: boolean): Generator<void, UiNode> {
  const top: UiNode[] = [];
  const pending: Array<{ node: NativeNode; path: string; into: UiNode[]; index: number }> = [{ node: root, path: '0', into: top, index: 0 }];
  for (let done = 1; pending.length; done++) {
    const { node, path, into, index } = pending.pop()!;
    const ui = nativeFields(node, path);
    into[index] = ui;
    if (children) {
      // accessibilityElementsHidden: XCTest (like VoiceOver) gets nothing of the view or what is in it.
      const shown: Array<[NativeNode, number]> = [];
      node.children.forEach((child, i) => {
        if (!child.axHidden) shown.push([child, i]);
      });
      const web = node.webViewId ? capture.web[node.webViewId] : undefined;
      const nodes = new Array<UiNode>(shown.length + (web ? web.leaves.length : 0));
      for (let i = shown.length - 1; i >= 0; i--) pending.push({ node: shown[i]![0], path: `${path}.${shown[i]![1]}`, into: nodes, index: i });
      if (web) {
        const origin = node.contentOrigin ?? [node.rect[0], node.rect[1]];
        web.leaves.forEach((leaf, i) => (nodes[shown.length + i] = webLeafToUi(leaf, origin, `${path}.web.${i}`)));
      }
      if (nodes.length > 0) ui.node = nodes;
    }
    if (done % STEP_VIEWS === 0) yield;
  }
  return top[0]!;
}

const WEB_CLASS: Record<WebLeaf['kind'], { className: string; role: string }> = {
  textfield: { className: 'UITextField', role: 'textfield' },
  textview: { className: 'UITextView', role: 'textfield' },
  switch: { className: 'UISwitch', role: 'switch' },
  popup: { className: 'UIButton', role: 'button' },
  button: { className: 'UIButton', role: 'button' },
  link: { className: 'UIButton', role: 'link' },
  image: { className: 'UIImageView', role: 'image' },
  heading: { className: 'UILabel', role: 'heading' },
  text: { className: 'UILabel', role: 'text' },
};

function webLeafToUi(leaf: WebLeaf, origin: [number, number], path: string): UiNode {
  const [x, y, w, h] = leaf.rect;
  const { role } = WEB_CLASS[leaf.kind];
  const className = leaf.kind === 'textfield' && leaf.secure ? 'UISecureTextField' : WEB_CLASS[leaf.kind].className;
  const ui: UiNode = { className, role, bounds: truncateBounds([x + origin[0], y + origin[1], w, h]), 'view-id': viewId(`${path}|${className}`) };
  const editable = leaf.kind === 'textfield' || leaf.kind === 'textview';
  readText(ui, { ...leaf, editable });
  if (leaf.kind !== 'heading' && leaf.kind !== 'text' && leaf.kind !== 'image') ui.clickable = 'true';
  if (!leaf.enabled) ui.enabled = 'false';
  if (leaf.focused) ui.focused = 'true';
  if (leaf.kind === 'switch') {
    ui.checkable = 'true';
    ui.checked = leaf.checked ? 'true' : 'false';
  }
  return ui;
}

/** Safe area, cutout and chrome, measured from the rendered system chrome. */
export function projectInsets(native: NativeCapture): NonNullable<ViewHierarchy['insets']> {
  const cutout = native.chrome.cutout;
  const statusBar = native.chrome['status-bar'];
  const home = native.chrome['home-indicator'];
  return {
    available: true,
    source: 'uiwindow_safe_area',
    units: 'points',
    safeArea: {
      top: statusBar ? Math.round(statusBar[1] + statusBar[3]) : native.safeArea.top,
      left: 0,
      bottom: home ? Math.round(home[3]) : native.safeArea.bottom,
      right: 0,
    },
    displayCutoutInfo: cutout ? { classification: 'dynamic_island', bounds: [truncateBounds(cutout)] } : { classification: 'none' },
    systemChrome: {
      visibility: native.statusBarVisible ? 'visible' : 'partial',
      statusBar: native.statusBarVisible ? 'visible' : 'hidden',
      homeIndicatorAutoHideRequested: false,
      source: 'uiwindowscene',
    },
  };
}

/** Projections already made, per capture and form: a push and the replies for one frame share one. */
const projections = new WeakMap<ScreenCapture, Map<boolean, ViewHierarchy>>();

/** The `hierarchy_update.data` XCTest would produce for this capture (the same object again for the same capture and form). */
export function projectHierarchy(capture: ScreenCapture, options: ProjectionOptions = {}): ViewHierarchy {
  const steps = projectionSteps(capture, options);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * projectHierarchy, letting the event loop run every few milliseconds: a heavy screen's projection
 * costs over 100 ms in one go, and the device answers nothing meanwhile (docs/rules.md#r-perf-10).
 */
export async function projectHierarchySliced(capture: ScreenCapture, options: ProjectionOptions = {}): Promise<ViewHierarchy> {
  const steps = projectionSteps(capture, options);
  let deadline = performance.now() + SLICE_MS;
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (performance.now() >= deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      deadline = performance.now() + SLICE_MS;
    }
  }
}

/** How long the sliced projection works before it lets the event loop run. */
const SLICE_MS = 8;

function* projectionSteps(capture: ScreenCapture, options: ProjectionOptions): Generator<void, ViewHierarchy> {
  // Only the plain form is kept: a bundle id or a clock of the caller's makes another tree.
  const keep = options.bundleId === undefined && options.now === undefined;
  const sparse = options.sparse === true;
  const known = keep ? projections.get(capture)?.get(sparse) : undefined;
  if (known) return known;
  const { width, height, scale } = DEVICE_GEOMETRY;
  const screenBounds: Bounds = { left: 0, top: 0, right: width, bottom: height };
  const rootSource = capture.native.root;
  let hierarchy: UiNode;
  if (!rootSource) {
    hierarchy = { className: 'XCUIApplication', bounds: screenBounds, text: DEMO_APP_NAME };
  } else {
    // The sparse form is the application root alone: its views are never made.
    hierarchy = yield* nativeToUi(rootSource, capture, !sparse);
    // The root is the application, whatever the page's root view measures.
    hierarchy.bounds = screenBounds;
    hierarchy.text = DEMO_APP_NAME;
  }
  const insets = projectInsets(capture.native);
  const window = { id: 0, type: 1, isActive: true, isFocused: true, bounds: screenBounds };
  const data: ViewHierarchy = {
    updatedAt: options.now ?? capture.takenAt,
    packageName: options.bundleId ?? DEMO_BUNDLE_ID,
    hierarchy,
    windowInfo: window,
    windows: [window],
    screenScale: scale,
    screenWidth: width,
    screenHeight: height,
    nativeScale: scale,
    pixelWidth: width * scale,
    pixelHeight: height * scale,
    rotation: 0,
    systemInsets: insets.safeArea ?? { top: 0, left: 0, bottom: 0, right: 0 },
    insets,
  };
  if (keep) {
    let forms = projections.get(capture);
    if (!forms) projections.set(capture, (forms = new Map()));
    forms.set(sparse, data);
  }
  return data;
}

/** XCTest's message when it cannot serialise a screen's accessibility tree (R-STR-09, Bluesky-class apps). */
export function axErrorMessage(code: string, bundleId = DEMO_BUNDLE_ID): string {
  return `Failed to get snapshot for ${bundleId}: Error ${code === 'kAXErrorIllegalArgument' ? '-25201' : '-25200'} (${code}) while serializing the accessibility hierarchy`;
}

/**
 * The text attributes XCTest reads off an element, native or web: a field's value (its placeholder when
 * empty, bullets when secure) with its hint and label; anything else its label and value.
 */
function readText(
  ui: UiNode,
  element: { editable: boolean; secure?: boolean | undefined; value?: string | undefined; placeholder?: string | undefined; label?: string | undefined },
): void {
  if (element.editable) {
    const value = element.secure ? bullets(element.value ?? '') : (element.value ?? '');
    // An empty field reads as its placeholder, as XCTest's value does.
    const shown = value || element.placeholder || element.label;
    if (shown) ui.text = shown;
    if (element.placeholder) ui['hint-text'] = element.placeholder;
    if (element.label && element.label !== shown) ui['content-desc'] = element.label;
    ui.actions = ['set_text', 'clear_text'];
    ui.focusable = 'true';
    if (element.secure) ui.password = 'true';
  } else {
    if (element.label) ui.text = element.label;
    if (element.value) ui.value = element.value;
  }
}

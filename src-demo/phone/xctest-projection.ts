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

function nativeToUi(node: NativeNode, path: string, capture: ScreenCapture): UiNode {
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

  // accessibilityElementsHidden: XCTest (like VoiceOver) gets nothing of the view or what is in it.
  const children: UiNode[] = node.children.flatMap((child, i) => (child.axHidden ? [] : [nativeToUi(child, `${path}.${i}`, capture)]));
  if (node.webViewId) {
    const web = capture.web[node.webViewId];
    const origin = node.contentOrigin ?? [node.rect[0], node.rect[1]];
    if (web) web.leaves.forEach((leaf, i) => children.push(webLeafToUi(leaf, origin, `${path}.web.${i}`)));
  }
  if (children.length > 0) ui.node = children;
  return ui;
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

/** The `hierarchy_update.data` XCTest would produce for this capture. */
export function projectHierarchy(capture: ScreenCapture, options: ProjectionOptions = {}): ViewHierarchy {
  const { width, height, scale } = DEVICE_GEOMETRY;
  const screenBounds: Bounds = { left: 0, top: 0, right: width, bottom: height };
  const rootSource = capture.native.root;
  let hierarchy: UiNode;
  if (!rootSource) {
    hierarchy = { className: 'XCUIApplication', bounds: screenBounds, text: DEMO_APP_NAME };
  } else {
    hierarchy = nativeToUi(rootSource, '0', capture);
    // The root is the application, whatever the page's root view measures.
    hierarchy.bounds = screenBounds;
    hierarchy.text = DEMO_APP_NAME;
    if (options.sparse) delete hierarchy.node;
  }
  const insets = projectInsets(capture.native);
  const window = { id: 0, type: 1, isActive: true, isFocused: true, bounds: screenBounds };
  return {
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

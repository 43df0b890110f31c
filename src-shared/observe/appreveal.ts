/**
 * Observe: an AppReveal app (docs/protocol.md#p-ar-projection). Its elements projected onto the runner's
 * node shape, so the screen, tree and attributes panes draw them like any other tree, and the
 * observation an AppReveal read makes, with the quality verdict that says it is the app's own list and
 * not an XCTest read (docs/rules.md#r-ar-24).
 */
import type { AppRevealElement, AppRevealFrame, AppRevealIdentity, AppRevealScreenInfo } from '@shared/protocol/appreveal';
import type { Observation, Quality, Strategy } from '@shared/protocol/observation';
import type { Bounds, UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { assembleObservation } from './assemble';
import { hidesText } from '@shared/model/node';

// ---- Projection onto the runner's node shape ---------------------------------------------------------

/** extras keys the projection sets; `appreveal.ocr` is "true" only on OCR-derived elements. */
export const APPREVEAL_EXTRAS = {
  idSource: 'appreveal.idSource',
  ocr: 'appreveal.ocr',
  type: 'appreveal.type',
  visible: 'appreveal.visible',
  screenKey: 'appreveal.screenKey',
  screenSource: 'appreveal.screenSource',
  confidence: 'appreveal.confidence',
  frameworkType: 'appreveal.frameworkType',
  appBarTitle: 'appreveal.appBarTitle',
  /** DOM elements (Tauri): the page's tag, role and input type, the app's CSS selector, and the window it is in. */
  tag: 'appreveal.tag',
  domRole: 'appreveal.role',
  selector: 'appreveal.selector',
  windowId: 'appreveal.windowId',
  inputType: 'appreveal.inputType',
} as const;

/** The root's className: not XCUIApplication, so nothing mistakes an AppReveal tree for an XCTest one. */
export const APPREVEAL_ROOT_CLASS = 'AppRevealScreen';

const ROLE_BY_TYPE: Record<string, string> = {
  button: 'button',
  link: 'link',
  textfield: 'textfield',
  securetextfield: 'textfield',
  searchfield: 'textfield',
  textview: 'textfield',
  textarea: 'textfield',
  input: 'textfield',
  label: 'text',
  text: 'text',
  statictext: 'text',
  image: 'image',
  imageview: 'image',
  cell: 'listitem',
  tableviewcell: 'listitem',
  collectionviewcell: 'listitem',
  listitem: 'listitem',
  heading: 'heading',
  header: 'heading',
  toggle: 'switch',
  switch: 'switch',
  checkbox: 'checkbox',
  slider: 'slider',
  stepper: 'stepper',
  tab: 'tab',
  tabbar: 'tabbar',
  navigationbar: 'navigationbar',
  scrollview: 'scrollview',
  tableview: 'list',
  collectionview: 'list',
  webview: 'webview',
  // Flutter's widget kinds and the DOM kinds domElementKind gives.
  iconbutton: 'button',
  floatingactionbutton: 'button',
  tappable: 'button',
  radio: 'radio',
  picker: 'picker',
  dropdown: 'picker',
  popupmenubutton: 'button',
  listtile: 'listitem',
  switchlisttile: 'switch',
  checkboxlisttile: 'checkbox',
  segmentedcontrol: 'tabbar',
};

/** Kinds that take text, whatever actions the port listed. */
const TEXT_KINDS = new Set(['textfield', 'securetextfield', 'searchfield', 'textview', 'textarea', 'input']);
/**
 * HTML input types that take no typed text: a web control so typed is never offered for typing, whatever
 * kind or actions the port gave it (AppReveal iOS lists a checkbox input as `toggle` with inputType
 * "checkbox"; DOMSerializer.swift interactiveJS reports the same `node.type`).
 */
const NON_TEXT_INPUT_TYPES = new Set(['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'hidden', 'range', 'color']);
const CHECKABLE_INPUT_TYPES = new Set(['checkbox', 'radio']);
/** Kinds that are on or off. */
const CHECKABLE_KINDS = new Set(['toggle', 'switch', 'checkbox', 'radio', 'switchlisttile', 'checkboxlisttile']);

/** The role of an input that takes no text but was listed under a text kind: its own input type's role. */
const nonTextRole = (inputType: string | undefined) => (inputType !== undefined && CHECKABLE_INPUT_TYPES.has(inputType) ? inputType : 'button');

export function boundsOfFrame(frame: AppRevealFrame): Bounds {
  const left = Math.round(frame.x);
  const top = Math.round(frame.y);
  return { left, top, right: Math.round(frame.x + frame.width), bottom: Math.round(frame.y + frame.height) };
}

/** One element as a runner node: kebab-case keys, string booleans, integer bounds (docs/protocol.md#p-ar-projection). */
export function appRevealElementToUiNode(element: AppRevealElement): UiNode {
  const typeKey = element.type.toLowerCase().replace(/[^a-z]/g, '');
  const extras: Record<string, string> = { [APPREVEAL_EXTRAS.type]: element.type };
  if (element.idSource !== undefined) extras[APPREVEAL_EXTRAS.idSource] = element.idSource;
  if (element.ocr) extras[APPREVEAL_EXTRAS.ocr] = 'true';
  if (!element.visible) extras[APPREVEAL_EXTRAS.visible] = 'false';
  if (element.tag !== undefined) extras[APPREVEAL_EXTRAS.tag] = element.tag;
  if (element.role !== undefined) extras[APPREVEAL_EXTRAS.domRole] = element.role;
  if (element.selector !== undefined) extras[APPREVEAL_EXTRAS.selector] = element.selector;
  if (element.windowId !== undefined) extras[APPREVEAL_EXTRAS.windowId] = element.windowId;
  if (element.inputType !== undefined) extras[APPREVEAL_EXTRAS.inputType] = element.inputType;
  const actions = new Set(element.actions.map((action) => action.toLowerCase()));
  // iOS says "type", Tauri "type_text"; a text kind is editable even when the port lists no actions.
  const inputType = element.inputType?.trim().toLowerCase();
  const takesNoText = inputType !== undefined && NON_TEXT_INPUT_TYPES.has(inputType);
  const editable = !takesNoText && (actions.has('type') || actions.has('type_text') || actions.has('set_text') || TEXT_KINDS.has(typeKey));
  const node: UiNode = {
    'resource-id': element.id,
    'view-id': element.id,
    className: element.type,
    role: editable ? 'textfield' : takesNoText && TEXT_KINDS.has(typeKey) ? nonTextRole(inputType) : (ROLE_BY_TYPE[typeKey] ?? typeKey),
    bounds: boundsOfFrame(element.frame),
    extras,
    actions: [...element.actions],
    enabled: element.enabled ? 'true' : 'false',
    clickable: element.tappable ? 'true' : 'false',
  };
  // A secure field's text is a secret wherever it came from (docs/rules.md#r-secret). Tauri's snapshot
  // reads a field's value and may fall back to it for the label, so neither is carried for one.
  // The one rule (model/node.ts hidesText): a secure kind, inputType password, or a value of bullets
  // only, which is how iOS AppReveal reports a secure UITextField (its type is plain `textField`).
  const secret = hidesText({ className: element.type, ...(element.inputType !== undefined ? { inputType: element.inputType } : {}), value: element.value });
  const label = secret && element.label === element.value ? undefined : element.label;
  const value = secret ? undefined : element.value;
  if (secret) node.password = 'true';
  if (label !== undefined) node.text = label;
  if (value !== undefined) node.value = value;
  if (label !== undefined && value !== undefined) node['content-desc'] = label;
  if (actions.has('scroll')) node.scrollable = 'true';
  if (editable) node.focusable = 'true';
  if (CHECKABLE_KINDS.has(typeKey) || (inputType !== undefined && CHECKABLE_INPUT_TYPES.has(inputType))) {
    node.checkable = 'true';
    const on = element.value?.toLowerCase();
    if (on === '1' || on === 'true' || on === 'on') node.checked = 'true';
  }
  return node;
}

export interface ScreenGeometry {
  width: number;
  height: number;
}

/**
 * The elements under one root that stands for the screen. AppReveal's elements are a flat list (no
 * containment), so they are the root's children in the order the app listed them.
 */
export function appRevealElementsToUiNodes(elements: readonly AppRevealElement[], screen?: AppRevealScreenInfo, geometry?: ScreenGeometry): UiNode {
  const extras: Record<string, string> = {};
  if (screen) {
    extras[APPREVEAL_EXTRAS.screenKey] = screen.screenKey;
    if (screen.source !== undefined) extras[APPREVEAL_EXTRAS.screenSource] = screen.source;
    if (screen.confidence !== undefined) extras[APPREVEAL_EXTRAS.confidence] = String(screen.confidence);
    if (screen.frameworkType !== undefined) extras[APPREVEAL_EXTRAS.frameworkType] = screen.frameworkType;
    if (screen.appBarTitle !== undefined) extras[APPREVEAL_EXTRAS.appBarTitle] = screen.appBarTitle;
  }
  const root: UiNode = {
    className: APPREVEAL_ROOT_CLASS,
    bounds: geometry ? boundsOfFrame({ x: 0, y: 0, ...geometry }) : unionBounds(elements),
    extras,
    node: elements.map(appRevealElementToUiNode),
  };
  if (screen?.screenTitle !== undefined) root.text = screen.screenTitle;
  if (screen) root['resource-id'] = screen.screenKey;
  return root;
}

/** A ViewHierarchy for the frame the renderer draws, built from one get_screen + get_elements. */
export function appRevealViewHierarchy(input: {
  elements: readonly AppRevealElement[];
  screen?: AppRevealScreenInfo;
  bundleId?: string;
  geometry?: ScreenGeometry;
  updatedAt?: number;
}): ViewHierarchy {
  const hierarchy = appRevealElementsToUiNodes(input.elements, input.screen, input.geometry);
  const result: ViewHierarchy = { hierarchy, updatedAt: input.updatedAt ?? Date.now() };
  if (input.bundleId !== undefined) result.packageName = input.bundleId;
  if (input.geometry) {
    result.screenWidth = Math.round(input.geometry.width);
    result.screenHeight = Math.round(input.geometry.height);
  }
  return result;
}

function unionBounds(elements: readonly AppRevealElement[]): Bounds {
  if (elements.length === 0) return { left: 0, top: 0, right: 0, bottom: 0 };
  const all = elements.map((element) => boundsOfFrame(element.frame));
  // The screen's origin is 0,0 even when every element sits lower and to the right.
  return {
    left: Math.min(0, ...all.map((b) => b.left)),
    top: Math.min(0, ...all.map((b) => b.top)),
    right: Math.max(...all.map((b) => b.right)),
    bottom: Math.max(...all.map((b) => b.bottom)),
  };
}

// ---- The observation ---------------------------------------------------------------------------------

/** How get_elements went: its elements, a failure, or no such tool. */
export type AppRevealElementsRead =
  | { kind: 'read'; elements: readonly AppRevealElement[]; screenKey?: string | undefined; viewport?: { width: number; height: number } | undefined }
  | { kind: 'failed'; message: string }
  | { kind: 'not_offered' };

export interface AppRevealObservationInput {
  strategy: Strategy;
  now: number;
  elements: AppRevealElementsRead;
  screen?: AppRevealScreenInfo | undefined;
  identity?: AppRevealIdentity | undefined;
  geometry?: ScreenGeometry | undefined;
  timings?: Record<string, number> | undefined;
  /** The other reads (get_screen, list_windows) that failed, each with the app's message. */
  readErrors?: ReadonlyArray<{ tool: string; message: string }> | undefined;
}

/**
 * The verdict of an AppReveal read. It is never `xctest_tree`: the tree is the app's own inventory, read
 * in-process; an app that lists nothing, lists no get_elements, or did not answer it is `sparse`, so the
 * empty tree is never read as "the screen has no controls" (docs/rules.md#r-ar-24).
 */
export function appRevealQuality(read: AppRevealElementsRead): Quality {
  if (read.kind === 'not_offered') return { verdict: 'sparse', reason: 'appreveal_elements_not_offered' };
  if (read.kind === 'failed') return { verdict: 'sparse', reason: 'appreveal_elements_failed' };
  return read.elements.length > 0 ? { verdict: 'healthy', reason: 'appreveal_elements' } : { verdict: 'sparse', reason: 'appreveal_no_elements' };
}

/** One AppReveal read as an Observation: backend `appreveal`, its own verdict, each failed read an `appreveal` error. */
export function appRevealObservation(input: AppRevealObservationInput): Observation {
  const read = input.elements;
  const hierarchy = appRevealViewHierarchy({
    elements: read.kind === 'read' ? read.elements : [],
    ...(input.screen ? { screen: input.screen } : {}),
    ...(input.identity?.bundleId !== undefined ? { bundleId: input.identity.bundleId } : {}),
    ...(input.geometry ? { geometry: input.geometry } : {}),
    updatedAt: input.now,
  });
  const observation = assembleObservation({
    strategy: input.strategy,
    // AppReveal is its own backend: there is no XCTest read for the SDK bridge to merge into.
    flagEnabled: false,
    now: input.now,
    hierarchy: { ok: true, hierarchy },
    discovery: undefined,
    timings: input.timings,
  });
  observation.updatedAtSource = 'server';
  observation.backend = 'appreveal';
  observation.quality = appRevealQuality(read);
  if (read.kind === 'failed') observation.errors.push({ stage: 'appreveal', code: 'hierarchy_unavailable', message: `get_elements: ${read.message}` });
  for (const failure of input.readErrors ?? []) {
    observation.errors.push({ stage: 'appreveal', code: 'hierarchy_error', message: `${failure.tool}: ${failure.message}` });
  }
  return observation;
}

// ---- Desktop (Tauri) geometry: one coordinate space for windows and elements --------------------------

/**
 * The scale factor a Tauri window's frame implies: its outer width in physical pixels (list_windows:
 * `outer_position`, `outer_size`, tauri_integration.rs tauri_windows) over its web view's width in CSS
 * pixels (`innerWidth`), snapped to the quarter steps desktop scale factors take, so a window border's few
 * pixels do not skew it; never below 1, as the crate's own `scale_factor().max(1.0)` (window_css_origin).
 */
export function desktopScaleOf(outerWidth: number, viewportWidth: number): number {
  if (!(outerWidth > 0) || !(viewportWidth > 0)) return 1;
  return Math.max(1, Math.round((outerWidth / viewportWidth) * 4) / 4);
}

/**
 * A window's frame (physical pixels, outer position) in the space its elements are drawn in: CSS pixels
 * from the web view's top-left, whose place on the screen is `origin` (inner_position / scale, CSS px).
 * So a window outline and the boxes inside it line up whatever the scale and wherever the window is
 * (docs/rules.md#r-ar-33).
 */
export function windowFrameInViewport(frame: AppRevealFrame, viewport: { width: number; height: number }, origin: { x: number; y: number }): AppRevealFrame {
  const scale = desktopScaleOf(frame.width, viewport.width);
  return { x: frame.x / scale - origin.x, y: frame.y / scale - origin.y, width: frame.width / scale, height: frame.height / scale };
}

/**
 * What the audit asks of one node of a merged tree: what kind of element it is, what XCTest (and so
 * VoiceOver) reports for it, and what VoiceOver announces. The three sources name kinds differently
 * (XCTest's runner roles "button"/"heading", the SDK bridge's roles as className "button"/"header"/
 * "staticText", UIKit class names, a DOM's web-role): this is the one place that maps them.
 */
import { nodeSource, xctestTwinOf } from '@shared/model/node';
import type { UiNode } from '@shared/protocol/runner';

export type ElementKind = 'button' | 'link' | 'textfield' | 'switch' | 'slider' | 'image' | 'header' | 'text' | 'cell' | 'bar' | 'other';

const BY_NAME: Record<string, ElementKind> = {
  button: 'button',
  uibutton: 'button',
  popup: 'button',
  popupbutton: 'button',
  menubutton: 'button',
  link: 'link',
  textfield: 'textfield',
  securetextfield: 'textfield',
  textview: 'textfield',
  searchfield: 'textfield',
  uitextfield: 'textfield',
  uisecuretextfield: 'textfield',
  uitextview: 'textfield',
  uisearchbar: 'textfield',
  switch: 'switch',
  checkbox: 'switch',
  uiswitch: 'switch',
  slider: 'slider',
  uislider: 'slider',
  stepper: 'slider',
  image: 'image',
  uiimageview: 'image',
  img: 'image',
  header: 'header',
  heading: 'header',
  statictext: 'text',
  text: 'text',
  uilabel: 'text',
  label: 'text',
  cell: 'cell',
  listitem: 'cell',
  uicollectionviewcell: 'cell',
  uitableviewcell: 'cell',
  navigationbar: 'bar',
  tabbar: 'bar',
  toolbar: 'bar',
  uinavigationbar: 'bar',
  uitabbar: 'bar',
  uitoolbar: 'bar',
};

/** Names met, by their own spelling: a screen repeats a few class names thousands of times, so each is lower-cased once (R-A11Y-16). */
const KIND_OF = new Map<string, ElementKind | null>();
const MAX_NAMES_KEPT = 10_000;
function kindOfName(name: unknown): ElementKind | undefined {
  if (typeof name !== 'string') return undefined;
  let kind = KIND_OF.get(name);
  if (kind === undefined) {
    const lower = name.toLowerCase();
    // Own keys only: a class named "constructor" is no kind.
    kind = Object.hasOwn(BY_NAME, lower) ? BY_NAME[lower]! : null;
    // Names a device makes up without end (a class per cell) cannot grow the memo past a bound.
    if (KIND_OF.size < MAX_NAMES_KEPT) KIND_OF.set(name, kind);
  }
  return kind ?? undefined;
}

/**
 * The kind the node's own source gives it: a DOM node's web-role, else the runner role, else the class
 * (an SDK bridge node's role travels as its className: observe/bridge-merge.ts).
 */
export function elementKind(node: UiNode): ElementKind {
  return kindOfName(node['web-role']) ?? kindOfName(node.role) ?? kindOfName(node.className) ?? 'other';
}

/** Whether the kind is a control a finger or VoiceOver activates. */
export function isControl(kind: ElementKind): boolean {
  return kind === 'button' || kind === 'link' || kind === 'textfield' || kind === 'switch' || kind === 'slider';
}

/** What XCTest reports for the element: the node itself (an XCTest node), its twin (a merged node), or nothing. */
export function xctestView(node: UiNode): UiNode | undefined {
  if (nodeSource(node) === 'xctest') return node;
  return xctestTwinOf(node)?.node;
}

/** The kind XCTest gives the element: its role, else its class. */
export function xctestKind(node: UiNode): ElementKind {
  return kindOfName(node.role) ?? kindOfName(node.className) ?? 'other';
}

// Most labels are clean already: test before replacing, so they cost no new string (R-A11Y-16).
const UNCLEAN = /\s\s|[^\S ]|^ | $/;
const clean = (value: unknown): string => (typeof value !== 'string' ? '' : UNCLEAN.test(value) ? value.replace(/\s+/g, ' ').trim() : value);

/**
 * What VoiceOver announces as the element's name: its accessibility label, else the text it shows (a
 * field's placeholder, else its text: an empty field's text is its placeholder or label). `view` is what XCTest reports.
 */
export function announcedLabel(view: UiNode): string {
  const label = clean(view['content-desc']);
  if (label) return label;
  // An empty field shows its placeholder, or its label, as its text (XCTest's value): that is what is read.
  if (xctestKind(view) === 'textfield' || view.role === 'textfield') return clean(view['hint-text']) || clean(view.text);
  return clean(view.text);
}

/** The element's identifier, when it has one a person wrote (not a path the bridge made up: "UILabel@0.0.1"). */
export function authoredId(node: UiNode): string | undefined {
  const id = node['resource-id'];
  if (typeof id !== 'string' || id === '' || /@[\d.]+$/.test(id)) return undefined;
  return id;
}

/**
 * A node as XCUIElement attributes (docs/selectors.md#s-attributes): identifier, label, value,
 * placeholderValue, type, frame, enabled, selected, hasFocus. Every selector syntax (Maestro, XCUITest,
 * Appium) is a question about these, so they are read here once.
 *
 * The real runner writes an element's accessibility identifier to `resource-id`, its label to `text`, a
 * text input's value to `value` and its placeholder to `hint-text`, and never sets `content-desc`
 * (AutoMobile CtrlProxy, ElementLocator+Snapshot.swift `buildElementInfoFromSnapshot`). Bridge and DOM
 * nodes, and encoders that follow the Android layout (the demo's text fields), put the label in
 * `content-desc` and the value in `text`; both forms exist, so both are read: with a `content-desc`
 * the label is there and `text` is the value.
 */
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, nodeFlag, nodeSource, xctestTwinOf } from '@shared/model/node';
import type { NodeSource } from '@shared/protocol/observation';
import { elementTypeInfo, elementTypeOf, type ElementTypeName } from '@shared/model/element-type';

export interface ElementFrame {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ElementAttributes {
  identifier?: string;
  label?: string;
  value?: string;
  placeholderValue?: string;
  type: ElementTypeName;
  /** XCUIElementTypeButton. */
  xcuiType: string;
  frame?: ElementFrame;
  enabled: boolean;
  selected: boolean;
  hasFocus: boolean;
  /** A switch's or check box's state (the runner's `checked`). */
  checked: boolean;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

// Each identifying attribute read from a node's own fields, one function each, so the index's
// per-attribute columns (screen.ts) and the attribute records below read them the same way.

export function identifierOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  return text(raw['resource-id']);
}

export function labelOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  return text(raw['content-desc']) ?? text(raw['text']);
}

export function valueOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  return text(raw['value']) ?? (text(raw['content-desc']) !== undefined ? text(raw['text']) : undefined);
}

export function placeholderOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  return text(raw['hint-text']);
}

/** The node's own attributes, read as XCUIElement attributes. */
export function elementAttributes(node: UiNode): ElementAttributes {
  const raw = node as Record<string, unknown>;
  const type = elementTypeOf(node);
  const out: ElementAttributes = {
    type,
    xcuiType: elementTypeInfo(type).xcuiName,
    enabled: nodeFlag(node, 'enabled'),
    selected: nodeFlag(node, 'selected'),
    hasFocus: nodeFlag(node, 'focused'),
    checked: nodeFlag(node, 'checked'),
  };
  const identifier = identifierOf(raw);
  if (identifier !== undefined) out.identifier = identifier;
  const label = labelOf(raw);
  if (label !== undefined) out.label = label;
  const value = valueOf(raw);
  if (value !== undefined) out.value = value;
  const placeholder = placeholderOf(raw);
  if (placeholder !== undefined) out.placeholderValue = placeholder;
  const b = boundsOf(node);
  if (b) out.frame = { x: b.left, y: b.top, width: b.right - b.left, height: b.bottom - b.top };
  return out;
}

/** Who can find a node: plain XCTest (and so Maestro and Appium), or only the app's SDK bridge or its web view's DOM. */
export type Visibility = 'xctest' | Exclude<NodeSource, 'xctest'>;

/**
 * What plain XCTest reports for a node, or null when it reports nothing: an XCTest node as it is; a
 * bridge or DOM node as the XCTest node it was merged over (model/node.ts `xctestTwinOf`); a merged
 * node XCTest did not report, null.
 */
export function xctestNodeOf(node: UiNode): UiNode | null {
  if (nodeSource(node) === 'xctest') return node;
  return xctestTwinOf(node)?.node ?? null;
}

export function xctestAttributes(node: UiNode): ElementAttributes | null {
  const seen = xctestNodeOf(node);
  return seen ? elementAttributes(seen) : null;
}

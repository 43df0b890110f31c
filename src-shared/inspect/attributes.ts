/**
 * What the attributes table shows for a node: in iOS terms (`iosAttributes`) and as the wire sent it
 * (`nodeAttributes`), and the one-line label the tree shows.
 */
import { NODE_FLAGS, type UiNode } from '@shared/protocol/runner';
import { frameText } from '@shared/model/title';
import { boundsOf, childrenOf, MERGED_ATTRIBUTES, nodeFlag, nodeSource, rectHeight, rectWidth } from '@shared/model/node';
import { elementAttributes, xctestAttributes } from '@shared/selectors/element';

export interface NodeAttribute {
  /** The wire name (kebab-case as the runner sends it; `extras.<key>` for an extra). */
  name: string;
  value: string;
  /** Set on the attributes the inspector's merge added (bridge and web identities, redaction). */
  group?: 'merged';
}

/** Identity and text first, then the geometry, then the flags, in the order a reader scans them. */
const LEADING = ['className', 'role', 'text', 'value', 'content-desc', 'hint-text', 'resource-id', 'view-id', 'test-tag'] as const;

/** The string booleans of a node (absent means false, except `enabled`): the wire's own list. */
export const FLAG_NAMES = NODE_FLAGS;

const HANDLED = new Set<string>([...LEADING, ...FLAG_NAMES, ...MERGED_ATTRIBUTES, 'bounds', 'actions', 'extras', 'node']);

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

export function formatBounds(node: UiNode): string | null {
  const r = boundsOf(node);
  if (!r) return null;
  return `[${r.left},${r.top}][${r.right},${r.bottom}] ${rectWidth(r)}×${rectHeight(r)}`;
}

/** The rows of the attributes table for `node`. Empty fields are left out; flags are shown only when set on the node. */
export function nodeAttributes(node: UiNode): NodeAttribute[] {
  const raw = node as Record<string, unknown>;
  const rows: NodeAttribute[] = [];
  for (const name of LEADING) {
    const v = raw[name];
    if (v !== undefined && v !== null && v !== '') rows.push({ name, value: display(v) });
  }
  const bounds = formatBounds(node);
  if (bounds !== null) rows.push({ name: 'bounds', value: bounds });
  for (const name of FLAG_NAMES) {
    if (raw[name] !== undefined && raw[name] !== null) rows.push({ name, value: String(nodeFlag(node, name)) });
  }
  const actions = raw['actions'];
  if (Array.isArray(actions) && actions.length > 0) rows.push({ name: 'actions', value: actions.map(display).join(', ') });
  const extras = raw['extras'];
  if (extras !== null && typeof extras === 'object' && !Array.isArray(extras)) {
    for (const [k, v] of Object.entries(extras as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) {
      rows.push({ name: `extras.${k}`, value: display(v) });
    }
  }
  for (const [k, v] of Object.entries(raw).sort(([a], [b]) => a.localeCompare(b))) {
    if (!HANDLED.has(k) && v !== undefined && v !== null && v !== '') rows.push({ name: k, value: display(v) });
  }
  rows.push({ name: 'children', value: String(childrenOf(node).length) });
  // Strings as sent: `sdk-capture-identity` is a UInt64 and keeps every digit.
  for (const name of MERGED_ATTRIBUTES) {
    const v = raw[name];
    if (v !== undefined && v !== null && v !== '') rows.push({ name, value: display(v), group: 'merged' });
  }
  return rows;
}

/** The short name of the class: UIKit / SwiftUI prefixes stay, module paths go. */
export function shortClassName(node: UiNode): string {
  const c = display((node as Record<string, unknown>)['className']);
  if (c === '') return 'Node';
  const dot = c.lastIndexOf('.');
  return dot >= 0 ? c.slice(dot + 1) : c;
}

/** What a person would call the node: its id, else its label, else its text. */
export function nodeCaption(node: UiNode): string {
  const raw = node as Record<string, unknown>;
  for (const name of ['resource-id', 'test-tag', 'content-desc', 'text', 'value', 'hint-text'] as const) {
    const v = raw[name];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return '';
}

/** One attribute in iOS terms (docs/selectors.md#s-attributes), with the wire attribute it was read from. */
export interface IosAttribute {
  /** The XCUIElement name: identifier, label, value, placeholderValue, type, frame, enabled, selected, hasFocus. */
  name: string;
  /** Where it came from on the wire: `resource-id`, `text`, `content-desc`, `className`, … */
  wire: string;
  value: string;
}

/**
 * The node's attributes as an iOS tester names them: XCUIElement's identifier, label, value,
 * placeholderValue, type (XCUIElementType…), frame in points and state, each with its wire name; for a
 * bridge or DOM node, whether plain XCTest reports the element and as what.
 */
export function iosAttributes(node: UiNode): IosAttribute[] {
  const raw = node as Record<string, unknown>;
  const e = elementAttributes(node);
  const present = (name: string) => typeof raw[name] === 'string' && raw[name] !== '';
  const labelFrom = present('content-desc') ? 'content-desc' : 'text';
  const valueFrom = present('value') ? 'value' : 'text';
  const rows: IosAttribute[] = [];
  if (e.identifier !== undefined) rows.push({ name: 'identifier', wire: 'resource-id', value: e.identifier });
  if (e.label !== undefined) rows.push({ name: 'label', wire: labelFrom, value: e.label });
  if (e.value !== undefined) rows.push({ name: 'value', wire: valueFrom, value: e.value });
  if (e.placeholderValue !== undefined) rows.push({ name: 'placeholderValue', wire: 'hint-text', value: e.placeholderValue });
  rows.push({ name: 'type', wire: present('role') ? 'className, role' : 'className', value: e.xcuiType });
  const frame = boundsOf(node);
  if (e.frame && frame) rows.push({ name: 'frame', wire: 'bounds', value: frameText(frame) });
  rows.push({ name: 'enabled', wire: 'enabled', value: String(e.enabled) });
  if (e.selected) rows.push({ name: 'selected', wire: 'selected', value: 'true' });
  if (e.hasFocus) rows.push({ name: 'hasFocus', wire: 'focused', value: 'true' });
  const source = nodeSource(node);
  if (source !== 'xctest') {
    const seen = xctestAttributes(node);
    const as = seen ? [seen.xcuiType, seen.identifier ?? seen.label].filter((v) => v !== undefined).join(' ') : '';
    rows.push({
      name: 'seen by XCTest',
      wire: 'extras.xctest.*',
      value: seen ? `as ${as}` : `no: only the ${source === 'sdkBridge' ? 'SDK bridge' : "web view's DOM"} reports it`,
    });
  }
  return rows;
}

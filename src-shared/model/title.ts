/**
 * What a row calls a node, in words a person reads (docs/rules.md#r-ui-title): its type in iOS terms,
 * its label or text, then its id: `Button "Sign In" · login.submit`. An id a bridge made up from the
 * view's class and index path (`UILabel@0.0.1`) is shown only when the node has nothing else. For a
 * merged node the type is the one plain XCTest reports (its twin's XCUIElementType), since that is the
 * type a test finds it by.
 */
import type { UiNode } from '@shared/protocol/runner';
import type { TargetRecord } from '@shared/protocol/action';
import { nodeLabel, xctestTwinOf, type Rect } from '@shared/model/node';
import { elementTypeOf, type ElementTypeName } from '@shared/model/element-type';

export interface NodeTitle {
  /** The XCUIElementType short name: Button, StaticText, Other. */
  type: ElementTypeName;
  /** The label or text a person reads (never a secret field's text); empty when none. */
  label: string;
  /** The accessibility identifier; an index id only when there is no label and no other id. */
  id: string;
}

/**
 * An id that names a view by its class and index path rather than by what it is: the bridge's fallback
 * for a view without an accessibility identifier (`UILabel@0.0.1`, `WKWebView@0.0.1`).
 */
const INDEX_ID = /^[A-Za-z_][\w]*@\d+(?:\.\d+)*$/;

export function isIndexId(id: string): boolean {
  return INDEX_ID.test(id);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** The label or text, without falling back to the id (nodeLabel's last resort). */
function readableLabel(node: UiNode): string {
  const id = node['resource-id'];
  const label = nodeLabel(id === undefined ? node : { ...node, 'resource-id': undefined });
  return label ?? '';
}

export function nodeTitle(node: UiNode): NodeTitle {
  const twin = xctestTwinOf(node)?.node;
  const type = elementTypeOf(twin ?? node);
  const label = readableLabel(node) || (twin ? readableLabel(twin) : '');
  const ids = [text(node['resource-id']), text(twin?.['resource-id'])].filter((id) => id !== '');
  const named = ids.find((id) => !isIndexId(id));
  const id = named ?? (label === '' ? (ids[0] ?? '') : '');
  return { type, label, id };
}

/** The title as one line: `Button "Sign In" · login.submit`. */
export function nodeTitleText(node: UiNode): string {
  const { type, label, id } = nodeTitle(node);
  return [type, label !== '' ? `"${label}"` : '', id !== '' ? `· ${id}` : ''].filter((part) => part !== '').join(' ');
}

/**
 * A frame as XCUIElement's `frame` reads, in points: `x 16, y 119, 133 × 41 pt` (the Attributes panel's
 * iOS view and the CLI both say it so).
 */
export function frameText(r: Rect): string {
  return `x ${r.left}, y ${r.top}, ${r.right - r.left} × ${r.bottom - r.top} pt`;
}

/**
 * What an action's target is called, in the tree's words: the title recorded when the node was resolved
 * (`nodeTargetRecord`); a record from before titles were recorded (or one AppReveal resolved on the
 * device, which names no node) falls back to its label and an id a person gave, an index id only when
 * nothing else names it.
 */
export function targetTitleText(t: TargetRecord): string | undefined {
  if (t.title !== undefined && t.title !== '') return t.title;
  const id = t.elementId !== undefined && !isIndexId(t.elementId) && t.elementId !== t.label ? t.elementId : undefined;
  const label = t.label !== undefined && !isIndexId(t.label) ? `"${t.label}"` : undefined;
  // `"Sign In" · login.submit`; an id alone is said alone, not as `· login.submit`.
  const named = [label, id].filter((p) => p !== undefined).join(' · ');
  return named !== '' ? named : (t.elementId ?? t.label);
}

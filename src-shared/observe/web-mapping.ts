/**
 * Observe: web views — how one DOM element of a web snapshot becomes a node: CSS pixels to screen points
 * (docs/rules.md#r-owv-05), and DOM attributes to the runner's attributes (R-OWV-07, R-OWV-09, R-OWV-10).
 */
import type { UiNode } from '@shared/protocol/runner';
import type { WebElement, WebSnapshot } from '@shared/protocol/sdk';
import { overlaps, truncateRect } from './geometry';
import { type Rect, SDK_SOURCE_KEY } from '@shared/model/node';

export const SDK_WEB_BRIDGE_SOURCE = 'sdkWebBridge';

type Viewport = NonNullable<WebSnapshot['viewport']>;

/** A viewport this client can map through: a positive, finite CSS width and finite offsets. */
export function usableViewport(viewport: Viewport | undefined): boolean {
  if (!viewport) return true;
  return viewport.width > 0 && [viewport.width, viewport.offsetLeft, viewport.offsetTop].every(Number.isFinite);
}

/**
 * CSS-pixel bounds ([x, y, width, height] from getBoundingClientRect) to whole screen points inside the
 * web view, or null when the element lies wholly outside it.
 *
 * The visual viewport's offset is subtracted and its CSS width spans the web view's width (the same
 * factor applies vertically), which covers pages without a device-width viewport and pinch zoom; without
 * a viewport CSS pixels are taken as points. Then: offset by the web view's origin, clipped to it,
 * truncated edge by edge to whole points as the runner truncates XCTest frames.
 */
export function mapWebBounds(bounds: readonly [number, number, number, number], viewport: Viewport | undefined, webView: Rect): Rect | null {
  const [x, y, width, height] = bounds;
  const scale = viewport ? (webView.right - webView.left) / viewport.width : 1;
  const offsetX = viewport?.offsetLeft ?? 0;
  const offsetY = viewport?.offsetTop ?? 0;
  const points = {
    left: webView.left + (x - offsetX) * scale,
    top: webView.top + (y - offsetY) * scale,
    right: webView.left + (x + width - offsetX) * scale,
    bottom: webView.top + (y + height - offsetY) * scale,
  };
  if (!overlaps(points, webView)) return null;
  return truncateRect({
    left: Math.max(points.left, webView.left),
    top: Math.max(points.top, webView.top),
    right: Math.min(points.right, webView.right),
    bottom: Math.min(points.bottom, webView.bottom),
  });
}

/** Input types whose value is typed text; "none" is an input that reports no type. */
const TEXT_LIKE_INPUT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number']);
/** DOM roles that are text entry whatever their input type. */
const TEXT_ENTRY_ROLES = new Set(['textarea', 'textbox', 'searchbox']);

/**
 * Text entry reports role "textfield", so focus and sendKeys targeting treat it as editable; a checkbox
 * (or any other non-text input type) does not.
 */
export function isWebTextEntry(element: Pick<WebElement, 'role' | 'inputType'>): boolean {
  const role = element.role?.toLowerCase();
  const inputType = element.inputType?.trim().toLowerCase();
  if (inputType !== undefined && inputType !== '') return TEXT_LIKE_INPUT_TYPES.has(inputType);
  return role === 'input' || (role !== undefined && TEXT_ENTRY_ROLES.has(role));
}

/** The page's origin, when its URL has one (about:blank, data: and the like have none). */
export function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** What a snapshot stamps on each of its elements; one element's routing identity is `WebIdentity` (model/identity.ts). */
export interface WebSnapshotIdentity {
  webViewId: string;
  snapshotId: string;
  documentId?: string | undefined;
  origin?: string | undefined;
}

export function webElementToUiNode(element: WebElement, bounds: Rect, identity: WebSnapshotIdentity): UiNode {
  const out: UiNode = {};
  if (element.role !== undefined) out.className = element.role;
  if (isWebTextEntry(element)) out.role = 'textfield';
  // A redacted value never leaves the bridge; say so instead of reporting an empty text.
  if (element.valueRedacted === true) out['value-redacted'] = 'true';
  else if (element.value !== undefined) out.text = element.value;
  if (element.label !== undefined) out['content-desc'] = element.label;
  out.bounds = bounds;
  if (element.enabled) out.clickable = 'true';
  else out.enabled = 'false';
  if (element.focused) out.focused = 'true';
  if (element.inputType?.toLowerCase() === 'password') out.password = 'true';
  out['web-view-id'] = identity.webViewId;
  out['web-snapshot-id'] = identity.snapshotId;
  out['web-element-id'] = element.id;
  if (identity.documentId !== undefined) out['web-document-id'] = identity.documentId;
  if (identity.origin !== undefined) out['web-origin'] = identity.origin;
  if (element.role !== undefined) out['web-role'] = element.role;
  out.extras = { [SDK_SOURCE_KEY]: SDK_WEB_BRIDGE_SOURCE };
  return out;
}

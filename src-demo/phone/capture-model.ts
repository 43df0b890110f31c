/**
 * What the simulated OS reads from the rendered app (resources/demo-app/introspect.js), decoded before
 * use: page output crosses a process boundary, and a page that returns something odd must produce a
 * typed failure, not a crash deep inside a projection.
 *
 * Rects are [x, y, width, height] in CSS pixels of the frame that produced them; the app shell's CSS
 * pixels are screen points (viewport 402 x 874, scale 3).
 */
import { z } from 'zod';

export const RectSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);
export type Rect = z.infer<typeof RectSchema>;

export interface NativeNode {
  cls: string;
  id?: string | undefined;
  role?: string | undefined;
  label?: string | undefined;
  value?: string | undefined;
  placeholder?: string | undefined;
  rect: Rect;
  enabled: boolean;
  focused: boolean;
  selected: boolean;
  checkable?: boolean | undefined;
  checked?: boolean | undefined;
  editable?: boolean | undefined;
  secure?: boolean | undefined;
  scrollable?: boolean | undefined;
  scroll?: { top: number; height: number; clientHeight: number } | undefined;
  webViewId?: string | undefined;
  contentOrigin?: [number, number] | undefined;
  contentUrl?: string | undefined;
  children: NativeNode[];
}

export const NativeNodeSchema: z.ZodType<NativeNode> = z.object({
  cls: z.string(),
  id: z.string().optional(),
  role: z.string().optional(),
  label: z.string().optional(),
  value: z.string().optional(),
  placeholder: z.string().optional(),
  rect: RectSchema,
  enabled: z.boolean(),
  focused: z.boolean(),
  selected: z.boolean(),
  checkable: z.boolean().optional(),
  checked: z.boolean().optional(),
  editable: z.boolean().optional(),
  secure: z.boolean().optional(),
  scrollable: z.boolean().optional(),
  scroll: z.object({ top: z.number(), height: z.number(), clientHeight: z.number() }).optional(),
  webViewId: z.string().optional(),
  contentOrigin: z.tuple([z.number(), z.number()]).optional(),
  contentUrl: z.string().optional(),
  get children() {
    return z.array(NativeNodeSchema);
  },
});

export const NativeCaptureSchema = z.object({
  screen: z.string().nullable(),
  /** The AX error XCTest hits on this screen (docs/rules.md#r-str-09), or null when XCTest can read it. */
  hostile: z.string().nullable(),
  /** Rects of the system chrome: status-bar, cutout, home-indicator. */
  chrome: z.record(z.string(), RectSchema),
  safeArea: z.object({ top: z.number(), bottom: z.number() }),
  statusBarVisible: z.boolean(),
  viewport: z.object({ width: z.number(), height: z.number() }),
  root: NativeNodeSchema.nullable(),
});
export type NativeCapture = z.infer<typeof NativeCaptureSchema>;

export const WebLeafSchema = z.object({
  kind: z.enum(['switch', 'textfield', 'textview', 'popup', 'button', 'link', 'image', 'heading', 'text']),
  rect: RectSchema,
  enabled: z.boolean(),
  focused: z.boolean(),
  label: z.string().optional(),
  value: z.string().optional(),
  placeholder: z.string().optional(),
  secure: z.boolean().optional(),
  checked: z.boolean().optional(),
});
export type WebLeaf = z.infer<typeof WebLeafSchema>;

export const WebCaptureSchema = z.object({
  url: z.string(),
  title: z.string(),
  viewport: z.object({ width: z.number(), height: z.number(), scrollY: z.number() }),
  leaves: z.array(WebLeafSchema),
});
export type WebCapture = z.infer<typeof WebCaptureSchema>;

/** One read of the whole screen: the native views and the content of each web view on screen. */
export interface ScreenCapture {
  native: NativeCapture;
  web: Record<string, WebCapture>;
  takenAt: number;
}

/** Depth-first walk; stops descending when `visit` returns false. */
export function walkNative(node: NativeNode, visit: (node: NativeNode, path: string) => boolean | void, path = '0'): void {
  if (visit(node, path) === false) return;
  node.children.forEach((child, i) => walkNative(child, visit, `${path}.${i}`));
}

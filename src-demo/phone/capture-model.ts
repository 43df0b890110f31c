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
  /** accessibilityElementsHidden: the app hides the view (and its subtree) from accessibility; the SDK still sees it. */
  axHidden?: boolean | undefined;
  /** The view has a tap gesture recogniser (what the SDK sees; accessibility traits are another matter). */
  tappable?: boolean | undefined;
  /** The label's font text style (UIFont.TextStyle: "title2", "headline", …), as the SDK reads it. */
  textStyle?: string | undefined;
  children: NativeNode[];
}

/** A view's own fields: the sliced decoder checks one view at a time, its children after it. */
const NATIVE_NODE_FIELDS = {
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
  axHidden: z.boolean().optional(),
  tappable: z.boolean().optional(),
  textStyle: z.string().optional(),
};

export const NativeNodeSchema: z.ZodType<NativeNode> = z.object({
  ...NATIVE_NODE_FIELDS,
  get children() {
    return z.array(NativeNodeSchema);
  },
});

const NATIVE_CAPTURE_FIELDS = {
  screen: z.string().nullable(),
  /** The AX error XCTest hits on this screen (docs/rules.md#r-str-09), or null when XCTest can read it. */
  hostile: z.string().nullable(),
  /** Rects of the system chrome: status-bar, cutout, home-indicator. */
  chrome: z.record(z.string(), RectSchema),
  safeArea: z.object({ top: z.number(), bottom: z.number() }),
  statusBarVisible: z.boolean(),
  viewport: z.object({ width: z.number(), height: z.number() }),
};

export const NativeCaptureSchema = z.object({ ...NATIVE_CAPTURE_FIELDS, root: NativeNodeSchema.nullable() });
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

const NativeNodeShallowSchema = z.object({ ...NATIVE_NODE_FIELDS, children: z.array(z.unknown()) });
const NativeCaptureShallowSchema = z.object({ ...NATIVE_CAPTURE_FIELDS, root: z.unknown() });

/** A native capture decoded, or what was wrong with it and where (`root.children.3.rect`). */
export type NativeDecode = { ok: true; capture: NativeCapture } | { ok: false; issue: string };

/** How long the sliced decoder works before it lets the event loop run. */
const DECODE_SLICE_MS = 8;

const issueOf = (error: z.ZodError, path: string): string => {
  const issue = error.issues[0];
  const where = [path, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.');
  return `${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`;
};

/**
 * NativeCaptureSchema's decode, one view at a time, letting the event loop run every DECODE_SLICE_MS:
 * over a heavy screen's 50,000 views the schema takes 150-200 ms in one go, and the device answers no
 * screenshot meanwhile (docs/rules.md#r-perf-10). Accepts and rejects exactly what the schema does.
 */
export async function decodeNativeCapture(raw: unknown): Promise<NativeDecode> {
  const shell = NativeCaptureShallowSchema.safeParse(raw);
  if (!shell.success) return { ok: false, issue: issueOf(shell.error, '') };
  const { root, ...fields } = shell.data;
  const capture: NativeCapture = { ...fields, root: null };
  if (root === null) return { ok: true, capture };
  const top: NativeNode[] = [];
  // Each entry: a raw view, the array its decoded node goes in and where, and its parent's entry
  // (the path in an issue is only spelled out when there is one).
  type Work = { raw: unknown; into: NativeNode[]; index: number; parent: Work | undefined };
  const pathOf = (work: Work): string => (work.parent ? `${pathOf(work.parent)}.children.${work.index}` : 'root');
  const pending: Work[] = [{ raw: root, into: top, index: 0, parent: undefined }];
  let deadline = performance.now() + DECODE_SLICE_MS;
  for (let done = 1; pending.length; done++) {
    const work = pending.pop()!;
    const parsed = NativeNodeShallowSchema.safeParse(work.raw);
    if (!parsed.success) return { ok: false, issue: issueOf(parsed.error, pathOf(work)) };
    const rawChildren = parsed.data.children;
    const children = new Array<NativeNode>(rawChildren.length);
    work.into[work.index] = { ...parsed.data, children };
    for (let i = 0; i < rawChildren.length; i++) pending.push({ raw: rawChildren[i], into: children, index: i, parent: work });
    if (done % 256 === 0 && performance.now() >= deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      deadline = performance.now() + DECODE_SLICE_MS;
    }
  }
  capture.root = top[0] ?? null;
  return { ok: true, capture };
}

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

/**
 * The accessibility audit of one frame as the host runs it (docs/rules.md#r-a11y): the screenshot decoded
 * here (the pure audit takes pixels, not a PNG), its size checked from the header before any pixel is
 * inflated, then `auditObservation` over the frame's observation. Off the render path: the host runs it,
 * the renderer only shows what it found.
 */
import pngjs from 'pngjs';
import { auditObservation, auditTree, type Pixels } from '@shared/a11y';
import { ObservationSchema } from '@shared/protocol/observation';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { boundsOf } from '@shared/model/node';
import type { ObservedFrame } from '@shared/protocol/device';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import { pngSize } from '@shared/protocol/png';

/** The largest screenshot decoded: an iPad Pro's 2064 x 2752 fits with room to spare (R-LIM: a size checked first). */
export const MAX_SCREENSHOT_PIXELS = 4096 * 4096;

export class ScreenshotDecodeError extends Error {}

/** The screenshot's pixels; throws ScreenshotDecodeError naming what was wrong. */
export function decodeScreenshot(dataBase64: string): Pixels {
  const bytes = Buffer.from(dataBase64, 'base64');
  const size = pngSize(bytes);
  if (!size) throw new ScreenshotDecodeError('the screenshot is not a PNG');
  if (size.width * size.height > MAX_SCREENSHOT_PIXELS)
    throw new ScreenshotDecodeError(`the screenshot is ${size.width} x ${size.height}, over ${MAX_SCREENSHOT_PIXELS} pixels`);
  try {
    const png = pngjs.PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  } catch (error) {
    throw new ScreenshotDecodeError(`the screenshot does not decode: ${(error as Error).message}`);
  }
}

/** How a screenshot's base64 PNG becomes pixels: `decodeScreenshot`, or the audit worker's kept pixels (frame-memory.ts). */
export type ScreenshotDecoder = (dataBase64: string) => Pixels;

/** The frame's audit, or undefined when the frame holds no observation. Contrast is left out (notEvaluated) without a screenshot that decodes. */
export function auditFrame(
  frame: Pick<ObservedFrame, 'observation' | 'screenshot'>,
  decode: ScreenshotDecoder = decodeScreenshot,
): AccessibilityAudit | undefined {
  if (!frame.observation) return undefined;
  let pixels: Pixels | undefined;
  let unreadable: string | undefined;
  if (frame.screenshot) {
    try {
      pixels = decode(frame.screenshot.dataBase64);
    } catch (error) {
      if (!(error instanceof ScreenshotDecodeError)) throw error;
      unreadable = error.message;
    }
  }
  const audit = auditObservation(frame.observation, pixels);
  if (unreadable) audit.summary.notEvaluated = audit.summary.notEvaluated.map((n) => (n.kind === 'contrast' ? { ...n, reason: unreadable } : n));
  return audit;
}

/**
 * The tree of a frame a trace stored: a whole Observation's, or the ViewHierarchy an action step keeps.
 * Undefined when the stored JSON is neither.
 */
export function storedFrameRoot(stored: unknown): UiNode | undefined {
  const observation = ObservationSchema.safeParse(stored);
  if (observation.success) return observation.data.viewHierarchy?.hierarchy;
  const hierarchy = ViewHierarchySchema.safeParse(stored);
  return hierarchy.success ? hierarchy.data.hierarchy : undefined;
}

/**
 * A frame a trace stored, audited offline (docs/rules.md#r-a11y-20): its observation as the recorder wrote
 * it (a whole Observation, or the ViewHierarchy an action step keeps) and its screenshot's PNG bytes. A
 * ViewHierarchy holds no screen size: the application's own frame at the origin is the screen (XCTest's
 * XCUIApplication spans it), so what lies off screen and the contrast are judged as live. Undefined when
 * the stored JSON is neither.
 */
export function auditStoredFrame(
  stored: unknown,
  screenshotPng: Buffer | undefined,
  decode: ScreenshotDecoder = decodeScreenshot,
): AccessibilityAudit | undefined {
  const screenshot = screenshotPng ? { format: 'png' as const, dataBase64: screenshotPng.toString('base64') } : null;
  const observation = ObservationSchema.safeParse(stored);
  if (observation.success) return auditFrame({ observation: observation.data, screenshot }, decode);
  const hierarchy = ViewHierarchySchema.safeParse(stored);
  const root = hierarchy.success ? hierarchy.data.hierarchy : undefined;
  if (!root) return undefined;
  let pixels: Pixels | undefined;
  let unreadable: string | undefined;
  try {
    pixels = screenshotPng ? decode(screenshot!.dataBase64) : undefined;
  } catch (error) {
    if (!(error instanceof ScreenshotDecodeError)) throw error;
    unreadable = error.message;
  }
  const audit = auditTree({ root, screen: applicationScreen(root), pixels });
  if (unreadable) audit.summary.notEvaluated = audit.summary.notEvaluated.map((n) => (n.kind === 'contrast' ? { ...n, reason: unreadable } : n));
  return audit;
}

/** The screen in points, as the application's frame at the origin gives it; undefined for any other root. */
function applicationScreen(root: UiNode): { width: number; height: number } | undefined {
  const r = boundsOf(root);
  if (!r || r.left !== 0 || r.top !== 0 || r.right <= 0 || r.bottom <= 0) return undefined;
  return { width: r.right, height: r.bottom };
}

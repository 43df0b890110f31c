/**
 * What the audit worker keeps of the frames it was last sent (docs/rules.md#r-a11y-26): a screenshot's
 * pixels, decoded once, and the last live frame's audit. A live screen that nothing redraws sends the very
 * same screenshot again (the demo answers its kept capture while Chromium draws nothing,
 * src-demo/phone/picture.ts `take`), and the PNG's decode is most of a frame's audit (bench `a11y`: pngjs
 * 65-105 ms for 1206 x 2622, the audit of 5k nodes 21-32 ms).
 *
 * A screenshot is known by its base64 text itself, compared whole (V8 compares the lengths first, then the
 * characters: well under a millisecond for a few MiB, cheaper than hashing it, and no two different
 * screenshots can ever match). Two are kept: the live panel alternates between two devices when it
 * compares them, and the trace view's stored frame between live ones; and no more than KEPT_PIXEL_BYTES
 * of pixels (a second is let go when the two would be more). A screenshot that does not decode is not kept.
 */
import { auditFrame, auditStoredFrame, decodeScreenshot } from './audit-frame';
import { sameAuditInput, type Pixels } from '@shared/a11y';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { ObservedFrame } from '@shared/protocol/device';

/** Decoded screenshots kept (the newest first). */
export const KEPT_SCREENSHOTS = 2;
/** The pixels kept at most: one screenshot at MAX_SCREENSHOT_PIXELS (64 MiB), or two phone screens (12.6 MiB each at 1206 x 2622). */
export const KEPT_PIXEL_BYTES = 64 * 1024 * 1024;

/** What the worker did with the frames it was sent, since it started (tests count these; the bench prints them). */
export interface FrameMemoryCounts {
  /** Screenshots decoded. */
  decoded: number;
  /** Screenshots whose kept pixels were used again. */
  pixelsReused: number;
  /** Live frames answered with the last frame's audit: the same screenshot and the same audit input. */
  auditsReused: number;
}

type Frame = Pick<ObservedFrame, 'observation' | 'screenshot'>;

export class FrameMemory {
  readonly counts: FrameMemoryCounts = { decoded: 0, pixelsReused: 0, auditsReused: 0 };
  private screenshots: Array<{ source: string; pixels: Pixels }> = [];
  private last: { observation: NonNullable<Frame['observation']>; screenshot: string | null; audit: AccessibilityAudit | undefined } | undefined;

  /** The screenshot's pixels, decoded only when they are not kept; throws ScreenshotDecodeError as `decodeScreenshot`. */
  readonly decode = (dataBase64: string): Pixels => {
    const at = this.screenshots.findIndex((s) => s.source === dataBase64);
    if (at >= 0) {
      const [kept] = this.screenshots.splice(at, 1);
      this.screenshots.unshift(kept!);
      this.counts.pixelsReused++;
      return kept!.pixels;
    }
    const pixels = decodeScreenshot(dataBase64);
    this.counts.decoded++;
    this.screenshots.unshift({ source: dataBase64, pixels });
    let bytes = 0;
    this.screenshots = this.screenshots.filter((s, i) => {
      bytes += s.pixels.data.byteLength;
      return i === 0 || (i < KEPT_SCREENSHOTS && bytes <= KEPT_PIXEL_BYTES);
    });
    return pixels;
  };

  /**
   * `auditFrame`, with the last frame's audit given again when this frame's screenshot is the same text and
   * its observation gives the audit the same input (`sameAuditInput`: tree, screen, safe area, XCTest's
   * failure; a new time or new timings are not a new screen). The pixels are the kept ones when the
   * screenshot is.
   */
  auditFrame(frame: Frame): AccessibilityAudit | undefined {
    if (!frame.observation) return undefined;
    const screenshot = frame.screenshot?.dataBase64 ?? null;
    const last = this.last;
    if (last && last.screenshot === screenshot && sameAuditInput(last.observation, frame.observation)) {
      this.counts.auditsReused++;
      return last.audit;
    }
    const audit = auditFrame(frame, this.decode);
    this.last = { observation: frame.observation, screenshot, audit };
    return audit;
  }

  /** `auditStoredFrame`, its screenshot's pixels the kept ones when they are. */
  auditStoredFrame(stored: unknown, screenshotPng: Buffer | undefined): AccessibilityAudit | undefined {
    return auditStoredFrame(stored, screenshotPng, this.decode);
  }
}

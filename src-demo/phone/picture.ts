/**
 * The screen's picture, as cheap as Chromium allows (docs/rules.md#r-perf-05).
 *
 * A full-resolution PNG (1206 x 2622, what XCUIScreen's screenshot gives) costs Chromium a readback and
 * an encode (a JPEG of it costs about the same: the encode is not what dominates, bench `demo-device`;
 * the page is drawn at 3x already, DEVICE_LAUNCH_ARGS). Most screenshot requests in live mode find the
 * screen as the last one left it, so the last capture is kept and answered again while nothing has been
 * drawn since.
 *
 * "Nothing drawn since" is Chromium's word, not the DOM's: a second CDP session runs a screencast of
 * point-sized frames (402 x 874 JPEG, a few milliseconds to encode), and Chromium emits one for every
 * compositor frame it draws: a DOM change, a scroll, a caret blink (which changes pixels without
 * touching the DOM), an animation, and a capture's own redraw. A frame whose pixels differ from the last
 * one, and every input or app control the device makes (`touched`), retires the kept capture; the next
 * request captures again. A capture that was under way when the
 * screen changed is never kept. What remains is the few milliseconds between a change inside the page
 * and its damage frame, the same as a real capture taken a moment earlier.
 */
import type { CDPSession } from 'playwright-core';
import { recompressPng } from './png-recompress';

/**
 * The damage probe's frame: the screen at one pixel per point (402 x 874), where a caret or a hairline
 * is still a pixel of its own; a JPEG of that costs Chromium a few milliseconds, and only on a frame
 * with damage.
 */
const PROBE = { maxWidth: 402, maxHeight: 874, quality: 40 } as const;

export interface PictureStats {
  captures: number;
  reused: number;
}

export class ScreenPicture {
  /** Moves with every damage frame and every change the device makes. */
  private generation = 0;
  private kept: { generation: number; data: string; recompressing?: true } | undefined;
  private probing = false;
  /** The last probe frame's bytes. */
  private lastProbe: string | undefined;
  readonly stats: PictureStats & { damage: number; redrawn: number; touched: number; recompressed: number } = {
    captures: 0,
    reused: 0,
    damage: 0,
    redrawn: 0,
    touched: 0,
    recompressed: 0,
  };

  constructor(
    private readonly probe: CDPSession,
    private readonly capture: () => Promise<string>,
  ) {
    probe.on('Page.screencastFrame', (frame) => {
      // A capture makes Chromium draw a frame of its own, with the same pixels: only a frame whose
      // pixels differ from the last one is a change (the encoder is deterministic).
      if (frame.data !== this.lastProbe) {
        this.lastProbe = frame.data;
        this.generation++;
        this.stats.damage++;
      } else this.stats.redrawn++;
      // Unacknowledged, Chromium sends no further frame: the probe would go blind.
      void probe.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => {});
    });
  }

  /** Starts the damage probe; until it runs, nothing is reused. */
  async start(): Promise<void> {
    await this.probe.send('Page.startScreencast', { format: 'jpeg', everyNthFrame: 1, ...PROBE });
    this.probing = true;
  }

  /** The device changed something (input, an app control, a reload): the kept picture is not the screen. */
  touched(): void {
    this.generation++;
    this.stats.touched++;
  }

  /**
   * The screen stayed still for a second request: the kept capture is sent again for as long as it
   * does, so it is made smaller once, the same pixels (png-recompress.ts). A screen that keeps changing
   * never pays for it.
   */
  private recompress(kept: NonNullable<ScreenPicture['kept']>): void {
    kept.recompressing = true;
    void recompressPng(Buffer.from(kept.data, 'base64')).then((smaller) => {
      if (!smaller || this.kept !== kept) return;
      kept.data = smaller.toString('base64');
      this.stats.recompressed++;
    });
  }

  /** The screen now: the kept capture while nothing was drawn since it was taken, else a new one. */
  async take(): Promise<string> {
    const kept = this.kept;
    if (this.probing && kept && kept.generation === this.generation) {
      this.stats.reused++;
      if (!kept.recompressing) this.recompress(kept);
      return kept.data;
    }
    const generation = this.generation;
    const data = await this.capture();
    this.stats.captures++;
    // Drawn during the capture: which of the two it shows is unknown, so it answers this request only.
    if (generation === this.generation) this.kept = { generation, data };
    return data;
  }
}

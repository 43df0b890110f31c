/**
 * A small live frame for the audit worker's memory tests (docs/rules.md#r-a11y-26): one label over a
 * 402 x 874 screenshot at 1x, white with strokes of `ink` where the label is (#999999 is 2.85:1 on white, a
 * contrast finding; #222222 passes), so what the audit found tells which screenshot it read.
 */
import pngjs from 'pngjs';
import { assembleObservation } from '@shared/observe/assemble';
import type { ObservedFrame } from '@shared/protocol/device';

export const FAINT = 0x99;
export const DARK = 0x22;

/** The screenshot as base64 PNG text, a new string each call (as each frame's message brings its own). */
export function labelScreenshot(ink: number): string {
  const png = new pngjs.PNG({ width: 402, height: 874 });
  png.data.fill(0xff);
  for (let y = 106; y < 114; y++)
    for (let x = 30; x < 200; x++) {
      const at = (y * 402 + x) * 4;
      png.data[at] = png.data[at + 1] = png.data[at + 2] = ink;
    }
  return pngjs.PNG.sync.write(png).toString('base64');
}

/** A frame read at `now` of a screen holding one label `text` (at 20,100 200 x 20), with the screenshot given. */
export function labelFrame(text: string, now: number, dataBase64: string | null): Pick<ObservedFrame, 'observation' | 'screenshot'> {
  const b = (left: number, top: number, w: number, h: number) => ({ left, top, right: left + w, bottom: top + h });
  const observation = assembleObservation({
    strategy: 'visible',
    flagEnabled: true,
    now,
    discovery: undefined,
    bridge: undefined,
    web: undefined,
    timings: { total: now % 7 },
    hierarchy: {
      ok: true,
      hierarchy: {
        screenWidth: 402,
        screenHeight: 874,
        hierarchy: {
          className: 'XCUIApplication',
          text: 'Demo',
          bounds: b(0, 0, 402, 874),
          node: [{ className: 'UILabel', role: 'text', text, bounds: b(20, 100, 200, 20) }],
        },
      },
    },
  });
  return { observation, screenshot: dataBase64 === null ? null : { format: 'png', dataBase64 } };
}

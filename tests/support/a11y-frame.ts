/**
 * Frames for the audit's tests and bench: a plain XCTest screen (402 x 874, the demo phone at 1x) assembled
 * as the host assembles one, and a screenshot of it, white with strokes of `ink` where a label is (#999999 is
 * 2.85:1 on white, a contrast finding; #222222 passes), so what the audit found tells which screenshot it
 * read (docs/rules.md#r-a11y-24, #r-a11y-26).
 */
import pngjs from 'pngjs';
import { assembleObservation } from '@shared/observe/assemble';
import type { ObservedFrame } from '@shared/protocol/device';
import type { Observation } from '@shared/protocol/observation';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';

export const FAINT = 0x99;
export const DARK = 0x22;
export const SCREEN = { width: 402, height: 874 } as const;

/** A node's bounds from its left, top, width and height. */
export const box = (left: number, top: number, w: number, h: number) => ({ left, top, right: left + w, bottom: top + h });

/** A read of `hierarchy` (XCTest's alone: no bridge, no web view) assembled at `now`. */
export function xctestObservation(hierarchy: ViewHierarchy, now = 1, timings: Record<string, number> = {}): Observation {
  return assembleObservation({
    strategy: 'visible',
    flagEnabled: true,
    now,
    discovery: undefined,
    bridge: undefined,
    web: undefined,
    timings,
    hierarchy: { ok: true, hierarchy },
  });
}

/** The demo app's root on the 402 x 874 screen, holding `node`. */
export function screenOf(node: UiNode[]): ViewHierarchy {
  return {
    screenWidth: SCREEN.width,
    screenHeight: SCREEN.height,
    hierarchy: { className: 'XCUIApplication', text: 'Demo', bounds: box(0, 0, SCREEN.width, SCREEN.height), node },
  };
}

/** The screenshot as PNG bytes: white, `ink` where the label at 20,100 200 x 20 is drawn. */
export function labelScreenshotPng(ink: number = FAINT): Buffer {
  const png = new pngjs.PNG({ width: SCREEN.width, height: SCREEN.height });
  png.data.fill(0xff);
  for (let y = 106; y < 114; y++)
    for (let x = 30; x < 200; x++) {
      const at = (y * SCREEN.width + x) * 4;
      png.data[at] = png.data[at + 1] = png.data[at + 2] = ink;
    }
  return pngjs.PNG.sync.write(png);
}

/** The screenshot as base64 PNG text, a new string each call (as each frame's message brings its own). */
export function labelScreenshot(ink: number = FAINT): string {
  return labelScreenshotPng(ink).toString('base64');
}

/** The label the screenshots draw, as XCTest reports it. */
export const labelNode = (text: string): UiNode => ({ className: 'UILabel', role: 'text', text, bounds: box(20, 100, 200, 20) });

/** A frame read at `now` of a screen holding one label `text` (at 20,100 200 x 20), with the screenshot given. */
export function labelFrame(text: string, now: number, dataBase64: string | null): Pick<ObservedFrame, 'observation' | 'screenshot'> {
  const observation = xctestObservation(screenOf([labelNode(text)]), now, { total: now % 7 });
  return { observation, screenshot: dataBase64 === null ? null : { format: 'png', dataBase64 } };
}

/**
 * Colours read from a screenshot for the contrast rule (R-A11Y-09): relative luminance and contrast ratio
 * as WCAG 2.2 defines them (Understanding SC 1.4.3, "relative luminance"), and the two colours of a text's
 * frame. Pixels are decoded by the caller (RGBA, 8 bits a channel): the core decodes no PNG.
 */

/** A decoded screenshot: `data` holds width × height RGBA pixels, row by row. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array | Uint8ClampedArray;
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

const channel = (value: number): number => {
  const c = value / 255;
  // WCAG 2.2's threshold (0.04045, as in sRGB; WCAG 2.0 printed 0.03928, which changes no 8-bit value).
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

export function relativeLuminance({ r, g, b }: Rgb): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** (L1 + 0.05) / (L2 + 0.05), lighter over darker: 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

export function hex({ r, g, b }: Rgb): string {
  return `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
}

/** Samples read from one frame at most: a large frame is read on a grid (every 4th device pixel of a 370-pt label). */
const MAX_SAMPLES = 4_096;
/** The text's colour must cover this share of the samples: one stray pixel is no text. */
const MIN_FOREGROUND_SHARE = 0.01;

export interface FrameColors {
  background: Rgb;
  foreground: Rgb;
  ratio: number;
  samples: number;
}

// One histogram for every call (the audit is synchronous): 4 bits a channel, 4,096 bins, each with its
// count and channel sums so a bin's colour is the average of the pixels in it, not the bin's corner.
const BINS = 4_096;
const counts = new Uint32Array(BINS);
const sums = new Float64Array(BINS * 3);
const touched = new Uint16Array(BINS);

/**
 * The two colours of a text's frame (`left`…`bottom` in pixels): the background is the commonest colour
 * (quantised to 4 bits a channel, then averaged within its bin), the foreground the colour, among those
 * covering at least 1% of the frame, that differs most from it: the glyphs' solid core rather than their
 * anti-aliased edge. Undefined when the frame holds one colour only (nothing drawn to measure).
 */
export function frameColors(pixels: Pixels, left: number, top: number, right: number, bottom: number): FrameColors | undefined {
  const x0 = Math.max(0, Math.floor(left));
  const y0 = Math.max(0, Math.floor(top));
  const x1 = Math.min(pixels.width, Math.ceil(right));
  const y1 = Math.min(pixels.height, Math.ceil(bottom));
  if (x1 <= x0 || y1 <= y0) return undefined;
  const step = Math.max(1, Math.ceil(Math.sqrt(((x1 - x0) * (y1 - y0)) / MAX_SAMPLES)));
  const { data, width } = pixels;
  let used = 0;
  let samples = 0;
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      const i = (y * width + x) * 4;
      const r = data[i]!;
      const g = data[i + 1]!;
      const b = data[i + 2]!;
      const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      if (counts[key] === 0) touched[used++] = key;
      counts[key] = counts[key]! + 1;
      sums[key * 3] = sums[key * 3]! + r;
      sums[key * 3 + 1] = sums[key * 3 + 1]! + g;
      sums[key * 3 + 2] = sums[key * 3 + 2]! + b;
      samples++;
    }
  }
  const colour = (key: number): Rgb => ({ r: sums[key * 3]! / counts[key]!, g: sums[key * 3 + 1]! / counts[key]!, b: sums[key * 3 + 2]! / counts[key]! });
  let top1 = touched[0]!;
  for (let t = 1; t < used; t++) if (counts[touched[t]!]! > counts[top1]!) top1 = touched[t]!;
  const background = colour(top1);
  const minCount = Math.max(2, Math.ceil(samples * MIN_FOREGROUND_SHARE));
  let foreground: Rgb | undefined;
  let best = 1;
  for (let t = 0; t < used; t++) {
    const key = touched[t]!;
    if (key === top1 || counts[key]! < minCount) continue;
    const candidate = colour(key);
    const ratio = contrastRatio(candidate, background);
    if (ratio > best) {
      best = ratio;
      foreground = candidate;
    }
  }
  for (let t = 0; t < used; t++) {
    const key = touched[t]!;
    counts[key] = 0;
    sums[key * 3] = sums[key * 3 + 1] = sums[key * 3 + 2] = 0;
  }
  if (!foreground) return undefined;
  return { background, foreground, ratio: best, samples };
}

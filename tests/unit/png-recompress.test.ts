/** The demo's kept capture made smaller (docs/rules.md#r-perf-05): the same pixels, or left alone. */
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { recompressPng } from '@demo/phone/png-recompress';

/** A PNG written at zlib's fastest level, as Chromium's optimizeForSpeed capture is. */
function fastPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    // Bands and a little pattern: compressible, but not trivially.
    png.data[i * 4] = (i * 7) % 256;
    png.data[i * 4 + 1] = Math.floor(i / width) % 256;
    png.data[i * 4 + 2] = (i % width) % 17;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png, { deflateLevel: 1, deflateStrategy: 0 });
}

describe('recompressPng', () => {
  it('R-PERF-05: a capture written for speed comes back smaller with the same pixels', async () => {
    const original = fastPng(300, 200);
    const smaller = await recompressPng(original);
    expect(smaller).toBeDefined();
    expect(smaller!.length).toBeLessThan(original.length);
    const [a, b] = [PNG.sync.read(original), PNG.sync.read(smaller!)];
    expect([b.width, b.height]).toEqual([300, 200]);
    expect(b.data.equals(a.data)).toBe(true);
  });

  it('R-PERF-05: what is not a whole PNG is left alone', async () => {
    const original = fastPng(40, 30);
    expect(await recompressPng(Buffer.from('not a png at all'))).toBeUndefined();
    expect(await recompressPng(original.subarray(0, original.length - 20))).toBeUndefined();
    const corrupt = Buffer.from(original);
    corrupt.fill(0, 60, 90);
    expect(await recompressPng(corrupt)).toBeUndefined();
  });
});

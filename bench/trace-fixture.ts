/**
 * A recorded session as the benchmarks need one: full-size iPhone screenshots that compress like a real
 * UI, ~300-node observations, and a whole trace of N tapped steps written with the recorder itself.
 */
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { TraceRecorder } from '@main/trace/recorder';

export const W = 1179;
export const H = 2556;

/** A settings-like screen: white, grey rows, dark "text" runs. Compresses like a real UI screenshot. */
export function baseScreenshot(): Buffer {
  const image = new PNG({ width: W, height: H });
  image.data.fill(255);
  let seed = 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let row = 0; row < 40; row++) {
    const top = 200 + row * 58;
    for (let x = 0; x < W; x++) image.data.set([200, 200, 204, 255], ((top + 57) * W + x) * 4);
    // a label: glyph-sized blobs with antialiased edges
    let x = 60;
    const words = 2 + Math.floor(rand() * 4);
    for (let w = 0; w < words; w++) {
      const letters = 3 + Math.floor(rand() * 7);
      for (let l = 0; l < letters; l++, x += 22) {
        for (let y = top + 18; y < top + 42; y++) {
          for (let dx = 0; dx < 18; dx++) {
            if (rand() < 0.12) {
              const v = Math.floor(rand() * 120);
              image.data.set([v, v, v + 10, 255], (y * W + x + dx) * 4);
            }
          }
        }
      }
      x += 22;
    }
  }
  return PNG.sync.write(image);
}

/** The same image with a text chunk naming the step: a valid PNG with its own content address. */
export function variant(png: Buffer, step: number): Buffer {
  const text = Buffer.from(`Comment\0step ${step}`, 'latin1');
  const chunk = Buffer.alloc(12 + text.length);
  chunk.writeUInt32BE(text.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  text.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + text.length)), 8 + text.length);
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

export function observation(step: number) {
  const cells = [];
  for (let i = 0; i < 100; i++) {
    const top = 70 + i * 19;
    const bounds = { left: 0, top, right: 402, bottom: top + 19 };
    cells.push({
      className: 'UITableViewCell',
      bounds,
      enabled: 'true',
      node: [
        { className: 'UILabel', text: `Setting ${i} (step ${step})`, bounds: { ...bounds, left: 20, right: 300 } },
        { className: 'UIButton', 'resource-id': `row-${i}`, 'content-desc': `Open setting ${i}`, clickable: 'true', bounds: { ...bounds, left: 360 } },
      ],
    });
  }
  return {
    updatedAt: 1_791_506_444_198 + step,
    packageName: 'com.apple.Preferences',
    screenWidth: 402,
    screenHeight: 874,
    screenScale: 3,
    captureIdentity: String(9_007_199_254_740_993n + BigInt(step)),
    hierarchy: { className: 'UIWindow', bounds: { left: 0, top: 0, right: 402, bottom: 874 }, node: cells },
  };
}

/** A packed trace of `steps` recorded taps (before and after, each with its screenshot and observation). */
export async function writeTrace(dir: string, steps: number, name = 'bench.parallax-trace'): Promise<string> {
  const recorder = await TraceRecorder.start({
    dir,
    manifest: { device: { name: 'iPhone 17 (bench)', kind: 'demo', url: 'ws://127.0.0.1:8765/ws' }, app: { bundleId: 'com.apple.Preferences' } },
  });
  const base = baseScreenshot();
  let before = await recorder.addResource('observation', observation(0));
  let beforeShot = await recorder.addResource('screenshot', variant(base, 0));
  for (let step = 0; step < steps; step++) {
    const after = await recorder.addResource('observation', observation(step + 1));
    const afterShot = await recorder.addResource('screenshot', variant(base, step + 1));
    await recorder.append({
      type: 'action.before',
      callId: `tap_${step}`,
      action: { kind: 'tap' },
      target: { nodeKey: `0.${step % 100}.1` },
      observationRef: before,
      screenshotRef: beforeShot,
    });
    await recorder.append({
      type: 'action.after',
      callId: `tap_${step}`,
      result: { success: true, backend: 'sdk' },
      observationRef: after,
      screenshotRef: afterShot,
    });
    before = after;
    beforeShot = afterShot;
  }
  return recorder.stop({ outFile: join(dir, name) });
}

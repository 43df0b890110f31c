/**
 * Frame context tokens, `<epoch>:<generation>:<hash>` (docs/protocol.md#p-frame-context).
 *
 * The epoch names this run of the device (a restarted runner never reuses a token), the generation
 * moves each time what is on screen changes, and the hash fingerprints the screen the generation stands
 * for. The fingerprint is taken over the whole capture (native views and web content), not over the
 * XCTest projection, so a screen XCTest cannot read still moves the generation when it changes.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { NativeCapture, ScreenCapture } from '@demo/phone/capture-model';

export const STALE_FRAME_ERROR = 'Stale frame context; observe a fresh frame before retrying';

/**
 * The digest of the text a native capture was read as (AppPage.readNative hashes each piece as it comes
 * over): the same screen is read as the same text, so it fingerprints the capture without writing its
 * 50,000 views out again (a stringify and hash of 5.7 MB held the device's event loop for 100-300 ms,
 * bench `live`). A capture made any other way is fingerprinted by its JSON.
 */
const readDigests = new WeakMap<NativeCapture, string>();

/** Records the digest of the text `native` was decoded from. */
export function rememberReadDigest(native: NativeCapture, digest: string): void {
  readDigests.set(native, digest);
}

export function fingerprint(capture: ScreenCapture): string {
  const hash = createHash('sha256');
  // A digest (hex) never reads as a capture's JSON (an object), so the two kinds of input cannot meet.
  hash.update(readDigests.get(capture.native) ?? JSON.stringify(capture.native));
  for (const id of Object.keys(capture.web).sort()) hash.update(`\u0000${id}\u0000${JSON.stringify(capture.web[id])}`);
  return hash.digest('hex').slice(0, 16);
}

export class FrameTracker {
  readonly epoch = randomUUID().toUpperCase();
  private generation = 0;
  private hash = '';

  /** Records a capture; true when it shows a different screen than the last one. */
  update(capture: ScreenCapture): boolean {
    const next = fingerprint(capture);
    if (next === this.hash) return false;
    this.hash = next;
    this.generation += 1;
    return true;
  }

  get token(): string {
    return `${this.epoch}:${this.generation}:${this.hash}`;
  }

  get currentGeneration(): number {
    return this.generation;
  }
}

/**
 * Frame context tokens, `<epoch>:<generation>:<hash>` (docs/protocol.md#p-frame-context).
 *
 * The epoch names this run of the device (a restarted runner never reuses a token), the generation
 * moves each time what is on screen changes, and the hash fingerprints the screen the generation stands
 * for. The fingerprint is taken over the whole capture (native views and web content), not over the
 * XCTest projection, so a screen XCTest cannot read still moves the generation when it changes.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ScreenCapture } from '@demo/phone/capture-model';

export const STALE_FRAME_ERROR = 'Stale frame context; observe a fresh frame before retrying';

export function fingerprint(capture: ScreenCapture): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(capture.native));
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

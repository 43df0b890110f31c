/**
 * The trace view's offline audits are kept per stored frame (R-A11Y-21). Refs are numbered per trace
 * (every trace holds obs-0001.json), so two traces' frames with the same refs are two frames, not one.
 */
import { describe, expect, it } from 'vitest';
import { FrameAudits, type StoredFrameReader } from '@main/a11y/frame-audits';
import type { LiveAudits } from '@main/a11y/live-audit';

describe('FrameAudits.storedFrame (R-A11Y-21)', () => {
  it('keeps one audit per trace and frame: the same refs in another trace are read, the same frame again is not', async () => {
    const reads: string[] = [];
    const reader: StoredFrameReader = async (path, observationRef) => {
      reads.push(`${path} ${observationRef}`);
      return { json: { notAScreen: path } };
    };
    // Stored frames never ask the live audits.
    const audits = new FrameAudits({} as LiveAudits, reader);
    await audits.storedFrame('/traces/a.parallax-trace', 'obs-0001.json');
    await audits.storedFrame('/traces/b.parallax-trace', 'obs-0001.json');
    await audits.storedFrame('/traces/a.parallax-trace', 'obs-0001.json');
    expect(reads).toEqual(['/traces/a.parallax-trace obs-0001.json', '/traces/b.parallax-trace obs-0001.json']);
  });
});

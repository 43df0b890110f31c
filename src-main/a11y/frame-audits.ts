/**
 * Findings of frames a trace stored, and two frames' findings compared (docs/rules.md#r-a11y-21): the
 * trace view lists a step's findings offline, from the trace's own frames (no device), and Compare says
 * which are new, gone or unchanged between a device's current frame and a recorded one, or two devices.
 * Audited in the audit worker, as the live panel's are (docs/rules.md#r-a11y-24); a stored frame is named by its content, so its audit is
 * kept (the newest few) and never goes stale.
 */
import { diffAudits } from '@shared/a11y';
import type { ApiOutput, A11yFrameSource } from '@shared/api/api';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import { auditStoredFrameOffThread } from './off-thread';
import type { LiveAudits } from './live-audit';

/** Stored frames whose audits are kept: a trace view's steps flicked back and forth are answered at once. */
export const KEPT_STORED_AUDITS = 64;

/** A side of a comparison had no frame to audit. */
export class NothingToAuditError extends Error {}

/**
 * A trace's stored screen (its JSON) and screenshot, by their refs; throws TraceOpenError for a resource
 * the trace does not hold. Handed in by the host, so the audits do not import the trace folder, which
 * imports them (replay audits the frames it compares).
 */
export type StoredFrameReader = (path: string, observationRef: string, screenshotRef?: string) => Promise<{ json: unknown; png?: Buffer | undefined }>;

export class FrameAudits {
  private readonly stored = new Map<string, AccessibilityAudit | null>();

  constructor(
    private readonly live: LiveAudits,
    private readonly readStoredFrame: StoredFrameReader,
  ) {}

  /** A trace's stored frame audited offline; null when its JSON is no screen. Throws TraceOpenError for a resource the trace does not hold. */
  async storedFrame(path: string, observationRef: string, screenshotRef?: string): Promise<AccessibilityAudit | null> {
    // Refs are numbered per trace (two traces both hold obs-0001), so the trace's path is part of the key.
    const key = JSON.stringify([path, observationRef, screenshotRef ?? '']);
    const kept = this.stored.get(key);
    if (kept !== undefined) {
      this.stored.delete(key);
      this.stored.set(key, kept);
      return kept;
    }
    const { json, png } = await this.readStoredFrame(path, observationRef, screenshotRef);
    const audit = (await auditStoredFrameOffThread(json, png)) ?? null;
    this.stored.set(key, audit);
    if (this.stored.size > KEPT_STORED_AUDITS) this.stored.delete(this.stored.keys().next().value!);
    return audit;
  }

  async compare(recorded: A11yFrameSource, compared: A11yFrameSource): Promise<ApiOutput<'a11y.compare'>> {
    const [was, now] = await Promise.all([this.side(recorded, 'recorded'), this.side(compared, 'compared')]);
    const side = (s: { audit: AccessibilityAudit; receivedAt: number | null }) => ({
      receivedAt: s.receivedAt,
      summary: s.audit.summary,
      ...(s.audit.truncated ? { truncated: s.audit.truncated } : {}),
    });
    return { recorded: side(was), compared: side(now), diff: diffAudits(was.audit, now.audit) };
  }

  private async side(source: A11yFrameSource, name: string): Promise<{ audit: AccessibilityAudit; receivedAt: number | null }> {
    if (source.from === 'device') {
      const answer = await this.live.audit(source.deviceId);
      if (!answer.audit) throw new NothingToAuditError(`the ${name} side: ${source.deviceId} has shown no screen with a tree to audit yet`);
      return { audit: answer.audit, receivedAt: answer.receivedAt };
    }
    const audit = await this.storedFrame(source.path, source.observationRef, source.screenshotRef);
    if (!audit) throw new NothingToAuditError(`the ${name} side: the trace's frame ${source.observationRef} is not a recorded screen`);
    return { audit, receivedAt: null };
  }
}

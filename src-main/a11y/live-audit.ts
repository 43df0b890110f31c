/**
 * The live Accessibility panel's host side (docs/rules.md#r-a11y-17): the audit of a device's current
 * frame, run here and not in the renderer (the screenshot is decoded and sampled in the host, so the page
 * never spends a frame on it), with the findings muted on that device. A frame is audited once: asking
 * again for the same frame answers the same audit.
 */
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { ApiOutput } from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import type { DeviceManager } from '@main/devices/manager';
import { auditFrame } from './audit-frame';
import type { DeviceProfiles } from './profiles';

export class LiveAudits {
  private readonly audited = new WeakMap<Frame, AccessibilityAudit | null>();

  constructor(
    private readonly manager: DeviceManager,
    private readonly profiles: DeviceProfiles,
  ) {}

  async audit(deviceId: string): Promise<ApiOutput<'device.audit'>> {
    const url = this.manager.summaryOf(deviceId).url;
    const frame = this.manager.lastFrame(deviceId);
    const muted = await this.profiles.muted(url);
    if (!frame) return { receivedAt: null, audit: null, muted };
    let audit = this.audited.get(frame);
    if (audit === undefined) {
      audit = auditFrame(frame) ?? null;
      this.audited.set(frame, audit);
    }
    return { receivedAt: frame.receivedAt, audit, muted };
  }

  async mute(deviceId: string, fingerprint: string, muted: boolean): Promise<ApiOutput<'device.muteFinding'>> {
    return { muted: await this.profiles.setMuted(this.manager.summaryOf(deviceId).url, fingerprint, muted) };
  }
}

/**
 * The live Accessibility panel's host side (docs/rules.md#r-a11y-17): the audit of a device's current
 * frame, run by the host and not in the renderer, and off the host's own thread too (the audit worker,
 * docs/rules.md#r-a11y-24: the screenshot's decode and the walk never hold the loop that forwards live
 * frames), with the findings muted on that device. A frame is audited once: asking again for the same
 * frame, even while its audit runs, answers the same audit.
 */
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { ApiOutput } from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import type { DeviceManager } from '@main/devices/manager';
import { auditFrameOffThread } from './off-thread';
import type { DeviceProfiles } from './profiles';

export class LiveAudits {
  private readonly audited = new WeakMap<Frame, Promise<AccessibilityAudit | null>>();

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
      audit = auditFrameOffThread(frame).then((a) => a ?? null);
      this.audited.set(frame, audit);
      // A failed audit (the worker died) is not kept: asked again, the frame is audited again.
      audit.catch(() => this.audited.delete(frame));
    }
    return { receivedAt: frame.receivedAt, audit: await audit, muted };
  }

  async mute(deviceId: string, fingerprint: string, muted: boolean): Promise<ApiOutput<'device.muteFinding'>> {
    return { muted: await this.profiles.setMuted(this.manager.summaryOf(deviceId).url, fingerprint, muted) };
  }
}

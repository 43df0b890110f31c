/**
 * The live Accessibility panel's host side (docs/rules.md#r-a11y-17): the audit of a device's current
 * frame, run by the host and not in the renderer, and off the host's own thread too (the audit worker,
 * docs/rules.md#r-a11y-24: the screenshot's decode and the walk never hold the loop that forwards live
 * frames), with the findings muted on that device. A frame is audited once: asking again for the same
 * frame, even while its audit runs, answers the same audit; while one runs, a newer frame gets that one's
 * answer (with its frame's receivedAt), so a device has one audit in the worker at a time.
 */
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { ApiOutput } from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import type { DeviceManager } from '@main/devices/manager';
import { sameAuditInput } from '@shared/a11y';
import { auditFrameOffThread } from './off-thread';
import type { DeviceProfiles } from './profiles';

export class LiveAudits {
  private readonly audited = new WeakMap<Frame, Promise<AccessibilityAudit | null>>();
  /** The audit running for each device, and the frame it is of. */
  private readonly running = new Map<string, { frame: Frame; audit: Promise<AccessibilityAudit | null> }>();
  /** The last audit started for each device (running or answered), and its frame. */
  private readonly last = new Map<string, { frame: Frame; audit: Promise<AccessibilityAudit | null> }>();

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
    let audited = frame;
    const running = this.running.get(deviceId);
    const last = this.last.get(deviceId);
    if (audit === undefined && last && sameScreen(last.frame, frame)) {
      // The live view re-reads the tree each second: an unchanged screen is not audited again, and its
      // findings are this frame's too (so its marks are drawn on it).
      audit = last.audit;
      this.audited.set(frame, audit);
      audit.catch(() => this.audited.delete(frame));
    } else if (audit === undefined && running) {
      // One audit a device at a time: a newer frame asked for meanwhile (the live view reads the tree each
      // second, and on a busy machine an audit can take longer) gets the running audit's answer, said to be
      // of its own frame, so audits never queue up in the worker behind frames already gone.
      audit = running.audit;
      audited = running.frame;
    } else if (audit === undefined) {
      audit = auditFrameOffThread(frame).then((a) => a ?? null);
      this.audited.set(frame, audit);
      const mine = { frame, audit };
      this.running.set(deviceId, mine);
      this.last.set(deviceId, mine);
      // A failed audit (the worker died) is not kept: asked again, the frame is audited again.
      void audit
        .catch(() => {
          this.audited.delete(frame);
          if (this.last.get(deviceId) === mine) this.last.delete(deviceId);
        })
        .finally(() => {
          if (this.running.get(deviceId) === mine) this.running.delete(deviceId);
        });
    }
    return { receivedAt: audited.receivedAt, audit: await audit, muted };
  }

  async mute(deviceId: string, fingerprint: string, muted: boolean): Promise<ApiOutput<'device.muteFinding'>> {
    return { muted: await this.profiles.setMuted(this.manager.summaryOf(deviceId).url, fingerprint, muted) };
  }
}

/** Two frames the audit reads alike: the same screenshot, and observations that give it the same input. */
function sameScreen(a: Frame, b: Frame): boolean {
  if (!a.observation || !b.observation) return false;
  if ((a.screenshot?.dataBase64 ?? null) !== (b.screenshot?.dataBase64 ?? null)) return false;
  return sameAuditInput(a.observation, b.observation);
}

/**
 * What Parallax remembers about one device between connections and starts (docs/rules.md#r-a11y-17): the
 * accessibility findings the user muted on it, by fingerprint (rule + element identity, so a mute holds for
 * the element on every later read of the screen). Kept in the settings file beside the manual devices
 * (discovery/manual.ts), under `deviceProfiles`, keyed by the device's URL as the device list shows it (an
 * AppReveal URL without its session token, so a new app start is the same device). Other keys of the file
 * are kept as they were (settings-file.ts).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { SESSION_TOKEN_PARAM } from '@shared/protocol/appreveal';
import { safeJson, updateSettingsFile } from '@main/settings-file';

/** Mutes kept per device at most: past it the oldest go first (a mute is one click; a list this long is no longer read). */
export const MAX_MUTED_PER_DEVICE = 1_000;
/** A fingerprint longer than this is no audit's (rule id + a label or id the device bounds). */
export const MAX_FINGERPRINT = 2_000;

const ProfileSchema = z.object({ a11yMuted: z.array(z.string().max(MAX_FINGERPRINT)).max(MAX_MUTED_PER_DEVICE).optional() }).loose();
type Profile = z.infer<typeof ProfileSchema>;
const SettingsSchema = z.object({ deviceProfiles: z.record(z.string(), z.unknown()).optional() }).loose();

export class DeviceProfileError extends Error {
  override readonly name = 'DeviceProfileError';
}

export class DeviceProfiles {
  private profiles = new Map<string, Profile>();
  private loading: Promise<void> | undefined;
  /** Why the file could not be read, if it could not (its profiles then start empty). */
  loadError: string | undefined;

  /** Without a path the profiles live in memory only. */
  constructor(readonly settingsPath?: string) {}

  async muted(deviceUrl: string): Promise<string[]> {
    await this.load();
    return [...(this.profiles.get(deviceUrl)?.a11yMuted ?? [])];
  }

  /** Mutes (or unmutes) one finding on one device and saves; answers the device's mutes after it. */
  async setMuted(deviceUrl: string, fingerprint: string, muted: boolean): Promise<string[]> {
    if (deviceUrl.includes(SESSION_TOKEN_PARAM)) throw new DeviceProfileError('a device profile is never keyed by a URL with a session token');
    await this.load();
    const profile = this.profiles.get(deviceUrl) ?? {};
    const before = profile.a11yMuted ?? [];
    const rest = before.filter((f) => f !== fingerprint);
    const next = muted ? [...rest, fingerprint].slice(-MAX_MUTED_PER_DEVICE) : rest;
    this.profiles.set(deviceUrl, { ...profile, a11yMuted: next });
    await this.save();
    return [...next];
  }

  private load(): Promise<void> {
    this.loading ??= this.read();
    return this.loading;
  }

  private async read(): Promise<void> {
    if (this.settingsPath === undefined) return;
    let text: string;
    try {
      text = await readFile(this.settingsPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.loadError = `cannot read ${this.settingsPath}`;
      return;
    }
    const parsed = SettingsSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      this.loadError = `${this.settingsPath} is not a settings file`;
      return;
    }
    // One bad profile is dropped, not every device's.
    for (const [url, raw] of Object.entries(parsed.data.deviceProfiles ?? {})) {
      const profile = ProfileSchema.safeParse(raw);
      if (profile.success) this.profiles.set(url, profile.data);
    }
  }

  /** Queued with every other owner's write of the file (settings-file.ts): only `deviceProfiles` is rewritten. */
  private save(): Promise<void> {
    if (this.settingsPath === undefined) return Promise.resolve();
    return updateSettingsFile(
      this.settingsPath,
      (current) => `${JSON.stringify({ ...current, deviceProfiles: Object.fromEntries(this.profiles) }, null, 2)}\n`,
    );
  }
}

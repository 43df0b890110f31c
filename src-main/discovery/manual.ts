/**
 * Devices the user added by hand, remembered between starts in a JSON settings file the caller names.
 *
 * AppReveal tokens are per app start and secret, so they are never saved: an AppReveal URL is stored
 * with `appreveal_session_token` (and any user info or fragment) removed, and a write that would still
 * contain a token is refused. Other top-level keys of the file are kept as they were, so the file can
 * be shared with other settings.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { SESSION_TOKEN_PARAM, stripSessionToken } from '@shared/protocol/appreveal';
import { safeJson, updateSettingsFile } from '@main/settings-file';

export const ManualEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(['runner', 'appreveal']),
  /** ws://HOST:PORT/ws for a runner, http://HOST:PORT/ for AppReveal: never with a token. */
  url: z.string(),
  name: z.string().optional(),
  addedAt: z.number().optional(),
});
export type ManualEntry = z.infer<typeof ManualEntrySchema>;

const SettingsFileSchema = z
  .object({
    // One bad entry is dropped, not the whole list.
    manualDevices: z.array(z.unknown()).optional(),
  })
  .loose();

export interface ManualEntryInput {
  url: string;
  kind?: 'runner' | 'appreveal';
  name?: string;
}

export class ManualEntryError extends Error {
  override readonly name = 'ManualEntryError';
}

export class ManualEntries {
  private entries: ManualEntry[] = [];
  private loaded = false;
  /** Why the file could not be read, if it could not (it is then rewritten on the next save). */
  loadError: string | undefined;

  /** Without a path the entries live in memory only (nothing is ever written). */
  constructor(readonly settingsPath?: string) {}

  /** Reads the file; a missing file is an empty list, a corrupt one too (with `loadError` set). */
  async load(): Promise<ManualEntry[]> {
    this.loaded = true;
    this.loadError = undefined;
    if (this.settingsPath === undefined) return this.list();
    let text: string;
    try {
      text = await readFile(this.settingsPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.loadError = `cannot read ${this.settingsPath}`;
      this.entries = [];
      return this.list();
    }
    const parsed = SettingsFileSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      this.loadError = `${this.settingsPath} is not a settings file`;
      this.entries = [];
      return this.list();
    }
    const entries: ManualEntry[] = [];
    for (const raw of parsed.data.manualDevices ?? []) {
      const entry = ManualEntrySchema.safeParse(raw);
      // An entry saved by hand with a token in it is re-stripped rather than trusted.
      if (entry.success) entries.push({ ...entry.data, url: normalizeManualUrl(entry.data.url, entry.data.kind).url });
    }
    this.entries = dedupe(entries);
    return this.list();
  }

  list(): ManualEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** Adds (or renames) an entry and saves. The token of an AppReveal session URL is dropped here. */
  async add(input: ManualEntryInput): Promise<ManualEntry> {
    const { kind, url } = normalizeManualUrl(input.url, input.kind);
    // Saving before the file was read would drop the entries already in it.
    if (!this.loaded) await this.load();
    const id = manualEntryId(kind, url);
    const existing = this.entries.find((entry) => entry.id === id);
    const name = input.name?.trim();
    const entry: ManualEntry = {
      id,
      kind,
      url,
      ...(name ? { name } : existing?.name ? { name: existing.name } : {}),
      addedAt: existing?.addedAt ?? Date.now(),
    };
    this.entries = existing ? this.entries.map((e) => (e.id === id ? entry : e)) : [...this.entries, entry];
    await this.save();
    return { ...entry };
  }

  async remove(id: string): Promise<boolean> {
    if (!this.loaded) await this.load();
    const before = this.entries.length;
    this.entries = this.entries.filter((entry) => entry.id !== id);
    if (this.entries.length === before) return false;
    await this.save();
    return true;
  }

  /** Writes are queued with every other owner's of the file (settings-file.ts). */
  private save(): Promise<void> {
    if (this.settingsPath === undefined) return Promise.resolve();
    return updateSettingsFile(this.settingsPath, (current) => {
      const text = `${JSON.stringify({ ...current, manualDevices: this.entries }, null, 2)}\n`;
      if (text.includes(SESSION_TOKEN_PARAM)) {
        throw new ManualEntryError('refusing to save settings that contain an AppReveal session token');
      }
      return text;
    });
  }
}

/**
 * The kind and the URL to store: ws:// is a runner (normalized to ws://HOST:PORT/ws), http:// is
 * AppReveal (token removed) unless `kind` says runner. A bare HOST:PORT is AppReveal unless told.
 */
export function normalizeManualUrl(input: string, kind?: 'runner' | 'appreveal'): { kind: 'runner' | 'appreveal'; url: string } {
  const text = input.trim();
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `${kind === 'runner' ? 'ws' : 'http'}://${text}`);
  } catch {
    throw new ManualEntryError('not a URL: expected ws://HOST:PORT/ws (runner) or http://HOST:PORT/ (AppReveal)');
  }
  if (url.port === '') throw new ManualEntryError('the URL needs a port');
  const isWs = url.protocol === 'ws:' || url.protocol === 'wss:';
  const isHttp = url.protocol === 'http:' || url.protocol === 'https:';
  if (!isWs && !isHttp) throw new ManualEntryError(`unsupported scheme ${url.protocol}// (use ws:// or http://)`);
  const resolved = kind ?? (isWs ? 'runner' : 'appreveal');
  if (resolved === 'runner') {
    const scheme = url.protocol === 'wss:' || url.protocol === 'https:' ? 'wss' : 'ws';
    return { kind: 'runner', url: `${scheme}://${url.host}/ws` };
  }
  if (isWs) throw new ManualEntryError('an AppReveal URL starts with http://');
  const stripped = stripSessionToken(url.href);
  if (stripped === '') throw new ManualEntryError('not a URL');
  return { kind: 'appreveal', url: stripped };
}

export function manualEntryId(kind: 'runner' | 'appreveal', url: string): string {
  return `manual:${kind}:${url}`;
}

function dedupe(entries: ManualEntry[]): ManualEntry[] {
  const seen = new Map<string, ManualEntry>();
  for (const entry of entries) {
    const id = manualEntryId(entry.kind, entry.url);
    if (!seen.has(id)) seen.set(id, { ...entry, id });
  }
  return [...seen.values()];
}

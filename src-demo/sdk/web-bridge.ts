/**
 * AutoMobileWebViewBridge registry, as the demo app registers its web views
 * (docs/rules.md#r-webview-commands).
 *
 * The page script (resources/demo-app/webview-bridge.js) posts snapshots; this side is the bridge's
 * policy: it accepts only a web view's main frame, checks each snapshot's origin against allowedOrigins
 * when it is posted, bounds it to maxElements and maxMessageBytes, redacts values when redactText is on,
 * and keeps the current document's four most recent snapshots (a committed navigation discards them).
 * Policy is enforced again when a snapshot is served, so a policy tightened at run time applies at once.
 * Actions go into the page only as the bounded typed set, as JSON data.
 */
import { z } from 'zod';
import type { Frame } from 'playwright-core';
import {
  WebElementSchema,
  WebViewportSchema,
  type SdkRelayFailure,
  type WEB_ACTION_REJECTION_REASONS,
  type WebActionResultSchema,
  type WebControlAction,
  type WebSnapshotSchema,
  type WebViewBridgeEntrySchema,
} from '@shared/protocol/sdk';
import type { AppPage } from '@demo/phone/app-page';
import type { Faults } from '@demo/phone/faults';

export const MAX_SNAPSHOTS_PER_DOCUMENT = 4;
export const DEFAULT_MAX_ELEMENTS = 500;
export const DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024;

type WebElement = z.infer<typeof WebElementSchema>;

/** What the page posts: its snapshot minus the id the bridge assigns, or a note that it was too large. */
const PostedSnapshotSchema = z.object({
  documentId: z.string().min(1).max(200),
  url: z.string(),
  title: z.string().optional(),
  viewport: WebViewportSchema.optional(),
  elements: z.array(WebElementSchema),
});
const PostedTooLargeSchema = z.object({ documentId: z.string().min(1).max(200), tooLarge: z.literal(true), bytes: z.number() });

// The wire forms are the shared schemas' inputs: what a real SDK encodes (docs/protocol.md#p-sdk-types).
// This bridge always knows where its elements are, so it never sends the real SDK's `bounds: []`.
export type WireWebSnapshot = Omit<z.input<typeof WebSnapshotSchema>, 'elements'> & { elements: WebElement[]; documentId: string };
export type WireWebViewEntry = z.input<typeof WebViewBridgeEntrySchema>;
export type WebSnapshotFailure = Extract<
  SdkRelayFailure,
  'bridge_unavailable' | 'web_process_unavailable' | 'disallowed_origin' | 'message_too_large' | 'no_snapshot'
>;
export type WebActionRejection = (typeof WEB_ACTION_REJECTION_REASONS)[number];
export type WireWebActionResult = z.input<typeof WebActionResultSchema>;

export interface WebPolicy {
  redactText: boolean;
  maxElements: number;
  maxMessageBytes: number;
}

interface WebViewState {
  webViewId: string;
  origin: string;
  lastUrl?: string;
  documentId?: string;
  snapshots: WireWebSnapshot[];
  /** Why the latest post of the current document was not accepted. */
  rejection?: 'disallowed_origin' | 'message_too_large';
  /** The size of the latest post when it was over maxMessageBytes. */
  tooLargeBytes?: number;
}

/** The web views the demo app can host, in registration order, with the origin each one loads. */
const WEB_VIEWS = [
  { webViewId: 'checkout', origin: 'https://checkout.parallax.test' },
  { webViewId: 'promo', origin: 'https://promo.parallax.test' },
] as const;

const originOf = (url: string | undefined): string | undefined => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

export class WebBridge {
  private readonly views = new Map<string, WebViewState>();
  private snapshotSeq = 0;
  readonly stats = { accepted: 0, rejected: 0, ignored: 0 };

  constructor(
    private readonly app: AppPage,
    private readonly faults: Faults,
  ) {
    for (const { webViewId, origin } of WEB_VIEWS) this.views.set(webViewId, { webViewId, origin, snapshots: [] });
    app.setWebBridgeHooks({
      hello: (frame, documentId) => this.onHello(frame, documentId),
      post: (frame, message) => this.onPost(frame, message),
    });
  }

  policy(): WebPolicy {
    return {
      redactText: this.faults.has('web-redact'),
      maxElements: this.faults.number('web-max-elements') ?? DEFAULT_MAX_ELEMENTS,
      maxMessageBytes: this.faults.number('web-max-bytes') ?? DEFAULT_MAX_MESSAGE_BYTES,
    };
  }

  /** Registered web view ids, in registration order. */
  registeredIds(): string[] {
    if (this.faults.has('web-unregistered')) return [];
    return this.faults.has('web-two-webviews') ? ['checkout', 'promo'] : ['checkout'];
  }

  private allowedOrigins(view: WebViewState): string[] {
    // With the fault on, the policy allows the shop's other origin but not the one the page loads from.
    if (view.webViewId === 'checkout' && this.faults.has('web-disallowed-origin')) return ['https://shop.parallax.test'];
    return [view.origin];
  }

  private processAvailable(view: WebViewState): boolean {
    return !(view.webViewId === 'checkout' && this.faults.has('web-process-terminated'));
  }

  /** The /health `webViewBridge` list. */
  entries(): WireWebViewEntry[] {
    return this.registeredIds().map((id) => {
      const view = this.views.get(id) as WebViewState;
      const entry: WireWebViewEntry = {
        webViewId: id,
        allowedOrigins: [...this.allowedOrigins(view)].sort(),
        contentProcessAvailable: this.processAvailable(view),
      };
      const url = view.lastUrl ?? this.app.webViewFrame(id)?.url();
      if (url && /^https?:/.test(url)) entry.url = url;
      return entry;
    });
  }

  private registeredView(frame: Frame): WebViewState | undefined {
    const id = this.app.webViewIdOf(frame);
    if (!id || !this.registeredIds().includes(id)) return undefined;
    return this.views.get(id);
  }

  /** A new document committed in some frame; for a web view's main frame its old snapshots go. */
  private onHello(frame: Frame, documentId: unknown): WebPolicy {
    const view = this.registeredView(frame);
    if (view && typeof documentId === 'string' && documentId !== view.documentId) this.newDocument(view, documentId, frame.url());
    return this.policy();
  }

  private newDocument(view: WebViewState, documentId: string | undefined, url: string | undefined): void {
    view.documentId = documentId;
    view.snapshots = [];
    delete view.rejection;
    delete view.tooLargeBytes;
    if (url && /^https?:/.test(url)) view.lastUrl = url;
  }

  /** Discards what a web view's current document posted, as a navigation or a crash does. */
  discard(webViewId: string): void {
    const view = this.views.get(webViewId);
    if (view) this.newDocument(view, undefined, undefined);
  }

  private onPost(frame: Frame, message: unknown): void {
    const view = this.registeredView(frame);
    // Only a registered web view's main frame may post; a nested frame's element ids would collide.
    if (!view || !this.processAvailable(view) || this.faults.has('web-no-snapshot') || typeof message !== 'string') {
      this.stats.ignored += 1;
      return;
    }
    const policy = this.policy();
    let raw: unknown;
    try {
      raw = JSON.parse(message);
    } catch {
      this.stats.ignored += 1;
      return;
    }
    const tooLarge = PostedTooLargeSchema.safeParse(raw);
    if (tooLarge.success) {
      // The page measured its snapshot over maxMessageBytes and sent only that fact.
      if (tooLarge.data.documentId !== view.documentId) this.newDocument(view, tooLarge.data.documentId, frame.url());
      view.rejection = 'message_too_large';
      view.tooLargeBytes = tooLarge.data.bytes;
      this.stats.rejected += 1;
      return;
    }
    const posted = PostedSnapshotSchema.safeParse(raw);
    if (!posted.success) {
      this.stats.ignored += 1;
      return;
    }
    const snapshot = posted.data;
    const documentId = snapshot.documentId;
    if (documentId !== view.documentId) this.newDocument(view, documentId, frame.url());
    if (snapshot.url && /^https?:/.test(snapshot.url)) view.lastUrl = snapshot.url;
    const origin = originOf(snapshot.url);
    if (!origin || !this.allowedOrigins(view).includes(origin)) {
      view.rejection = 'disallowed_origin';
      this.stats.rejected += 1;
      return;
    }
    const bytes = Buffer.byteLength(message, 'utf8');
    if (bytes > policy.maxMessageBytes) {
      view.rejection = 'message_too_large';
      view.tooLargeBytes = bytes;
      this.stats.rejected += 1;
      return;
    }
    const elements = snapshot.elements.slice(0, policy.maxElements);
    const accepted: WireWebSnapshot = {
      snapshotId: `s${++this.snapshotSeq}`,
      documentId,
      url: snapshot.url,
      elements,
    };
    if (snapshot.title !== undefined) accepted.title = snapshot.title;
    if (snapshot.viewport) accepted.viewport = snapshot.viewport;
    view.snapshots.push(redact(accepted, policy));
    if (view.snapshots.length > MAX_SNAPSHOTS_PER_DOCUMENT) view.snapshots.shift();
    delete view.rejection;
    delete view.tooLargeBytes;
    this.stats.accepted += 1;
  }

  /** Pushes the current policy into every web view's page script (data only). */
  async reconfigure(): Promise<void> {
    const policy = JSON.stringify(this.policy());
    await Promise.all(
      WEB_VIEWS.map(async ({ webViewId }) => {
        await this.app
          .webViewFrame(webViewId)
          ?.evaluate(`globalThis.__autoMobileWebBridge?.configure(${policy})`)
          .catch(() => {});
      }),
    );
  }

  private pick(webViewId: string | undefined): WebViewState | undefined {
    const registered = this.registeredIds();
    const id = webViewId ?? registered[0];
    return id !== undefined && registered.includes(id) ? this.views.get(id) : undefined;
  }

  /** Whether the current document's origin is outside the policy in force now. */
  private originBlocked(view: WebViewState): boolean {
    const origin = originOf(view.lastUrl ?? view.snapshots.at(-1)?.url);
    return origin !== undefined && !this.allowedOrigins(view).includes(origin);
  }

  /** The latest snapshot of the named (or first registered) web view. */
  snapshot(webViewId: string | undefined): { ok: true; webViewId: string; snapshot: WireWebSnapshot } | { ok: false; failure: WebSnapshotFailure } {
    const view = this.pick(webViewId);
    if (!view) return { ok: false, failure: 'bridge_unavailable' };
    if (!this.processAvailable(view)) return { ok: false, failure: 'web_process_unavailable' };
    if (this.originBlocked(view)) return { ok: false, failure: 'disallowed_origin' };
    // Judged against the limit in force now, so raising maxMessageBytes takes effect at once.
    if (view.tooLargeBytes !== undefined && view.tooLargeBytes > this.policy().maxMessageBytes) return { ok: false, failure: 'message_too_large' };
    const latest = view.snapshots.at(-1);
    if (!latest) return { ok: false, failure: 'no_snapshot' };
    return { ok: true, webViewId: view.webViewId, snapshot: this.present(latest) };
  }

  /**
   * A stored snapshot as it leaves the bridge under the policy in force now (so a policy tightened at
   * run time covers snapshots accepted before), with the duplicate-id fault applied when it is on.
   */
  private present(snapshot: WireWebSnapshot): WireWebSnapshot {
    const policy = this.policy();
    const bounded = snapshot.elements.length > policy.maxElements ? { ...snapshot, elements: snapshot.elements.slice(0, policy.maxElements) } : snapshot;
    const out = redact(bounded, policy);
    return this.faults.has('web-duplicate-id') ? { ...out, elements: duplicateOneId(out.elements) } : out;
  }

  isRegistered(webViewId: string): boolean {
    return this.registeredIds().includes(webViewId);
  }

  async perform(webViewId: string, action: WebControlAction): Promise<WireWebActionResult> {
    const began = Date.now();
    const view = this.pick(webViewId);
    if (!view) return { success: false, reason: 'web_process_unavailable' };
    if (!this.processAvailable(view)) return { success: false, reason: 'web_process_unavailable' };
    if (this.originBlocked(view)) return { success: false, reason: 'disallowed_origin' };

    const kind = Object.keys(action)[0] as string;
    const payload = (action as Record<string, { snapshotId: string; elementId?: string }>)[kind] as {
      snapshotId: string;
      elementId?: string;
    } & Record<string, unknown>;
    const stored = view.snapshots.find((s) => s.snapshotId === payload.snapshotId);
    if (!stored) return { success: false, reason: 'stale_snapshot' };
    const snapshot = this.present(stored);
    if (payload.elementId !== undefined) {
      const matches = snapshot.elements.filter((e) => e.id === payload.elementId);
      const element = matches.length === 1 ? matches[0] : undefined;
      if (!element || !element.enabled || !element.visible) return { success: false, reason: 'element_not_actionable' };
    }
    const frame = this.app.webViewFrame(view.webViewId);
    if (!frame) return { success: false, reason: 'web_process_unavailable' };

    const command: Record<string, unknown> = { kind, elementId: payload.elementId };
    if ('text' in payload) command.text = payload.text;
    if ('value' in payload) command.value = payload.value;
    if ('x' in payload) command.x = payload.x;
    if ('y' in payload) command.y = payload.y;
    try {
      const done = (await frame.evaluate(`globalThis.__autoMobileWebBridge.perform(${JSON.stringify(command)})`)) as { documentId?: string } | null;
      // The element ids of another document mean nothing here: the bounded script ran somewhere else.
      if (done?.documentId && view.documentId && done.documentId !== view.documentId) return { success: false, reason: 'stale_snapshot' };
    } catch (error) {
      const message = String(error);
      // Only an exception raised by the bounded script itself is a javascript_error.
      if (/detached/i.test(message)) return { success: false, reason: 'web_process_unavailable' };
      if (/context was destroyed|navigat/i.test(message)) return { success: false, reason: 'stale_snapshot' };
      return { success: false, reason: 'javascript_error' };
    }
    return { success: true, durationMs: Date.now() - began };
  }

  /** For admin stats. */
  describe(): Record<string, { documentId?: string; snapshots: string[]; rejection?: string }> {
    const out: Record<string, { documentId?: string; snapshots: string[]; rejection?: string }> = {};
    for (const [id, view] of this.views) {
      const entry: { documentId?: string; snapshots: string[]; rejection?: string } = { snapshots: view.snapshots.map((s) => s.snapshotId) };
      if (view.documentId) entry.documentId = view.documentId;
      if (view.rejection) entry.rejection = view.rejection;
      out[id] = entry;
    }
    return out;
  }
}

/** Strips values the policy does not let out: every value under redactText, a password's always. */
function redact(snapshot: WireWebSnapshot, policy: WebPolicy): WireWebSnapshot {
  const needs = snapshot.elements.some((e) => e.value !== undefined && (policy.redactText || e.inputType === 'password'));
  if (!needs) return snapshot;
  return {
    ...snapshot,
    elements: snapshot.elements.map((e) => {
      if (e.value === undefined || !(policy.redactText || e.inputType === 'password')) return e;
      const { value: _value, ...rest } = e;
      return { ...rest, valueRedacted: true };
    }),
  };
}

/** The web-duplicate-id fault: the second text input reports the first one's id. */
function duplicateOneId(elements: WebElement[]): WebElement[] {
  const inputs = elements.filter((e) => e.role === 'input' && e.visible);
  const [first, second] = inputs;
  if (!first || !second) return elements;
  return elements.map((e) => (e === second ? { ...e, id: first.id } : e));
}

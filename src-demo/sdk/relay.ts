/**
 * The runner's side of the SDK bridges (docs/rules.md#r-cmd-05, R-WEB-13): it asks the foreground app's
 * SDK over loopback HTTP and turns every outcome into the relay reply payloads of
 * docs/protocol.md#p-relay, with the typed failures (R-CMD-06, R-WEB-14):
 *   bridge_unavailable  no SDK or no registered bridge (or web view); nothing was sent; available:false
 *   app_not_active      the app resigned active before the SDK served the request
 *   invalid_action      actionJson (or webViewId) missing, or not an action
 *   bad_reply           a sent request got no answer, or the answer breaks the contract
 *   disallowed_origin, web_process_unavailable, message_too_large, no_snapshot (web commands)
 * Budgets: 2 s per SDK request, 5 s in total per runner command. An action honours the budget its
 * client sent (`timeoutMs`): a bridge swipe's is its duration + 3 s (docs/rules.md#r-swp-08), so the
 * request that carries it may take that long. A timed-out action is `available: true` with bad_reply: it
 * may have run.
 */
import { parseJsonLossless } from '@shared/protocol/json';
import {
  BridgeActionResultSchema,
  decodeAutoMobileAction,
  decodeWebControlAction,
  ObservationBridgeStateSchema,
  ObservationSnapshotSchema,
  WebActionResultSchema,
  WebSnapshotSchema,
  WebViewBridgeEntrySchema,
  type SdkRelayFailure,
} from '@shared/protocol/sdk';
import { z } from 'zod';
import { SdkErrorBodySchema, SdkHealthSchema, SdkWebSnapshotResponseSchema, type SdkHealth } from './http';

export const SDK_REQUEST_BUDGET_MS = 2000;
export const SDK_COMMAND_BUDGET_MS = 5000;

type HttpOutcome = { kind: 'refused' } | { kind: 'timeout' } | { kind: 'error'; detail: string } | { kind: 'response'; status: number; body: unknown };

class Budget {
  private readonly deadline: number;
  constructor(totalMs: number) {
    this.deadline = Date.now() + totalMs;
  }
  /** The time the next request may take, or 0 when the command's budget is spent. */
  next(): number {
    return Math.max(0, Math.min(SDK_REQUEST_BUDGET_MS, this.left()));
  }
  /** All the time left: what an action the client budgeted for may take. */
  left(): number {
    return Math.max(0, this.deadline - Date.now());
  }
}

/** What the relay keeps back of a client's budget, so its own answer (bad_reply) arrives before the client gives up. */
const ANSWER_MARGIN_MS = 100;

/** The command's budget: the one the client sent (less the margin), else the runner's own 5 s. */
function commandBudget(clientMs: number | undefined): Budget {
  return new Budget(clientMs !== undefined && clientMs > 0 ? Math.max(1, clientMs - ANSWER_MARGIN_MS) : SDK_COMMAND_BUDGET_MS);
}

const WebViewListSchema = z.array(WebViewBridgeEntrySchema);

export interface RelayFailurePayload {
  available: boolean;
  failure: SdkRelayFailure;
  error: string;
}

const FAILURE_TEXT: Record<SdkRelayFailure, string> = {
  bridge_unavailable: 'No SDK bridge is available in the foreground app; nothing was sent',
  app_not_active: 'The app is not active',
  invalid_action: 'actionJson is missing or is not a valid action',
  bad_reply: 'The SDK did not answer, or its answer does not match the contract',
  disallowed_origin: "The page's origin is not allowed by the bridge's policy",
  web_process_unavailable: "The web view's content process is not available",
  message_too_large: "The message exceeds the bridge's maxMessageBytes",
  no_snapshot: 'The current document has not posted a snapshot yet',
};

export function relayFailure(failure: SdkRelayFailure, detail?: string): RelayFailurePayload {
  return {
    available: failure !== 'bridge_unavailable',
    failure,
    error: detail ? `${FAILURE_TEXT[failure]}: ${detail}` : FAILURE_TEXT[failure],
  };
}

const RELAYED_FAILURES = new Set<string>([
  'app_not_active',
  'disallowed_origin',
  'web_process_unavailable',
  'message_too_large',
  'no_snapshot',
  'bridge_unavailable',
]);

export class SdkRelay {
  constructor(private readonly baseUrl: () => string) {}

  private async call(method: 'GET' | 'POST', path: string, timeoutMs: number, body?: string): Promise<HttpOutcome> {
    if (timeoutMs <= 0) return { kind: 'timeout' };
    try {
      const init: RequestInit = { method, signal: AbortSignal.timeout(Math.max(1, Math.round(timeoutMs))) };
      if (body !== undefined) {
        init.body = body;
        init.headers = { 'content-type': 'application/json' };
      }
      const response = await fetch(`${this.baseUrl()}${path}`, init);
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = parseJsonLossless(text);
      } catch {
        parsed = undefined;
      }
      return { kind: 'response', status: response.status, body: parsed };
    } catch (error) {
      const err = error as { name?: string; cause?: { code?: string }; message?: string };
      if (err.name === 'TimeoutError' || err.name === 'AbortError') return { kind: 'timeout' };
      if (err.cause?.code === 'ECONNREFUSED') return { kind: 'refused' };
      return { kind: 'error', detail: err.cause?.code ?? err.message ?? String(error) };
    }
  }

  /** GET /health: the SDK's answer, `absent` when nothing listens, or a failed probe. */
  private async health(budget: Budget): Promise<{ kind: 'ok'; health: SdkHealth } | { kind: 'absent' } | { kind: 'failed'; detail: string }> {
    const outcome = await this.call('GET', '/health', budget.next());
    if (outcome.kind === 'refused') return { kind: 'absent' };
    if (outcome.kind === 'timeout') return { kind: 'failed', detail: 'GET /health timed out' };
    if (outcome.kind === 'error') return { kind: 'failed', detail: outcome.detail };
    const parsed = SdkHealthSchema.safeParse(outcome.body);
    if (outcome.status !== 200 || !parsed.success) return { kind: 'failed', detail: `GET /health answered ${outcome.status}` };
    return { kind: 'ok', health: parsed.data };
  }

  /** The bridge object as the SDK sent it, or undefined when it is missing or malformed (dropped). */
  private static observationBridge(health: SdkHealth): unknown {
    return ObservationBridgeStateSchema.safeParse(health.observationBridge).success ? health.observationBridge : undefined;
  }

  private static webViews(health: SdkHealth): unknown[] | undefined {
    return WebViewListSchema.safeParse(health.webViewBridge).success ? (health.webViewBridge as unknown[]) : undefined;
  }

  private static webViewIds(health: SdkHealth): string[] {
    const list = WebViewListSchema.safeParse(health.webViewBridge);
    return list.success ? list.data.map((entry) => entry.webViewId) : [];
  }

  private static bridgeAvailable(health: SdkHealth): boolean {
    const state = ObservationBridgeStateSchema.safeParse(health.observationBridge);
    return state.success && state.data.available;
  }

  /** A non-2xx answer or a transport failure, as a relay failure. */
  private static failureOf(outcome: HttpOutcome): RelayFailurePayload {
    if (outcome.kind === 'timeout') return relayFailure('bad_reply', 'the SDK did not answer in time');
    if (outcome.kind === 'refused') return relayFailure('bad_reply', 'the SDK stopped listening');
    if (outcome.kind === 'error') return relayFailure('bad_reply', outcome.detail);
    const body = SdkErrorBodySchema.safeParse(outcome.body);
    const failure = body.success ? body.data.failure : undefined;
    if (failure && RELAYED_FAILURES.has(failure)) {
      // A bridge that vanished between /health and the request: something was sent, so it is not
      // "nothing was sent" any more, but the SDK said plainly there is no bridge.
      return relayFailure(failure);
    }
    if (outcome.status === 400) return relayFailure('invalid_action', body.success ? body.data.detail : undefined);
    return relayFailure('bad_reply', `the SDK answered ${outcome.status}`);
  }

  // ---- Commands ------------------------------------------------------------------------------------

  async capabilities(): Promise<{ ok: true; payload: Record<string, unknown> } | { ok: false; error: string }> {
    const probe = await this.health(new Budget(SDK_COMMAND_BUDGET_MS));
    if (probe.kind === 'absent') return { ok: true, payload: { available: false, capabilities: [] } };
    // A probe that got no answer is an error, never "unavailable".
    if (probe.kind === 'failed') return { ok: false, error: `SDK capability probe failed: ${probe.detail}` };
    const { health } = probe;
    const payload: Record<string, unknown> = {
      available: true,
      capabilities: [...(health.capabilities ?? [])].sort(),
    };
    if (health.bundleId) payload.bundleId = health.bundleId;
    const bridge = SdkRelay.observationBridge(health);
    if (bridge !== undefined) payload.observationBridge = bridge;
    const webViews = SdkRelay.webViews(health);
    if (webViews !== undefined) payload.webViewBridge = webViews;
    return { ok: true, payload };
  }

  async observation(): Promise<Record<string, unknown>> {
    const budget = new Budget(SDK_COMMAND_BUDGET_MS);
    const probe = await this.health(budget);
    if (probe.kind === 'absent') return { ...relayFailure('bridge_unavailable') };
    if (probe.kind === 'failed') return { ...relayFailure('bad_reply', probe.detail) };
    if (!SdkRelay.bridgeAvailable(probe.health)) return { ...relayFailure('bridge_unavailable') };
    const outcome = await this.call('POST', '/observation/snapshot', budget.next(), '{}');
    if (outcome.kind !== 'response' || outcome.status !== 200) return { ...SdkRelay.failureOf(outcome) };
    if (!ObservationSnapshotSchema.safeParse(outcome.body).success) return { ...relayFailure('bad_reply', 'the snapshot does not match the contract') };
    return { available: true, snapshot: outcome.body };
  }

  async action(actionJson: string | undefined, clientBudgetMs?: number): Promise<Record<string, unknown>> {
    const budget = commandBudget(clientBudgetMs);
    const probe = await this.health(budget);
    if (probe.kind === 'absent') return { ...relayFailure('bridge_unavailable') };
    if (probe.kind === 'failed') return { ...relayFailure('bad_reply', probe.detail) };
    if (!SdkRelay.bridgeAvailable(probe.health)) return { ...relayFailure('bridge_unavailable') };
    if (actionJson === undefined) return { ...relayFailure('invalid_action', 'actionJson is missing') };
    const decoded = decodeAutoMobileAction(actionJson);
    if (!decoded.ok) return { ...relayFailure('invalid_action', decoded.error.message) };
    // The action goes on exactly as the client wrote it, so its identity keeps every digit; it may take
    // what the client budgeted for it (a swipe's stroke runs before the bridge answers).
    const outcome = await this.call('POST', '/observation/action', clientBudgetMs !== undefined ? budget.left() : budget.next(), actionJson);
    if (outcome.kind !== 'response' || outcome.status !== 200) return { ...SdkRelay.failureOf(outcome) };
    if (!BridgeActionResultSchema.safeParse(outcome.body).success) return { ...relayFailure('bad_reply', 'the result does not match the contract') };
    return { available: true, result: outcome.body };
  }

  async webSnapshot(webViewId: string | undefined): Promise<Record<string, unknown>> {
    const budget = new Budget(SDK_COMMAND_BUDGET_MS);
    const probe = await this.health(budget);
    if (probe.kind === 'absent') return { ...relayFailure('bridge_unavailable'), webViews: [] };
    if (probe.kind === 'failed') return { ...relayFailure('bad_reply', probe.detail), webViews: [] };
    const webViews = SdkRelay.webViews(probe.health) ?? [];
    const ids = SdkRelay.webViewIds(probe.health);
    if (ids.length === 0 || (webViewId !== undefined && !ids.includes(webViewId))) {
      return { ...relayFailure('bridge_unavailable'), webViews };
    }
    const body = JSON.stringify(webViewId === undefined ? {} : { webViewId });
    const outcome = await this.call('POST', '/webview/snapshot', budget.next(), body);
    if (outcome.kind !== 'response' || outcome.status !== 200) return { ...SdkRelay.failureOf(outcome), webViews };
    const answer = SdkWebSnapshotResponseSchema.safeParse(outcome.body);
    if (!answer.success || !WebSnapshotSchema.safeParse(answer.data.snapshot).success) {
      return { ...relayFailure('bad_reply', 'the web snapshot does not match the contract'), webViews };
    }
    return { available: true, webViews, webViewId: answer.data.webViewId, snapshot: answer.data.snapshot };
  }

  async webAction(webViewId: string | undefined, actionJson: string | undefined, clientBudgetMs?: number): Promise<Record<string, unknown>> {
    const budget = commandBudget(clientBudgetMs);
    const probe = await this.health(budget);
    if (probe.kind === 'absent') return { ...relayFailure('bridge_unavailable') };
    if (probe.kind === 'failed') return { ...relayFailure('bad_reply', probe.detail) };
    if (webViewId === undefined) return { ...relayFailure('invalid_action', 'webViewId is missing') };
    if (!SdkRelay.webViewIds(probe.health).includes(webViewId)) return { ...relayFailure('bridge_unavailable') };
    if (actionJson === undefined) return { ...relayFailure('invalid_action', 'actionJson is missing') };
    const decoded = decodeWebControlAction(actionJson);
    if (!decoded.ok) return { ...relayFailure('invalid_action', decoded.error.message) };
    const body = `{"webViewId":${JSON.stringify(webViewId)},"action":${actionJson}}`;
    const outcome = await this.call('POST', '/webview/action', clientBudgetMs !== undefined ? budget.left() : budget.next(), body);
    if (outcome.kind !== 'response' || outcome.status !== 200) return { ...SdkRelay.failureOf(outcome) };
    if (!WebActionResultSchema.safeParse(outcome.body).success) return { ...relayFailure('bad_reply', 'the result does not match the contract') };
    return { available: true, result: outcome.body };
  }
}

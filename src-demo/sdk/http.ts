/**
 * The in-app SDK's HTTP bodies (docs/protocol.md#p-sdk-http), shared by the SDK server and the runner
 * that relays to it. The bridge payloads themselves (snapshots, actions, results) are the shared sdk.ts
 * schemas; what is here is only the SDK's own envelope around them.
 */
import { z } from 'zod';
import { SdkRelayFailureSchema } from '@shared/protocol/sdk';

/**
 * GET /health. The bridge fields are left unknown on purpose: the runner validates each one on its own
 * and drops a malformed one rather than failing the whole reply (docs/rules.md#r-disc-11).
 */
export const SdkHealthSchema = z.object({
  status: z.literal('ok'),
  bundleId: z.string().optional(),
  sdkVersion: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  observationBridge: z.unknown().optional(),
  webViewBridge: z.unknown().optional(),
});
export type SdkHealth = z.infer<typeof SdkHealthSchema>;

/** Any non-2xx answer: `failure` is a relay failure code the runner passes on; `error` is for humans. */
export const SdkErrorBodySchema = z.object({
  failure: SdkRelayFailureSchema.optional(),
  error: z.string().optional(),
  detail: z.string().optional(),
});
export type SdkErrorBody = z.infer<typeof SdkErrorBodySchema>;

/** POST /webview/snapshot. */
export const SdkWebSnapshotRequestSchema = z.object({ webViewId: z.string().optional() });

/** POST /webview/action: the action is one AutoMobileWebControlAction, validated on its own. */
export const SdkWebActionRequestSchema = z.object({ webViewId: z.string(), action: z.unknown() });

/** POST /webview/snapshot answer. */
export const SdkWebSnapshotResponseSchema = z.object({ webViewId: z.string(), snapshot: z.unknown() });

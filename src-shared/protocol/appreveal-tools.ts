/**
 * AppReveal's tools (docs/protocol.md#p-ar-tools): which ones the inspector uses, how a tool's arguments
 * are named (from its `inputSchema` in tools/list, since iOS says `element_id` where Tauri says `id`),
 * the two forms of a `batch` reply, and the app state the read-only tools give.
 */
import { z } from 'zod';

// ---- Tools the inspector uses -----------------------------------------------------------------------

/** The UI tools the inspector uses; each is offered only when the app lists it. */
export const APPREVEAL_UI_TOOLS = [
  'list_windows',
  'get_screen',
  'get_elements',
  'screenshot',
  'tap_element',
  'tap_text',
  'tap_point',
  'type_text',
  'clear_text',
  'scroll',
  'scroll_to_element',
  'navigate_back',
  'open_deeplink',
] as const;
export type AppRevealUiTool = (typeof APPREVEAL_UI_TOOLS)[number];

/** Web view tools the inspector can drive; `web_evaluate` (arbitrary JavaScript) is deliberately absent. */
export const APPREVEAL_WEB_TOOLS = [
  'get_webviews',
  'get_dom_interactive',
  'web_click',
  'web_type',
  'web_select',
  'web_toggle',
  'web_scroll_to',
  'web_navigate',
] as const;
export type AppRevealWebTool = (typeof APPREVEAL_WEB_TOOLS)[number];

export const SCROLL_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
export type ScrollDirection = (typeof SCROLL_DIRECTIONS)[number];

// ---- Argument names, from each tool's inputSchema (docs/protocol.md#p-ar-args) ----------------------

/** What tools/list says of one tool's input: the property names its schema lists, and which are required. */
export interface AppRevealToolSpec {
  name: string;
  /** Absent when the schema lists no properties at all (nothing is known, so iOS names are assumed). */
  properties?: readonly string[];
  required?: readonly string[];
}

const ToolListEntrySchema = z.object({
  name: z.string(),
  inputSchema: z
    .object({ properties: z.record(z.string(), z.unknown()).optional(), required: z.array(z.string()).optional() })
    .loose()
    .optional(),
});

/** One tools/list entry as a spec; undefined when it is not one (no name). */
export function toolSpecOf(entry: unknown): AppRevealToolSpec | undefined {
  const parsed = ToolListEntrySchema.safeParse(entry);
  if (!parsed.success) return undefined;
  const { name, inputSchema } = parsed.data;
  const spec: AppRevealToolSpec = { name };
  if (inputSchema?.properties !== undefined) spec.properties = Object.keys(inputSchema.properties);
  if (inputSchema?.required !== undefined) spec.required = [...inputSchema.required];
  return spec;
}

/**
 * The names each port gives one argument, in the order they are tried: iOS first (`element_id`,
 * `window_id`, `container_id`, `webview_id`), then Tauri's (`id` / `elementId` / `selector`, `windowId`).
 * Tauri resolves an AppReveal id (`web.<window>.<n>`) whichever of its three names carries it.
 */
export const ARGUMENT_ALIASES = {
  element: ['element_id', 'id', 'elementId', 'selector'],
  window: ['window_id', 'windowId'],
  container: ['container_id', 'containerId'],
  webview: ['webview_id', 'webviewId'],
} as const;
export type ArgumentRole = keyof typeof ARGUMENT_ALIASES;
const ROLES = Object.keys(ARGUMENT_ALIASES) as ArgumentRole[];

/**
 * The name this tool takes for an argument role: the first alias its schema lists; the iOS name when
 * the schema lists no properties at all; null when it lists properties but none of the aliases.
 */
export function argumentNameFor(spec: AppRevealToolSpec | undefined, role: ArgumentRole): string | null {
  const aliases = ARGUMENT_ALIASES[role];
  if (!spec?.properties) return aliases[0];
  return aliases.find((name) => spec.properties!.includes(name)) ?? null;
}

export interface ToolArgumentRequest {
  /** Arguments named by their role; the tool's schema decides the name. */
  element?: string | undefined;
  window?: string | undefined;
  container?: string | undefined;
  webview?: string | undefined;
  /** Arguments every port names alike (text, x, y, direction, selector, match_mode, …). */
  values?: Record<string, unknown>;
  /**
   * Roles and value keys that are left out when the tool does not take them. Anything else the tool
   * does not take fails closed, nothing sent: a tap meant for a picked window must not land on the key
   * window because the tool has no window argument.
   */
  optional?: readonly string[];
}

export type ToolArguments = { ok: true; args: Record<string, unknown> } | { ok: false; why: string };

/** A tool's arguments, named as its inputSchema names them (docs/rules.md#r-ar-19). */
export function buildToolArguments(spec: AppRevealToolSpec | undefined, request: ToolArgumentRequest): ToolArguments {
  const tool = spec?.name ?? 'the tool';
  const optional = new Set(request.optional ?? []);
  const args: Record<string, unknown> = {};
  for (const role of ROLES) {
    const value = request[role];
    if (value === undefined) continue;
    const name = argumentNameFor(spec, role);
    if (name !== null) args[name] = value;
    else if (!optional.has(role)) return { ok: false, why: `${tool} takes no ${role} argument (its inputSchema lists ${listed(spec)})` };
  }
  for (const [key, value] of Object.entries(request.values ?? {})) {
    if (value === undefined) continue;
    if (!spec?.properties || spec.properties.includes(key)) args[key] = value;
    else if (!optional.has(key)) return { ok: false, why: `${tool} takes no ${key} argument (its inputSchema lists ${listed(spec)})` };
  }
  return { ok: true, args };
}

function listed(spec: AppRevealToolSpec | undefined): string {
  const names = spec?.properties ?? [];
  return names.length === 0 ? 'none' : names.join(', ');
}

// ---- batch (docs/protocol.md#p-ar-batch) -----------------------------------------------------------

/** One action of a batch reply, whatever the port: its tool, and its value or why it failed. */
export interface AppRevealBatchItem {
  index: number;
  tool?: string;
  ok: boolean;
  /** The tool's result; iOS sends it as a JSON string, which is parsed (a string that is not JSON stays one). */
  value?: unknown;
  error?: string;
}

const WireBatchItemSchema = z
  .object({
    index: z.number().int().nonnegative().optional(),
    tool: z.string().optional(),
    success: z.boolean().optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  })
  .loose();

/**
 * iOS `{results: [{index, tool, result: "<JSON string>"} | {index, tool?, error}], count}` and Tauri
 * `{results: [{index, tool, success: true, result: {…}} | {index, tool?, success: false, error}]}`.
 */
export const AppRevealBatchReplySchema = z.object({ results: z.array(WireBatchItemSchema) }).transform((raw): AppRevealBatchItem[] =>
  raw.results.map((item, position): AppRevealBatchItem => {
    const base = { index: item.index ?? position, ...(item.tool !== undefined ? { tool: item.tool } : {}) };
    const failed = item.success === false || (item.error !== undefined && item.error !== null);
    if (failed) {
      const error = typeof item.error === 'string' ? item.error : item.error === undefined || item.error === null ? 'failed' : JSON.stringify(item.error);
      return { ...base, ok: false, error };
    }
    return { ...base, ok: true, value: typeof item.result === 'string' ? parseJsonOr(item.result) : item.result };
  }),
);

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// ---- App state: the read-only tools (docs/rules.md#r-ar-22) ------------------------------------------

/**
 * The read-only tools the App panel shows, in its order. Each is read only when the app registered it;
 * none changes anything in the app.
 */
export const APPREVEAL_READ_TOOLS = [
  'get_state',
  'get_navigation_stack',
  'get_feature_flags',
  'get_network_calls',
  'get_logs',
  'get_recent_errors',
  'device_info',
  'launch_context',
] as const;
export type AppRevealReadTool = (typeof APPREVEAL_READ_TOOLS)[number];

/**
 * One captured call in full (request and response headers, captured text bodies with their truncation
 * flags, parsed Server-Sent Event frames), by the `id` get_network_calls listed. Read-only, but only on
 * the user's click: a body can be large, so it is never part of the per-step app state. AppReveal's
 * docs/API.md `get_network_call_detail`; iOS/Tests/AppRevealTests/MCPRouterTests.swift
 * testNetworkCallDetailExposesHeadersBodiesAndSSEFrames (`response.body`, `sseEvents[].data`, `sseEventCount`).
 */
export const APPREVEAL_NETWORK_DETAIL_TOOL = 'get_network_call_detail';

/** The largest JSON text one read-only tool's answer may have; a bigger one is reported, not kept. */
export const MAX_APP_STATE_READING_CHARS = 256 * 1024;

/** One read-only tool's answer: its value, or why there is none. */
export const AppStateReadingSchema = z.object({
  tool: z.string(),
  ok: z.boolean(),
  value: z.unknown().optional(),
  error: z.string().optional(),
});
export type AppStateReading = z.infer<typeof AppStateReadingSchema>;

/** What the app's read-only tools said at one moment. */
export const AppStateSchema = z.object({
  /** Epoch ms, when the read finished. */
  readAt: z.number(),
  readings: z.array(AppStateReadingSchema),
});
export type AppState = z.infer<typeof AppStateSchema>;

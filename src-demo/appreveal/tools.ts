/**
 * The demo's AppReveal tools, as each real server registers and answers them (docs/protocol.md#p-ar-tools):
 * the iOS framework (`iOS/Sources/AppReveal/MCPServer/MCPTools.swift`: `element_id`, string booleans,
 * "x,y,w,h" frames, comma-joined actions, failures as `{"error": ...}` text, batch results as JSON
 * strings) and the Tauri crate (`Windows/appreveal-tauri`: `id` / `elementId` / `selector`, DOM-shaped
 * elements with `role`, `tag`, `type`, an actions array and a frame string plus `rect`, failures as
 * `{"success": false}` results or `-32603 "Invalid params: …"`, batch results as objects).
 *
 * Both flavours always have the tools every AppReveal server has: `batch`, `device_info`, `get_state`,
 * `launch_context` (docs/rules.md#r-ar-25).
 *
 * Over 500 lines on purpose: one table of every tool of both flavours, each entry beside its twin, so a
 * reader holds the two real servers' answers to one call side by side (their sources are cited per entry).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppRevealElement, AppRevealFrame, AppRevealWindow } from '@shared/protocol/appreveal';
import { SCROLL_DIRECTIONS } from '@shared/protocol/appreveal-tools';
import { pngSize } from '@shared/protocol/png';
import type { ActionOutcome, AppRevealApp, AppRevealElementForm, TapTextOptions, WebTypeOptions } from './app-interface';

/** A tool-level failure with extra fields for the app's failure object (tap_text's `candidates`, a `hint`). */
export class AppRevealToolError extends Error {
  override readonly name = 'AppRevealToolError';
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export type AppRevealFlavor = 'ios' | 'tauri';
export const APPREVEAL_FLAVORS = ['ios', 'tauri'] as const satisfies readonly AppRevealFlavor[];

/** What every AppReveal server registers (Tauri's example server lists exactly these). */
export const ALWAYS_PRESENT_TOOLS = ['batch', 'device_info', 'get_state', 'launch_context'] as const;

/** The version both flavours give in initialize (the recorded Tauri crate's). */
export const APPREVEAL_SERVER_VERSION = '0.10.1';

export type ToolResult =
  | { kind: 'json'; value: unknown }
  | { kind: 'image'; data: Buffer; meta: Record<string, unknown> }
  /** A JSON-RPC error in a 200 reply: Tauri's bad arguments and failed handlers (-32603). */
  | { kind: 'rpc_error'; code: number; message: string };
export type Args = Record<string, unknown>;

export interface ToolDef {
  description: string;
  /** The inputSchema's properties, as the server lists them. */
  properties: Record<string, unknown>;
  required?: string[];
  run(args: Args): Promise<ToolResult>;
}

export interface ToolOptions {
  flavor: AppRevealFlavor;
  /** iOS only: "strings" (iOS, Android) or "booleans" (Flutter) element encoding. */
  elementForm: AppRevealElementForm;
  /** iOS only: the newer image content block, or the stored tools' `{image}` JSON text. */
  screenshotForm: 'image' | 'text';
}

const json = (value: unknown): ToolResult => ({ kind: 'json', value });
const rpcError = (message: string): ToolResult => ({ kind: 'rpc_error', code: -32603, message });
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);
const num = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
};
const parsesAsUrl = (text: string): boolean => {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
};
/** Tauri reads a string argument as missing when it is empty or whitespace. */
const given = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** Every tool of a flavour, by name (the server registers the ones asked for). */
export function buildTools(app: AppRevealApp, options: ToolOptions): Record<string, ToolDef> {
  const defs = options.flavor === 'tauri' ? tauriTools(app) : iosTools(app, options);
  Object.assign(defs, commonTools(app, options.flavor));
  defs.batch = batchTool(defs, options.flavor);
  return defs;
}

// ---- Shared: identity and app state -------------------------------------------------------------------

const HOST_NAME = 'parallax-demo-host';

function commonTools(app: AppRevealApp, flavor: AppRevealFlavor): Record<string, ToolDef> {
  const ios = flavor === 'ios';
  const none = {};
  const defs: Record<string, ToolDef> = {
    launch_context: {
      description: ios ? 'Get app launch environment info' : 'Get app launch environment info',
      properties: none,
      run: async () => json(ios ? iosLaunchContext(app) : tauriLaunchContext(app)),
    },
    device_info: {
      description:
        'Return comprehensive device and app information: manifest metadata, hardware, OS build details, screen metrics, locale, timezone, battery, memory, and storage.',
      properties: none,
      run: async () => json(ios ? iosDeviceInfo(app) : tauriDeviceInfo(app)),
    },
    get_state: {
      description: 'Get the current app state snapshot',
      properties: none,
      run: async () => json((await app.getState?.()) ?? {}),
    },
  };
  const getNavigationStack = app.getNavigationStack?.bind(app);
  if (getNavigationStack) {
    defs.get_navigation_stack = {
      description: 'Get the current navigation stack, route, and presented modals',
      properties: none,
      run: async () => json(await getNavigationStack()),
    };
  }
  const getFeatureFlags = app.getFeatureFlags?.bind(app);
  if (getFeatureFlags) {
    defs.get_feature_flags = { description: 'Get all feature flag values', properties: none, run: async () => json(await getFeatureFlags()) };
  }
  const getLogs = app.getLogs?.bind(app);
  if (getLogs) {
    defs.get_logs = {
      description: 'Get recent app logs',
      properties: ios
        ? { subsystem: { type: 'string', description: 'Filter by subsystem' }, limit: { type: 'integer', description: 'Max results (default 100)' } }
        : { limit: { type: 'integer' }, subsystem: { type: 'string' } },
      run: async (args) => {
        const limit = Math.max(0, Math.trunc(num(args.limit) ?? 50));
        const subsystem = str(args.subsystem);
        const logs = (await getLogs()).filter((entry) => subsystem === undefined || entry.subsystem === subsystem).slice(-limit);
        return json(ios ? { logs, count: logs.length } : { limit, logs });
      },
    };
  }
  const getNetworkCalls = app.getNetworkCalls?.bind(app);
  if (getNetworkCalls) {
    defs.get_network_calls = {
      description: 'Get recent network requests',
      properties: ios ? { limit: { type: 'integer', description: 'Max results (default 50)' } } : { limit: { type: 'integer' } },
      run: async (args) => {
        const limit = Math.max(0, Math.trunc(num(args.limit) ?? 50));
        const calls = (await getNetworkCalls()).slice(-limit);
        if (!ios)
          return json({
            calls: calls.map((c) => ({
              id: c.id,
              method: c.method,
              url: c.url,
              status: c.statusCode ?? null,
              durationMs: c.durationMs ?? null,
              ...(c.error ? { error: c.error } : {}),
            })),
            limit,
          });
        // iOS formats status and duration as strings ("200", "0.123s", "nil").
        const encoded = calls.map((c) => ({
          id: c.id,
          method: c.method,
          url: c.url,
          statusCode: c.statusCode !== undefined ? String(c.statusCode) : 'nil',
          duration: c.durationMs !== undefined ? `${(c.durationMs / 1000).toFixed(3)}s` : 'nil',
          error: c.error ?? '',
        }));
        return json({ calls: encoded, count: encoded.length });
      },
    };
  }
  const getNetworkCall = app.getNetworkCall?.bind(app);
  // The detail tool is the iOS/Android framework's (MCPRouterTests.swift); Tauri's providers have none.
  if (getNetworkCall && ios) {
    defs.get_network_call_detail = {
      description: 'Get one captured network call with request/response headers, captured text bodies and parsed SSE frames',
      properties: { id: { type: 'string', description: 'Call id returned by get_network_calls' } },
      required: ['id'],
      run: async (args) => {
        const id = str(args.id);
        if (id === undefined) return json({ error: 'id required' });
        const call = await getNetworkCall(id);
        if (!call) return json({ error: `No network call with id ${id}` });
        const none = { headers: {}, body: null, bodySize: null, bodyTruncated: false };
        const events = call.sseEvents ?? [];
        return json({
          id: call.id,
          method: call.method,
          url: call.url,
          statusCode: call.statusCode ?? null,
          ...(call.error ? { error: call.error } : {}),
          request: call.request ?? none,
          response: call.response ?? none,
          sseEvents: events,
          sseEventCount: events.length,
        });
      },
    };
  }
  const getRecentErrors = app.getRecentErrors?.bind(app);
  // Tauri registers no get_recent_errors.
  if (getRecentErrors && ios) {
    defs.get_recent_errors = {
      description: 'Get recent captured errors',
      properties: none,
      run: async () => {
        const errors = (await getRecentErrors()).map((e) => ({ ...e, stackTrace: '' }));
        return json({ errors, count: errors.length });
      },
    };
  }
  return defs;
}

function iosLaunchContext(app: AppRevealApp): Record<string, unknown> {
  // iOS sends no appName here (device_info has it).
  return {
    bundleId: app.bundleId,
    version: app.version,
    build: app.build ?? '1',
    platform: 'iOS',
    systemVersion: '26.5',
    deviceModel: 'iPhone',
    deviceName: 'iPhone 17 (Parallax demo)',
  };
}

function iosDeviceInfo(app: AppRevealApp): Record<string, unknown> {
  const screen = app.screen ?? { width: 402, height: 874, scale: 3 };
  return {
    bundleId: app.bundleId,
    appName: app.appName ?? app.bundleId,
    displayName: app.appName ?? app.bundleId,
    version: app.version,
    build: app.build ?? '1',
    executableName: 'ParallaxDemo',
    bundlePackageType: 'APPL',
    osVersionString: 'Version 26.5 (Build 23F5)',
    osVersion: { major: 26, minor: 5, patch: 0 },
    processName: 'ParallaxDemo',
    processId: process.pid,
    hostName: HOST_NAME,
    processorCount: 6,
    activeProcessorCount: 6,
    physicalMemoryMB: 8192,
    isLowPowerMode: false,
    thermalState: 'nominal',
    locale: { identifier: 'en_US', languageCode: 'en', regionCode: 'US', currencyCode: 'USD', usesMetricSystem: false },
    timeZone: { identifier: 'UTC', abbreviation: 'UTC', secondsFromGMT: 0 },
    disk: { freeMB: 100_000, totalMB: 256_000 },
    declaredPermissions: [],
    infoPlist: { CFBundleIdentifier: app.bundleId, CFBundleShortVersionString: app.version },
    platform: 'iOS',
    frameworkType: 'uikit',
    minOSVersion: '17.0',
    deviceModel: 'iPhone',
    deviceName: 'iPhone 17 (Parallax demo)',
    systemName: 'iOS',
    systemVersion: '26.5',
    userInterfaceIdiom: 'phone',
    identifierForVendor: '00000000-0000-4000-8000-000000000000',
    isSimulator: true,
    screen: {
      width: screen.width,
      height: screen.height,
      scale: screen.scale,
      nativeWidth: screen.width * screen.scale,
      nativeHeight: screen.height * screen.scale,
      nativeScale: screen.scale,
      brightness: 0.5,
    },
    battery: { level: null, state: 'unknown' },
  };
}

function tauriLaunchContext(app: AppRevealApp): Record<string, unknown> {
  return {
    bundleId: app.bundleId,
    applicationId: app.bundleId,
    appName: app.appName ?? app.bundleId,
    displayName: app.appName ?? app.bundleId,
    version: app.version,
    versionName: app.version,
    build: '0',
    versionCode: 0,
    platform: 'Linux',
    frameworkType: 'tauri',
    systemName: 'Linux',
    systemVersion: 'linux',
    deviceModel: 'Linux PC',
    deviceName: HOST_NAME,
    processName: 'parallax-demo',
    processId: process.pid,
  };
}

function tauriDeviceInfo(app: AppRevealApp): Record<string, unknown> {
  const context = tauriLaunchContext(app);
  return {
    ...context,
    app: context,
    process: { pid: process.pid, name: 'parallax-demo', executable: '/usr/local/bin/parallax-demo' },
    os: { platform: 'Linux', family: 'unix', name: 'linux', arch: process.arch === 'arm64' ? 'aarch64' : 'x86_64' },
    device: { name: HOST_NAME, model: 'Linux PC' },
    windows: { count: 1 },
  };
}

// ---- batch ---------------------------------------------------------------------------------------------

const SCREENSHOT_IN_BATCH = 'screenshot must be called directly to return MCP image content';

function batchTool(defs: Record<string, ToolDef>, flavor: AppRevealFlavor): ToolDef {
  if (flavor === 'tauri') {
    return {
      description: 'Execute multiple tool calls in one request.',
      properties: {
        actions: {
          items: {
            properties: { arguments: { type: 'object' }, delay_ms: { maximum: 60000, minimum: 0, type: 'integer' }, tool: { type: 'string' } },
            required: ['tool'],
            type: 'object',
          },
          type: 'array',
        },
        stop_on_error: { type: 'boolean' },
      },
      run: async (args) => {
        if (!Array.isArray(args.actions)) return rpcError('Invalid params: actions array required');
        if (args.stop_on_error !== undefined && typeof args.stop_on_error !== 'boolean') return rpcError('Invalid params: stop_on_error must be a boolean');
        const results: unknown[] = [];
        for (const [index, action] of args.actions.entries()) {
          const entry = await tauriBatchEntry(defs, index, action);
          results.push(entry);
          if (args.stop_on_error === true && (entry as { success: boolean }).success === false) break;
        }
        return json({ results });
      },
    };
  }
  return {
    description: 'Execute multiple actions sequentially in one call',
    properties: {
      actions: {
        type: 'array',
        description: 'Array of {tool, arguments, delay_ms} objects',
        items: { type: 'object', properties: { tool: { type: 'string' }, arguments: { type: 'object' }, delay_ms: { type: 'integer' } }, required: ['tool'] },
      },
      stop_on_error: { type: 'boolean', description: 'Stop on first error (default false)' },
    },
    required: ['actions'],
    run: async (args) => {
      if (!Array.isArray(args.actions)) return json({ error: 'actions array required' });
      const results: unknown[] = [];
      for (const [index, action] of args.actions.entries()) {
        const entry = await iosBatchEntry(defs, index, action);
        results.push(entry);
        if (args.stop_on_error === true && 'error' in entry) break;
      }
      return json({ results, count: results.length });
    },
  };
}

async function iosBatchEntry(defs: Record<string, ToolDef>, index: number, action: unknown): Promise<Record<string, unknown>> {
  if (typeof action !== 'object' || action === null || Array.isArray(action) || typeof (action as Args).tool !== 'string') {
    return { index, error: 'Invalid action format' };
  }
  const { tool, arguments: args, delay_ms: delay } = action as { tool: string; arguments?: unknown; delay_ms?: unknown };
  const def = tool === 'batch' ? undefined : defs[tool];
  if (!def) return { index, tool, error: 'Tool not found' };
  if (tool === 'screenshot') return { index, tool, error: SCREENSHOT_IN_BATCH };
  if (typeof delay === 'number' && Number.isInteger(delay) && delay > 0) await sleep(Math.min(delay, 60_000));
  const result = await def.run(isArgs(args) ? args : {});
  if (result.kind === 'rpc_error') return { index, tool, error: result.message };
  // iOS keeps each result as the JSON string the tool would have answered, with no success flag.
  return { index, tool, result: JSON.stringify(result.kind === 'json' ? result.value : result.meta) };
}

async function tauriBatchEntry(defs: Record<string, ToolDef>, index: number, action: unknown): Promise<Record<string, unknown>> {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return { index, success: false, error: 'action must be an object' };
  const { tool, arguments: args, delay_ms: delay } = action as { tool?: unknown; arguments?: unknown; delay_ms?: unknown };
  if (typeof tool !== 'string' || tool === '') return { index, success: false, error: 'tool is required' };
  if (tool === 'screenshot') return { index, tool, success: false, error: SCREENSHOT_IN_BATCH };
  if (delay !== undefined && (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0)) {
    return { index, tool, success: false, error: 'delay_ms must be a non-negative integer' };
  }
  if (typeof delay === 'number' && delay > 60_000) return { index, tool, success: false, error: 'delay_ms exceeds maximum of 60000' };
  if (args !== undefined && args !== null && !isArgs(args)) return { index, tool, success: false, error: 'arguments must be an object' };
  const def = tool === 'batch' ? undefined : defs[tool];
  if (!def) return { index, tool, success: false, error: `Tool not found: ${tool}` };
  if (typeof delay === 'number' && delay > 0) await sleep(delay);
  const result = await def.run(isArgs(args) ? args : {});
  if (result.kind === 'rpc_error') return { index, tool, success: false, error: result.message };
  return { index, tool, success: true, result: result.kind === 'json' ? result.value : result.meta };
}

function isArgs(value: unknown): value is Args {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---- iOS ------------------------------------------------------------------------------------------------

const WINDOW_ID = { type: 'string', description: 'Target window ID from list_windows (default: key window)' };

/** Runs an iOS handler: a missing required argument or a thrown error is a `{"error": ...}` text result. */
function iosRun(required: readonly string[], run: (args: Args) => Promise<ToolResult>): (args: Args) => Promise<ToolResult> {
  return async (args) => {
    for (const name of required) {
      if (args[name] === undefined || args[name] === null) return json({ error: `${name} required` });
    }
    try {
      return await run(args);
    } catch (error) {
      if (error instanceof AppRevealToolError) return json({ ...error.extra, error: error.message });
      return json({ error: error instanceof Error ? error.message : String(error) });
    }
  };
}

/** What MCPTools.swift tap_element's `catch` writes after the engine's own words. */
const TAP_ELEMENT_ADVICE = 'Try tap_text for visible text targeting, or get_elements to list available IDs.';

const success = (outcome: ActionOutcome, echo: Record<string, unknown> = {}): ToolResult => json({ success: true, ...echo, ...(outcome ?? {}) });

/*
 * An unknown `window_id`, as the Swift source takes it (UnlikeOtherAI/AppReveal, iOS/Sources/AppReveal;
 * docs/protocol.md#p-ar-ios-errors). Two lookups, and each tool uses one:
 *  - `IOSWindowProvider.windowsForInteraction(windowId:)` (Window/IOSWindowProvider.swift, the stored
 *    version that has it (the index names no commit for it), lines 44-49: `if let windowId, let window = window(id: windowId) { return [window] }`,
 *    else `allWindows()` sorted by level and key): an id it does not know is dropped. ElementInventory.swift
 *    and InteractionEngine.swift call it as `candidateWindows` (the last function of each), WebViewBridge.swift
 *    `findWebViews` (line 38) too, so get_elements, get_view_tree, tap_element, tap_text, tap_point,
 *    type_text, clear_text, scroll with a container_id, scroll_to_element and the web tools act as if no
 *    window_id was sent. The demo's app methods take the id and, having one window, use it for nothing.
 *  - `WindowProvider.resolve(windowId:)` (Window/WindowProvider.swift at 81f0e2e, lines 22-27: `window(id:)`
 *    for a named id, nil when no window has it; the key window only when none is named): get_screen
 *    (Screen/ScreenResolver.swift at 152f446, `findTopViewController`), screenshot
 *    (Screenshot/ScreenshotCapture.swift at e1a5063, `captureScreen` lines 32-35), navigate_back and scroll
 *    without a container (Interaction/InteractionEngine.swift, `navigateBack`, `findFirstScrollView`). Each
 *    answers as below, in MCPTools.swift's (0ad27a7) words.
 * The source has no "Window not found" text for any tool.
 */
async function resolvesWindow(app: AppRevealApp, windowId: string | undefined): Promise<boolean> {
  if (windowId === undefined) return true;
  return (await app.listWindows()).some((window) => window.id === windowId);
}

/**
 * get_screen for a window_id no window has: ScreenResolver.swift `resolve(windowId:)` with no top view
 * controller: className "unknown" through deriveScreenKey / deriveTitle, `detectFrameworkType(nil)`
 * "unknown", no chain, tab, modals or depth, and the derived branch's `confidence: 0.8`. `source` and
 * `appBarTitle` are the demo's derived reading's (the stored resolver that sets them was not read).
 */
const NO_WINDOW_SCREEN = {
  screenKey: 'unknown',
  screenTitle: 'unknown',
  frameworkType: 'unknown',
  controllerChain: [],
  activeTab: null,
  navigationDepth: 0,
  presentedModals: [],
  confidence: 0.8,
  source: 'derived',
  appBarTitle: null,
};

function iosTools(app: AppRevealApp, options: ToolOptions): Record<string, ToolDef> {
  const form = options.elementForm;
  const windowOf = (args: Args) => str(args.window_id);
  // MCPRouter.swift checks no argument: each handler's own guard answers. Most say "<name> required", which
  // iosRun writes; a handler whose guard says otherwise (`selfChecked`) is left to say it.
  const tool = (
    description: string,
    properties: Record<string, unknown>,
    required: string[],
    run: (args: Args) => Promise<ToolResult>,
    selfChecked = false,
  ): ToolDef => ({
    description,
    properties,
    ...(required.length > 0 ? { required } : {}),
    run: iosRun(selfChecked ? [] : required, run),
  });
  const defs: Record<string, ToolDef> = {
    list_windows: tool('List all visible app windows with IDs, titles, frames, and key status', {}, [], async () => {
      const windows = (await app.listWindows()).map((w) => encodeIosWindow(w, form));
      return json({ windows, count: windows.length });
    }),
    get_screen: tool('Get the currently active screen identity and metadata', { window_id: WINDOW_ID }, [], async (args) => {
      const windowId = windowOf(args);
      // WindowProvider.resolve: an unknown id is no window, and the resolver answers from nothing.
      if (!(await resolvesWindow(app, windowId))) return json(NO_WINDOW_SCREEN);
      return json(await app.getScreen(windowId));
    }),
    get_elements: tool(
      'List all visible interactive elements on the current screen, with how each id was derived (idSource)',
      { window_id: WINDOW_ID },
      [],
      async (args) => {
        // listElements goes through windowsForInteraction (an unknown id is ignored); the screenKey beside
        // the list is `ScreenResolver.shared.resolve()`, with no window id at all (MCPTools.swift get_elements).
        const elements = (await app.getElements(windowOf(args))).map((e) => encodeIosElement(e, form));
        let screenKey: string | undefined;
        try {
          screenKey = (await app.getScreen()).screenKey;
        } catch {
          screenKey = undefined;
        }
        return json(screenKey === undefined ? { elements } : { screenKey, elements });
      },
    ),
    screenshot: tool(
      'Capture a screenshot of the current screen',
      {
        element_id: { type: 'string', description: 'Optional element ID to crop to' },
        format: { type: 'string', enum: ['png', 'jpeg'], description: 'Image format (default png)' },
        window_id: WINDOW_ID,
      },
      [],
      async (args) => {
        if (args.element_id !== undefined) return json({ error: 'Failed to capture screenshot' });
        // captureScreen: `guard let ref = platformWindowProvider.resolve(windowId:) else { return nil }`.
        const windowId = windowOf(args);
        if (!(await resolvesWindow(app, windowId))) return json({ error: 'Failed to capture screenshot' });
        const data = await app.screenshot(windowId);
        const size = pngSize(data);
        const meta = { width: size?.width ?? 0, height: size?.height ?? 0, scale: app.screen?.scale ?? 3, format: 'png' };
        if (options.screenshotForm === 'text') return json({ image: data.toString('base64'), ...meta });
        return { kind: 'image', data, meta };
      },
    ),
    // MCPTools.swift tap_element: its `catch` answers `"\(error.localizedDescription). Try tap_text for visible
    // text targeting, or get_elements to list available IDs."`, so InteractionEngine.swift's
    // "Element not found: id" (line 25) reaches the wire with that advice after it.
    tap_element: tool('Tap an element by its ID', { element_id: { type: 'string' }, window_id: WINDOW_ID }, ['element_id'], async (args) => {
      const id = str(args.element_id) ?? '';
      try {
        return success(await app.tapElement(id, windowOf(args)), { element_id: id });
      } catch (error) {
        const said = error instanceof Error ? error.message : String(error);
        const extra = error instanceof AppRevealToolError ? error.extra : {};
        return json({ ...extra, error: `${said}. ${TAP_ELEMENT_ADVICE}` });
      }
    }),
    tap_text: tool(
      'Tap the nearest tappable element containing the given visible text',
      {
        text: { type: 'string' },
        match_mode: { type: 'string', enum: ['exact', 'contains'] },
        occurrence: { type: 'integer', description: '0-based index when multiple matches exist' },
        window_id: WINDOW_ID,
      },
      ['text'],
      async (args) => {
        const text = str(args.text) ?? '';
        const occurrence = num(args.occurrence);
        const windowId = windowOf(args);
        const tapOptions: TapTextOptions = {
          matchMode: args.match_mode === 'contains' ? 'contains' : 'exact',
          ...(occurrence !== undefined && occurrence >= 0 ? { occurrence } : {}),
          ...(windowId !== undefined ? { windowId } : {}),
        };
        return success(await app.tapText(text, tapOptions), { text });
      },
    ),
    // MCPTools.swift tap_point: reads x, y (doubleValue) and window_id only, so no coordinate_hint; its guard
    // answers a missing or non-numeric coordinate in its own words.
    tap_point: tool(
      'Tap at specific screen coordinates',
      { x: { type: 'number' }, y: { type: 'number' }, window_id: WINDOW_ID },
      ['x', 'y'],
      async (args) => {
        const x = num(args.x);
        const y = num(args.y);
        if (x === undefined || y === undefined) return json({ error: 'x and y are required numeric coordinates' });
        // InteractionEngine.swift tap(point:) throws nothing and hit-tests its `candidateWindows`, which is
        // windowsForInteraction: a window_id no window has is dropped and every window is tried (the demo's
        // one, the key window). A point off the window hit-tests no view, so nothing is tapped and the
        // handler still answers {success, x, y}.
        const windowId = windowOf(args);
        const windows = await app.listWindows();
        const window = windows.find((w) => w.id === windowId) ?? windows.find((w) => w.isKey);
        const frame = window?.frame;
        const inside = frame !== undefined && x >= frame.x && y >= frame.y && x < frame.x + frame.width && y < frame.y + frame.height;
        if (window === undefined || (frame !== undefined && !inside)) return json({ success: true, x, y });
        return success(await app.tapPoint(x, y, windowId), { x, y });
      },
      true,
    ),
    type_text: tool(
      'Type text into a text field',
      { text: { type: 'string' }, element_id: { type: 'string', description: 'Optional target element ID' }, window_id: WINDOW_ID },
      ['text'],
      async (args) => {
        const text = str(args.text) ?? '';
        return success(await app.typeText(text, str(args.element_id), windowOf(args)), { text });
      },
    ),
    clear_text: tool('Clear a text field', { element_id: { type: 'string' }, window_id: WINDOW_ID }, ['element_id'], async (args) =>
      success(await app.clearText(str(args.element_id) ?? '', windowOf(args))),
    ),
    scroll: tool(
      'Scroll a container in a direction',
      {
        direction: { type: 'string', enum: SCROLL_DIRECTIONS },
        container_id: { type: 'string', description: 'Optional scroll view ID' },
        window_id: WINDOW_ID,
      },
      ['direction'],
      async (args) => {
        const direction = SCROLL_DIRECTIONS.find((d) => d === args.direction);
        if (!direction) return json({ error: 'Invalid direction' });
        // MCPTools.swift scroll answers `["success": true]` and nothing else (no offset, no container).
        const containerId = str(args.container_id);
        const windowId = windowOf(args);
        // No container: findFirstScrollView resolves the window (WindowProvider.resolve), none for an
        // unknown id, so InteractionEngine.swift throws `.noScrollView`. A container is found by
        // ElementInventory.findElement, through windowsForInteraction, whatever the id.
        if (containerId === undefined && !(await resolvesWindow(app, windowId))) return json({ error: 'No scroll view found' });
        await app.scroll(direction, containerId, windowId);
        return json({ success: true });
      },
      true,
    ),
    scroll_to_element: tool('Scroll until an element is visible', { element_id: { type: 'string' }, window_id: WINDOW_ID }, ['element_id'], async (args) =>
      success(await app.scrollToElement(str(args.element_id) ?? '', windowOf(args))),
    ),
    // InteractionEngine.swift navigateBack: `guard let ref = platformWindowProvider.resolve(windowId:) ... else
    // { throw InteractionError.noNavigation }`, so an unknown id pops nothing and says so.
    navigate_back: tool('Pop the current navigation stack', { window_id: WINDOW_ID }, [], async (args) => {
      const windowId = windowOf(args);
      if (!(await resolvesWindow(app, windowId))) return json({ error: 'No navigation controller found' });
      return success(await app.navigateBack(windowId));
    }),
  };
  const openDeeplink = app.openDeeplink?.bind(app);
  if (openDeeplink) {
    // As MCPTools.swift registers it: {"error": "Invalid URL"} for a string URL(string:) rejects, else {success, url}.
    defs.open_deeplink = tool(
      'Open a deep link URL in the app',
      { url: { type: 'string', description: 'Deep link URL' } },
      ['url'],
      async (args) => {
        const url = str(args.url);
        if (url === undefined || !parsesAsUrl(url)) return json({ error: 'Invalid URL' });
        await openDeeplink(url);
        return json({ success: true, url });
      },
      true,
    );
  }
  const getViewTree = app.getViewTree?.bind(app);
  if (getViewTree) {
    defs.get_view_tree = tool(
      'Get the full view hierarchy',
      { max_depth: { type: 'integer', description: 'Maximum depth (default 50)' }, window_id: WINDOW_ID },
      [],
      async (args) => {
        const views = await getViewTree(Math.max(0, Math.trunc(num(args.max_depth) ?? 50)), windowOf(args));
        return json({ views, count: views.length });
      },
    );
  }
  const getWebViews = app.getWebViews?.bind(app);
  if (getWebViews) {
    defs.get_webviews = tool('List the web views on the current screen', { window_id: WINDOW_ID }, [], async (args) => {
      const webviews = await getWebViews(windowOf(args));
      return json({ webviews, count: webviews.length });
    });
  }
  const getDomInteractive = app.getDomInteractive?.bind(app);
  if (getDomInteractive) {
    defs.get_dom_interactive = tool(
      'Get the interactive DOM elements of a web view',
      { webview_id: { type: 'string', description: 'Web view ID (default: first on screen)' }, window_id: WINDOW_ID },
      [],
      async (args) => json({ result: JSON.stringify(await getDomInteractive(str(args.webview_id), windowOf(args))) }),
    );
  }
  const webClick = app.webClick?.bind(app);
  if (webClick) {
    defs.web_click = tool(
      'Click a DOM element by CSS selector',
      { selector: { type: 'string' }, webview_id: { type: 'string' }, window_id: WINDOW_ID },
      ['selector'],
      async (args) => json({ result: JSON.stringify(await webClick(str(args.selector) ?? '', str(args.webview_id), windowOf(args))) }),
    );
  }
  const webType = app.webType?.bind(app);
  if (webType) {
    // WebViewTools.swift web_type: one guard for both, `{"error": "selector and text required"}`.
    defs.web_type = tool(
      'Type text into a DOM input by CSS selector',
      { selector: { type: 'string' }, text: { type: 'string' }, clear: { type: 'boolean' }, webview_id: { type: 'string' }, window_id: WINDOW_ID },
      ['selector', 'text'],
      async (args) => {
        if (typeof args.selector !== 'string' || typeof args.text !== 'string') return json({ error: 'selector and text required' });
        const webviewId = str(args.webview_id);
        const windowId = windowOf(args);
        const typeOptions: WebTypeOptions = {
          clear: args.clear === true,
          ...(webviewId !== undefined ? { webviewId } : {}),
          ...(windowId !== undefined ? { windowId } : {}),
        };
        return json({ result: JSON.stringify(await webType(args.selector, args.text, typeOptions)) });
      },
      true,
    );
  }
  return defs;
}

function encodeFrameText(frame: AppRevealFrame, round: (n: number) => number): string {
  return [frame.x, frame.y, frame.width, frame.height].map(round).join(',');
}

function encodeIosElement(element: AppRevealElement, form: AppRevealElementForm): Record<string, unknown> {
  if (form === 'booleans') {
    // Flutter: real booleans and an actions list; its frame is the same "x,y,w,h" string, rounded.
    return {
      id: element.id,
      type: element.type,
      label: element.label ?? '',
      value: element.value ?? '',
      enabled: element.enabled,
      visible: element.visible,
      tappable: element.tappable,
      frame: encodeFrameText(element.frame, Math.round),
      actions: [...element.actions],
      ...(element.idSource !== undefined ? { idSource: element.idSource } : {}),
    };
  }
  return {
    id: element.id,
    type: element.type,
    label: element.label ?? '',
    value: element.value ?? '',
    enabled: String(element.enabled),
    visible: String(element.visible),
    tappable: String(element.tappable),
    // iOS truncates to Int(...) when it formats the frame.
    frame: encodeFrameText(element.frame, Math.trunc),
    actions: element.actions.join(','),
    ...(element.idSource !== undefined ? { idSource: element.idSource } : {}),
    // A web control's HTML type; a UIView has none on this wire (ElementInfo.swift), a secure one included.
    ...(element.inputType !== undefined && element.idSource === 'dom' ? { inputType: element.inputType } : {}),
  };
}

function encodeIosWindow(window: AppRevealWindow, form: AppRevealElementForm): Record<string, unknown> {
  return {
    id: window.id,
    title: window.title ?? '',
    isKey: window.isKey,
    ...(window.frame ? { frame: encodeFrameText(window.frame, form === 'booleans' ? Math.round : Math.trunc) } : {}),
  };
}

// ---- Tauri ----------------------------------------------------------------------------------------------

/** The webview window's label Tauri names the app's key window by. */
export const TAURI_WINDOW_LABEL = 'main';

/**
 * The desktop the demo's Tauri window sits on, as a real one reports it (tauri_integration.rs): a HiDPI
 * screen (scale_factor 2), the window moved away from the corner, a title bar above its web view. Its
 * list_windows frame is physical pixels at the outer position (`outer_position`, `outer_size`); its
 * elements' `rect` is CSS pixels on the screen (`window_css_origin`: inner_position / scale, plus the
 * DOM rect) and `localRect` the DOM rect in the web view (docs/rules.md#r-ar-33).
 */
export const TAURI_DESKTOP = { scale: 2, outer: { x: 240, y: 120 }, titleBarCss: 28 } as const;

/** inner_position / scale_factor: the web view's top-left on the screen, in CSS pixels. */
export function tauriCssOrigin(): { x: number; y: number } {
  const { scale, outer, titleBarCss } = TAURI_DESKTOP;
  return { x: outer.x / scale, y: outer.y / scale + titleBarCss };
}
const DOM_TARGET = 'webview_dom';

interface DomShape {
  tag: string;
  role: string;
  type: string | null;
}

/**
 * How the app's element would look to Tauri's DOM snapshot script: its tag, role and type attribute. The
 * app speaks iOS's ElementType (ElementInfo.swift:8-23), so a password is a textField whose inputType says
 * so or whose value is bullets, and a UITextView a scrollView that takes text.
 */
function domShape(element: AppRevealElement): DomShape {
  const inputType = element.inputType?.toLowerCase();
  switch (element.type) {
    case 'textField':
      if (inputType === 'textarea') return { tag: 'textarea', role: 'textbox', type: null };
      if (inputType === 'password' || /^\u2022+$/.test(element.value ?? '')) return { tag: 'input', role: 'textbox', type: 'password' };
      return { tag: 'input', role: 'textbox', type: 'text' };
    case 'scrollView':
      return element.actions.includes('type') ? { tag: 'textarea', role: 'textbox', type: null } : { tag: 'div', role: 'div', type: null };
    case 'toggle':
      return inputType === 'radio' ? { tag: 'input', role: 'radio', type: 'radio' } : { tag: 'input', role: 'switch', type: 'checkbox' };
    case 'picker':
      return { tag: 'select', role: 'combobox', type: null };
    case 'button':
    case 'cell':
      return { tag: 'button', role: 'button', type: 'button' };
    default:
      return { tag: 'div', role: 'div', type: null };
  }
}

function tauriActions(element: AppRevealElement, shape: DomShape): string[] {
  const actions = ['tap'];
  if (shape.role === 'textbox') actions.push('type_text', 'clear_text');
  if (shape.tag === 'select') actions.push('select');
  if (shape.type === 'checkbox') actions.push('toggle');
  return actions;
}

interface TauriElement {
  wire: Record<string, unknown>;
  /** The app's own id, to act on. */
  nativeId: string;
}

/** The app's visible elements as Tauri lists them: `web.<window>.<n>`, DOM fields, real booleans, a frame string and a rect. */
async function tauriElements(app: AppRevealApp, windowId: string | undefined): Promise<TauriElement[]> {
  const elements = (await app.getElements(windowId)).filter((element) => element.visible);
  return elements.map((element, index) => {
    const shape = domShape(element);
    // The DOM rect in the web view, and the same on the screen (collect_dom_elements: origin + local).
    const localRect = { x: element.frame.x, y: element.frame.y, width: element.frame.width, height: element.frame.height };
    const origin = tauriCssOrigin();
    const rect = { x: origin.x + localRect.x, y: origin.y + localRect.y, width: localRect.width, height: localRect.height };
    const label = element.label ?? '';
    return {
      nativeId: element.id,
      wire: {
        id: `web.${TAURI_WINDOW_LABEL}.${index}`,
        windowId: TAURI_WINDOW_LABEL,
        source: 'tauri_webview_dom',
        idSource: 'dom',
        domId: element.id,
        selector: `[data-testid="${element.id}"]`,
        label,
        text: label,
        role: shape.role,
        tag: shape.tag,
        type: shape.type,
        // The app's bullets stand for a password's text, which the page would not show either.
        value: shape.type === 'password' ? null : (element.value ?? null),
        actions: tauriActions(element, shape),
        enabled: element.enabled,
        visible: true,
        // Rust's `{:.0}` formatting of each number.
        frame: [rect.x, rect.y, rect.width, rect.height].map((n) => n.toFixed(0)).join(','),
        rect,
        localRect,
      },
    };
  });
}

/** The window argument Tauri reads (`window_id` or `windowId`), as the app's own window id. */
async function tauriWindow(app: AppRevealApp, args: Args): Promise<{ ok: true; windowId: string | undefined } | { ok: false }> {
  const label = given(args.window_id) ?? given(args.windowId);
  if (label === undefined) return { ok: true, windowId: undefined };
  const windows = await app.listWindows();
  const key = windows.find((w) => w.isKey) ?? windows[0];
  if (label === TAURI_WINDOW_LABEL && key) return { ok: true, windowId: key.id };
  const found = windows.find((w) => w.id === label);
  return found ? { ok: true, windowId: found.id } : { ok: false };
}

/**
 * Resolves a Tauri target as its crate does: `web.<window>.<n>`, then the string as a CSS selector (here:
 * the selectors the snapshot gave), then an exact, case-insensitive match on index, id, selector, domId,
 * label and text.
 */
function resolveTauriTarget(list: TauriElement[], target: string): TauriElement | undefined {
  const indexed = /^web\.([^.]+)\.(\d+)$/.exec(target);
  if (indexed) return indexed[1] === TAURI_WINDOW_LABEL ? list[Number(indexed[2])] : undefined;
  const bySelector = list.find((e) => e.wire.selector === target || `#${e.nativeId}` === target);
  if (bySelector) return bySelector;
  const wanted = target.trim().toLowerCase();
  return list.find((e, index) =>
    [String(index), e.wire.id, e.wire.selector, e.wire.domId, e.wire.label, e.wire.text].some((v) => typeof v === 'string' && v.toLowerCase() === wanted),
  );
}

function tauriTools(app: AppRevealApp): Record<string, ToolDef> {
  const windowProps = { window_id: { type: 'string' }, windowId: { type: 'string' } };
  const targetProps = { id: { type: 'string' }, elementId: { type: 'string' }, selector: { type: 'string' } };
  const failed = (action: string, error: string, windowId?: string): ToolResult =>
    json({ success: false, target: DOM_TARGET, action, error, ...(windowId !== undefined ? { windowId } : {}) });
  const done = (action: string, element: Record<string, unknown> | undefined, outcome: ActionOutcome): ToolResult =>
    json({ success: true, action, ...(element ? { element } : {}), windowId: TAURI_WINDOW_LABEL, target: DOM_TARGET, ...(outcome ?? {}) });
  /** A UI action: the app's refusal is a `{success: false}` result, as the crate's page script reports it. */
  const act = async (action: string, run: () => Promise<ToolResult>): Promise<ToolResult> => {
    try {
      return await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return failed(action, /not found/i.test(message) ? 'target_not_found' : message, TAURI_WINDOW_LABEL);
    }
  };
  const targeted = (action: string, run: (element: TauriElement, windowId: string | undefined, args: Args) => Promise<ToolResult>) => {
    return async (args: Args): Promise<ToolResult> => {
      const target = given(args.id) ?? given(args.elementId) ?? given(args.selector);
      if (target === undefined) return rpcError('Invalid params: Missing required string argument: id');
      const window = await tauriWindow(app, args);
      if (!window.ok) return failed(action, 'target_not_found');
      return act(action, async () => {
        const element = resolveTauriTarget(await tauriElements(app, window.windowId), target);
        if (!element) return failed(action, 'target_not_found', TAURI_WINDOW_LABEL);
        return run(element, window.windowId, args);
      });
    };
  };
  const elementsTool = (description: string): ToolDef => ({
    description,
    properties: { window_id: { type: 'string' } },
    run: async (args) => {
      const window = await tauriWindow(app, args);
      const list = window.ok ? await tauriElements(app, window.windowId) : [];
      const elements = list.map((e) => e.wire);
      const frame = (await app.listWindows()).find((w) => w.isKey)?.frame;
      return json({
        elements,
        webviews: [
          {
            windowId: TAURI_WINDOW_LABEL,
            url: 'tauri://localhost/',
            title: app.appName ?? app.bundleId,
            viewport: { width: frame?.width ?? 0, height: frame?.height ?? 0 },
            elements,
          },
        ],
        count: elements.length,
      });
    },
  });
  const defs: Record<string, ToolDef> = {
    list_windows: {
      description: 'List all visible app windows with IDs, titles, frames, and key status',
      properties: {},
      run: async () => {
        // outer_position and outer_size, physical pixels: the web view's size and the title bar, scaled.
        const { scale, outer, titleBarCss } = TAURI_DESKTOP;
        const windows = (await app.listWindows()).map((w) => ({
          id: w.isKey ? TAURI_WINDOW_LABEL : w.id,
          title: w.title ?? '',
          isKey: w.isKey,
          frame: w.frame
            ? [outer.x + w.frame.x * scale, outer.y + w.frame.y * scale, w.frame.width * scale, (w.frame.height + titleBarCss) * scale]
                .map(Math.round)
                .join(',')
            : '0,0,0,0',
        }));
        return json({ windows, count: windows.length });
      },
    },
    get_screen: {
      description: 'Get the currently active screen identity and metadata',
      properties: {},
      run: async () => {
        const stack = (await app.getNavigationStack?.()) ?? { currentRoute: undefined, navigationStack: [], presentedModals: [] };
        const route = stack.currentRoute;
        return json({
          screenKey: route ?? 'windows.unknown',
          screenTitle: route ?? 'windows.unknown',
          frameworkType: 'tauri',
          controllerChain: [],
          activeTab: null,
          navigationDepth: stack.navigationStack.length,
          presentedModals: stack.presentedModals,
          confidence: route !== undefined ? 1.0 : 0.25,
          source: route !== undefined ? 'explicit' : 'derived',
          appBarTitle: route ?? 'windows.unknown',
        });
      },
    },
    get_elements: elementsTool('List interactive DOM elements in Tauri webview windows'),
    get_dom_interactive: elementsTool('List interactive DOM elements in Tauri webview windows'),
    tap_element: {
      description: 'Tap a DOM element by AppReveal id or CSS selector',
      properties: { ...targetProps, window_id: { type: 'string' } },
      run: targeted('tap_element', async (element, windowId) => done('tap_element', element.wire, await app.tapElement(element.nativeId, windowId))),
    },
    tap_text: {
      description: 'Tap the DOM element with the given visible text',
      properties: { text: { type: 'string' }, window_id: { type: 'string' } },
      run: async (args) => {
        const text = given(args.text);
        if (text === undefined) return rpcError('Invalid params: Missing required string argument: text');
        const window = await tauriWindow(app, args);
        if (!window.ok) return failed('tap_text', 'target_not_found');
        return act('tap_text', async () => {
          const element = resolveTauriTarget(await tauriElements(app, window.windowId), text);
          if (!element) return failed('tap_text', 'target_not_found', TAURI_WINDOW_LABEL);
          return done('tap_text', element.wire, await app.tapElement(element.nativeId, window.windowId));
        });
      },
    },
    tap_point: {
      description: 'Tap at screen coordinates in a Tauri webview window',
      properties: { x: { type: 'number' }, y: { type: 'number' }, window_id: { type: 'string' } },
      run: async (args) => {
        if (typeof args.x !== 'number' || !Number.isFinite(args.x)) return rpcError('Invalid params: Missing required number: x');
        if (typeof args.y !== 'number' || !Number.isFinite(args.y)) return rpcError('Invalid params: Missing required number: y');
        const { x, y } = args as { x: number; y: number };
        const window = await tauriWindow(app, args);
        if (!window.ok) return failed('tap_point', 'window_not_found');
        // Screen CSS pixels to the web view's (local_point_if_inside); a point outside every window is
        // taken as local in the first one, as the crate's fallback does.
        const origin = tauriCssOrigin();
        const frame = (await app.listWindows()).find((w) => w.isKey)?.frame;
        const inside = frame !== undefined && x >= origin.x && y >= origin.y && x <= origin.x + frame.width && y <= origin.y + frame.height;
        const local = inside ? { x: x - origin.x, y: y - origin.y } : { x, y };
        return act('tap_point', async () => done('tap_point', undefined, await app.tapPoint(local.x, local.y, window.windowId)));
      },
    },
    type_text: {
      description: 'Type text into a DOM element by AppReveal id or CSS selector',
      properties: { ...targetProps, text: { type: 'string' }, window_id: { type: 'string' } },
      run: async (args) => {
        if (typeof args.text !== 'string') return rpcError('Invalid params: Missing required string argument: text');
        const text = args.text;
        return targeted('type_text', async (element, windowId) => done('type_text', element.wire, await app.typeText(text, element.nativeId, windowId)))(args);
      },
    },
    clear_text: {
      description: 'Clear a DOM input by AppReveal id or CSS selector',
      properties: { ...targetProps, window_id: { type: 'string' } },
      run: targeted('clear_text', async (element, windowId) => done('clear_text', element.wire, await app.clearText(element.nativeId, windowId))),
    },
    focus_window: {
      description: 'Focus a Tauri webview window',
      properties: windowProps,
      run: async (args) => {
        const label = given(args.window_id) ?? given(args.windowId) ?? TAURI_WINDOW_LABEL;
        const window = await tauriWindow(app, { window_id: label });
        return json(window.ok ? { success: true, windowId: label } : { success: false, error: 'window_not_found', windowId: label });
      },
    },
    get_menu_bar: {
      description: 'Get the app menu bar',
      properties: {},
      // The demo is a phone app: it has no menu bar.
      run: async () => json({ menus: [], count: 0 }),
    },
  };
  return defs;
}

/**
 * The app an AppReveal server serves: what the demo's app (app.ts) implements and the tools (tools.ts)
 * call. Its own file, so the server and its tools both depend on it rather than on each other.
 */
import type { AppRevealElement, AppRevealScreenInfo, AppRevealWindow } from '@shared/protocol/appreveal';
import type { ScrollDirection } from '@shared/protocol/appreveal-tools';

export type MaybePromise<T> = T | Promise<T>;
/** What an action may add to its `{success: true}` result. */
export type ActionOutcome = void | Record<string, unknown>;

export interface TapTextOptions {
  matchMode: 'exact' | 'contains';
  /** 0-based pick among several matches; absent means "there must be exactly one". */
  occurrence?: number;
  windowId?: string;
}

export interface WebTypeOptions {
  clear: boolean;
  webviewId?: string;
  windowId?: string;
}

/** get_navigation_stack's answer (also what Tauri's get_screen reads its route from). */
export interface AppNavigationStack {
  currentRoute?: string;
  navigationStack: string[];
  presentedModals: string[];
}

export interface AppLogEntry {
  timestamp: string;
  subsystem?: string;
  category?: string;
  level: string;
  message: string;
}

export interface AppNetworkCall {
  id: string;
  method: string;
  url: string;
  statusCode?: number;
  durationMs?: number;
  error?: string;
  /** What get_network_call_detail gives beyond the summary (AppReveal docs/API.md): headers, text bodies, SSE frames. */
  request?: AppNetworkMessage;
  response?: AppNetworkMessage;
  sseEvents?: Array<{ event: string; data: string; id?: string }>;
}

export interface AppNetworkMessage {
  headers: Record<string, string>;
  body: string | null;
  bodySize: number | null;
  bodyTruncated: boolean;
}

export interface AppErrorEntry {
  timestamp: string;
  domain: string;
  message: string;
}

/**
 * The app behind the server. A tool-level failure is a thrown error: its message becomes the app's
 * failure in the flavour's form, and an AppRevealToolError's `extra` (for example tap_text's
 * `candidates`) is merged into it. The app-state reads are optional, as their providers are in a real app.
 */
export interface AppRevealApp {
  readonly bundleId: string;
  readonly version: string;
  readonly appName?: string;
  readonly build?: string;
  /** Points and scale, for device_info. */
  readonly screen?: { width: number; height: number; scale: number };
  listWindows(): MaybePromise<AppRevealWindow[]>;
  getScreen(windowId?: string): MaybePromise<AppRevealScreenInfo>;
  getElements(windowId?: string): MaybePromise<AppRevealElement[]>;
  /** PNG (or JPEG) bytes of the window. */
  screenshot(windowId?: string): Promise<Buffer>;
  tapElement(id: string, windowId?: string): MaybePromise<ActionOutcome>;
  tapText(text: string, options: TapTextOptions): MaybePromise<ActionOutcome>;
  tapPoint(x: number, y: number, windowId?: string): MaybePromise<ActionOutcome>;
  typeText(text: string, elementId?: string, windowId?: string): MaybePromise<ActionOutcome>;
  clearText(elementId: string, windowId?: string): MaybePromise<ActionOutcome>;
  scroll(direction: ScrollDirection, containerId?: string, windowId?: string): MaybePromise<ActionOutcome>;
  scrollToElement(id: string, windowId?: string): MaybePromise<ActionOutcome>;
  navigateBack(windowId?: string): MaybePromise<ActionOutcome>;
  /** open_deeplink (iOS MCPTools.swift): the app opens the URL as UIApplication.open would. */
  openDeeplink?(url: string): MaybePromise<ActionOutcome>;
  // App state (the read-only tools), each registered when the app has it.
  getState?(): MaybePromise<unknown>;
  getNavigationStack?(): MaybePromise<AppNavigationStack>;
  getFeatureFlags?(): MaybePromise<Record<string, unknown>>;
  getLogs?(): MaybePromise<AppLogEntry[]>;
  getNetworkCalls?(): MaybePromise<AppNetworkCall[]>;
  getNetworkCall?(id: string): MaybePromise<AppNetworkCall | undefined>;
  getRecentErrors?(): MaybePromise<AppErrorEntry[]>;
  /** iOS get_view_tree: the flat node list (hierarchy by `depth`). */
  getViewTree?(maxDepth: number, windowId?: string): MaybePromise<Array<Record<string, unknown>>>;
  // Web view tools: registered only when the app implements them.
  getWebViews?(windowId?: string): MaybePromise<unknown[]>;
  getDomInteractive?(webviewId?: string, windowId?: string): MaybePromise<unknown>;
  webClick?(selector: string, webviewId?: string, windowId?: string): MaybePromise<unknown>;
  webType?(selector: string, text: string, options: WebTypeOptions): MaybePromise<unknown>;
}

/** iOS/Android encode booleans, frames and actions as strings; Flutter as real JSON types (iOS flavour only). */
export type AppRevealElementForm = 'strings' | 'booleans';

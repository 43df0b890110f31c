/**
 * Every tool of the iOS and the Tauri tool lists, with the replies their servers give (success and each
 * failure form), as the sources say (docs/protocol.md#p-ar-tools, #p-ar-errors; iOS
 * `iOS/Sources/AppReveal/MCPServer/MCPTools.swift`, `WebView/WebViewTools.swift`; Tauri
 * `Windows/appreveal-tauri/src/builtins.rs`, `tauri_integration.rs`): a scripted server lists each
 * tool with its inputSchema and answers each case with its reply, and the client must send the
 * arguments that tool names and decode and classify the answer as the server meant. Used by
 * appreveal-tool-lists.test.ts and `npm run bench -- appreveal`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { AppRevealClient, AppRevealError } from '@main/appreveal/client';
import type { AppRevealErrorCode } from '@shared/protocol/appreveal';
import { appRevealElementToUiNode } from '@shared/observe/appreveal';
import { appReadingView, logRows, networkCallDetailView, networkRows } from '@shared/inspect/app-state';
import { identityOf } from '@shared/protocol/appreveal';

type Reply = { text: unknown } | { content: unknown[]; structuredContent?: unknown } | { rpc: { code: number; message: string } };
type Rec = Record<string, unknown>;

export interface ToolCase {
  tool: string;
  /** What this case is, in a few words ("success", "not found", …). */
  form: string;
  reply: Reply;
  run: (client: AppRevealClient) => Promise<unknown>;
  /** `ok`, or the error code the client must give. */
  expect: 'ok' | AppRevealErrorCode;
  /** The arguments the server must receive (a subset), when they matter. */
  sent?: Rec;
  /** The decoded answer is what the server meant. */
  check?: (value: unknown) => boolean;
  /** Nothing may reach the server (a tool Parallax never sends). */
  notSent?: boolean;
}

export interface ToolList {
  platform: 'iOS' | 'Tauri';
  /** Every tool of the platform and the property names of its inputSchema. */
  tools: Record<string, readonly string[]>;
  cases: ToolCase[];
}

const png = (() => {
  const image = new PNG({ width: 3, height: 2 });
  image.data.fill(128);
  return PNG.sync.write(image).toString('base64');
})();

const W = 'window_id';
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null ? (v as Rec) : {});
const ok = (tool: string, run: ToolCase['run'], text: unknown, extra: Partial<ToolCase> = {}): ToolCase => ({
  tool,
  form: 'success',
  reply: { text },
  run,
  expect: 'ok',
  ...extra,
});
const fails = (
  tool: string,
  form: string,
  run: ToolCase['run'],
  reply: Reply,
  code: AppRevealErrorCode = 'tool_error',
  extra: Partial<ToolCase> = {},
): ToolCase => ({
  tool,
  form,
  reply,
  run,
  expect: code,
  ...extra,
});
const call =
  (tool: string, args: Rec = {}) =>
  (client: AppRevealClient) =>
    client.call(tool, args);
const reading = (tool: string) => async (client: AppRevealClient) => appReadingView({ tool, ok: true, value: await client.call(tool) });

// ---- iOS ------------------------------------------------------------------------------------------------

/** One element of iOS's get_elements (ElementInventory), strings for its booleans and actions. */
export const IOS_ELEMENT = {
  id: 'login.email',
  type: 'textField',
  label: 'Email',
  value: '',
  enabled: 'true',
  visible: 'true',
  tappable: 'true',
  frame: '32,364,338,34',
  safeAreaInsets: { top: 0, leading: 0, bottom: 0, trailing: 0 },
  actions: 'tap,type,clear',
  idSource: 'explicit',
};

const DOM_TOOLS_IOS = ['get_dom_links', 'get_dom_text', 'get_dom_forms', 'get_dom_headings', 'get_dom_images', 'get_dom_tables', 'get_dom_summary'] as const;

export const IOS_TOOLS: ToolList = {
  platform: 'iOS',
  tools: {
    list_windows: [],
    get_screen: [W],
    get_elements: [W],
    get_view_tree: ['max_depth', W],
    screenshot: ['element_id', 'format', W],
    tap_element: ['element_id', W],
    tap_text: ['text', 'match_mode', 'occurrence', W],
    tap_point: ['x', 'y', W],
    type_text: ['text', 'element_id', W],
    clear_text: ['element_id', W],
    scroll: ['direction', 'container_id', W],
    scroll_to_element: ['element_id', W],
    select_tab: ['index', W],
    navigate_back: [W],
    dismiss_modal: [W],
    open_deeplink: ['url'],
    get_state: [],
    get_navigation_stack: [],
    get_feature_flags: [],
    get_network_calls: ['limit'],
    // Newer than the stored MCPTools.swift: docs/API.md and MCPRouterTests.swift name it and its `id`.
    get_network_call_detail: ['id'],
    get_logs: ['subsystem', 'limit'],
    get_recent_errors: [],
    launch_context: [],
    device_info: [],
    batch: ['actions', 'stop_on_error'],
    get_webviews: [W],
    get_dom_tree: ['webview_id', 'root', 'max_depth', 'visible_only', W],
    get_dom_interactive: ['webview_id', W],
    query_dom: ['selector', 'webview_id', 'limit', W],
    find_dom_text: ['text', 'tag', 'webview_id', W],
    web_click: ['selector', 'webview_id', W],
    web_type: ['selector', 'text', 'clear', 'webview_id', W],
    web_select: ['selector', 'value', 'webview_id', W],
    web_toggle: ['selector', 'checked', 'webview_id', W],
    web_scroll_to: ['selector', 'webview_id', W],
    web_evaluate: ['javascript', 'webview_id', W],
    web_navigate: ['url', 'webview_id', W],
    web_back: ['webview_id', W],
    web_forward: ['webview_id', W],
    ...Object.fromEntries(DOM_TOOLS_IOS.map((tool) => [tool, ['webview_id', W]])),
  },
  cases: [
    ok(
      'list_windows',
      (c) => c.listWindows(),
      { windows: [{ id: 'window-1', title: 'Main', isKey: true, frame: '0,0,402,874' }], count: 1 },
      {
        check: (v) => JSON.stringify(v) === JSON.stringify([{ id: 'window-1', title: 'Main', isKey: true, frame: { x: 0, y: 0, width: 402, height: 874 } }]),
      },
    ),
    ok(
      'get_screen',
      (c) => c.getScreen({ windowId: 'window-1' }),
      {
        screenKey: 'login',
        screenTitle: 'Sign in',
        frameworkType: 'uikit',
        controllerChain: ['LoginViewController'],
        activeTab: null,
        navigationDepth: 1,
        presentedModals: [],
        confidence: 1.0,
        source: 'explicit',
        appBarTitle: null,
      },
      { sent: { window_id: 'window-1' }, check: (v) => rec(v).screenKey === 'login' && rec(v).activeTab === undefined },
    ),
    ok(
      'get_elements',
      (c) => c.getElements(),
      { screenKey: 'login', elements: [IOS_ELEMENT] },
      {
        check: (v) => {
          const [element] = (rec(v).elements as Parameters<typeof appRevealElementToUiNode>[0][] | undefined) ?? [];
          const node = element ? appRevealElementToUiNode(element) : undefined;
          return node?.className === 'textField' && node.role === 'textfield' && node.clickable === 'true' && rec(v).screenKey === 'login';
        },
      },
    ),
    ok(
      'get_view_tree',
      call('get_view_tree', { max_depth: 12 }),
      { views: [{ class: 'UIButton', frame: '0,0,10,10', hidden: false, alpha: 1, userInteraction: true, depth: 0, accessibilityLabel: 'Go' }], count: 1 },
      {
        sent: { max_depth: 12 },
        check: (v) => (rec(v).views as unknown[]).length === 1,
      },
    ),
    ok(
      'screenshot',
      (c) => c.screenshot(),
      { image: png, width: 3, height: 2, scale: 3, format: 'png' },
      { form: 'success as {image} text', check: (v) => rec(v).format === 'png' && rec(v).width === 3 },
    ),
    {
      tool: 'screenshot',
      form: 'success as an image block',
      reply: {
        content: [
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'text', text: '{"width":3,"height":2,"scale":3,"format":"png"}' },
        ],
        structuredContent: { width: 3, height: 2, scale: 3, format: 'png' },
      },
      run: (c) => c.screenshot(),
      expect: 'ok',
      check: (v) => rec(v).dataBase64 === png,
    },
    fails('screenshot', 'capture failed', (c) => c.screenshot(), { text: { error: 'Failed to capture screenshot' } }),
    ok('tap_element', (c) => c.tapElement('login.submit'), { success: true, element_id: 'login.submit' }, { sent: { element_id: 'login.submit' } }),
    fails('tap_element', 'not found', (c) => c.tapElement('x'), {
      text: { error: 'Element not found: x. Try tap_text for visible text targeting, or get_elements to list available IDs.' },
    }),
    fails('tap_element', 'DOM fallback {success:false}', (c) => c.tapElement('x'), { text: { success: false, target: 'webview_dom' } }),
    ok(
      'tap_text',
      (c) => c.tapText('Sign in', { matchMode: 'contains', occurrence: 1 }),
      { success: true, text: 'Sign in' },
      { sent: { text: 'Sign in', match_mode: 'contains', occurrence: 1 } },
    ),
    fails(
      'tap_text',
      'ambiguous, with candidates',
      (c) => c.tapText('Continue'),
      {
        text: {
          error: 'Ambiguous: 2 matches found. Use occurrence (0-based) to disambiguate.',
          candidates: [
            { text: 'Continue', index: 0 },
            { text: 'Continue', index: 1 },
          ],
          hint: 'Use occurrence parameter (0-based) to select a specific match',
        },
      },
      'tool_error',
    ),
    ok('tap_point', (c) => c.tapPoint(10, 20), { success: true, x: 10, y: 20 }, { sent: { x: 10, y: 20 } }),
    fails('tap_point', 'bad coordinates', (c) => c.tapPoint(10, 20), { text: { error: 'x and y are required numeric coordinates' } }),
    ok('type_text', (c) => c.typeText('hello', 'login.email'), { success: true, text: 'hello' }, { sent: { text: 'hello', element_id: 'login.email' } }),
    fails('type_text', 'not editable', (c) => c.typeText('hello', 'title'), { text: { error: 'Element not editable: title' } }),
    ok('clear_text', (c) => c.clearText('login.email'), { success: true }, { sent: { element_id: 'login.email' } }),
    fails('clear_text', 'not found', (c) => c.clearText('x'), { text: { error: 'Element not found: x' } }),
    ok('scroll', (c) => c.scroll('down', 'feed.list'), { success: true }, { sent: { direction: 'down', container_id: 'feed.list' } }),
    fails('scroll', 'no scroll view', (c) => c.scroll('down'), { text: { error: 'No scroll view found' } }),
    ok('scroll_to_element', (c) => c.scrollToElement('row.40'), { success: true }, { sent: { element_id: 'row.40' } }),
    fails('scroll_to_element', 'not found', (c) => c.scrollToElement('x'), { text: { error: 'Element not found: x' } }),
    ok('select_tab', call('select_tab', { index: 1 }), { success: true, tab_index: 1 }, { check: (v) => rec(v).tab_index === 1 }),
    fails('select_tab', 'no tab bar', call('select_tab', { index: 1 }), { text: { error: 'No navigation controller found' } }),
    ok('navigate_back', (c) => c.navigateBack(), { success: true }),
    fails('navigate_back', 'nothing to pop', (c) => c.navigateBack(), { text: { error: 'No navigation controller found' } }),
    ok('dismiss_modal', call('dismiss_modal'), { success: true }),
    fails('dismiss_modal', 'no modal', call('dismiss_modal'), { text: { error: 'No modal to dismiss' } }),
    ok('open_deeplink', call('open_deeplink', { url: 'demo://feed' }), { success: true, url: 'demo://feed' }),
    fails('open_deeplink', 'invalid URL', call('open_deeplink', { url: '::' }), { text: { error: 'Invalid URL' } }),
    ok('get_state', reading('get_state'), { user: { loggedIn: false } }, { check: (v) => JSON.stringify(v).includes('user.loggedIn') }),
    ok(
      'get_navigation_stack',
      reading('get_navigation_stack'),
      { currentRoute: 'login', navigationStack: ['LoginViewController'], presentedModals: [] },
      {
        check: (v) => rec(v).kind === 'navigation' && rec(v).current === 'login',
      },
    ),
    ok('get_feature_flags', reading('get_feature_flags'), { newCheckout: true }, { check: (v) => rec(v).kind === 'fields' }),
    ok(
      'get_network_calls',
      async (c) => networkRows(await c.call('get_network_calls')),
      { calls: [{ id: 'a', method: 'GET', url: 'https://api.test/me', statusCode: '200', duration: '0.123s', error: '' }], count: 1 },
      {
        check: (v) =>
          JSON.stringify(v) === JSON.stringify([{ id: 'a', method: 'GET', url: 'https://api.test/me', status: '200', duration: '123 ms', error: '' }]),
      },
    ),
    ok(
      'get_network_call_detail',
      async (c) => networkCallDetailView(await c.networkCallDetail('call-1')),
      // MCPRouterTests.swift testNetworkCallDetailExposesHeadersBodiesAndSSEFrames, in docs/API.md's shape.
      {
        id: 'call-1',
        method: 'GET',
        url: 'https://api.example.com/converse/stream',
        statusCode: 200,
        request: { headers: { Authorization: '[REDACTED]' }, body: null, bodySize: null, bodyTruncated: false },
        response: { headers: { 'Content-Type': 'text/event-stream' }, body: 'data: hello\n\n', bodySize: 13, bodyTruncated: false },
        sseEvents: [{ event: 'message', data: 'hello' }],
        sseEventCount: 1,
      },
      {
        sent: { id: 'call-1' },
        check: (v) => {
          const view = v as ReturnType<typeof networkCallDetailView>;
          return view?.response.body === 'data: hello\n\n' && view.sseEvents[0]?.data === 'hello' && view.request.headers[0]?.value === '[REDACTED]';
        },
      },
    ),
    fails('get_network_call_detail', 'unknown id', (c) => c.networkCallDetail('nope'), { text: { error: 'Network call not found: nope' } }),
    ok(
      'get_logs',
      async (c) => logRows(await c.call('get_logs')),
      { logs: [{ timestamp: '2026-01-01T00:00:00Z', subsystem: 'app', category: 'net', level: 'info', message: 'GET /me' }], count: 1 },
      { check: (v) => (v as Array<{ message: string }>)[0]?.message === 'GET /me' },
    ),
    ok(
      'get_recent_errors',
      async (c) => logRows(await c.call('get_recent_errors'), 'errors'),
      { errors: [{ timestamp: '2026-01-01T00:00:00Z', domain: 'NSURLErrorDomain', message: 'offline', stackTrace: '' }], count: 1 },
      { check: (v) => (v as Array<{ level: string }>)[0]?.level === 'error' },
    ),
    ok(
      'launch_context',
      async (c) => identityOf(await c.call('launch_context')),
      { bundleId: 'com.example.app', version: '1.2', build: '7', platform: 'iOS', systemVersion: '26.5', deviceModel: 'iPhone', deviceName: 'Ada' },
      {
        check: (v) => rec(v).bundleId === 'com.example.app' && rec(v).appName === undefined,
      },
    ),
    ok(
      'device_info',
      async (c) => identityOf(await c.call('device_info')),
      {
        bundleId: 'com.example.app',
        appName: 'Example',
        displayName: 'Example',
        version: '1.2',
        platform: 'iOS',
        frameworkType: 'uikit',
        screen: { width: 402 },
      },
      {
        check: (v) => rec(v).appName === 'Example',
      },
    ),
    ok(
      'batch',
      (c) => c.batch([{ tool: 'get_state' }, { tool: 'nope' }]),
      {
        results: [
          { index: 0, tool: 'get_state', result: '{"a":1}' },
          { index: 1, tool: 'nope', error: 'Tool not found' },
        ],
        count: 2,
      },
      {
        sent: { actions: [{ tool: 'get_state' }, { tool: 'nope' }] },
        check: (v) =>
          JSON.stringify(v) ===
          JSON.stringify([
            { index: 0, tool: 'get_state', ok: true, value: { a: 1 } },
            { index: 1, tool: 'nope', ok: false, error: 'Tool not found' },
          ]),
      },
    ),
    fails('batch', 'no actions', (c) => c.batch([]), { text: { error: 'actions array required' } }),
    ok(
      'get_webviews',
      (c) => c.getWebViews(),
      {
        webviews: [{ id: 'webview_0', url: 'https://x.test', title: 'X', loading: false, canGoBack: false, canGoForward: false, frame: '0,0,10,10' }],
        count: 1,
      },
      {
        check: (v) => (v as unknown[]).length === 1,
      },
    ),
    ok('get_dom_tree', call('get_dom_tree', { max_depth: 3 }), { dom: '{"tag":"body","children":[]}' }, { check: (v) => rec(rec(v).dom).tag === 'body' }),
    fails('get_dom_tree', 'no web view', call('get_dom_tree'), { text: { error: 'WebView not found: default' } }),
    ok(
      'get_dom_interactive',
      (c) => c.getDomInteractive(),
      { result: '{"elements":[{"tag":"input","rect":{"x":1,"y":2,"w":3,"h":4},"selector":"#q"}],"count":1}' },
      {
        check: (v) => (rec(v).elements as unknown[]).length === 1,
      },
    ),
    ok(
      'query_dom',
      call('query_dom', { selector: 'a' }),
      { result: '{"matches":[{"index":0,"tag":"a","text":"Home"}],"total":1}' },
      { check: (v) => rec(rec(v).result).total === 1 },
    ),
    ok('find_dom_text', call('find_dom_text', { text: 'Home' }), { result: '{"matches":[],"count":0}' }, { check: (v) => rec(rec(v).result).count === 0 }),
    ok('web_click', (c) => c.webClick('#go'), { result: '{"success":true,"tag":"button","text":"Go"}' }, { sent: { selector: '#go' } }),
    fails('web_click', 'not found inside the page result', (c) => c.webClick('#x'), { text: { result: '{"error":"Element not found: #x"}' } }),
    ok(
      'web_type',
      (c) => c.webType('#q', 'abc', { clear: true }),
      { result: '{"success":true,"value":"abc"}' },
      { sent: { selector: '#q', text: 'abc', clear: true } },
    ),
    fails('web_type', 'arguments missing', (c) => c.webType('#q', ''), { text: { error: 'selector and text required' } }),
    ok('web_select', (c) => c.webSelect('#s', 'b'), { result: '{"success":true,"value":"b"}' }, { sent: { selector: '#s', value: 'b' } }),
    fails('web_select', 'no such select', (c) => c.webSelect('#s', 'b'), { text: { result: '{"error":"Select not found: #s"}' } }),
    ok('web_toggle', (c) => c.webToggle('#c', true), { result: '{"success":true,"checked":true}' }, { sent: { selector: '#c', checked: true } }),
    ok('web_scroll_to', (c) => c.webScrollTo('#f'), { result: '{"success":true,"rect":{"x":0,"y":0,"w":1,"h":1}}' }),
    {
      tool: 'web_evaluate',
      form: 'never sent',
      reply: { text: { result: '1' } },
      run: call('web_evaluate', { javascript: '1' }),
      expect: 'no_form',
      notSent: true,
    },
    ok('web_navigate', (c) => c.webNavigate('https://x.test'), { success: true, url: 'https://x.test' }, { sent: { url: 'https://x.test' } }),
    fails('web_navigate', 'invalid URL', (c) => c.webNavigate('::'), { text: { error: 'Invalid URL' } }),
    ok('web_back', call('web_back'), { success: true }),
    fails('web_back', 'cannot go back', call('web_back'), { text: { error: 'Cannot go back' } }),
    ok('web_forward', call('web_forward'), { success: true }),
    fails('web_forward', 'cannot go forward', call('web_forward'), { text: { error: 'Cannot go forward' } }),
    ...DOM_TOOLS_IOS.flatMap((tool) => [
      ok(tool, call(tool), { result: '{"count":0}' }, { check: (v) => rec(rec(v).result).count === 0 }),
      fails(tool, 'no web view', call(tool), { text: { error: 'WebView not found: default' } }),
    ]),
    fails(
      'get_elements',
      'unknown tool (-32601)',
      (c) => c.getElements(),
      { rpc: { code: -32601, message: 'Method not found: get_elements' } },
      'unknown_tool',
    ),
    fails('get_state', 'a handler that threw (-32603)', call('get_state'), { rpc: { code: -32603, message: 'The operation couldn’t be completed.' } }),
    // A server's -32000 is the server's answer, not the MCP SDK's "connection closed".
    fails('tap_point', 'a -32000 server error', (c) => c.tapPoint(1, 2), { rpc: { code: -32000, message: 'Server error' } }),
    fails('tap_element', 'missing tool name (-32602)', (c) => c.tapElement('x'), { rpc: { code: -32602, message: 'Invalid params: Missing tool name' } }),
  ],
};

// ---- Tauri ----------------------------------------------------------------------------------------------

/** One element of Tauri's get_elements, as its DOM snapshot script reports an email input. */
export const TAURI_EMAIL = {
  id: 'web.main.0',
  windowId: 'main',
  source: 'tauri_webview_dom',
  idSource: 'dom',
  domId: 'email',
  selector: '#email',
  label: 'Email',
  text: '',
  role: 'textbox',
  tag: 'input',
  type: 'email',
  value: null,
  actions: ['tap', 'type_text', 'clear_text'],
  enabled: true,
  visible: true,
  frame: '10,20,200,40',
  rect: { x: 10, y: 20, width: 200, height: 40 },
  localRect: { x: 10, y: 20, width: 200, height: 40 },
};
const TARGET = ['id', 'elementId', 'selector'];
const targetNotFound = (action: string) => ({ text: { success: false, target: 'webview_dom', action, error: 'target_not_found' } });
const done = (action: string) => ({ success: true, action, windowId: 'main', target: 'webview_dom' });

export const TAURI_TOOLS: ToolList = {
  platform: 'Tauri',
  tools: {
    batch: ['actions', 'stop_on_error'],
    device_info: [],
    launch_context: [],
    list_windows: [],
    get_screen: [],
    get_navigation_stack: [],
    get_state: [],
    get_feature_flags: [],
    get_logs: ['limit', 'subsystem'],
    get_network_calls: ['limit'],
    get_elements: [W],
    get_dom_interactive: [W],
    tap_element: [...TARGET, W],
    tap_text: ['text', W],
    tap_point: ['x', 'y', W],
    type_text: [...TARGET, 'text', W],
    clear_text: [...TARGET, W],
    focus_window: [W, 'windowId'],
    get_menu_bar: [],
  },
  cases: [
    ok(
      'batch',
      (c) => c.batch([{ tool: 'launch_context' }, { tool: 'x' }]),
      {
        results: [
          { index: 0, tool: 'launch_context', success: true, result: { bundleId: 'serve' } },
          { index: 1, tool: 'x', success: false, error: 'Tool not found: x' },
        ],
      },
      {
        check: (v) =>
          JSON.stringify(v) ===
          JSON.stringify([
            { index: 0, tool: 'launch_context', ok: true, value: { bundleId: 'serve' } },
            { index: 1, tool: 'x', ok: false, error: 'Tool not found: x' },
          ]),
      },
    ),
    fails('batch', 'no actions (-32603)', (c) => c.batch([]), { rpc: { code: -32603, message: 'Invalid params: actions array required' } }),
    ok(
      'device_info',
      async (c) => identityOf(await c.call('device_info')),
      { platform: 'Linux', app: { bundleId: 'dev.tauri.app', appName: 'App' }, os: { arch: 'x86_64' } },
      {
        check: (v) => rec(v).bundleId === 'dev.tauri.app' && rec(v).appName === 'App',
      },
    ),
    ok(
      'launch_context',
      async (c) => identityOf(await c.call('launch_context')),
      { bundleId: 'dev.tauri.app', appName: 'App', version: 'unknown', frameworkType: 'tauri', platform: 'Linux' },
      {
        check: (v) => rec(v).bundleId === 'dev.tauri.app' && rec(v).version === undefined,
      },
    ),
    ok(
      'list_windows',
      (c) => c.listWindows(),
      { count: 1, windows: [{ frame: '0,0,800,600', id: 'main', isKey: true, title: 'App' }] },
      { check: (v) => (v as Array<{ id: string }>)[0]?.id === 'main' },
    ),
    ok(
      'get_screen',
      (c) => c.getScreen({ windowId: 'main' }),
      {
        activeTab: null,
        appBarTitle: 'login',
        confidence: 1.0,
        controllerChain: [],
        frameworkType: 'tauri',
        navigationDepth: 2,
        presentedModals: [],
        screenKey: 'login',
        screenTitle: 'login',
        source: 'explicit',
      },
      // Tauri's get_screen takes no window: a read leaves it out rather than sending a name it does not know.
      { sent: {}, check: (v) => rec(v).screenKey === 'login' },
    ),
    fails('get_screen', 'provider unset (-32601)', (c) => c.getScreen(), { rpc: { code: -32601, message: 'Method not found: get_screen' } }, 'unknown_tool'),
    ok(
      'get_navigation_stack',
      reading('get_navigation_stack'),
      { currentRoute: 'login', navigationStack: ['home', 'login'], presentedModals: [] },
      { check: (v) => rec(v).current === 'login' },
    ),
    ok('get_state', reading('get_state'), { frameworkType: 'tauri', screen: 'tauri-example' }, { check: (v) => rec(v).kind === 'fields' }),
    ok('get_feature_flags', reading('get_feature_flags'), { newCheckout: true }, { check: (v) => rec(v).kind === 'fields' }),
    ok(
      'get_logs',
      async (c) => logRows(await c.call('get_logs')),
      { limit: 50, logs: [{ level: 'info', message: 'hello' }] },
      { check: (v) => (v as Array<{ message: string }>)[0]?.message === 'hello' },
    ),
    fails('get_logs', 'arguments not an object (-32603)', call('get_logs'), { rpc: { code: -32603, message: 'Invalid params: arguments must be an object' } }),
    ok(
      'get_network_calls',
      async (c) => networkRows(await c.call('get_network_calls')),
      { calls: [{ status: 200, url: 'https://example.test/api' }], limit: 50 },
      {
        check: (v) => (v as Array<{ status: string }>)[0]?.status === '200',
      },
    ),
    ok(
      'get_elements',
      (c) => c.getElements('main'),
      {
        elements: [TAURI_EMAIL],
        webviews: [{ windowId: 'main', url: 'tauri://localhost', title: 'App', viewport: { width: 800, height: 600 }, elements: [TAURI_EMAIL] }],
        count: 1,
      },
      {
        sent: { window_id: 'main' },
        check: (v) => {
          const [element] = (rec(v).elements as Parameters<typeof appRevealElementToUiNode>[0][] | undefined) ?? [];
          const node = element ? appRevealElementToUiNode(element) : undefined;
          return node?.className === 'textField' && node.role === 'textfield' && node.clickable === 'true';
        },
      },
    ),
    ok(
      'get_dom_interactive',
      (c) => c.getDomInteractive(),
      { elements: [TAURI_EMAIL], webviews: [], count: 1 },
      { check: (v) => (rec(v).elements as unknown[]).length === 1 },
    ),
    ok(
      'tap_element',
      (c) => c.tapElement('web.main.0', { windowId: 'main' }),
      { ...done('tap_element'), element: TAURI_EMAIL },
      { sent: { id: 'web.main.0', window_id: 'main' } },
    ),
    fails('tap_element', 'target not found {success:false}', (c) => c.tapElement('web.main.9'), targetNotFound('tap_element')),
    fails('tap_element', 'missing target (-32603)', (c) => c.tapElement(''), {
      rpc: { code: -32603, message: 'Invalid params: Missing required string argument: id' },
    }),
    ok('tap_text', (c) => c.tapText('Sign in', { matchMode: 'exact' }), { ...done('tap_text') }, { sent: { text: 'Sign in' }, check: () => true }),
    fails('tap_text', 'target not found', (c) => c.tapText('Nope'), targetNotFound('tap_text')),
    fails('tap_text', 'an occurrence it cannot take: nothing sent', (c) => c.tapText('Continue', { occurrence: 1 }), targetNotFound('tap_text'), 'no_form', {
      notSent: true,
    }),
    ok('tap_point', (c) => c.tapPoint(5, 6), { ...done('tap_point') }, { sent: { x: 5, y: 6 } }),
    fails('tap_point', 'missing number (-32603)', (c) => c.tapPoint(5, 6), { rpc: { code: -32603, message: 'Invalid params: Missing required number: x' } }),
    fails('tap_point', 'no window', (c) => c.tapPoint(5, 6), { text: { success: false, action: 'tap_point', error: 'window_not_found' } }),
    ok('type_text', (c) => c.typeText('ada@example.test', 'web.main.0'), { ...done('type_text') }, { sent: { id: 'web.main.0', text: 'ada@example.test' } }),
    fails('type_text', 'no target (-32603)', (c) => c.typeText('x'), {
      rpc: { code: -32603, message: 'Invalid params: Missing required string argument: id' },
    }),
    ok('clear_text', (c) => c.clearText('web.main.0'), { ...done('clear_text') }, { sent: { id: 'web.main.0' } }),
    fails('clear_text', 'target not found', (c) => c.clearText('web.main.9'), targetNotFound('clear_text')),
    ok('focus_window', call('focus_window', { windowId: 'main' }), { success: true, windowId: 'main' }),
    fails('focus_window', 'window not found', call('focus_window', { windowId: 'nope' }), {
      text: { success: false, error: 'window_not_found', windowId: 'nope' },
    }),
    ok('get_menu_bar', call('get_menu_bar'), { menus: [], count: 0 }, { check: (v) => rec(v).count === 0 }),
  ],
};

// ---- Running the cases ------------------------------------------------------------------------------------

export interface ToolCaseOutcome {
  tool: string;
  form: string;
  ok: boolean;
  detail: string;
}

/** One scripted server listing every tool of the platform; each case sets the reply of the next call. */
export async function runToolList(list: ToolList): Promise<ToolCaseOutcome[]> {
  let reply: Reply = { text: {} };
  const calls: Array<{ name: string; arguments: Rec }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET') return send(200, { status: 'ok', port: 0, auth: 'session-token' });
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string; params?: { name: string; arguments?: Rec } };
      if (msg.id === undefined) {
        res.writeHead(204, { connection: 'close' });
        return res.end();
      }
      if (msg.method === 'initialize')
        return send(200, {
          jsonrpc: '2.0',
          id: msg.id,
          result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'AppReveal', version: '0' } },
        });
      if (msg.method === 'tools/list') {
        const tools = Object.entries(list.tools).map(([name, properties]) => ({
          name,
          description: name,
          inputSchema: { type: 'object', properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])) },
        }));
        return send(200, { jsonrpc: '2.0', id: msg.id, result: { tools } });
      }
      calls.push({ name: msg.params?.name ?? '', arguments: msg.params?.arguments ?? {} });
      if ('rpc' in reply) return send(200, { jsonrpc: '2.0', id: msg.id, error: reply.rpc });
      const result = 'text' in reply ? { content: [{ type: 'text', text: JSON.stringify(reply.text) }] } : reply;
      return send(200, { jsonrpc: '2.0', id: msg.id, result });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new AppRevealClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, token: 'tool-cases' }, { timeoutMs: 5000 });
  const out: ToolCaseOutcome[] = [];
  try {
    await client.connect();
    for (const c of list.cases) {
      reply = c.reply;
      const before = calls.length;
      let value: unknown;
      let error: AppRevealError | undefined;
      try {
        value = await c.run(client);
      } catch (e) {
        error = e instanceof AppRevealError ? e : new AppRevealError('bad_reply', String(e));
      }
      const sent = calls.slice(before).find((entry) => entry.name === c.tool);
      const problems: string[] = [];
      const got = error ? error.code : 'ok';
      if (got !== c.expect) problems.push(`got ${got}${error ? ` (${error.message})` : ''}, meant ${c.expect}`);
      if (c.notSent && calls.length !== before) problems.push('a request was sent');
      if (!c.notSent && !sent) problems.push('the tool was not called');
      if (c.sent && sent) {
        for (const [key, want] of Object.entries(c.sent)) {
          if (JSON.stringify(sent.arguments[key]) !== JSON.stringify(want))
            problems.push(`sent ${key}=${JSON.stringify(sent.arguments[key])}, meant ${JSON.stringify(want)}`);
        }
        if (Object.keys(c.sent).length === 0 && Object.keys(sent.arguments).length > 0)
          problems.push(`sent ${JSON.stringify(sent.arguments)}, meant no arguments`);
      }
      if (c.expect === 'ok' && c.check && !c.check(value)) problems.push(`decoded as ${JSON.stringify(value)?.slice(0, 200)}`);
      out.push({ tool: c.tool, form: c.form, ok: problems.length === 0, detail: problems.join('; ') });
    }
  } finally {
    await client.close();
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }
  return out;
}

/** Per tool of the list: every one of its cases passed. */
export function toolsClassified(list: ToolList, outcomes: readonly ToolCaseOutcome[]): { tools: number; classified: number; failing: string[] } {
  const names = Object.keys(list.tools);
  const failing = names.filter((name) => {
    const mine = outcomes.filter((o) => o.tool === name);
    return mine.length === 0 || mine.some((o) => !o.ok);
  });
  return { tools: names.length, classified: names.length - failing.length, failing };
}

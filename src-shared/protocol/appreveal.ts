/**
 * AppReveal: the MCP server an app embeds (docs/protocol.md#p-appreveal). Schemas for what its tools
 * answer, the session URL a user pastes, its /health and Bonjour TXT, and the projection of its elements
 * onto the runner's node shape so the screen, tree and attributes panes draw them like any other tree.
 *
 * AppReveal ports disagree on encodings: iOS and Android send booleans as "true"/"false", frames as
 * "x,y,w,h" and actions as "tap,type"; Flutter and Tauri send real booleans, `{x,y,width,height}` and
 * lists. Every wire schema here accepts both and normalizes to one shape, so nothing downstream knows
 * which port it talked to.
 */
import { z } from 'zod';
import type { Bounds, UiNode, ViewHierarchy } from './runner';

// ---- Lenient scalars ---------------------------------------------------------------------------------

const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

/** A boolean as any AppReveal port sends it: true, "true", "TRUE", 1. */
export const WireBooleanSchema = z.union([z.boolean(), z.string(), z.number()]).transform((raw, ctx): boolean => {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number' && (raw === 0 || raw === 1)) return raw === 1;
  const word = String(raw).trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  ctx.addIssue({ code: 'custom', message: 'expected a boolean or "true"/"false"' });
  return z.NEVER;
});

/**
 * Optional display text. iOS sends `""` for "no label" (`el.label ?? ""`), other ports omit it or send
 * null, and Flutter may send a number for a slider value: all of those normalize to a string or absent.
 */
const OptionalTextSchema = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .optional()
  .transform((raw): string | undefined => (raw === null || raw === undefined || raw === '' ? undefined : String(raw)));

const FiniteNumberSchema = z.union([z.number(), z.string()]).transform((raw, ctx): number => {
  const value = typeof raw === 'number' ? raw : Number(raw.trim());
  if (typeof raw === 'string' && raw.trim() === '') {
    ctx.addIssue({ code: 'custom', message: 'expected a number' });
    return z.NEVER;
  }
  if (!Number.isFinite(value)) {
    ctx.addIssue({ code: 'custom', message: 'expected a finite number' });
    return z.NEVER;
  }
  return value;
});

/** A list sent either as a JSON array or as one comma-separated string ("tap,type"). */
const StringListSchema = z
  .union([z.array(z.union([z.string(), z.number()])), z.string(), z.null()])
  .optional()
  .transform((raw): string[] => {
    if (raw === null || raw === undefined) return [];
    const items = typeof raw === 'string' ? raw.split(',') : raw.map(String);
    return items.map((item) => item.trim()).filter((item) => item !== '');
  });

// ---- Geometry ----------------------------------------------------------------------------------------

/** A rectangle in screen points, origin top-left. */
export const AppRevealFrameSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type AppRevealFrame = z.infer<typeof AppRevealFrameSchema>;

const NUMBER_IN_TEXT = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;

/**
 * Every frame form seen on the wire: "x,y,w,h" (iOS, Android; also tolerates CGRect's "{{x, y}, {w, h}}"),
 * `{x, y, width, height}` or `{x, y, w, h}` (Flutter, Tauri), and `[x, y, w, h]`.
 */
export const WireFrameSchema = z
  .union([
    z.string(),
    z.array(FiniteNumberSchema),
    z.object({ x: FiniteNumberSchema, y: FiniteNumberSchema, width: FiniteNumberSchema, height: FiniteNumberSchema }),
    z.object({ x: FiniteNumberSchema, y: FiniteNumberSchema, w: FiniteNumberSchema, h: FiniteNumberSchema }),
  ])
  .transform((raw, ctx): AppRevealFrame => {
    let parts: number[];
    if (typeof raw === 'string') parts = (raw.match(NUMBER_IN_TEXT) ?? []).map(Number);
    else if (Array.isArray(raw)) parts = raw;
    else if ('width' in raw) return { x: raw.x, y: raw.y, width: raw.width, height: raw.height };
    else return { x: raw.x, y: raw.y, width: raw.w, height: raw.h };
    const [x, y, width, height] = parts;
    if (parts.length !== 4 || x === undefined || y === undefined || width === undefined || height === undefined) {
      ctx.addIssue({ code: 'custom', message: 'expected a frame "x,y,w,h", [x,y,w,h] or {x,y,width,height}' });
      return z.NEVER;
    }
    if (![x, y, width, height].every(Number.isFinite)) {
      ctx.addIssue({ code: 'custom', message: 'frame values must be finite numbers' });
      return z.NEVER;
    }
    return { x, y, width, height };
  });

// ---- Elements (get_elements) -------------------------------------------------------------------------

/** How an element's id was derived (docs/rules.md#r-ar-10). Other strings are kept: a newer port may add one. */
export const APPREVEAL_ID_SOURCES = ['explicit', 'appReveal', 'ocr', 'text', 'semantics', 'tooltip', 'derived', 'dom'] as const;
export type AppRevealIdSource = (typeof APPREVEAL_ID_SOURCES)[number];

/** The one element shape every port normalizes to. */
export const AppRevealElementSchema = z.object({
  id: z.string(),
  type: z.string(),
  label: z.string().optional(),
  value: z.string().optional(),
  enabled: z.boolean(),
  visible: z.boolean(),
  tappable: z.boolean(),
  frame: AppRevealFrameSchema,
  actions: z.array(z.string()),
  idSource: z.string().optional(),
  /** Recognized by OCR (idSource "ocr"): visible text SwiftUI kept out of the accessibility tree, not a real view. */
  ocr: z.boolean(),
});
export type AppRevealElement = z.infer<typeof AppRevealElementSchema>;

/** One element as any port sends it; decodes to AppRevealElement. */
export const WireElementSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    type: z.string().nullish(),
    label: OptionalTextSchema,
    value: OptionalTextSchema,
    enabled: WireBooleanSchema.nullish(),
    visible: WireBooleanSchema.nullish(),
    tappable: WireBooleanSchema.nullish(),
    frame: WireFrameSchema,
    actions: StringListSchema,
    idSource: z.string().nullish(),
  })
  .transform((raw): AppRevealElement => ({
    id: raw.id,
    type: raw.type ?? 'other',
    ...(raw.label !== undefined ? { label: raw.label } : {}),
    ...(raw.value !== undefined ? { value: raw.value } : {}),
    // An absent enabled/visible means the port does not track it: the element is there and usable.
    enabled: raw.enabled ?? true,
    visible: raw.visible ?? true,
    tappable: raw.tappable ?? false,
    frame: raw.frame,
    actions: raw.actions,
    ...(raw.idSource ? { idSource: raw.idSource } : {}),
    ocr: raw.idSource === 'ocr',
  }));

export interface AppRevealElements {
  /** The screen the elements were read from, when the port says (iOS does). */
  screenKey?: string;
  elements: AppRevealElement[];
}

/** The get_elements reply: `{screenKey?, elements: [...]}` (iOS) or a bare list (older ports). */
export const AppRevealElementsReplySchema = z
  .union([z.object({ screenKey: z.string().nullish(), elements: z.array(WireElementSchema) }), z.array(WireElementSchema)])
  .transform((raw): AppRevealElements => {
    if (Array.isArray(raw)) return { elements: raw };
    return raw.screenKey ? { screenKey: raw.screenKey, elements: raw.elements } : { elements: raw.elements };
  });

// ---- Screen (get_screen) -----------------------------------------------------------------------------

export const APPREVEAL_SCREEN_SOURCES = ['explicit', 'derived'] as const;

export const AppRevealScreenInfoSchema = z.object({
  screenKey: z.string(),
  screenTitle: OptionalTextSchema,
  frameworkType: OptionalTextSchema,
  controllerChain: StringListSchema,
  activeTab: OptionalTextSchema,
  navigationDepth: FiniteNumberSchema.nullish().transform((v) => v ?? undefined),
  presentedModals: StringListSchema,
  /** 0…1: how sure the resolver is (1 for an explicit ScreenIdentifiable key). */
  confidence: FiniteNumberSchema.nullish().transform((v) => v ?? undefined),
  /** "explicit" (ScreenIdentifiable) or "derived" (controller hierarchy); other strings are kept. */
  source: OptionalTextSchema,
  appBarTitle: OptionalTextSchema,
});
export type AppRevealScreenInfo = z.output<typeof AppRevealScreenInfoSchema>;

// ---- Windows (list_windows) --------------------------------------------------------------------------

export const WireWindowSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    title: OptionalTextSchema,
    isKey: WireBooleanSchema.nullish(),
    frame: WireFrameSchema.nullish(),
  })
  .transform((raw) => ({
    id: raw.id,
    ...(raw.title !== undefined ? { title: raw.title } : {}),
    isKey: raw.isKey ?? false,
    ...(raw.frame ? { frame: raw.frame } : {}),
  }));

export const AppRevealWindowSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  isKey: z.boolean(),
  frame: AppRevealFrameSchema.optional(),
});
export type AppRevealWindow = z.infer<typeof AppRevealWindowSchema>;

/** `{windows: [...], count}` (iOS) or a bare list. */
export const AppRevealWindowsReplySchema = z
  .union([z.object({ windows: z.array(WireWindowSchema) }), z.array(WireWindowSchema)])
  .transform((raw): AppRevealWindow[] => (Array.isArray(raw) ? raw : raw.windows));

// ---- Tool-level failures -----------------------------------------------------------------------------

/** One match of an ambiguous tap_text, as a string or an object depending on the port. */
export const AppRevealCandidateSchema = z
  .union([
    z.string(),
    z
      .object({
        text: OptionalTextSchema,
        label: OptionalTextSchema,
        id: OptionalTextSchema,
        elementId: OptionalTextSchema,
        type: OptionalTextSchema,
        frame: WireFrameSchema.nullish(),
        index: z.number().int().nullish(),
      })
      .loose(),
  ])
  .transform((raw): AppRevealCandidate => {
    if (typeof raw === 'string') return { text: raw };
    const id = raw.id ?? raw.elementId;
    const text = raw.text ?? raw.label ?? id ?? '';
    return {
      text,
      ...(id !== undefined ? { id } : {}),
      ...(raw.type !== undefined ? { type: raw.type } : {}),
      ...(raw.frame ? { frame: raw.frame } : {}),
      ...(typeof raw.index === 'number' ? { index: raw.index } : {}),
    };
  });

export interface AppRevealCandidate {
  text: string;
  id?: string;
  type?: string;
  frame?: AppRevealFrame;
  /** The `occurrence` to pass to tap_text to pick this one. */
  index?: number;
}

/**
 * A tool that failed answers a normal result whose JSON text is `{"error": "..."}`; an ambiguous tap_text
 * adds `candidates` and a `hint`.
 */
export const AppRevealToolFailureSchema = z
  .object({
    error: z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown()), z.array(z.unknown())]),
    candidates: z.array(AppRevealCandidateSchema).optional(),
    hint: z.string().optional(),
  })
  .transform((raw) => ({
    error: typeof raw.error === 'string' ? raw.error : JSON.stringify(raw.error),
    ...(raw.candidates ? { candidates: raw.candidates } : {}),
    ...(raw.hint !== undefined ? { hint: raw.hint } : {}),
  }));
export type AppRevealToolFailure = z.output<typeof AppRevealToolFailureSchema>;

/** True when a decoded tool result is a tool-level failure (has an `error` key). */
export function isToolFailure(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'error' in value;
}

// ---- Screenshot --------------------------------------------------------------------------------------

/** The JSON-text form of a screenshot some ports send instead of an image content block. */
export const AppRevealScreenshotTextSchema = z.object({
  image: z.string().min(1),
  format: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  scale: z.number().optional(),
});

// ---- Health and discovery ----------------------------------------------------------------------------

export const APPREVEAL_AUTH_MODES = ['session-token', 'disabled'] as const;

/** `GET /health`, unauthenticated. Extra diagnostics (Bonjour state, version) are kept. */
export const AppRevealHealthSchema = z
  .object({
    status: z.string(),
    port: z.number().int().optional(),
    auth: z.string().optional(),
  })
  .loose();
export type AppRevealHealth = z.output<typeof AppRevealHealthSchema>;

export const APPREVEAL_SERVICE_TYPE = 'appreveal';
export const APPREVEAL_INSTANCE_PREFIX = 'AppReveal-';

/** The Bonjour TXT record of `_appreveal._tcp`; other keys are kept as strings. */
export const AppRevealTxtSchema = z
  .object({
    bundleId: z.string().optional(),
    version: z.string().optional(),
    transport: z.string().optional(),
    auth: z.string().optional(),
  })
  .catchall(z.string());
export type AppRevealTxt = z.output<typeof AppRevealTxtSchema>;

/**
 * What discovery reports (the device list, `parallax devices --json`). Never carries a token: AppReveal
 * URLs here are the base URL with `appreveal_session_token` removed.
 */
export const DiscoveredDeviceSchema = z.object({
  id: z.string(),
  kind: z.enum(['runner', 'appreveal']),
  name: z.string(),
  bundleId: z.string().optional(),
  /** ws://HOST:PORT/ws for a runner; http://HOST:PORT/ for AppReveal (no token). */
  url: z.string(),
  state: z.enum(['available', 'unreachable']),
  /** Why it is unreachable, in one line. */
  error: z.string().optional(),
  /** Where it was found; a device found several ways lists each. */
  sources: z.array(z.enum(['bonjour', 'probe', 'manual'])),
  txt: z.record(z.string(), z.string()).optional(),
  /** AppReveal only: what its /health says about auth. */
  auth: z.string().optional(),
});
export type DiscoveredDevice = z.infer<typeof DiscoveredDeviceSchema>;

// ---- Session URL -------------------------------------------------------------------------------------

export const SESSION_TOKEN_PARAM = 'appreveal_session_token';

export interface AppRevealSession {
  /** Where to POST, without the token: `http://HOST:PORT/`. */
  baseUrl: string;
  /** Absent for an app started with auth disabled. */
  token?: string;
}

/** A session URL or host/port/token that cannot be used. The message never contains the token. */
export class AppRevealUrlError extends Error {
  override readonly name = 'AppRevealUrlError';
}

// Printable URL-safe characters only: a token is sent in a header, where CR/LF or spaces would be trouble.
const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{1,512}$/;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const EXAMPLE = 'http://HOST:PORT/?appreveal_session_token=…';

/**
 * Splits the session URL an app prints (`http://127.0.0.1:PORT/?appreveal_session_token=…`) into the base
 * URL and the token. A missing scheme means http. Throws AppRevealUrlError naming what is wrong; the
 * message never repeats the input, which holds the token.
 */
export function parseAppRevealSessionUrl(input: string): AppRevealSession {
  const text = input.trim();
  if (text === '') throw new AppRevealUrlError(`paste an AppReveal session URL (${EXAMPLE})`);
  if (/\s/.test(text)) throw new AppRevealUrlError('the session URL contains whitespace');
  let url: URL;
  try {
    url = new URL(HAS_SCHEME.test(text) ? text : `http://${text}`);
  } catch {
    throw new AppRevealUrlError(`not a valid URL; an AppReveal session URL looks like ${EXAMPLE}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppRevealUrlError(`an AppReveal session URL starts with http:// (this one starts with ${url.protocol}//)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new AppRevealUrlError('an AppReveal session URL carries no user name or password');
  }
  if (url.port === '') throw new AppRevealUrlError(`the session URL has no port (${EXAMPLE})`);
  const tokens = url.searchParams.getAll(SESSION_TOKEN_PARAM);
  if (new Set(tokens).size > 1) throw new AppRevealUrlError(`the session URL has two different ${SESSION_TOKEN_PARAM} values`);
  const token = tokens[0];
  if (token !== undefined) checkToken(token);
  return token === undefined ? { baseUrl: withoutToken(url) } : { baseUrl: withoutToken(url), token };
}

/** The other way to connect: host, port and token typed separately. */
export function appRevealSessionFromParts(host: string, port: number | string, token?: string): AppRevealSession {
  const name = host.trim();
  if (name === '' || /[\s/?#@]/.test(name)) throw new AppRevealUrlError('the host must be a name or an IP address');
  const portNumber = typeof port === 'number' ? port : Number(port.trim());
  if (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535) {
    throw new AppRevealUrlError('the port must be a whole number from 1 to 65535');
  }
  const bracketed = name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
  let url: URL;
  try {
    url = new URL(`http://${bracketed}:${portNumber}/`);
  } catch {
    throw new AppRevealUrlError('the host must be a name or an IP address');
  }
  const trimmed = token?.trim();
  if (trimmed === undefined || trimmed === '') return { baseUrl: url.href };
  checkToken(trimmed);
  return { baseUrl: url.href, token: trimmed };
}

/**
 * The URL with `appreveal_session_token` (and any user info and fragment) removed: what may be shown,
 * saved or logged. Input that is not a URL comes back as '' rather than as itself.
 */
export function stripSessionToken(input: string): string {
  const text = input.trim();
  try {
    const url = new URL(HAS_SCHEME.test(text) ? text : `http://${text}`);
    url.username = '';
    url.password = '';
    return withoutToken(url);
  } catch {
    return '';
  }
}

/** `host:port` of a base URL: the only part of an endpoint errors and logs name. */
export function endpointLabel(baseUrl: string): string {
  try {
    // `host` is hostname:port with IPv6 brackets, and never user info, path or query.
    return new URL(baseUrl).host;
  } catch {
    return 'AppReveal endpoint';
  }
}

/** For API inputs: a string that decodes to a session, with the parse error as the issue. */
export const AppRevealSessionUrlSchema = z.string().transform((raw, ctx): AppRevealSession => {
  try {
    return parseAppRevealSessionUrl(raw);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : 'invalid session URL' });
    return z.NEVER;
  }
});

function checkToken(token: string): void {
  if (token === '') throw new AppRevealUrlError(`${SESSION_TOKEN_PARAM} is empty`);
  if (!TOKEN_PATTERN.test(token)) {
    throw new AppRevealUrlError(`${SESSION_TOKEN_PARAM} has characters a session token cannot have`);
  }
}

function withoutToken(url: URL): string {
  const copy = new URL(url.href);
  copy.searchParams.delete(SESSION_TOKEN_PARAM);
  copy.hash = '';
  // URLSearchParams leaves a bare "?" behind when the token was the only parameter.
  return copy.search === '' || copy.search === '?' ? `${copy.origin}${copy.pathname}` : `${copy.origin}${copy.pathname}${copy.search}`;
}

// ---- Tools -------------------------------------------------------------------------------------------

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

// ---- Projection onto the runner's node shape ---------------------------------------------------------

/** extras keys the projection sets; `appreveal.ocr` is "true" only on OCR-derived elements. */
export const APPREVEAL_EXTRAS = {
  idSource: 'appreveal.idSource',
  ocr: 'appreveal.ocr',
  type: 'appreveal.type',
  visible: 'appreveal.visible',
  screenKey: 'appreveal.screenKey',
  screenSource: 'appreveal.screenSource',
  confidence: 'appreveal.confidence',
  frameworkType: 'appreveal.frameworkType',
  appBarTitle: 'appreveal.appBarTitle',
} as const;

/** The root's className: not XCUIApplication, so nothing mistakes an AppReveal tree for an XCTest one. */
export const APPREVEAL_ROOT_CLASS = 'AppRevealScreen';

const ROLE_BY_TYPE: Record<string, string> = {
  button: 'button',
  link: 'link',
  textfield: 'textfield',
  securetextfield: 'textfield',
  searchfield: 'textfield',
  textview: 'textfield',
  textarea: 'textfield',
  input: 'textfield',
  label: 'text',
  text: 'text',
  statictext: 'text',
  image: 'image',
  imageview: 'image',
  cell: 'listitem',
  tableviewcell: 'listitem',
  collectionviewcell: 'listitem',
  listitem: 'listitem',
  heading: 'heading',
  header: 'heading',
  toggle: 'switch',
  switch: 'switch',
  checkbox: 'checkbox',
  slider: 'slider',
  stepper: 'stepper',
  tab: 'tab',
  tabbar: 'tabbar',
  navigationbar: 'navigationbar',
  scrollview: 'scrollview',
  tableview: 'list',
  collectionview: 'list',
  webview: 'webview',
};

export function boundsOfFrame(frame: AppRevealFrame): Bounds {
  const left = Math.round(frame.x);
  const top = Math.round(frame.y);
  return { left, top, right: Math.round(frame.x + frame.width), bottom: Math.round(frame.y + frame.height) };
}

/** One element as a runner node: kebab-case keys, string booleans, integer bounds. */
export function appRevealElementToUiNode(element: AppRevealElement): UiNode {
  const typeKey = element.type.toLowerCase().replace(/[^a-z]/g, '');
  const extras: Record<string, string> = { [APPREVEAL_EXTRAS.type]: element.type };
  if (element.idSource !== undefined) extras[APPREVEAL_EXTRAS.idSource] = element.idSource;
  if (element.ocr) extras[APPREVEAL_EXTRAS.ocr] = 'true';
  if (!element.visible) extras[APPREVEAL_EXTRAS.visible] = 'false';
  const node: UiNode = {
    'resource-id': element.id,
    'view-id': element.id,
    className: element.type,
    role: ROLE_BY_TYPE[typeKey] ?? typeKey,
    bounds: boundsOfFrame(element.frame),
    extras,
    actions: [...element.actions],
    enabled: element.enabled ? 'true' : 'false',
    clickable: element.tappable ? 'true' : 'false',
  };
  if (element.label !== undefined) node.text = element.label;
  if (element.value !== undefined) node.value = element.value;
  if (element.label !== undefined && element.value !== undefined) node['content-desc'] = element.label;
  if (element.actions.includes('scroll')) node.scrollable = 'true';
  if (element.actions.includes('type')) node.focusable = 'true';
  if (typeKey === 'securetextfield') node.password = 'true';
  if (typeKey === 'toggle' || typeKey === 'switch' || typeKey === 'checkbox') {
    node.checkable = 'true';
    const on = element.value?.toLowerCase();
    if (on === '1' || on === 'true' || on === 'on') node.checked = 'true';
  }
  return node;
}

export interface ScreenGeometry {
  width: number;
  height: number;
}

/**
 * The elements under one root that stands for the screen. AppReveal's elements are a flat list (no
 * containment), so they are the root's children in the order the app listed them.
 */
export function appRevealElementsToUiNodes(elements: readonly AppRevealElement[], screen?: AppRevealScreenInfo, geometry?: ScreenGeometry): UiNode {
  const extras: Record<string, string> = {};
  if (screen) {
    extras[APPREVEAL_EXTRAS.screenKey] = screen.screenKey;
    if (screen.source !== undefined) extras[APPREVEAL_EXTRAS.screenSource] = screen.source;
    if (screen.confidence !== undefined) extras[APPREVEAL_EXTRAS.confidence] = String(screen.confidence);
    if (screen.frameworkType !== undefined) extras[APPREVEAL_EXTRAS.frameworkType] = screen.frameworkType;
    if (screen.appBarTitle !== undefined) extras[APPREVEAL_EXTRAS.appBarTitle] = screen.appBarTitle;
  }
  const root: UiNode = {
    className: APPREVEAL_ROOT_CLASS,
    bounds: geometry ? boundsOfFrame({ x: 0, y: 0, ...geometry }) : unionBounds(elements),
    extras,
    node: elements.map(appRevealElementToUiNode),
  };
  if (screen?.screenTitle !== undefined) root.text = screen.screenTitle;
  if (screen) root['resource-id'] = screen.screenKey;
  return root;
}

/** A ViewHierarchy for the frame the renderer draws, built from one get_screen + get_elements. */
export function appRevealViewHierarchy(input: {
  elements: readonly AppRevealElement[];
  screen?: AppRevealScreenInfo;
  bundleId?: string;
  geometry?: ScreenGeometry;
  updatedAt?: number;
}): ViewHierarchy {
  const hierarchy = appRevealElementsToUiNodes(input.elements, input.screen, input.geometry);
  const result: ViewHierarchy = { hierarchy, updatedAt: input.updatedAt ?? Date.now() };
  if (input.bundleId !== undefined) result.packageName = input.bundleId;
  if (input.geometry) {
    result.screenWidth = Math.round(input.geometry.width);
    result.screenHeight = Math.round(input.geometry.height);
  }
  return result;
}

function unionBounds(elements: readonly AppRevealElement[]): Bounds {
  if (elements.length === 0) return { left: 0, top: 0, right: 0, bottom: 0 };
  const all = elements.map((element) => boundsOfFrame(element.frame));
  // The screen's origin is 0,0 even when every element sits lower and to the right.
  return {
    left: Math.min(0, ...all.map((b) => b.left)),
    top: Math.min(0, ...all.map((b) => b.top)),
    right: Math.max(...all.map((b) => b.right)),
    bottom: Math.max(...all.map((b) => b.bottom)),
  };
}

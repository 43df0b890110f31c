/**
 * AppReveal: the MCP server an app embeds (docs/protocol.md#p-appreveal). Schemas for what its tools
 * answer, the session URL a user pastes, its /health and Bonjour TXT, and the projection of its elements
 * onto the runner's node shape so the screen, tree and attributes panes draw them like any other tree.
 *
 * AppReveal ports disagree on encodings: iOS and Android send booleans as "true"/"false", frames as
 * "x,y,w,h" and actions as "tap,type"; Flutter and Tauri send real booleans, `{x,y,width,height}` and
 * lists. Every wire schema here accepts both and normalizes to one shape, so nothing downstream knows
 * which port it talked to.
 *
 * Over 500 lines on purpose: one schema per AppReveal answer, each built from the shared per-port
 * normalizers at the top of this file; split apart, those normalizers would have to become a public API.
 */
import { z } from 'zod';

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

/**
 * The one element shape every port normalizes to. `type` is the element's kind in AppReveal's native
 * vocabulary (button, textField, secureTextField, label, toggle, checkbox, link, picker, …): for a DOM
 * element (Tauri's web view, whose `type` on the wire is the HTML type attribute) it is derived from the
 * element's role, tag and input type, which are kept beside it.
 */
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
  /** DOM elements only: the page's role, tag and HTML input type, and the CSS selector the app gave. */
  role: z.string().optional(),
  tag: z.string().optional(),
  inputType: z.string().optional(),
  selector: z.string().optional(),
  /** The window the element is in, when the app says (Tauri: the webview window's label). */
  windowId: z.string().optional(),
  /**
   * Where `frame` is measured from, in the app's screen coordinates, when that is not the screen's origin:
   * Tauri measures `localRect` from its web view's viewport (CSS pixels) and `rect` from the screen
   * (`window_css_origin`: inner_position / scale_factor, CSS pixels), so `frame` is the local rect and
   * this is rect − localRect (docs/rules.md#r-ar-33). A point sent back to the app adds it.
   */
  origin: z.object({ x: z.number(), y: z.number() }).optional(),
});
export type AppRevealElement = z.infer<typeof AppRevealElementSchema>;

const TEXT_INPUT_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'number', 'date', 'datetime-local', 'month', 'time', 'week']);
const BUTTON_INPUT_TYPES = new Set(['submit', 'button', 'reset', 'image']);

/**
 * A DOM element's kind in the native vocabulary, from what Tauri's snapshot script reports: `role` (an
 * explicit ARIA role, else button | link | combobox | textbox | checkbox | radio | the tag), `tag`, and
 * `type` (the HTML type attribute). docs/protocol.md#p-ar-elements.
 */
export function domElementKind(role: string | undefined, tag: string | undefined, inputType: string | undefined): string {
  const r = role?.trim().toLowerCase() ?? '';
  const g = tag?.trim().toLowerCase() ?? '';
  const t = inputType?.trim().toLowerCase() ?? '';
  if (t === 'password') return 'secureTextField';
  if (r === 'checkbox' || t === 'checkbox') return 'checkbox';
  if (r === 'radio' || t === 'radio') return 'radio';
  if (r === 'switch') return 'toggle';
  if (r === 'combobox' || r === 'listbox' || g === 'select') return 'picker';
  if (g === 'textarea') return 'textView';
  if (r === 'button' || g === 'button' || g === 'summary' || (g === 'input' && BUTTON_INPUT_TYPES.has(t))) return 'button';
  if (r === 'textbox' || r === 'searchbox' || (g === 'input' && TEXT_INPUT_TYPES.has(t))) return 'textField';
  if (r === 'link' || g === 'a') return 'link';
  return r || g || 'other';
}

const OptionalNameSchema = z
  .string()
  .nullish()
  .transform((raw): string | undefined => (raw === null || raw === undefined || raw.trim() === '' ? undefined : raw));

/**
 * One element as any port sends it; decodes to AppRevealElement. A DOM element is one that carries a
 * `tag` (Tauri): its wire `type` is the input type, its kind comes from `domElementKind`. A port that
 * sends no `tappable` (Tauri) is tappable when its actions include "tap"; a missing `frame` is read from
 * `rect`.
 */
export const WireElementSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    type: z.string().nullish(),
    label: OptionalTextSchema,
    value: OptionalTextSchema,
    enabled: WireBooleanSchema.nullish(),
    visible: WireBooleanSchema.nullish(),
    tappable: WireBooleanSchema.nullish(),
    frame: WireFrameSchema.nullish(),
    rect: WireFrameSchema.nullish(),
    /** Tauri: the rect in its web view's viewport (CSS px), beside `rect` on the screen (tauri_integration.rs collect_dom_elements). */
    localRect: WireFrameSchema.nullish(),
    actions: StringListSchema,
    idSource: z.string().nullish(),
    /** The HTML type of a web control a port lists beside its native views (a non-DOM record's own field). */
    inputType: OptionalNameSchema,
    role: OptionalNameSchema,
    tag: OptionalNameSchema,
    selector: OptionalNameSchema,
    windowId: OptionalNameSchema,
  })
  .transform((raw, ctx): AppRevealElement => {
    const onScreen = raw.rect ?? raw.frame;
    if (!onScreen) {
      ctx.addIssue({ code: 'custom', path: ['frame'], message: 'an element needs a frame (or a rect)' });
      return z.NEVER;
    }
    // Tauri's rect is on the screen in CSS pixels (its frame string the same, rounded); its localRect is in
    // the web view, which is what Parallax draws: the viewport is the screen, and the offset is kept.
    const local = raw.localRect ?? undefined;
    const frame = local ?? raw.frame ?? onScreen;
    const dom = raw.tag !== undefined;
    const inputType = dom && raw.type ? raw.type : raw.inputType;
    const element: AppRevealElement = {
      id: raw.id,
      type: dom ? domElementKind(raw.role, raw.tag, inputType) : raw.type || 'other',
      // An absent enabled/visible means the port does not track it: the element is there and usable.
      enabled: raw.enabled ?? true,
      visible: raw.visible ?? true,
      tappable: raw.tappable ?? raw.actions.includes('tap'),
      frame,
      actions: raw.actions,
      ocr: raw.idSource === 'ocr',
    };
    if (raw.label !== undefined) element.label = raw.label;
    if (raw.value !== undefined) element.value = raw.value;
    if (raw.idSource) element.idSource = raw.idSource;
    if (raw.role !== undefined) element.role = raw.role;
    if (raw.tag !== undefined) element.tag = raw.tag;
    if (inputType !== undefined) element.inputType = inputType;
    if (raw.selector !== undefined) element.selector = raw.selector;
    if (raw.windowId !== undefined) element.windowId = raw.windowId;
    if (local) element.origin = { x: onScreen.x - local.x, y: onScreen.y - local.y };
    return element;
  });

export interface AppRevealElements {
  /** The screen the elements were read from, when the port says (iOS does). */
  screenKey?: string;
  elements: AppRevealElement[];
  /** Tauri: the first web view's viewport (`innerWidth` × `innerHeight`, CSS px), the space its elements' frames are in. */
  viewport?: { width: number; height: number };
}

const WireWebviewSchema = z
  .object({
    windowId: z.string().nullish(),
    viewport: z.object({ width: FiniteNumberSchema, height: FiniteNumberSchema }).nullish(),
  })
  .loose();

/** The get_elements reply: `{screenKey?, elements: [...]}` (iOS), `{elements, webviews, count}` (Tauri) or a bare list (older ports). */
export const AppRevealElementsReplySchema = z
  .union([
    z.object({ screenKey: z.string().nullish(), elements: z.array(WireElementSchema), webviews: z.array(WireWebviewSchema).nullish().catch(undefined) }),
    z.array(WireElementSchema),
  ])
  .transform((raw): AppRevealElements => {
    if (Array.isArray(raw)) return { elements: raw };
    const read: AppRevealElements = raw.screenKey ? { screenKey: raw.screenKey, elements: raw.elements } : { elements: raw.elements };
    const viewport = raw.webviews?.find((webview) => webview.viewport)?.viewport;
    if (viewport && viewport.width > 0 && viewport.height > 0) read.viewport = { width: viewport.width, height: viewport.height };
    return read;
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
 * How the client names what went wrong with a call (docs/protocol.md#p-ar-errors): `tool_error`,
 * `unknown_tool`, `unauthorized`, `forbidden_origin`: the app answered and did nothing; `no_form`: never
 * asked (a tool the app did not list, or arguments it cannot take); `timeout`, `unreachable`: no answer,
 * so it may have run; `bad_reply`: an answer that cannot be read, which may follow a run; `server_error`:
 * a JSON-RPC internal error (-32603) that is no refusal of the arguments, which can follow the tool's
 * dispatch. What each means for an action: APPREVEAL_FAILURE_ROWS (`src-shared/act/verdict.ts`).
 */
export const APPREVEAL_ERROR_CODES = [
  'unauthorized',
  'forbidden_origin',
  'tool_error',
  'unknown_tool',
  'no_form',
  'timeout',
  'unreachable',
  'bad_reply',
  'server_error',
] as const;
export type AppRevealErrorCode = (typeof APPREVEAL_ERROR_CODES)[number];

/**
 * A tool that failed, as a normal result: iOS and Android answer `{"error": "..."}` (an ambiguous
 * tap_text adds `candidates` and a `hint`), Tauri's UI tools `{"success": false, "error": "..."}`, and
 * iOS tap_element's DOM fallback `{"success": false, ...}` with no `error` at all
 * (docs/protocol.md#p-ar-errors). Each is "the app answered and did not do it".
 */
export const AppRevealToolFailureSchema = z
  .object({
    error: z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown()), z.array(z.unknown()), z.null()]).optional(),
    success: z.unknown().optional(),
    candidates: z.array(AppRevealCandidateSchema).optional(),
    hint: z.string().optional(),
    reason: z.string().optional(),
  })
  .transform((raw) => {
    const error =
      typeof raw.error === 'string' && raw.error !== ''
        ? raw.error
        : raw.error !== undefined && raw.error !== null && raw.error !== ''
          ? JSON.stringify(raw.error)
          : raw.reason !== undefined
            ? raw.reason
            : 'the app answered "success": false without saying why';
    return {
      error,
      ...(raw.candidates ? { candidates: raw.candidates } : {}),
      ...(raw.hint !== undefined ? { hint: raw.hint } : {}),
    };
  });
export type AppRevealToolFailure = z.output<typeof AppRevealToolFailureSchema>;

/** True when a decoded tool result is a tool-level failure: it has an `error` key, or `success: false`. */
export function isToolFailure(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return ('error' in record && record.error !== null) || record.success === false;
}

/**
 * A JSON-RPC error as a server sends it, in a 200 reply or as the body of a 400 or 401
 * (`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: …"}}`; iOS omits `id`).
 */
export const JsonRpcErrorBodySchema = z.object({
  jsonrpc: z.literal('2.0').optional(),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
});
export type JsonRpcErrorBody = z.infer<typeof JsonRpcErrorBodySchema>;

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

/** One interactive element of an AppReveal app's web view (get_dom_interactive), decoded and bounded, never a value (`webControlsOf`, src-shared/observe/appreveal-redact.ts). */
export const WebControlSchema = z.object({
  selector: z.string(),
  tag: z.string(),
  type: z.string().optional(),
  label: z.string().optional(),
  text: z.string().optional(),
  disabled: z.boolean().optional(),
  /** Takes text (web_type): an input or a text area. */
  editable: z.boolean(),
  /** Text typed into it is a secret (docs/rules.md#r-secret): a password input, a password autofill hint. */
  secret: z.boolean().optional(),
});
export type WebControl = z.infer<typeof WebControlSchema>;

export const APPREVEAL_AUTH_MODES = ['session-token', 'disabled'] as const;

/**
 * `GET /health`, unauthenticated: iOS `{status, port, auth, bonjour, bonjourDiagnostics, lan}`, Tauri
 * exactly `{status, port, auth, discovery}`. Neither names the app; other keys are kept.
 */
export const AppRevealHealthSchema = z
  .object({
    status: z.string(),
    port: z.number().int().optional(),
    auth: z.string().optional(),
    discovery: z.string().optional(),
  })
  .loose();
export type AppRevealHealth = z.output<typeof AppRevealHealthSchema>;

/** The largest /health body read (iOS adds Bonjour and LAN diagnostics; a few KiB in practice). */
export const MAX_HEALTH_BYTES = 64 * 1024;

// ---- The app's identity (launch_context, device_info) ------------------------------------------------

const IdentityTextSchema = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((raw): string | undefined => {
    if (raw === null || raw === undefined) return undefined;
    const text = String(raw).trim();
    return text === '' || text.length > 500 ? undefined : text;
  });

const IDENTITY_FIELDS = [
  'bundleId',
  'appName',
  'displayName',
  'version',
  'build',
  'platform',
  'frameworkType',
  'deviceName',
  'deviceModel',
  'systemVersion',
] as const;
type IdentityField = (typeof IDENTITY_FIELDS)[number];

/** Who the app is, as far as the app said: every field optional, since each port sends a different set. */
export const AppRevealIdentitySchema = z.object(
  Object.fromEntries(IDENTITY_FIELDS.map((field) => [field, z.string().optional()])) as Record<IdentityField, z.ZodOptional<z.ZodString>>,
);
export type AppRevealIdentity = z.infer<typeof AppRevealIdentitySchema>;

const WireIdentitySchema = z
  .object(Object.fromEntries(IDENTITY_FIELDS.map((field) => [field, IdentityTextSchema])) as Record<IdentityField, typeof IdentityTextSchema>)
  .loose();

/**
 * The identity fields of one reply: launch_context (iOS `{bundleId, version, build, platform, …}`, no
 * appName; Tauri adds appName, displayName, frameworkType), device_info (the same keys at the top, Tauri
 * also under `app`) or /health (which real servers leave without any). Tauri's `version: "unknown"` is
 * no version. Anything that is not an object gives nothing.
 */
export function identityOf(reply: unknown): AppRevealIdentity {
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) return {};
  const top = WireIdentitySchema.safeParse(reply);
  const nested = (reply as Record<string, unknown>).app;
  const inner = nested !== undefined ? WireIdentitySchema.safeParse(nested) : undefined;
  const out: AppRevealIdentity = {};
  for (const field of IDENTITY_FIELDS) {
    const value = (top.success ? top.data[field] : undefined) ?? (inner?.success ? inner.data[field] : undefined);
    if (value !== undefined && !(field === 'version' && value === 'unknown')) out[field] = value;
  }
  return out;
}

/** Several sources of identity, the first that has a field wins (docs/rules.md#r-ar-20). */
export function mergeIdentities(...sources: readonly AppRevealIdentity[]): AppRevealIdentity {
  const out: AppRevealIdentity = {};
  for (const source of sources) {
    for (const field of IDENTITY_FIELDS) {
      const value = source[field];
      if (out[field] === undefined && value !== undefined) out[field] = value;
    }
  }
  return out;
}

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

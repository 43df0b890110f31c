/**
 * How the App panel shows what an AppReveal app's read-only tools said (docs/rules.md#r-ar-22): network
 * calls as a table, logs and recent errors as lists, the navigation stack as a route and its stack,
 * feature flags and everything else as name/value rows. Each port words its answers a little
 * differently (iOS `statusCode: "200"`, `duration: "0.123s"`; Tauri's providers `status: 200`,
 * `durationMs`), so every field is read under each of its names. Pure: plain data in, plain data out.
 */
import type { AppState, AppStateReading } from '@shared/protocol/appreveal-tools';
import { maskCapturedTraffic } from '@shared/trace/redact';

/** The panel's heading of each read-only tool. */
export const APP_TOOL_TITLES: Readonly<Record<string, string>> = {
  get_state: 'State',
  get_navigation_stack: 'Navigation',
  get_feature_flags: 'Feature flags',
  get_network_calls: 'Network calls',
  get_logs: 'Logs',
  get_recent_errors: 'Recent errors',
  device_info: 'Device info',
  launch_context: 'Launch context',
};

export function appToolTitle(tool: string): string {
  return APP_TOOL_TITLES[tool] ?? tool;
}

export interface NetworkRow {
  /** The call's id, which get_network_call_detail takes; '' when the port gives none (Tauri's providers). */
  id: string;
  method: string;
  url: string;
  status: string;
  duration: string;
  error: string;
}

export interface LogRow {
  time: string;
  level: string;
  source: string;
  message: string;
}

export interface FieldRow {
  /** A dotted path into the answer ("screen.width", "navigationStack.0"). */
  name: string;
  value: string;
}

export type AppReadingView =
  | { kind: 'failed'; message: string }
  | { kind: 'network'; rows: NetworkRow[] }
  | { kind: 'logs'; rows: LogRow[] }
  | { kind: 'navigation'; current: string; stack: string[]; modals: string[] }
  | { kind: 'fields'; rows: FieldRow[]; truncated: boolean }
  | { kind: 'empty' };

/** The most rows one reading shows; the rest are counted, not drawn. */
export const MAX_FIELD_ROWS = 300;
const MAX_VALUE_CHARS = 500;

type Rec = Record<string, unknown>;
const isRec = (value: unknown): value is Rec => typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value === 'nil' ? '' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return clip(JSON.stringify(value));
}

function clip(value: string): string {
  return value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value;
}

/** The first field of `names` that holds something. */
function pick(record: Rec, names: readonly string[]): unknown {
  for (const name of names) {
    const value = record[name];
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return undefined;
}

/** A list the answer holds under `key`, or the answer itself when it is a list. */
function listIn(value: unknown, key: string): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isRec(value) && Array.isArray(value[key])) return value[key];
  return undefined;
}

function duration(value: unknown, millis: unknown): string {
  if (typeof millis === 'number' && Number.isFinite(millis)) return `${Math.round(millis)} ms`;
  if (typeof value === 'number' && Number.isFinite(value)) return `${Math.round(value * 1000)} ms`;
  // iOS: "0.123s"; "nil" while the call is in flight.
  const seconds = typeof value === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(value.trim()) : null;
  if (seconds?.[1]) return `${Math.round(Number(seconds[1]) * 1000)} ms`;
  return text(value);
}

export function networkRows(value: unknown): NetworkRow[] | undefined {
  const calls = listIn(value, 'calls');
  if (!calls) return undefined;
  return calls.filter(isRec).map((call) => ({
    id: text(pick(call, ['id', 'callId'])),
    method: text(pick(call, ['method', 'httpMethod'])),
    url: clip(text(pick(call, ['url', 'path']))),
    status: text(pick(call, ['statusCode', 'status', 'code'])),
    duration: duration(pick(call, ['duration', 'time']), pick(call, ['durationMs', 'duration_ms'])),
    error: text(pick(call, ['error'])),
  }));
}

export function logRows(value: unknown, key: 'logs' | 'errors' = 'logs'): LogRow[] | undefined {
  const entries = listIn(value, key);
  if (!entries) return undefined;
  return entries.map((entry) => {
    if (!isRec(entry)) return { time: '', level: '', source: '', message: text(entry) };
    const source = [text(pick(entry, ['subsystem', 'domain'])), text(pick(entry, ['category', 'tag']))].filter((part) => part !== '').join(' · ');
    return {
      time: text(pick(entry, ['timestamp', 'time', 'date'])),
      level: text(pick(entry, ['level', 'severity'])) || (key === 'errors' ? 'error' : ''),
      source,
      message: clip(text(pick(entry, ['message', 'text', 'description']))),
    };
  });
}

/** Name/value rows of any JSON answer, nested objects and lists flattened into dotted names. */
export function fieldRows(value: unknown, limit = MAX_FIELD_ROWS): { rows: FieldRow[]; truncated: boolean } {
  const rows: FieldRow[] = [];
  let truncated = false;
  const visit = (item: unknown, name: string): void => {
    if (rows.length >= limit) {
      truncated = true;
      return;
    }
    if (isRec(item) || Array.isArray(item)) {
      const entries = Array.isArray(item) ? item.map((v, i) => [String(i), v] as const) : Object.entries(item);
      if (entries.length === 0) {
        rows.push({ name: name || '(answer)', value: Array.isArray(item) ? '[]' : '{}' });
        return;
      }
      for (const [key, child] of entries) visit(child, name ? `${name}.${key}` : key);
      return;
    }
    rows.push({ name: name || '(answer)', value: text(item) });
  };
  visit(value, '');
  return { rows, truncated };
}

/** How one reading is drawn. */
export function appReadingView(reading: AppStateReading): AppReadingView {
  if (!reading.ok) return { kind: 'failed', message: reading.error ?? 'no answer' };
  const { value } = reading;
  if (value === undefined || value === null || (isRec(value) && Object.keys(value).length === 0)) return { kind: 'empty' };
  switch (reading.tool) {
    case 'get_network_calls': {
      const rows = networkRows(value);
      if (rows) return { kind: 'network', rows };
      break;
    }
    case 'get_logs': {
      const rows = logRows(value, 'logs');
      if (rows) return { kind: 'logs', rows };
      break;
    }
    case 'get_recent_errors': {
      const rows = logRows(value, 'errors');
      if (rows) return { kind: 'logs', rows };
      break;
    }
    case 'get_navigation_stack': {
      if (isRec(value)) {
        const stack = pick(value, ['navigationStack', 'navigation_stack', 'stack']);
        const modals = pick(value, ['presentedModals', 'presented_modals']);
        return {
          kind: 'navigation',
          current: text(pick(value, ['currentRoute', 'current', 'route'])),
          stack: Array.isArray(stack) ? stack.map(text) : [],
          modals: Array.isArray(modals) ? modals.map(text) : [],
        };
      }
      break;
    }
    default:
      break;
  }
  return { kind: 'fields', ...fieldRows(value) };
}

/** The newer of two app states (the panel's own read, or the one that came with a step). */
export function newerAppState(a: AppState | undefined, b: AppState | undefined): AppState | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.readAt > a.readAt ? b : a;
}

// ---- One call in full (get_network_call_detail) -------------------------------------------------------

export interface NetworkMessageView {
  headers: FieldRow[];
  /** The captured text body; undefined when the app captured none. */
  body?: string;
  /** Bytes, as the app counted them. */
  bodySize?: string;
  /** The app kept only the start of the body. */
  bodyTruncated: boolean;
}

export interface NetworkCallDetailView {
  method: string;
  url: string;
  status: string;
  error: string;
  request: NetworkMessageView;
  response: NetworkMessageView;
  /** Parsed Server-Sent Event frames, in order. */
  sseEvents: Array<{ event: string; id: string; data: string }>;
  /** How many SSE frames the app counted (it may keep fewer than it saw). */
  sseEventCount?: number;
}

/** The most characters of one body the panel draws; the rest is counted. */
export const MAX_DETAIL_BODY_CHARS = 64 * 1024;

function headerRows(value: unknown): FieldRow[] {
  if (!isRec(value)) return [];
  return Object.entries(value).map(([name, v]) => ({ name, value: text(v) }));
}

function bodyText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  return body.length > MAX_DETAIL_BODY_CHARS ? `${body.slice(0, MAX_DETAIL_BODY_CHARS)}… (${body.length - MAX_DETAIL_BODY_CHARS} more characters)` : body;
}

function messageView(message: unknown, call: Rec, side: 'request' | 'response'): NetworkMessageView {
  // AppReveal's detail nests each side (`request: {headers, body, bodySize, bodyTruncated}`); a summary
  // record (CapturedRequest.swift) has them flat: `requestHeaders`, `responseBodySize`, …
  const nested = isRec(message) ? message : {};
  const flat = (field: string): unknown => call[`${side}${field}`];
  const body = bodyText(nested.body ?? flat('Body'));
  const size = nested.bodySize ?? flat('BodySize');
  const view: NetworkMessageView = {
    headers: headerRows(nested.headers ?? flat('Headers')),
    bodyTruncated: nested.bodyTruncated === true || flat('BodyTruncated') === true,
  };
  if (body !== undefined) view.body = body;
  if (size !== undefined && size !== null && size !== '') view.bodySize = text(size);
  return view;
}

/** get_network_call_detail's answer, readably: undefined when it is not a call (no url and no method). */
export function networkCallDetailView(value: unknown): NetworkCallDetailView | undefined {
  // Masked again here: the view is also drawn from values that did not come through the host's API.
  const masked = maskCapturedTraffic(value);
  const call = isRec(masked) && isRec(masked.call) ? masked.call : masked;
  if (!isRec(call) || (pick(call, ['url', 'method']) === undefined && !isRec(call.request) && !isRec(call.response))) return undefined;
  const events = Array.isArray(call.sseEvents) ? call.sseEvents : [];
  const view: NetworkCallDetailView = {
    method: text(pick(call, ['method', 'httpMethod'])),
    url: text(pick(call, ['url', 'path'])),
    status: text(pick(call, ['statusCode', 'status', 'code'])),
    error: text(pick(call, ['error'])),
    request: messageView(call.request, call, 'request'),
    response: messageView(call.response, call, 'response'),
    sseEvents: events.map((event) =>
      isRec(event) ? { event: text(event.event), id: text(event.id), data: bodyText(event.data) ?? '' } : { event: '', id: '', data: text(event) },
    ),
  };
  if (typeof call.sseEventCount === 'number') view.sseEventCount = call.sseEventCount;
  return view;
}

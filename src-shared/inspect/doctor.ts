/**
 * `parallax doctor` (docs/rules.md#r-qa-15): what each check of a device found, and the next step for
 * each failure, in the words a person acts on. The checks' I/O is src-main/cli/doctor.ts; what they
 * mean is decided here, from what the device answered.
 */
import { RUNNER_COMMAND_GROUPS, type ConnectedPush } from '@shared/protocol/runner';
import type { SdkCapabilitiesPayload } from '@shared/protocol/sdk';
import type { Observation } from '@shared/protocol/observation';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  /** A short, stable name: `port`, `health`, `connected`, `commands`, … */
  id: string;
  status: CheckStatus;
  /** What was found, in one line. */
  detail: string;
  /** What to do about it, for anything but ok. */
  next?: string;
}

/** Where the README says how to get a runner onto a simulator or an iPhone and how to connect an AppReveal app. */
export const REAL_DEVICE_GUIDE = 'README.md, "From the demo to a real device"';

/** AutoMobile's CtrlProxy listens here (AutoMobile ios/README.md: "WebSocket server (port 8765)"). */
export const CTRL_PROXY_DEFAULT_URL = 'ws://127.0.0.1:8765/ws';

export function portCheck(where: string, reachable: boolean, error?: string): DoctorCheck {
  if (reachable) return { id: 'port', status: 'ok', detail: `${where} accepts connections` };
  return {
    id: 'port',
    status: 'fail',
    detail: `nothing answers at ${where}${error ? ` (${error})` : ''}`,
    next: `start the runner or the app first: on a simulator AutoMobile launches CtrlProxy on port 8765; on an iPhone forward the port with iproxy 8765:8765 (${REAL_DEVICE_GUIDE})`,
  };
}

/** CtrlProxy's `GET /health`: `{"status":"ok","port":…,"deviceId":…}`. */
export function runnerHealthCheck(answer: { status: number; body: unknown } | { error: string }, expectedPort: number): DoctorCheck {
  if ('error' in answer) {
    return {
      id: 'health',
      status: 'warn',
      detail: `GET /health failed (${answer.error})`,
      next: 'CtrlProxy answers GET /health on its port: this may not be a CtrlProxy runner',
    };
  }
  if (answer.status !== 200) {
    return {
      id: 'health',
      status: 'warn',
      detail: `GET /health answered HTTP ${answer.status}`,
      next: 'CtrlProxy answers GET /health with 200: this may not be a CtrlProxy runner',
    };
  }
  const body = (answer.body ?? {}) as Record<string, unknown>;
  if (body['status'] !== 'ok') return { id: 'health', status: 'warn', detail: `GET /health says status ${JSON.stringify(body['status'])}` };
  const port = body['port'];
  if (typeof port === 'number' && port !== expectedPort) {
    return {
      id: 'health',
      status: 'warn',
      detail: `the runner says it listens on port ${port}, not ${expectedPort}`,
      next: 'a forwarded port points at another runner: check the iproxy or port mapping',
    };
  }
  const device = typeof body['deviceId'] === 'string' ? `, device ${body['deviceId']}` : '';
  return { id: 'health', status: 'ok', detail: `status ok${device}` };
}

export function connectedCheck(push: ConnectedPush | undefined, error?: string): DoctorCheck {
  if (push) return { id: 'connected', status: 'ok', detail: `the runner sent its connected push (${push.supportedCommands.length} commands)` };
  return {
    id: 'connected',
    status: 'fail',
    detail: `no connected push over the WebSocket${error ? ` (${error})` : ''}`,
    next: 'the port answers but is not a CtrlProxy runner, or the runner is still starting: wait for "Endpoint: ws://localhost:8765/ws" in its log, or restart it',
  };
}

/** What the runner announces: its commands (by what Parallax needs them for) and its features. */
export function commandChecks(push: ConnectedPush): DoctorCheck[] {
  const has = new Set(push.supportedCommands);
  const missing = (group: readonly string[]) => group.filter((c) => !has.has(c));
  const checks: DoctorCheck[] = [];
  const observe = missing(RUNNER_COMMAND_GROUPS.observe);
  checks.push(
    observe.length === 0
      ? { id: 'observe commands', status: 'ok', detail: RUNNER_COMMAND_GROUPS.observe.join(', ') }
      : {
          id: 'observe commands',
          status: 'fail',
          detail: `missing ${observe.join(', ')}`,
          next: 'update CtrlProxy: AutoMobile installs the released runner that matches it',
        },
  );
  const act = missing(RUNNER_COMMAND_GROUPS.act);
  checks.push(
    act.length === 0
      ? { id: 'action commands', status: 'ok', detail: `${RUNNER_COMMAND_GROUPS.act.length} XCTest actions` }
      : { id: 'action commands', status: 'warn', detail: `missing ${act.join(', ')}: those actions fail closed, nothing sent`, next: 'update CtrlProxy' },
  );
  const discovery = missing(RUNNER_COMMAND_GROUPS.discovery);
  checks.push(
    discovery.length === 0
      ? { id: 'SDK discovery', status: 'ok', detail: 'get_sdk_capabilities' }
      : { id: 'SDK discovery', status: 'warn', detail: 'no get_sdk_capabilities: an older runner, Parallax reads XCTest only', next: 'update CtrlProxy' },
  );
  const bridge = missing(RUNNER_COMMAND_GROUPS.bridge);
  checks.push(
    bridge.length === 0
      ? { id: 'bridge relay', status: 'ok', detail: 'the runner relays the SDK observation and web view bridges' }
      : {
          id: 'bridge relay',
          status: 'warn',
          detail: `the runner does not relay the SDK bridges (no ${bridge.join(', ')}): Parallax observes and acts through XCTest alone`,
          next: 'nothing to do for XCTest; the SDK bridges need a runner that announces these commands',
        },
  );
  // CtrlProxy announces what it can do, not a version: its features are the closest to one.
  checks.push({
    id: 'runner version',
    status: 'ok',
    detail: `not reported by the runner (it announces ${push.supportedCommands.length} commands${push.supportedFeatures.length > 0 ? `, features ${push.supportedFeatures.join(', ')}` : ', no features'})`,
  });
  return checks;
}

/** A plain XCTest read of the screen. */
export function hierarchyCheck(observation: Observation | null | undefined, error?: string): DoctorCheck {
  if (!observation) {
    return {
      id: 'hierarchy',
      status: 'fail',
      detail: `no hierarchy${error ? ` (${error})` : ''}`,
      next: 'make sure an app is in the foreground on the device, then run doctor again',
    };
  }
  const { verdict, reason } = observation.quality;
  const axError = observation.errors.find((e) => e.code === 'ax_failure' || e.code === 'hierarchy_error');
  if (axError) {
    return {
      id: 'hierarchy',
      status: 'fail',
      detail: `XCTest could not read the screen: ${axError.message}`,
      next: 'XCTest cannot serialize this screen; an app that embeds the AutoMobile SDK observation bridge can still be read through it',
    };
  }
  if (verdict === 'sparse') {
    return {
      id: 'hierarchy',
      status: 'warn',
      detail: `XCTest read only the application (${reason})`,
      next: 'the app hides its views from accessibility; the SDK bridge can supply them',
    };
  }
  const root = observation.viewHierarchy?.hierarchy;
  const app = observation.activeWindow?.bundleId ?? observation.viewHierarchy?.packageName;
  return { id: 'hierarchy', status: 'ok', detail: `XCTest reads the screen${app ? ` of ${app}` : ''}${root ? '' : ' (empty)'}` };
}

/** `get_sdk_capabilities`: whether the foreground app embeds the SDK. */
export function sdkCheck(reply: SdkCapabilitiesPayload | undefined, error?: string): DoctorCheck {
  if (!reply) return { id: 'SDK', status: 'skip', detail: error ?? 'not asked (the runner has no get_sdk_capabilities)' };
  if (reply.available !== true) {
    return {
      id: 'SDK',
      status: 'warn',
      detail: 'the foreground app answers no AutoMobile SDK',
      next: 'embed the AutoMobile SDK in a DEBUG build of the app (its server runs in DEBUG builds only); XCTest alone still works',
    };
  }
  const caps = reply.capabilities ?? [];
  return { id: 'SDK', status: 'ok', detail: `${reply.bundleId ?? 'the app'} embeds the SDK${caps.length > 0 ? ` (${caps.join(', ')})` : ''}` };
}

const BRIDGE_NEXT: Record<string, string> = {
  NOT_REGISTERED: 'the SDK is there but no observation bridge is registered: register one in the app (AutoMobileObservationBridge)',
  SDK_TOO_OLD: 'the SDK predates the observation bridge: update the AutoMobile SDK in the app',
  SDK_UNAVAILABLE: 'the SDK did not answer: bring the app to the foreground (a backgrounded app answers app_not_active)',
  MALFORMED_RESPONSE: "the SDK's bridge description does not match the schema: update the SDK or Parallax",
  UNKNOWN: 'the SDK gave a reason this Parallax does not know: update Parallax',
};

/** The SDK-backed read: the observation bridge and the web views, as discovery and the merge found them. */
export function bridgeChecks(observation: Observation | null | undefined, error?: string): DoctorCheck[] {
  if (!observation) return [{ id: 'bridge', status: 'skip', detail: error ?? 'no SDK-backed read' }];
  const bridge = observation.bridge;
  const checks: DoctorCheck[] = [];
  if (!bridge) checks.push({ id: 'bridge', status: 'skip', detail: 'the SDK capability probe failed or was not made' });
  else if (bridge.available) {
    checks.push({ id: 'bridge', status: 'ok', detail: `observation bridge v${bridge.schemaVersion}: ${bridge.supportedActions.join(', ') || 'no actions'}` });
  } else {
    const next = BRIDGE_NEXT[bridge.reason] ?? BRIDGE_NEXT['UNKNOWN']!;
    checks.push({ id: 'bridge', status: 'warn', detail: `observation bridge unavailable: ${bridge.reason}`, next });
  }
  const merged = observation.sources.bridge;
  if (bridge?.available && merged && merged.status !== 'merged') {
    const next =
      merged.reason === 'app_not_active'
        ? 'the app is not active (backgrounded, or behind a system sheet): bring it to the foreground'
        : 'observe again; if it persists, the bridge is failing in the app';
    checks.push({ id: 'bridge read', status: 'warn', detail: `the bridge's snapshot was not merged: ${merged.reason}`, next });
  }
  const web = observation.sources.web;
  if (web) checks.push({ id: 'web views', status: web.status === 'merged' ? 'ok' : 'skip', detail: `${web.status}: ${web.reason}` });
  return checks;
}

/** The AppReveal session URL: it must carry the token the app printed. */
export function appRevealUrlCheck(parsed: { token?: string | undefined } | { error: string }): DoctorCheck {
  if ('error' in parsed)
    return {
      id: 'session URL',
      status: 'fail',
      detail: parsed.error,
      next: 'copy the "Session URL: http://127.0.0.1:PORT/?appreveal_session_token=…" line from the app\u2019s log',
    };
  if (parsed.token === undefined) {
    return {
      id: 'session URL',
      status: 'warn',
      detail: 'the URL carries no appreveal_session_token',
      next: 'an app with auth on needs its token: copy the whole Session URL from the app\u2019s log',
    };
  }
  return { id: 'session URL', status: 'ok', detail: 'an AppReveal session URL with a token' };
}

/** AppReveal's unauthenticated `GET /health`. */
export function appRevealHealthCheck(answer: { status: number; body: unknown } | { error: string }): DoctorCheck {
  if ('error' in answer || answer.status !== 200) {
    return {
      id: 'health',
      status: 'fail',
      detail: 'error' in answer ? `GET /health failed (${answer.error})` : `GET /health answered HTTP ${answer.status}`,
      next: 'AppReveal answers GET /health without a token: this may not be the AppReveal server, or the app stopped it',
    };
  }
  const body = (answer.body ?? {}) as Record<string, unknown>;
  const bonjour = typeof body['bonjour'] === 'string' ? `, Bonjour ${body['bonjour']}` : '';
  return {
    id: 'health',
    status: body['status'] === 'ok' ? 'ok' : 'warn',
    detail: `status ${String(body['status'])}, auth ${String(body['auth'] ?? 'unknown')}${bonjour}`,
  };
}

/** Connecting with the token: initialize and tools/list. */
export function appRevealConnectCheck(result: { tools: readonly string[] } | { code: string; message: string }): DoctorCheck {
  if ('tools' in result) return { id: 'token', status: 'ok', detail: `accepted; the app registered ${result.tools.length} tools` };
  if (result.code === 'unauthorized') {
    return {
      id: 'token',
      status: 'fail',
      detail: 'the app refused the token',
      next: 'the app makes a new token at every launch: copy the Session URL from its log again',
    };
  }
  return {
    id: 'token',
    status: 'fail',
    detail: result.message,
    next: 'the app answered, but not as an AppReveal MCP server: check the URL and the app\u2019s log',
  };
}

/**
 * What Parallax can show of an app, from the tools it registered (docs/rules.md#r-qa-15): an app with
 * neither `get_elements` nor `screenshot` exposes nothing to inspect (the Tauri crate's example server
 * lists only batch, device_info, get_state, launch_context: tests/fixtures/appreveal-tauri/example), which
 * fails; one that lacks some of them is told what it cannot show.
 */
export function appRevealInspectCheck(tools: readonly string[]): DoctorCheck {
  const has = (tool: string) => tools.includes(tool);
  const missing = [
    ...(has('get_elements') ? [] : ['no element tree (get_elements)']),
    ...(has('screenshot') ? [] : ['no screenshot']),
    ...(has('get_view_tree') ? [] : ['typing with no field named is refused (no get_view_tree to say which field has focus)']),
  ];
  const next =
    'Parallax shows what the app’s tools list: get_elements, screenshot and get_view_tree come with AppReveal’s UI integration (iOS registers them itself; a Tauri app through the crate’s webview integration)';
  if (!has('get_elements') && !has('screenshot')) return { id: 'inspect', status: 'fail', detail: `nothing to inspect: ${missing.join('; ')}`, next };
  if (missing.length > 0) return { id: 'inspect', status: 'warn', detail: `shown with gaps: ${missing.join('; ')}`, next };
  return { id: 'inspect', status: 'ok', detail: 'elements, screenshot and keyboard focus' };
}

/** 0 when nothing failed, 1 otherwise (warnings are not failures). */
export function doctorExitCode(checks: readonly DoctorCheck[]): number {
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/** One line per check, with its next step under it. */
export function doctorLines(checks: readonly DoctorCheck[]): string[] {
  const width = Math.max(...checks.map((c) => c.id.length), 4);
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${MARK[c.status]}  ${c.id.padEnd(width)}  ${c.detail}`);
    if (c.next && c.status !== 'ok') lines.push(`      ${' '.repeat(width)}  → ${c.next}`);
  }
  return lines;
}

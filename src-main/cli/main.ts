/**
 * The `parallax` command line. Every failure is one line on stderr and a non-zero exit code
 * (1: the command failed, 2: the command line was wrong).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { UiNode } from '@shared/protocol/runner';
import type { ObserveScopeRequest } from '@shared/observe/scope';
import { boundsOf } from '@shared/model/node';
import { frameText, nodeTitleText } from '@shared/model/title';
import type { DefaultDevice } from '@main/host/default-device';
import { mdnsEnabled, projectRoot, rendererDir, settingsFile } from '@main/paths';

// Each command loads what it uses when it runs (docs/rules.md#r-cli-01): `parallax --help` or a wrong
// command line answers without loading the schemas, the device clients or the host.
const actions = () => import('./actions');
const traces = () => import('./traces');
const doctor = () => import('./doctor');
const deviceManager = () => import('@main/devices/manager');
const replayDevices = () => import('@demo/replay-device');
const defaultDevice = () => import('@main/host/default-device');

class UsageError extends Error {}

const USAGE = `Usage: parallax <command> [options]

Commands:
  start [--demo-devices N]            open Parallax (Electron when its binary is present, else the web host)
  serve [--port N] [--device URL]...  web host on 127.0.0.1; prints the URL to open
        [--replay FOLDER] [--no-default-device] [--demo-devices N] [--demo-admin ADMIN_URL]...
                                      --demo-devices N: N demo devices on varied screens (default 1)
  devices [--json]                    list what discovery finds (Bonjour, runner ports, manual entries)
  observe --device URL [--strategy visible|raw] [--xctest-only] [--accessibility-audit] [--observe-focus app|id:ID|text:TEXT] [--observe-region content|x1,y1,x2,y2] [--observe-overview] [--json]
                                      print the device's current observation
  tap|type|clear|swipe|scroll-to --device URL (--id ID | --text TEXT | --point X,Y) ... [--json]
                                      run one action; prints its result (parallax tap --help)
  launch --device URL [--relaunch] [--bundle-id ID]
                                      launch the app, or relaunch it (cold boot) at its first screen
  open-link --device URL --url URL    open a deep link in an AppReveal app (open_deeplink)
  open FILE [--json]                  print a recorded trace, without a device
  replay FILE --device URL [--json] [--stop-on-divergence]
                                      re-run a trace; exit 0 only when every step matched
  export FILE [--maestro|--xcuitest] [--out PATH]
                                      export a trace as a Maestro flow or an XCUITest method
  compare --device URL [--json]       XCTest-only vs SDK-backed observation of the screen, diffed
  audit (--device URL | TRACE) [--json] [--fail-on error|warning] [--report FILE.html|FILE.md] [--timeout MS]
                                      accessibility findings of the screen (or every step); exit 0 clean,
                                      1 findings at --fail-on (default error), 2 a wrong command line,
                                      3 unauditable (device unreachable, trace unreadable, no screen in it)
  doctor [--device URL] [--json]      check a runner or an AppReveal app from here; the next step for each failure
  replay-device FOLDER [--port N]     play a recorded runner session back; prints its ws URL
  demo-device [--port N] [--screen NAME] [--heavy-nodes N] [--fault F]... [--variant V]...
              [--appreveal-flavor ios|tauri] [--appreveal-tools always|T1,T2...] [--appreveal-host ADDR]
                                      start the simulated iPhone; prints {runnerUrl, adminUrl, appRevealUrl}
  demo-device --count N [--screen NAME]
                                      N simulated iPhones in one browser, on varied screens (AppReveal in the
                                      first only); prints one line, a JSON array of {runnerUrl, adminUrl, screen}
`;

/** The commands whose --help is their part of USAGE. */
const OWN_HELP = new Set(['start', 'serve', 'devices', 'observe', 'replay-device', 'audit', 'demo-device']);

/** Every command USAGE lists (`tap|type|…` is five), in its order: what `--help` must answer for. */
export function listedCommands(): string[] {
  const names: string[] = [];
  for (const line of USAGE.split('\n')) {
    const head = /^ {2}([a-z][\w|-]*)/.exec(line);
    for (const name of head ? head[1]!.split('|') : []) if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** A command's lines of USAGE: each line that starts with its name, and the lines indented under it. */
export function commandUsage(command: string): string {
  const lines = USAGE.split('\n');
  const picked: string[] = [];
  let inside = false;
  for (const line of lines) {
    const head = /^ {2}(\S+)/.exec(line);
    if (head) inside = head[1]!.split('|').includes(command);
    if (inside && line.trim() !== '') picked.push(line);
  }
  return `Usage: parallax ${command} [options]\n\n${picked.join('\n')}\n`;
}

type Out = { log: (line: string) => void; error: (line: string) => void };
const stdio: Out = { log: (line) => process.stdout.write(`${line}\n`), error: (line) => process.stderr.write(`${line}\n`) };

/** How `replay` asks this terminal for a secret: all of stdin, and a prompt when stdin is a terminal. */
async function terminalSecrets(): Promise<{ readStdin: () => Promise<string>; prompt?: (question: string) => Promise<string> }> {
  const { readStdin, terminalPrompt } = await import('./terminal');
  const prompt = terminalPrompt();
  return prompt ? { readStdin, prompt } : { readStdin };
}

function quietOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
}

export async function main(argv: string[], out: Out = stdio): Promise<number> {
  // `parallax observe | head` closes the pipe early: that is the reader being done, not an error.
  if (!process.stdout.listeners('error').includes(quietOnClosedPipe)) process.stdout.on('error', quietOnClosedPipe);
  const [command, ...rest] = argv;
  // The commands below parse their options here; the action, trace and doctor commands answer --help themselves.
  if (command !== undefined && OWN_HELP.has(command) && (rest.includes('--help') || rest.includes('-h'))) {
    out.log(commandUsage(command));
    return 0;
  }
  try {
    switch (command) {
      case 'start':
        return await start(rest, out);
      case 'serve':
        return await serve(rest, out);
      case 'observe':
        return await observe(rest, out);
      case 'devices':
        return await devices(rest, out);
      case 'tap':
      case 'type':
      case 'clear':
      case 'swipe':
      case 'scroll-to':
      case 'launch':
      case 'open-link':
        return await (await actions()).runActionCommand(command, rest, out);
      case 'open':
      case 'replay':
      case 'export':
      case 'compare':
        return await (await traces()).runTraceCommand(command, rest, out === stdio ? { ...out, ...(await terminalSecrets()) } : out);
      case 'replay-device':
        return await replayDevice(rest, out);
      case 'audit':
        return await audit(rest, out);
      case 'doctor':
        return await (await doctor()).runDoctor(rest, out);
      case 'demo-device':
        return await demoDevice(rest, out);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}" (try: parallax help)`);
    }
  } catch (error) {
    out.error(`parallax: ${oneLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/**
 * `parallax audit`, its usage errors answered as every command's are (exit 2); what leaves no verdict
 * (the device unreachable, the trace unreadable) exits 3, apart from 1, the findings (docs/rules.md#r-a11y-14).
 */
async function audit(args: string[], out: Out): Promise<number> {
  const { AUDIT_EXIT, AuditUsageError, runAuditCommand } = await import('./audit');
  try {
    return await runAuditCommand(args, out);
  } catch (error) {
    if (error instanceof AuditUsageError) throw new UsageError(error.message);
    // Any other failure (UnauditableError names what; anything else is one too) leaves no verdict: never 1, the findings' code.
    out.error(`parallax: ${oneLine(error)}`);
    return AUDIT_EXIT.unauditable;
  }
}

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function portOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535, not "${value}"`);
  return port;
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM, or the parent closing stdin in tests). */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function serve(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string' },
    device: { type: 'string', multiple: true },
    replay: { type: 'string' },
    'no-default-device': { type: 'boolean' },
    'demo-devices': { type: 'string' },
    'demo-admin': { type: 'string', multiple: true },
  });
  const port = portOption(values.port) ?? 0;
  // The admin URL a `parallax demo-device` printed, token and all: its runner (same port) gets demo controls (R-PEER-02).
  for (const adminUrl of values['demo-admin'] ?? []) {
    let admin: URL | undefined;
    try {
      admin = new URL(adminUrl);
    } catch {
      admin = undefined;
    }
    if (!admin || admin.protocol !== 'http:' || !admin.pathname.startsWith('/admin/'))
      throw new UsageError('--demo-admin takes the adminUrl `parallax demo-device` printed (http://127.0.0.1:PORT/admin/TOKEN)');
    const { registerDemoAdmin } = await import('@main/devices/demo-admin');
    registerDemoAdmin(`ws://${admin.host}/ws`, adminUrl);
  }
  const demoCount = await demoCountOption(values['demo-devices']);
  if (!existsSync(join(rendererDir(), 'index.html'))) {
    throw new Error('the renderer is not built; run `npm run build` first');
  }
  // The host's token is a secret no trace may hold; it exists once the host has started.
  let hostToken: string | undefined;
  const [{ startAppServices }, { startWebHost }, { startReplayDevice }, { connectDefaultDevice, startDefaultDevice }] = await Promise.all([
    import('@main/host/app-services'),
    import('@main/host/web-host'),
    replayDevices(),
    defaultDevice(),
  ]);
  const services = await startAppServices('web', () => (hostToken ? [hostToken] : []));
  const { manager } = services;
  const owned: Array<{ close(): Promise<void> }> = [services];
  try {
    if (values.replay) {
      const replay = await startReplayDevice(values.replay);
      owned.push(replay);
      const folder = replay.recording.folder.split(/[\\/]/).pop() ?? replay.recording.folder;
      manager.connect(replay.url, { kind: 'replay', name: `Recorded: ${folder}`, recording: { folder } });
    }
    for (const url of values.device ?? []) manager.connect(url);
    if (!values.replay && !values.device?.length && !values['no-default-device']) {
      const device: DefaultDevice = await startDefaultDevice(demoCount);
      owned.push(device);
      if (device.note) out.log(`Parallax: ${device.note}`);
      connectDefaultDevice(manager, device);
    }
    const host = await startWebHost({ api: services.api, rendererDir: rendererDir(), port });
    owned.push(host);
    hostToken = new URL(host.url).searchParams.get('token') ?? undefined;
    out.log(`Parallax web host: ${host.url}`);
    await untilStopped();
    return 0;
  } finally {
    // Whatever happened, nothing this command started outlives it.
    for (const thing of owned.reverse()) await thing.close();
  }
}

async function devices(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, { json: { type: 'boolean' }, wait: { type: 'string' } });
  const settleMs = values.wait ? Number(values.wait) : 1_500;
  const { discoverOnce } = await import('@main/discovery/index');
  const { devices: found, warnings } = await discoverOnce({ settingsPath: settingsFile(), bonjour: mdnsEnabled(), settleMs });
  if (values.json) {
    out.log(JSON.stringify(found, null, 2));
    return 0;
  }
  if (found.length === 0) out.log('No devices found (runner ports 8765-8864, Bonjour _appreveal._tcp, manual entries).');
  for (const device of found) {
    const detail = [device.bundleId, device.state === 'unreachable' ? `unreachable: ${device.error ?? '?'}` : device.state].filter(Boolean).join(', ');
    out.log(`${device.kind.padEnd(9)} ${device.name}  ${device.url}  (${detail})`);
  }
  for (const warning of warnings) out.error(`parallax: warning: ${warning}`);
  return 0;
}

async function demoCountOption(value: string | undefined): Promise<number> {
  const { demoDeviceCount } = await defaultDevice();
  try {
    return demoDeviceCount(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function start(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, { 'demo-devices': { type: 'string' } });
  const demoDevices = values['demo-devices'];
  if (demoDevices !== undefined) await demoCountOption(demoDevices);
  if (!existsSync(join(rendererDir(), 'index.html'))) {
    const build = spawnSync(process.execPath, [join(projectRoot(), 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
      cwd: projectRoot(),
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('the build failed (npm run build)');
  }
  const electron = findElectronBinary();
  if (electron.path) {
    // The Electron app starts its default devices itself: it reads the count from the environment.
    const env = demoDevices !== undefined ? { ...process.env, PARALLAX_DEMO_DEVICES: demoDevices } : process.env;
    const child = spawn(electron.path, [projectRoot()], { stdio: 'inherit', env });
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
  }
  out.log(`Parallax: no Electron window (${electron.reason}); starting the web host instead.`);
  return serve(demoDevices !== undefined ? ['--demo-devices', demoDevices] : [], out);
}

/**
 * Asks the `electron` package for its binary in a child process: the package tries to download the
 * binary when it is missing and throws when it cannot, and neither may hang or break this process.
 */
function findElectronBinary(): { path?: string; reason: string } {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("electron"))'], {
    cwd: projectRoot(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  const path = result.stdout?.trim();
  if (result.status === 0 && path && existsSync(path)) return { path, reason: '' };
  return { reason: 'the Electron binary is not installed and cannot be downloaded here' };
}

async function observe(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, {
    device: { type: 'string' },
    json: { type: 'boolean' },
    strategy: { type: 'string' },
    'xctest-only': { type: 'boolean' },
    'accessibility-audit': { type: 'boolean' },
    'observe-region': { type: 'string' },
    'observe-focus': { type: 'string' },
    'observe-overview': { type: 'boolean' },
    timeout: { type: 'string' },
  });
  // Seed 002's observe-scopes (docs/rules.md#r-lay-10, #r-scope-01..04): FOCUS (`app`, `id:…`, `text:…`), REGION (a box of
  // fractions, or `content` for the screen minus its system insets) and OVERVIEW, applied in that order.
  const region = values['observe-region'];
  const { parseObserveRegion, parseObserveFocus, ObserveRegionError, scopeObservation, scopeAudit } = await import('@shared/observe/scope');
  const request: ObserveScopeRequest = {};
  try {
    if (region !== undefined) request.region = region === 'content' ? true : parseObserveRegion(region);
    if (values['observe-focus'] !== undefined) request.focus = parseObserveFocus(values['observe-focus']);
  } catch (error) {
    if (error instanceof ObserveRegionError) throw new UsageError(error.message);
    throw error;
  }
  if (values['observe-overview']) request.overview = true;
  const scoping = request.focus !== undefined || request.region !== undefined || request.overview === true;
  if (!values.device) throw new UsageError('observe needs --device ws://HOST:PORT/ws (a runner) or an AppReveal session URL');
  if (!/^(wss?|https?):\/\//.test(values.device)) throw new UsageError('--device must be a ws:// runner URL or an http:// AppReveal session URL');
  const [{ StrategySchema }, { connectionFor }] = await Promise.all([import('@shared/protocol/observation'), deviceManager()]);
  const strategy = StrategySchema.safeParse(values.strategy ?? 'visible');
  if (!strategy.success) throw new UsageError(`--strategy is visible or raw, not "${values.strategy}"`);
  const timeoutMs = values.timeout ? Number(values.timeout) : 10_000;
  // No push becomes a live frame: the one observe below is all a command line shows (R-CLI-02).
  const connection = connectionFor(values.device, { runner: { handshakeTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs }, livePushes: false });
  connection.start();
  try {
    await connection.waitUntilConnected(timeoutMs);
    const frame = await connection.observe({
      strategy: strategy.data,
      xctestOnly: values['xctest-only'] === true,
      // The audit mode reads the screenshot too: contrast is sampled from its pixels.
      screenshot: values['accessibility-audit'] === true,
    });
    const { observation: read } = frame;
    if (!read) throw new Error('no observation');
    const scoped = scoping ? scopeObservation(read, request) : undefined;
    const observation: typeof read = scoped?.observation ?? read;
    // Seed 002: with the audit mode on, the observation carries its accessibilityAudit (docs/rules.md#r-a11y), of the whole
    // frame's tree and then co-scoped with the returned one, as the layout warnings are (R-SCOPE-05).
    if (values['accessibility-audit']) {
      const audit = (await import('@main/a11y/audit-frame')).auditFrame(frame);
      if (audit) observation.accessibilityAudit = scoped ? scopeAudit(audit, scoped) : audit;
    }
    // An observation that holds nothing to inspect is an error with its reasons, never an empty screen (R-AR-31).
    const { emptyObservationReasons } = await import('@shared/inspect/observation');
    // Of the observation read: a scope narrowed to one element is what was asked, not an empty screen.
    const empty = emptyObservationReasons(read);
    if (values.json) {
      out.log(JSON.stringify(observation, null, 2));
    } else {
      const hierarchy = observation.viewHierarchy;
      const backend = observation.backend ? ` backend=${observation.backend}${observation.fallbackReason ? ` (${observation.fallbackReason})` : ''}` : '';
      out.log(
        `${observation.activeWindow?.bundleId ?? 'unknown app'} ${observation.screenSize?.width ?? '?'}x${observation.screenSize?.height ?? '?'} pt` +
          ` quality=${observation.quality.verdict} (${observation.quality.reason})${backend}`,
      );
      for (const error of observation.errors) out.log(`! ${error.stage}: ${error.code}: ${error.message}`);
      if (hierarchy?.hierarchy) printTree(hierarchy.hierarchy, 0, out);
    }
    if (empty) out.error(`parallax observe: nothing to inspect: ${empty.join('; ')}`);
    return empty ? 1 : 0;
  } finally {
    await connection.close();
  }
}

/** One line per element, in the tree's words (docs/rules.md#r-ui-title) and with its frame in points. */
function printTree(node: UiNode, depth: number, out: Out): void {
  const b = boundsOf(node);
  out.log(`${'  '.repeat(depth)}${nodeTitleText(node)}${b ? ` (${frameText(b)})` : ''}`);
  for (const child of node.node ?? []) printTree(child, depth + 1, out);
}

async function replayDevice(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { port: { type: 'string' } }, true);
  const folder = positionals[0];
  if (!folder || positionals.length > 1) throw new UsageError('replay-device needs exactly one recorded session FOLDER');
  const { startReplayDevice } = await replayDevices();
  const device = await startReplayDevice(folder, { port: portOption(values.port) ?? 0 });
  out.log(device.url);
  await untilStopped();
  await device.close();
  return 0;
}

async function demoDevice(args: string[], out: Out): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string' },
    screen: { type: 'string' },
    'heavy-nodes': { type: 'string' },
    fault: { type: 'string', multiple: true },
    variant: { type: 'string', multiple: true },
    browser: { type: 'string' },
    'appreveal-flavor': { type: 'string' },
    'appreveal-tools': { type: 'string' },
    'appreveal-host': { type: 'string' },
    count: { type: 'string' },
  });
  if (values.count !== undefined) {
    // Checked before the demo (and its browser driver) is loaded: a wrong command line answers at once.
    const count = Number(values.count);
    if (!/^\d+$/.test(values.count) || count < 1) throw new UsageError(`--count must be a whole number from 1, not "${values.count}"`);
    const others = Object.keys(values).filter((name) => !['count', 'screen', 'browser'].includes(name));
    if (others.length) throw new UsageError(`--count takes only --screen and --browser beside it, not --${others.join(', --')}`);
    const { startDemoDevices } = await import('@demo/index');
    const fleet = await startDemoDevices(count, {
      ...(values.screen ? { screen: values.screen } : {}),
      ...(values.browser ? { browserPath: values.browser } : {}),
      advertise: mdnsEnabled(),
    });
    // The AppReveal session URL holds a token: the fleet's list names only what a test or user drives.
    out.log(JSON.stringify(fleet.map(({ runnerUrl, adminUrl, screen }) => ({ runnerUrl, adminUrl, screen }))));
    await untilStopped();
    for (const device of fleet) await device.close();
    return 0;
  }
  const { startDemoDevice, APPREVEAL_FLAVORS } = await import('@demo/index');
  const flavor = values['appreveal-flavor'];
  if (flavor !== undefined && !(APPREVEAL_FLAVORS as readonly string[]).includes(flavor)) {
    throw new UsageError(`--appreveal-flavor must be ${APPREVEAL_FLAVORS.join(' or ')}, not "${flavor}"`);
  }
  const toolsFlag = values['appreveal-tools'];
  const tools =
    toolsFlag === undefined
      ? undefined
      : toolsFlag === 'always'
        ? ('always' as const)
        : toolsFlag
            .split(',')
            .map((t) => t.trim())
            .filter((t) => t !== '');
  const host = values['appreveal-host'];
  if (host !== undefined && isIP(host) === 0) throw new UsageError(`--appreveal-host must be an IP address, not "${host}"`);
  const heavyNodes = values['heavy-nodes'] === undefined ? undefined : Number(values['heavy-nodes']);
  if (heavyNodes !== undefined && !Number.isInteger(heavyNodes)) throw new UsageError(`--heavy-nodes must be a whole number, not "${values['heavy-nodes']}"`);
  const device = await startDemoDevice({
    port: portOption(values.port) ?? 0,
    ...(values.screen ? { screen: values.screen } : {}),
    ...(heavyNodes !== undefined ? { heavyNodes } : {}),
    ...(values.fault ? { faults: values.fault } : {}),
    ...(values.variant ? { variants: values.variant } : {}),
    ...(values.browser ? { browserPath: values.browser } : {}),
    ...(flavor ? { appRevealFlavor: flavor as (typeof APPREVEAL_FLAVORS)[number] } : {}),
    ...(tools ? { appRevealTools: tools } : {}),
    ...(host ? { appRevealHost: host } : {}),
    advertise: mdnsEnabled(),
  });
  // Like a real AppReveal app, the demo prints its session URL: it is how a user connects to it.
  out.log(JSON.stringify({ runnerUrl: device.runnerUrl, adminUrl: device.adminUrl, appRevealUrl: device.appRevealUrl }));
  await untilStopped();
  await device.close();
  return 0;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

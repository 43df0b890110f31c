/**
 * `parallax tap | type | clear | swipe | scroll-to`: one action on a device through the dispatcher,
 * printing the result object. Exit codes: 0 the action succeeded, 1 it failed (or the device could not
 * be reached), 2 the command line was wrong. Every error is one line on stderr.
 */
import { parseArgs } from 'node:util';
import {
  FAILURE_EXPLANATIONS,
  ImeActionSchema,
  SCREEN_EDGES,
  SWIPE_DIRECTIONS,
  type ActionRequest,
  type ActionResult,
  type OutcomeClass,
  type Point,
  type SendKeysStep,
  type TargetSelector,
} from '@shared/protocol/action';
import { connectionFor } from '@main/devices/manager';
import { outcomeClassOf } from '@shared/act/verdict';
import { keptTyping, scrubTypedText } from '@shared/act/secret';
import { frameText, targetTitleText } from '@shared/model/title';

export type ActionCommand = 'tap' | 'type' | 'clear' | 'swipe' | 'scroll-to' | 'launch' | 'open-link';
type Out = { log: (line: string) => void; error: (line: string) => void };

export const ACTION_USAGE = `Usage: parallax <tap|type|clear|swipe|scroll-to|launch|open-link> --device URL [target] [options] [--json]

Target (one of; a container for swipe and scroll-to):
  --id ID                 resource-id, bridge element id or web element id
  --text TEXT             label, text or value (exact, then ignoring case)
  --point X,Y             screen points, tapped exactly there (the result names what is there);
                          a point off the screen is refused, nothing sent

tap      [--long-press MS | --double]
type     --text-to-type TEXT | --text-from-env NAME [--replace] [--secret] [--ime done|next|go|search|send] [--tab]
                          types into the target field (no target: into whatever has keyboard focus);
                          --replace clears the field first; --text-from-env types the environment's NAME,
                          so the text is not on the process list; --secret treats the text as a secret
                          whatever the field says (it is never printed, in --json neither)
clear    [--ime ACTION] [--tab]
swipe    --from X,Y --to X,Y [--duration MS] [--auto-container] [--edge left|right|top|bottom] [--boomerang]
scroll-to --look-for TEXT | --look-for-id ID [--direction down|up|left|right] [--max-swipes N]
                          --direction is where to look, as in Maestro and Appium: down reveals what is
                          below (the finger swipes up); the default is down
launch   [--relaunch] [--bundle-id ID]
                          a runner's request_launch_app: --relaunch terminates the app and starts it at
                          its first screen (cold boot); without it the app is brought to the front as it
                          is. No --bundle-id: the app on screen
open-link --url URL       an AppReveal app's open_deeplink (a runner has no way to open a link)

Common:
  --device URL            the runner, ws://HOST:PORT/ws
  --xctest-only           the ios-sdk-observation-bridge flag off: XCTest only
  --json                  print the whole result object as JSON
  --timeout MS            how long to wait for the device to connect (default 10000)
Exit code 0 only when the action succeeded.`;

class UsageError extends Error {}

/**
 * `scroll-to --direction down` reveals what is below, as Maestro's `scrollUntilVisible direction: DOWN`
 * and Appium's `mobile: scroll {direction: 'down'}` do; the finger moves the other way (docs/rules.md#r-hand-11).
 */
const FINGER_FOR = { down: 'up', up: 'down', left: 'right', right: 'left' } as const;

export const OPTIONS = {
  device: { type: 'string' },
  id: { type: 'string' },
  text: { type: 'string' },
  point: { type: 'string' },
  'long-press': { type: 'string' },
  double: { type: 'boolean' },
  'text-to-type': { type: 'string' },
  'text-from-env': { type: 'string' },
  secret: { type: 'boolean' },
  replace: { type: 'boolean' },
  ime: { type: 'string' },
  tab: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  duration: { type: 'string' },
  'auto-container': { type: 'boolean' },
  edge: { type: 'string' },
  boomerang: { type: 'boolean' },
  'look-for': { type: 'string' },
  'look-for-id': { type: 'string' },
  direction: { type: 'string' },
  'max-swipes': { type: 'string' },
  relaunch: { type: 'boolean' },
  'bundle-id': { type: 'string' },
  url: { type: 'string' },
  'xctest-only': { type: 'boolean' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

/** Which options each command takes, so a stray one is a usage error rather than silently ignored. */
const ALLOWED: Record<ActionCommand, readonly (keyof typeof OPTIONS)[]> = {
  tap: ['id', 'text', 'point', 'long-press', 'double'],
  type: ['id', 'text', 'point', 'text-to-type', 'text-from-env', 'secret', 'replace', 'ime', 'tab'],
  clear: ['id', 'text', 'point', 'ime', 'tab'],
  swipe: ['id', 'text', 'point', 'from', 'to', 'duration', 'auto-container', 'edge', 'boomerang'],
  'scroll-to': ['id', 'text', 'point', 'look-for', 'look-for-id', 'direction', 'max-swipes'],
  launch: ['relaunch', 'bundle-id'],
  'open-link': ['url'],
};
const COMMON = ['device', 'xctest-only', 'json', 'timeout', 'help'] as const;

function pointOption(name: string, value: string): Point {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value);
  if (!match) throw new UsageError(`--${name} takes X,Y in screen points, not "${value}"`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

function wholeNumber(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} takes a whole number ≥ ${min}, not "${value}"`);
  return n;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} is one of ${allowed.join(', ')}, not "${value}"`);
  return value as T;
}

function selectorOf(values: Values): TargetSelector | undefined {
  const given = (['id', 'text', 'point'] as const).filter((k) => values[k] !== undefined);
  if (given.length > 1) throw new UsageError(`give one target: --${given.join(' or --')}`);
  if (values.id !== undefined) return { id: values.id };
  if (values.text !== undefined) return { text: values.text };
  if (values.point !== undefined) return { point: pointOption('point', values.point) };
  return undefined;
}

function keySteps(values: Values, first: SendKeysStep[]): SendKeysStep[] {
  const steps = [...first];
  if (values.ime !== undefined) steps.push({ kind: 'ime', imeAction: oneOf('ime', values.ime, ImeActionSchema.options) });
  if (values.tab) steps.push({ kind: 'tab' });
  return steps;
}

export function buildActionRequest(command: ActionCommand, values: Values, env: Readonly<Record<string, string | undefined>> = process.env): ActionRequest {
  const stray = (Object.keys(values) as (keyof typeof OPTIONS)[]).filter(
    (k) => values[k] !== undefined && !ALLOWED[command].includes(k) && !(COMMON as readonly string[]).includes(k),
  );
  if (stray.length > 0) throw new UsageError(`${command} does not take --${stray[0]}`);
  const target = selectorOf(values);

  switch (command) {
    case 'tap': {
      if (!target) throw new UsageError('tap needs a target: --id, --text or --point');
      if (values['long-press'] !== undefined && values.double) throw new UsageError('--long-press and --double cannot go together');
      if (values['long-press'] !== undefined) return { action: 'longPress', target, durationMs: wholeNumber('long-press', values['long-press'], 1) };
      return values.double ? { action: 'doubleTap', target } : { action: 'tap', target };
    }
    case 'type': {
      const fromEnv = values['text-from-env'];
      if (fromEnv !== undefined && values['text-to-type'] !== undefined) throw new UsageError('give one of --text-to-type or --text-from-env');
      const text = fromEnv !== undefined ? env[fromEnv] : values['text-to-type'];
      // The variable's name may be said; its value never is.
      if (fromEnv !== undefined && text === undefined) throw new UsageError(`--text-from-env ${fromEnv}: the environment has no ${fromEnv}`);
      if (text === undefined && values.replace) throw new UsageError('--replace needs --text-to-type');
      if (text === undefined && values.secret) throw new UsageError('--secret needs --text-to-type or --text-from-env');
      const first: SendKeysStep[] = text === undefined ? [] : [values.replace ? { kind: 'replace', text } : { kind: 'type', text }];
      const steps = keySteps(values, first);
      if (steps.length === 0) throw new UsageError('type needs --text-to-type TEXT (or --ime / --tab)');
      return { action: 'sendKeys', ...(target ? { target } : {}), steps, ...(values.secret ? { secret: true } : {}) };
    }
    case 'clear':
      return { action: 'sendKeys', ...(target ? { target } : {}), steps: keySteps(values, [{ kind: 'clear' }]) };
    case 'swipe': {
      if (values.from === undefined || values.to === undefined) throw new UsageError('swipe needs --from X,Y and --to X,Y');
      return {
        action: 'swipe',
        ...(target ? { container: target } : {}),
        ...(values['auto-container'] ? { autoTarget: true } : {}),
        start: pointOption('from', values.from),
        end: pointOption('to', values.to),
        ...(values.duration !== undefined ? { durationMs: wholeNumber('duration', values.duration, 0) } : {}),
        ...(values.edge !== undefined ? { edge: oneOf('edge', values.edge, SCREEN_EDGES) } : {}),
        ...(values.boomerang ? { boomerang: true } : {}),
      };
    }
    case 'scroll-to': {
      const text = values['look-for'];
      const elementId = values['look-for-id'];
      if ((text === undefined) === (elementId === undefined)) throw new UsageError('scroll-to needs one of --look-for TEXT or --look-for-id ID');
      return {
        action: 'scrollTo',
        lookFor: text !== undefined ? { text } : { elementId: elementId as string },
        ...(target ? { container: target } : {}),
        // The CLI speaks the ecosystem's direction (where the content comes from); the request and the
        // trace keep the finger's (docs/protocol.md#p-action-request), so recorded traces keep their meaning.
        direction: FINGER_FOR[values.direction !== undefined ? oneOf('direction', values.direction, SWIPE_DIRECTIONS) : 'down'],
        maxSwipes: values['max-swipes'] !== undefined ? wholeNumber('max-swipes', values['max-swipes'], 1) : 10,
      };
    }
    case 'launch': {
      const bundleId = values['bundle-id'];
      if (bundleId !== undefined && !/^[A-Za-z0-9.-]{1,255}$/.test(bundleId)) throw new UsageError(`--bundle-id takes a bundle identifier, not "${bundleId}"`);
      return { action: 'launch', relaunch: values.relaunch === true, ...(bundleId !== undefined ? { bundleId } : {}) };
    }
    case 'open-link': {
      if (values.url === undefined) throw new UsageError('open-link needs --url URL');
      if (values.url.length > 2048) throw new UsageError('--url is longer than 2048 characters');
      return { action: 'openLink', url: values.url };
    }
  }
}

/** What a failure's class tells the person at the terminal (docs/rules.md#r-act-01). */
const CLASS_WORDS: Record<OutcomeClass, string> = { done: 'done', notRun: 'nothing was run', mayHaveRun: 'may have run', refused: 'not sent' };

/** One line a person reads: what happened, through which backend, and what it cost. */
export function summarizeResult(command: ActionCommand, result: ActionResult): string {
  const backend = result.backend
    ? ` backend=${result.backend}${result.fallbackReason ? ` fallbackReason=${result.fallbackReason}` : ''}`
    : ' backend=xctest (plain)';
  const t = result.target;
  const at = t.resolvedBy === 'point' && t.point ? `${t.point.x},${t.point.y}` : undefined;
  // Words a person reads (docs/rules.md#r-ui-title): the element as its tree row names it, with its frame
  // as XCUIElement reads it; an index id the bridge made up (`UILabel@0.0.0.0`) only when nothing else names it.
  const title = targetTitleText(t);
  const frame = t.bounds ? frameText(t.bounds) : undefined;
  const what = at ?? title ?? t.selector ?? t.webElementId ?? t.resolvedBy;
  // A point was touched as given: the words say what is there.
  const where = at !== undefined && title !== undefined ? [`${title} there`, frame] : [frame];
  const words = where.filter((p) => p !== undefined).join(', ');
  const found = words !== '' ? ` (${words})` : '';
  const status = result.success ? 'ok' : `failed: ${result.failureReason} (${CLASS_WORDS[outcomeClassOf(result)]})`;
  return `${command} ${what}${found}: ${status}${backend} requests=${result.requestsSent} ${Math.round(result.timings.total ?? 0)} ms`;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

export async function runActionCommand(command: ActionCommand, args: string[], out: Out): Promise<number> {
  let values: Values;
  let request: ActionRequest;
  try {
    try {
      values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.help) {
      out.log(ACTION_USAGE);
      return 0;
    }
    if (!values.device) throw new UsageError(`${command} needs --device ws://HOST:PORT/ws (a runner) or an AppReveal session URL`);
    if (!/^(wss?|https?):\/\//.test(values.device)) throw new UsageError('--device must be a ws:// runner URL or an http:// AppReveal session URL');
    request = buildActionRequest(command, values);
  } catch (error) {
    out.error(`parallax ${command}: ${oneLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }

  const timeoutMs = values.timeout !== undefined ? Number(values.timeout) : 10_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    out.error(`parallax ${command}: --timeout takes milliseconds, not "${values.timeout}"`);
    return 2;
  }
  const xctestOnly = values['xctest-only'] === true;
  let close: () => Promise<void> = async () => {};
  try {
    // The host's own connection, gate and dispatcher; a command line has no screen to refresh, so the
    // observation after the action skips the screenshot, and no push becomes a live frame (R-CLI-02).
    const connection = connectionFor(values.device, { runner: { handshakeTimeoutMs: timeoutMs }, screenshotAfter: false, livePushes: false });
    close = () => connection.close();
    connection.start();
    await connection.waitUntilConnected(timeoutMs);
    const acted = await connection.act(request, xctestOnly ? { xctestOnly: true } : {});
    // A typed secret is never printed, in --json neither, nor text no read let Parallax classify: the
    // host's one rule (docs/rules.md#r-secret-13). A command line has no screen before the action.
    const kept = keptTyping(request, { after: acted.after?.observation?.viewHierarchy?.hierarchy, result: acted.result });
    const result = scrubTypedText(acted.result, kept.withheld);
    if (values.json) {
      out.log(JSON.stringify(result, null, 2));
    } else {
      out.log(summarizeResult(command, result));
      if (result.deviceMessage) out.log(`  the device said: ${result.deviceMessage}`);
      for (const warning of result.warnings) out.log(`! ${warning}`);
      if (result.failureReason) {
        const explained = FAILURE_EXPLANATIONS[result.failureReason];
        out.log(`  ${explained.meaning} ${explained.whatToDo}`);
      }
    }
    return result.success ? 0 : 1;
  } catch (error) {
    out.error(`parallax ${command}: ${oneLine(error)}`);
    return 1;
  } finally {
    await close();
  }
}

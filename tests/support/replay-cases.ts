/**
 * The recordings replay is judged by (docs/rules.md#r-rpl-07): ten action sequences on the demo app's
 * five screens, each recorded without faults and with one fault of its screen (20 recordings), made as
 * the UI makes them (a click sends the node a finger hits there, the type bar types into the field
 * tapped last), and for each the step a replay must diverge at once the app is changed (a moved button,
 * a renamed label, a removed row), or null where it must still match: where the change is not on the
 * recording's path, or the exported Maestro selector still finds the changed element alone, so the
 * exported flow would pass (docs/rules.md#r-rpl-10; tests/support/maestro-oracle.ts says it per replay). bench/replay.bench.ts prints the whole table; tests/integration/replay-api
 * runs part of it.
 */
import { flattenTree } from '@shared/model/tree';
import { centerOf, nodeLabel, withoutChildren } from '@shared/model/node';
import { actionTargetAt } from '@shared/model/target';
import type { ActionRequest, FailureReason, OutcomeClass } from '@shared/protocol/action';
import { outcomeClassOf } from '@shared/act/verdict';
import type { TimelineStep } from '@shared/trace/reader';
import { traceVariables } from '@shared/trace/variables';
import type { UiNode } from '@shared/protocol/runner';
import type { DeviceManager } from '@main/devices/manager';
import type { SessionRecording } from '@main/trace/recording';
import { admin, untilQuiet } from './demo-admin';
import { watchFrames, type FrameWatch } from './frame-watch';

export const VARIANTS = ['moved-button', 'renamed-label', 'removed-row'] as const;
export type Variant = (typeof VARIANTS)[number];

/** An element on the screen, as a person points at it: by its id, or by its label. */
export type Pointed = { id: string } | { label: string };

export type CaseStep =
  { tap: Pointed } | { longPress: Pointed } | { type: string; ime?: 'next' | 'done' } | { secret: string } | { swipe: Pointed; dy: number };

export interface ReplayCase {
  name: string;
  screen: 'login' | 'feed' | 'checkout' | 'hostile' | 'edges';
  /** The fault its "with faults" recording is made with. */
  fault: string;
  steps: CaseStep[];
  /** The filmstrip step a replay diverges at after each change; null: it still matches. */
  diverges: Record<Variant, number | null>;
  /** Why each is the right step, for the table. */
  why: Record<Variant, string>;
  /**
   * Where the recording made with `fault` diverges otherwise, and why: a fault that changes what XCTest
   * read when it was recorded changes the selector the export (and so the replay) can use.
   */
  withFault?: Partial<Record<Variant, { diverges: number | null; why: string }>>;
  /**
   * The steps (1-based, in `steps`) the app fails by design, with the outcome each must be recorded
   * with; every other step must end `done`, or `recordCase` refuses the recording.
   */
  expectedFailures?: Readonly<Record<number, ExpectedFailure>>;
}

/**
 * A step the app refuses by design. `doneWithFault`: with the case's fault the step is done instead, as
 * when the bridge is gone and XCTest taps the point: a tap lands whatever the control's state, and only
 * the bridge refuses a disabled one.
 */
export interface ExpectedFailure {
  outcome: OutcomeClass;
  failureReason: FailureReason;
  why: string;
  doneWithFault?: true;
}

/** Where the recording of `replayCase` made with `faults` must diverge after `variant`, and why (null: it still matches). */
export function expectedAfter(replayCase: ReplayCase, variant: Variant, faults: readonly string[]): { diverges: number | null; why: string } {
  const faulted = faults.includes(replayCase.fault) ? replayCase.withFault?.[variant] : undefined;
  return faulted ?? { diverges: replayCase.diverges[variant], why: replayCase.why[variant] };
}

/** The value typed into the password fields; a replay is given it as a variable. */
export const SECRET_VALUE = 'hunter22';

/**
 * The values a replay of `replayCase`'s recording is given for the texts its trace left out
 * (`traceVariables`: the password, and with `web-redact` any text typed into the web view): each the
 * text the case typed at the variable's step (filmstrip numbers are the case's steps; one later from launch).
 */
export function caseVariables(replayCase: ReplayCase, timeline: readonly TimelineStep[], options: { fromLaunch?: boolean } = {}): Map<string, string> {
  const values = new Map<string, string>();
  for (const variable of traceVariables(timeline)) {
    const step = replayCase.steps[variable.step - 1 - (options.fromLaunch ? 1 : 0)];
    const text = step && 'secret' in step ? step.secret : step && 'type' in step ? step.type : undefined;
    if (text === undefined) throw new Error(`${replayCase.name}: the trace's variable ${variable.name} is at step ${variable.step}, which types nothing`);
    values.set(variable.name, text);
  }
  return values;
}

export const REPLAY_CASES: readonly ReplayCase[] = [
  {
    name: 'login-A',
    screen: 'login',
    fault: 'bridge-unregistered',
    steps: [
      { tap: { id: 'login.username' } },
      { type: 'qa@example.com' },
      { tap: { id: 'login.password' } },
      { secret: SECRET_VALUE },
      { tap: { id: 'login.submit' } },
      { tap: { id: 'login.passkey' } },
    ],
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': 6 },
    why: { 'moved-button': 'Sign In moved; its id finds it', 'renamed-label': 'Sign In is Log In; its id finds it', 'removed-row': 'no passkey button' },
    // resources/demo-app/index.html: the passkey button is `disabled`.
    expectedFailures: {
      6: { outcome: 'notRun', failureReason: 'element_not_actionable', why: 'the passkey button is disabled', doneWithFault: true },
    },
  },
  {
    name: 'login-B',
    screen: 'login',
    fault: 'bridge-unregistered',
    steps: [{ tap: { id: 'login.username' } }, { type: 'alice', ime: 'next' }, { tap: { id: 'tab.feed' } }, { tap: { id: 'feed.like.10' } }],
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': null },
    why: {
      'moved-button': 'the like button moved; its id finds it',
      'renamed-label': 'Like Post 10 is Favourite Post 10; its id finds it',
      'removed-row': 'Post 12 is not on the path',
    },
  },
  {
    name: 'feed-A',
    screen: 'feed',
    fault: 'xctest-sparse',
    steps: [{ tap: { id: 'feed.cell.9' } }, { tap: { id: 'feed.like.10' } }, { swipe: { id: 'feed.list' }, dy: -288 }, { tap: { id: 'feed.like.16' } }],
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': null },
    why: {
      'moved-button': 'the like button moved; its id finds it',
      'renamed-label': 'Like is Favourite; its id finds it',
      'removed-row': 'Post 16 moved up a row; its id finds it',
    },
    // XCTest read only the application root: the export taps each target's recorded point (R-RPL-11).
    withFault: {
      'moved-button': { diverges: 2, why: 'XCTest read no like button, so it is tapped at its old point, which is its cell now' },
      'renamed-label': { diverges: null, why: 'Like is Favourite, in its place: its old point still hits it' },
      'removed-row': { diverges: 4, why: 'XCTest read no like button, so Like Post 16 is tapped at its old point, which is Like Post 17 now' },
    },
  },
  {
    name: 'feed-B',
    screen: 'feed',
    fault: 'xctest-sparse',
    steps: [{ tap: { id: 'feed.like.9' } }, { tap: { id: 'feed.like.12' } }, { tap: { id: 'tab.login' } }, { tap: { id: 'login.username' } }],
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': 2 },
    why: { 'moved-button': 'the like button moved; its id finds it', 'renamed-label': 'Like is Favourite; its id finds it', 'removed-row': 'no Post 12' },
    withFault: {
      'moved-button': { diverges: 1, why: 'XCTest read no like button, so it is tapped at its old point, which is its cell now' },
      'renamed-label': { diverges: null, why: 'Like is Favourite, in its place: its old point still hits it' },
    },
  },
  {
    name: 'checkout-A',
    screen: 'checkout',
    fault: 'web-redact',
    steps: [{ tap: { label: 'Full name' } }, { type: 'Jane Appleseed' }, { tap: { label: 'I agree to the terms' } }, { tap: { label: 'Place order' } }],
    diverges: { 'moved-button': null, 'renamed-label': 4, 'removed-row': null },
    why: {
      'moved-button': 'Place order moved; its text finds it',
      'renamed-label': 'Place order is Buy now: its text finds nothing',
      'removed-row': 'Place order moved up into Pay later’s place; its text finds it',
    },
  },
  {
    name: 'checkout-B',
    screen: 'checkout',
    fault: 'web-redact',
    steps: [{ tap: { label: 'Pay later' } }, { tap: { label: 'Email' } }, { type: 'jane@example.com' }, { tap: { label: 'Chat' } }],
    expectedFailures: { 1: { outcome: 'notRun', failureReason: 'element_not_actionable', why: 'Pay later is disabled' } },
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': 1 },
    why: { 'moved-button': 'Pay later moved down; its text finds it', 'renamed-label': 'Place order is not on the path', 'removed-row': 'no Pay later' },
  },
  {
    name: 'hostile-A',
    screen: 'hostile',
    fault: 'bridge-action-slow=250',
    steps: [
      { tap: { id: 'hostile.like' } },
      { tap: { id: 'hostile.reply' } },
      { type: 'Nice' },
      { tap: { id: 'hostile.notify' } },
      { tap: { id: 'hostile.post.send' } },
    ],
    // XCTest reads the hostile screen as the application root alone: every step is exported as a point (R-RPL-11).
    diverges: { 'moved-button': 5, 'renamed-label': null, 'removed-row': 4 },
    why: {
      'moved-button': 'Post reply moved; XCTest reads no id on this screen, so it is tapped at its old point, where nothing is now',
      'renamed-label': 'Like is Heart, in its place: its point still hits it',
      'removed-row': 'no Notify me: Post reply moved up into its place, so its old point taps Post reply',
    },
  },
  {
    name: 'hostile-B',
    screen: 'hostile',
    fault: 'bridge-action-slow=250',
    steps: [{ tap: { id: 'hostile.repost' } }, { tap: { id: 'hostile.share' } }, { tap: { id: 'tab.edges' } }, { tap: { id: 'edges.flag' } }],
    expectedFailures: { 2: { outcome: 'notRun', failureReason: 'element_not_actionable', why: 'Share is disabled' } },
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': null },
    why: {
      'moved-button': 'Flag moved; its id finds it',
      // Repost and Share are on the hostile screen: exported as points (R-RPL-11).
      'renamed-label': 'Like is Heart, so Repost beside it moved a little: its old point still hits it',
      'removed-row': 'Notify me and Island are not on the path',
    },
  },
  {
    name: 'edges-A',
    screen: 'edges',
    fault: 'bridge-success-form',
    steps: [{ tap: { id: 'edges.island' } }, { tap: { id: 'edges.flag' } }, { tap: { id: 'edges.home' } }, { tap: { id: 'edges.close' } }],
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': 1 },
    why: { 'moved-button': 'Flag moved; its id finds it', 'renamed-label': 'Home is Start; its id finds it', 'removed-row': 'no Island' },
  },
  {
    name: 'edges-B',
    screen: 'edges',
    fault: 'bridge-success-form',
    steps: [{ tap: { id: 'edges.flag' } }, { longPress: { id: 'edges.home' } }, { tap: { id: 'edges.close' } }, { tap: { id: 'login.submit' } }],
    diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': null },
    why: { 'moved-button': 'Flag moved; its id finds it', 'renamed-label': 'Home is Start; its id finds it', 'removed-row': 'Island is not on the path' },
  },
];

/**
 * A relaunched app on `screen` with these faults and variants, once the device is quiet and a connected
 * host (`host`: what its connection has observed) holds the first frame, its push observed.
 */
export async function resetApp(
  adminUrl: string,
  screen: string,
  faults: readonly string[],
  variants: readonly string[] = [],
  host?: FrameWatch,
): Promise<void> {
  await admin(adminUrl, '/reset', { screen, faults, variants });
  await (host ? host.until(adminUrl) : untilQuiet(adminUrl));
}

function find(root: UiNode, pointed: Pointed): UiNode {
  const nodes = flattenTree(root);
  const hit =
    'id' in pointed
      ? nodes.find((f) => f.node['resource-id'] === pointed.id)
      : (nodes.find((f) => nodeLabel(f.node) === pointed.label && f.node.bounds) ?? nodes.find((f) => f.node.text === pointed.label));
  if (!hit) throw new Error(`nothing on the screen is ${JSON.stringify(pointed)}`);
  return hit.node;
}

/** What a click on the element sends: the node a finger hits at its centre (the UI's picking rule). */
function clicked(root: UiNode, pointed: Pointed): UiNode {
  const node = find(root, pointed);
  const centre = centerOf(node);
  if (!centre) throw new Error(`${JSON.stringify(pointed)} has no frame`);
  const hit = actionTargetAt(flattenTree(root), centre.x, centre.y)?.node ?? node;
  return withoutChildren(hit);
}

function requestFor(step: CaseStep, root: UiNode, field: UiNode | undefined): { request: ActionRequest; field?: UiNode } {
  if ('tap' in step) {
    const node = clicked(root, step.tap);
    return { request: { action: 'tap', target: { node } }, field: node };
  }
  if ('longPress' in step) return { request: { action: 'longPress', target: { node: clicked(root, step.longPress) }, durationMs: 800 } };
  if ('swipe' in step) {
    const container = find(root, step.swipe);
    const c = centerOf(container)!;
    return {
      // dy is the finger's travel: negative is up, which brings the rows below into view.
      request: {
        action: 'swipe',
        container: { node: withoutChildren(container) },
        start: { x: c.x, y: c.y - step.dy / 2 },
        end: { x: c.x, y: c.y + step.dy / 2 },
        durationMs: 300,
      },
    };
  }
  const text = 'secret' in step ? step.secret : step.type;
  const steps: Extract<ActionRequest, { action: 'sendKeys' }>['steps'] = [{ kind: 'type', text }];
  if ('ime' in step && step.ime) steps.push({ kind: 'ime', imeAction: step.ime });
  return { request: { action: 'sendKeys', ...(field ? { target: { node: field } } : {}), steps } };
}

/**
 * Records `replayCase` on the device as a person would (a frame seen before each click), with `faults`;
 * returns the packed trace's path. A step that did not succeed (any outcome but `done`, unless the case
 * says the app fails it by design: `expectedFailures`) rejects the recording, naming the step and its outcome:
 * a replay judged against a broken recording could match the broken screens and pass. The recording is
 * stopped first, so the next one can start.
 */
export async function recordCase(
  env: { manager: DeviceManager; recording: SessionRecording; deviceId: string; adminUrl: string },
  replayCase: ReplayCase,
  faults: readonly string[],
  options: { fromLaunch?: boolean } = {},
): Promise<string> {
  const { manager, recording, deviceId, adminUrl } = env;
  const frames = watchFrames(manager.connectionOf(deviceId));
  await resetApp(adminUrl, replayCase.screen, faults, [], frames);
  await manager.observe(deviceId);
  await recording.start(deviceId);
  try {
    await recordSteps(env, frames, replayCase, faults, options);
  } catch (error) {
    await recording.stop();
    throw error;
  }
  await frames.until(adminUrl);
  const stopped = await recording.stop();
  if (!stopped.lastTrace) throw new Error(`${replayCase.name}: the recording packed no trace`);
  return stopped.lastTrace;
}

/** The recorded actions of `recordCase`, each one's result checked: any outcome but the case's throws. */
async function recordSteps(
  env: { manager: DeviceManager; deviceId: string; adminUrl: string },
  frames: FrameWatch,
  replayCase: ReplayCase,
  faults: readonly string[],
  options: { fromLaunch?: boolean },
): Promise<void> {
  const { manager, deviceId, adminUrl } = env;
  let n = 0;
  // `what` names the step as the case wrote it: a secret's text is never in the message. `expected` is
  // the case's word for a step the app refuses by design; any other step must be done.
  const act = async (request: ActionRequest, what: string, declared?: ExpectedFailure): Promise<void> => {
    const expected = declared?.doneWithFault && faults.includes(replayCase.fault) ? undefined : declared;
    n++;
    const { result } = await manager.act(deviceId, request);
    const outcome = outcomeClassOf(result);
    const got = result.success && outcome === 'done' ? 'done' : `${outcome}${result.failureReason ? `, ${result.failureReason}` : ''}`;
    const wanted = expected ? `${expected.outcome}, ${expected.failureReason}` : 'done';
    if (got !== wanted) {
      const why = expected ? ` (${expected.why})` : '';
      throw new Error(
        `${replayCase.name}: recorded step ${n} (${what}) ended ${got} where the case expects ${wanted}${why}; a replay of it would prove nothing`,
      );
    }
  };
  if (options.fromLaunch) {
    // "Record from launch" (docs/rules.md#r-life-05): a cold relaunch first (the app opens on Sign In),
    // then the tab to the case's screen, as a person gets back there.
    await act({ action: 'launch', relaunch: true }, 'relaunch');
    if (replayCase.screen !== 'login') {
      await frames.until(adminUrl);
      const root = (await manager.observe(deviceId)).observation?.viewHierarchy?.hierarchy;
      if (!root) throw new Error(`${replayCase.name}: no tree to pick the tab from`);
      await act({ action: 'tap', target: { node: clicked(root, { id: `tab.${replayCase.screen}` }) } }, `tap tab.${replayCase.screen}`);
    }
  }
  let field: UiNode | undefined;
  for (const [index, step] of replayCase.steps.entries()) {
    // A person's pace: what the step aims at is picked on the screen the last step left, its push observed.
    await frames.until(adminUrl);
    const root = (await manager.observe(deviceId)).observation?.viewHierarchy?.hierarchy;
    if (!root) throw new Error(`${replayCase.name}: no tree to pick from`);
    const built = requestFor(step, root, field);
    if (built.field) field = built.field;
    await act(built.request, 'secret' in step ? 'type the secret' : JSON.stringify(step), replayCase.expectedFailures?.[index + 1]);
  }
}

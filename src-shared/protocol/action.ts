/**
 * What a user or the CLI asks the action dispatcher to do, and the one result object every action reports
 * (docs/architecture.md#a-fail-closed: name the backend, the fallback reason and the failure reason).
 *
 * Capture identities in a result are UInt64 decimal strings (json.ts), never JS numbers.
 */
import { z } from 'zod';
import { UInt64Schema } from './json';
import { PointSchema, type Point } from './geometry';
import { BackendSchema, FallbackReasonSchema, NodeSourceSchema } from './observation';
import { BoundsSchema, IME_ACTIONS, UiNodeSchema } from './runner';
import { ACTION_REJECTION_REASONS, MAX_REASON_CHARS, SDK_RELAY_FAILURES, WEB_ACTION_REJECTION_REASONS } from './sdk';

// ---- Requests ---------------------------------------------------------------------------------------

export { PointSchema, type Point };

/**
 * Strict objects, so `{id, text}` is rejected instead of silently picking one: a selector that could
 * mean two elements must not be guessed at.
 */
export const TargetSelectorSchema = z.union([
  z.strictObject({ id: z.string().min(1) }),
  z.strictObject({ text: z.string().min(1) }),
  z.strictObject({ point: PointSchema }),
  /** A node the user picked from an observation (already resolved, identities and all). */
  z.strictObject({ node: UiNodeSchema }),
]);
export type TargetSelector = z.infer<typeof TargetSelectorSchema>;

/** No rule in docs/rules.md sets a default press length; one second is a press no UIKit recognizer mistakes for a tap. */
export const DEFAULT_LONG_PRESS_MS = 1000;
/** Nor a default stroke length; 300 ms is a deliberate, non-flick swipe. */
export const DEFAULT_SWIPE_DURATION_MS = 300;

export const TapRequestSchema = z.object({ action: z.literal('tap'), target: TargetSelectorSchema });
export const LongPressRequestSchema = z.object({
  action: z.literal('longPress'),
  target: TargetSelectorSchema,
  durationMs: z.number().int().positive().default(DEFAULT_LONG_PRESS_MS),
});
export const DoubleTapRequestSchema = z.object({ action: z.literal('doubleTap'), target: TargetSelectorSchema });

export const ImeActionSchema = z.enum(IME_ACTIONS);
export type ImeAction = z.infer<typeof ImeActionSchema>;

/** One keyboard step. `replace` is a clear followed by text entry, which is what lets a web field use setValue. */
export const SendKeysStepSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('type'), text: z.string() }),
  z.object({ kind: z.literal('clear') }),
  z.object({ kind: z.literal('replace'), text: z.string() }),
  z.object({ kind: z.literal('ime'), imeAction: ImeActionSchema }),
  z.object({ kind: z.literal('tab') }),
]);
export type SendKeysStep = z.infer<typeof SendKeysStepSchema>;

export const SendKeysRequestSchema = z.object({
  action: z.literal('sendKeys'),
  /** The field to focus first; without one, keys follow keyboard focus through XCTest (R-KEY-06). */
  target: TargetSelectorSchema.optional(),
  /** Several steps form one command, so "a command that used both backends" has a meaning. */
  steps: z.array(SendKeysStepSchema).min(1),
  /**
   * The typed text is a secret (docs/rules.md#r-secret): said by the type bar's "treat as secret" for a
   * field Parallax cannot classify, or set by the host once any signal says so. A request the host keeps
   * or reports (history, events, the CLI's JSON) carries it with every text emptied: the text exists
   * only in the request that went to the device.
   */
  secret: z.boolean().optional(),
  /** Beside `secret` on a request the host kept: no read saw the field, so the text was withheld as possibly secret (docs/rules.md#r-secret-13). */
  secretUnknown: z.boolean().optional(),
});

export const SCREEN_EDGES = ['left', 'right', 'top', 'bottom'] as const;
export const ScreenEdgeSchema = z.enum(SCREEN_EDGES);
export type ScreenEdge = z.infer<typeof ScreenEdgeSchema>;

export const SwipeRequestSchema = z.object({
  action: z.literal('swipe'),
  /** Absent: a screen swipe. */
  container: TargetSelectorSchema.optional(),
  /** Let the dispatcher pick the scrollable container under the stroke. */
  autoTarget: z.boolean().optional(),
  start: PointSchema,
  end: PointSchema,
  durationMs: z.number().int().nonnegative().optional(),
  /** A stroke that begins at this screen edge (system gestures: back, notification centre, home). */
  edge: ScreenEdgeSchema.optional(),
  /** Out and back in one gesture. */
  boomerang: z.boolean().optional(),
});

export const SWIPE_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;

export const LookForSchema = z.union([
  z.strictObject({ text: z.string().min(1), container: TargetSelectorSchema.optional() }),
  z.strictObject({ elementId: z.string().min(1), container: TargetSelectorSchema.optional() }),
]);
export type LookFor = z.infer<typeof LookForSchema>;

export const ScrollToRequestSchema = z.object({
  action: z.literal('scrollTo'),
  lookFor: LookForSchema,
  container: TargetSelectorSchema.optional(),
  /** A window layer the search is confined to. */
  layer: z.string().optional(),
  direction: z.enum(SWIPE_DIRECTIONS).default('up'),
  maxSwipes: z.number().int().positive().default(10),
});

/** The app's own back navigation (AppReveal navigate_back); a runner device has no form for it. */
export const BackRequestSchema = z.object({ action: z.literal('back') });

/**
 * Launch the app (docs/rules.md#r-life-01): on a runner `request_launch_app {bundleId, coldBoot}`, the
 * runner's own command (resources/recordings/settings-tap-general/0003-request_launch_app.json).
 * `relaunch` is the cold boot: the app is terminated and started again at its first screen. Without it
 * the runner brings the app to the front as it is. `bundleId` defaults to the device's app.
 */
export const LaunchRequestSchema = z.object({
  action: z.literal('launch'),
  bundleId: z.string().min(1).max(255).optional(),
  relaunch: z.boolean().default(false),
});

/** Open a deep link in the app: AppReveal's `open_deeplink {url}` (iOS MCPTools.swift). */
export const OpenLinkRequestSchema = z.object({
  action: z.literal('openLink'),
  url: z.string().min(1).max(2048),
});

/** What a recorded assertion checks (docs/rules.md#r-asrt-01): the element's presence, its label, its value. */
export const ASSERTION_CHECKS = ['visible', 'notVisible', 'textEquals', 'valueEquals'] as const;
export type AssertionCheckKind = (typeof ASSERTION_CHECKS)[number];

/** A recorded assertion: checked on one read, nothing sent to the app. `expected` for the equals checks. */
export const AssertRequestSchema = z.object({
  action: z.literal('assert'),
  target: TargetSelectorSchema,
  check: z.enum(ASSERTION_CHECKS),
  expected: z.string().max(10_000).optional(),
});
export type AssertRequest = z.infer<typeof AssertRequestSchema>;

/** The bounded AppReveal web view tools Parallax sends (never arbitrary JavaScript). */
export const WEB_TOOLS = ['web_click', 'web_type'] as const;
/** A click or text entry in an AppReveal app's web view, by the CSS selector get_dom_interactive gave. */
export const WebToolRequestSchema = z.object({
  action: z.literal('webTool'),
  tool: z.enum(WEB_TOOLS),
  selector: z.string().min(1).max(500),
  /** web_type's text (required for it). */
  text: z.string().max(10_000).optional(),
  /** As a sendKeys request's `secret`: the text is a secret, and left out wherever the request is kept. */
  secret: z.boolean().optional(),
  /** As a sendKeys request's `secretUnknown`. */
  secretUnknown: z.boolean().optional(),
});

export const ActionRequestSchema = z.discriminatedUnion('action', [
  TapRequestSchema,
  LongPressRequestSchema,
  DoubleTapRequestSchema,
  SendKeysRequestSchema,
  SwipeRequestSchema,
  ScrollToRequestSchema,
  BackRequestSchema,
  WebToolRequestSchema,
  LaunchRequestSchema,
  OpenLinkRequestSchema,
  AssertRequestSchema,
]);
export type ActionRequest = z.infer<typeof ActionRequestSchema>;

// ---- Result -----------------------------------------------------------------------------------------

type Without<T extends readonly string[], X extends string> = Exclude<T[number], X>;

/** Bridge rejections except unsupported_action, which is a fallback, not a failure. */
const BRIDGE_FAILURES = ACTION_REJECTION_REASONS.filter((r): r is Without<typeof ACTION_REJECTION_REASONS, 'unsupported_action'> => r !== 'unsupported_action');
/** Relay failures except bridge_unavailable, the one that means "nothing was sent" and so may fall back. */
const RELAY_FAILURES = SDK_RELAY_FAILURES.filter((r): r is Without<typeof SDK_RELAY_FAILURES, 'bridge_unavailable'> => r !== 'bridge_unavailable');

/** Reasons the dispatcher itself, the runner or read-back produce. */
export const DISPATCH_FAILURES = [
  'timeout',
  'runner_disconnected',
  'stale_frame_context',
  'runner_error',
  // The runner ran the gesture past its deadline: it may have landed (docs/protocol.md#p-runner-error).
  'outcome_indeterminate',
  // The app rejected the action with a reason the spec does not name; its text is the device message.
  'action_rejected',
  // Parallax refused before sending: the point is not inside the screen, or the screen's size is unknown.
  'point_off_screen',
  'screen_size_unknown',
  'document_changed',
  'display_changed',
  'target_not_found',
  'target_without_bounds',
  'text_mismatch',
  // A back action on a device with no back navigation Parallax can send (a runner); nothing was sent.
  'no_back_form',
  // A launch or a deep link on a device that has no command for it (docs/rules.md#r-life-03); nothing was sent.
  'no_lifecycle_form',
  // A recorded assertion that does not hold on the screen read (docs/rules.md#r-asrt-01); nothing was sent.
  'assertion_failed',
  // AppReveal (R-AR-07): the app's MCP server answered, but not with a done action.
  'appreveal_tool_error',
  'appreveal_unknown_tool',
  'appreveal_unauthorized',
  'appreveal_unreachable',
] as const;

export const FAILURE_REASONS = [...new Set([...BRIDGE_FAILURES, ...WEB_ACTION_REJECTION_REASONS, ...RELAY_FAILURES, ...DISPATCH_FAILURES])] as [
  FailureReason,
  ...FailureReason[],
];
export type FailureReason =
  | Without<typeof ACTION_REJECTION_REASONS, 'unsupported_action'>
  | (typeof WEB_ACTION_REJECTION_REASONS)[number]
  | Without<typeof SDK_RELAY_FAILURES, 'bridge_unavailable'>
  | (typeof DISPATCH_FAILURES)[number];
export const FailureReasonSchema = z.enum(FAILURE_REASONS);

/** How the target was resolved, so a timeline entry can say what was acted on and from which capture. */
export const TargetRecordSchema = z.object({
  resolvedBy: z.enum(['id', 'text', 'point', 'node', 'keyboardFocus', 'screen', 'container', 'autoContainer', 'lookFor']),
  source: NodeSourceSchema.optional(),
  /** The id or text the selector named. */
  selector: z.string().optional(),
  /** What a person calls the element acted on (or, for a point, found there): its label, else its text or id. */
  label: z.string().optional(),
  /**
   * The element as a tree row names it (docs/rules.md#r-ui-title): `Button "Sign In" · login.submit`, its
   * type in iOS terms, label, id. Absent in results recorded before it existed and where no node was read.
   */
  title: z.string().optional(),
  /** Where XCTest touched (or would have touched). */
  point: PointSchema.optional(),
  bounds: BoundsSchema.optional(),
  /** Read from a cached hierarchy, which carries no bridge identity (R-OWV-19). */
  fromCache: z.boolean().optional(),
  elementId: z.string().optional(),
  captureIdentity: UInt64Schema.optional(),
  webViewId: z.string().optional(),
  webElementId: z.string().optional(),
  snapshotId: z.string().optional(),
  documentId: z.string().optional(),
  /** The app's own read of the field said its text is a secret (AppReveal get_dom_interactive: a password input; docs/rules.md#r-secret-08). */
  secret: z.boolean().optional(),
});
export type TargetRecord = z.infer<typeof TargetRecordSchema>;

/**
 * What the user is told about an action (docs/rules.md#r-act-01), decided by the one table in
 * src-shared/act/verdict.ts: it ran; the device said it did nothing; it may have run (do not repeat it);
 * or Parallax refused it and sent nothing.
 */
export const OUTCOME_CLASSES = ['done', 'notRun', 'mayHaveRun', 'refused'] as const;
export const OutcomeClassSchema = z.enum(OUTCOME_CLASSES);
export type OutcomeClass = z.infer<typeof OutcomeClassSchema>;

export const ActionResultSchema = z
  .object({
    success: z.boolean(),
    /** Absent only in results recorded before it existed; `outcomeClassOf` derives it then. */
    outcome: OutcomeClassSchema.optional(),
    /** Absent only when the flag is off or the app has no bridge: plain XCTest carries neither field. */
    backend: BackendSchema.optional(),
    fallbackReason: FallbackReasonSchema.optional(),
    failureReason: FailureReasonSchema.optional(),
    /** On a failure: whether the action may already have happened, so nobody retries it blindly. */
    mayHaveRun: z.boolean().optional(),
    /** The runner's, the bridge's or the app's own words about it, verbatim (a rejection reason, an error text). */
    deviceMessage: z.string().max(MAX_REASON_CHARS).optional(),
    /** A bridge scroll has no timed stroke (R-SWP-06). */
    durationIgnored: z.boolean().optional(),
    warnings: z.array(z.string()).default([]),
    target: TargetRecordSchema,
    /** Milliseconds per stage (resolve, freshRead, dispatch, verify, …). */
    timings: z.record(z.string(), z.number().nonnegative()).default({}),
    /** Runner requests this action sent, reads included. */
    requestsSent: z.number().int().nonnegative(),
  })
  .refine((r) => r.success === (r.failureReason === undefined), {
    path: ['failureReason'],
    message: 'a failed action names its failure reason, and only a failed one does',
  })
  .refine((r) => r.fallbackReason === undefined || r.backend === 'xctest', {
    path: ['fallbackReason'],
    message: 'a fallback reason means XCTest stood in',
  })
  .refine((r) => r.mayHaveRun === undefined || !r.success, {
    path: ['mayHaveRun'],
    message: 'only a failure says whether it may have run',
  })
  .refine((r) => r.outcome === undefined || (r.outcome === 'done') === r.success, {
    path: ['outcome'],
    message: 'done is the outcome of a success, and only of one',
  })
  .refine((r) => r.outcome === undefined || r.success || (r.outcome === 'mayHaveRun') === (r.mayHaveRun === true), {
    path: ['outcome'],
    message: 'a failure that may have run has the outcome mayHaveRun, and only such a failure does',
  });
export type ActionResult = z.output<typeof ActionResultSchema>;

// ---- Explanations -----------------------------------------------------------------------------------

export interface FailureExplanation {
  meaning: string;
  whatToDo: string;
}

/** Plain language for QA: what happened, and what to do next. */
export const FAILURE_EXPLANATIONS: Record<FailureReason, FailureExplanation> = {
  stale_observation: {
    meaning: 'The screen changed since Parallax read it, so the app refused an action aimed at an element that may have moved.',
    whatToDo: 'Observe again, then retry.',
  },
  unknown_element: {
    meaning: 'The app no longer has the element Parallax aimed at; it left the screen after it was read.',
    whatToDo: 'Observe again and pick the element from the new screen.',
  },
  element_not_actionable: {
    meaning: 'The element is there but cannot be used right now: it is disabled, hidden or covered.',
    whatToDo: 'Check why the element is disabled or hidden, wait for it to become usable, then retry.',
  },
  action_in_flight: {
    meaning: 'The app was still carrying out an earlier action and refused to start another one.',
    whatToDo: 'Wait for the earlier action to finish, observe, then retry.',
  },
  action_queue_overloaded: {
    meaning: "The app's action queue was full, so it refused this action without running it.",
    whatToDo: 'Slow down, wait a moment, then retry.',
  },
  action_cancelled: {
    meaning: 'The app accepted the action and then cancelled it; it may have started before the cancel.',
    whatToDo: 'Observe to see what state the app is in before trying again.',
  },
  app_not_active: {
    meaning: 'The app went to the background (or an alert took over) before it could serve the action, so nothing was done.',
    whatToDo: 'Bring the app to the foreground, dismiss any system alert, observe, then retry.',
  },
  invalid_action: {
    meaning: 'The action Parallax built was not one the app understands, or lacked the identity it needs; nothing was done.',
    whatToDo: 'Observe again so the element carries fresh identities; if it keeps happening, report it as a Parallax bug.',
  },
  bad_reply: {
    meaning: 'The device did not answer properly after the action was sent, so it may or may not have happened.',
    whatToDo: 'Observe to see whether the action took effect before trying again.',
  },
  stale_snapshot: {
    meaning: 'The web page changed since Parallax read it, so the web view refused an action aimed at an element that may have moved.',
    whatToDo: 'Observe again, then retry.',
  },
  disallowed_origin: {
    meaning: "The web page's origin is not on the list the app allows Parallax to act on.",
    whatToDo: "Navigate to an allowed page, or add the origin to the app's web view bridge policy.",
  },
  web_process_unavailable: {
    meaning: "The web view's content process has stopped (or the web view is gone), so the page could not act.",
    whatToDo: 'Reload the page or reopen the screen, observe, then retry.',
  },
  javascript_error: {
    meaning: "The page's script failed while carrying out the action, for example because the element had just been removed; part of it may have happened.",
    whatToDo: 'Observe to see the page as it is now before trying again.',
  },
  message_too_large: {
    meaning: 'The request or the page snapshot is larger than the app lets its web view bridge send.',
    whatToDo: 'Use a smaller page or text, or raise the bridge maxMessageBytes in the app.',
  },
  no_snapshot: {
    meaning: 'The page has not reported its content yet (it may still be loading after a navigation).',
    whatToDo: 'Wait for the page to finish loading, observe, then retry.',
  },
  timeout: {
    meaning: 'No answer arrived in time, and the action may already have run.',
    whatToDo: 'Observe to see whether it took effect; do not simply repeat it.',
  },
  runner_disconnected: {
    meaning: 'The connection to the device runner dropped; if the request had gone out, the action may have run.',
    whatToDo: 'Reconnect to the device, observe, then decide whether to retry.',
  },
  stale_frame_context: {
    meaning: 'The runner refused a gesture aimed at a screen that has since changed; nothing was done.',
    whatToDo: 'Observe a fresh frame, then retry.',
  },
  runner_error: {
    meaning: 'The device runner refused the command and said why (its own words are shown with it); nothing was done.',
    whatToDo: 'Read the runner’s reason: focus a field, observe again or check the runner version, then retry.',
  },
  outcome_indeterminate: {
    meaning: 'The runner carried the gesture out after its deadline had passed, so it may have landed on a screen that had already changed.',
    whatToDo: 'Observe to see what happened before doing anything else; do not simply repeat it.',
  },
  action_rejected: {
    meaning: 'The app rejected the action with a reason Parallax does not know (shown as the app wrote it); whether part of it ran is not known.',
    whatToDo: 'Read the app’s reason and observe before trying again.',
  },
  point_off_screen: {
    meaning: 'The point lies outside the screen, so Parallax did not send it.',
    whatToDo: 'Give a point inside the screen, in points (the screen size is in the frame header).',
  },
  screen_size_unknown: {
    meaning: 'No read of this device has said how large its screen is in points, so Parallax cannot tell where a point lands and did not send it.',
    whatToDo: 'Observe once the device reports its hierarchy, or tap an element by id or text.',
  },
  document_changed: {
    meaning: 'The web page navigated after the field was focused, so the field Parallax was typing into belongs to a page that is gone.',
    whatToDo: 'Observe the new page and focus the field again.',
  },
  display_changed: {
    meaning: 'The display changed (rotation or size) after the swipe was planned, so its coordinates no longer fit the screen.',
    whatToDo: 'Observe again and redo the swipe on the current screen.',
  },
  appreveal_tool_error: {
    meaning:
      'The app’s AppReveal server ran the tool and reported that it failed (for example, the element was not found or the text matched several elements).',
    whatToDo: 'Read the error and its candidates, then pick a more specific id or text.',
  },
  appreveal_unknown_tool: {
    meaning: 'This app did not register the AppReveal tool this action needs, so nothing was sent.',
    whatToDo: 'Use an action the app offers, or drive the app through an iOS runner instead.',
  },
  appreveal_unauthorized: {
    meaning: 'The app refused the request: the session token is missing, wrong, or from an earlier start of the app.',
    whatToDo: 'Paste the session URL the app printed at this start (it changes every launch).',
  },
  appreveal_unreachable: {
    meaning: 'The app’s AppReveal server did not answer; the action may or may not have reached it.',
    whatToDo: 'Check the app is still running and observe before trying again.',
  },
  target_not_found: {
    meaning: 'Nothing on the screen matched the selector.',
    whatToDo: 'Observe and check the id or text, or scroll the element into view first.',
  },
  target_without_bounds: {
    meaning: 'The element has no position on screen, so there is nowhere to touch.',
    whatToDo: 'Pick a visible element, or tap by point.',
  },
  no_back_form: {
    meaning: 'This device has no back action Parallax can send (only an AppReveal app that registered its back tool has one), so nothing was sent.',
    whatToDo: "Tap the app's own back button, or swipe from the left edge.",
  },
  no_lifecycle_form: {
    meaning:
      'This device has no command for that: a runner launches apps but opens no deep links, and an AppReveal app opens deep links but cannot launch itself. Nothing was sent.',
    whatToDo: 'Launch through the runner, or open the link in an app that embeds AppReveal and registered its deep link tool.',
  },
  assertion_failed: {
    meaning: 'What the assertion says should be true is not true of the screen: the element is missing, present, or shows other text.',
    whatToDo: 'Compare the expected and the found values in the warnings; fix the app, or the assertion if the screen is right.',
  },
  text_mismatch: {
    meaning: 'After typing, the field did not show the expected text (autocorrect, a length limit or input formatting may have changed it).',
    whatToDo: 'Look at the field, adjust the text or the keyboard settings, then retry.',
  },
};

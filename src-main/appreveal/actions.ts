/**
 * Actions on an AppReveal device (docs/rules.md#r-ar-14): each ActionRequest maps onto the tools the app
 * registered, with arguments named as each tool's inputSchema names them (the client builds them). What
 * has no AppReveal form fails closed with that reason and nothing sent; every answer the app gave that
 * says it did not do it is `mayHaveRun: false` (docs/rules.md#r-ar-07); nothing is retried.
 */
import type { ActionRequest, ActionResult, FailureReason, TargetSelector } from '@shared/protocol/action';
import { MAX_REASON_CHARS } from '@shared/protocol/sdk';
import { APPREVEAL_FAILURE_ROWS, outcomeClassOf } from '@shared/act/verdict';
import { isRecord } from '@shared/protocol/json';
import { nodeLabel } from '@shared/model/node';
import { nodeTitleText } from '@shared/model/title';
import type { AppRevealElement } from '@shared/protocol/appreveal';
import { AppRevealError, type AppRevealClient } from './client';

type Outcome = { ok: true; warnings?: string[] } | { ok: false; reason: FailureReason; mayHaveRun: boolean; warnings: string[]; deviceMessage?: string };

/** What the action learnt from the app on the way, for the result's target record. */
interface Facts {
  /** The field the app says has focus, typed into because the request named none (docs/rules.md#r-ar-29). */
  focused?: { id: string; label?: string };
  /** The app's own read of the web control said its text is a secret (docs/rules.md#r-secret-08). */
  secret?: boolean;
  /** The app's element the action was sent to, as its target was found (docs/rules.md#r-ar-34). */
  element?: { id: string; label?: string };
}

export async function actThroughAppReveal(client: AppRevealClient, request: ActionRequest): Promise<ActionResult> {
  const started = performance.now();
  let requestsSent = 0;
  // Requests of this action the app answered as done: once one has, a later failure cannot be "not run".
  let done = 0;
  const call = async (run: () => Promise<unknown>): Promise<void> => {
    requestsSent++;
    try {
      await run();
      done++;
    } catch (error) {
      // Refused before the wire (no such tool listed, or arguments it cannot take): nothing was sent.
      if (error instanceof AppRevealError && (error.code === 'no_form' || (error.code === 'unknown_tool' && error.details.rpcCode === undefined)))
        requestsSent--;
      throw error;
    }
  };
  let outcome: Outcome;
  const facts: Facts = {};
  try {
    outcome = await perform(client, request, call, facts);
  } catch (error) {
    outcome = failureOf(error);
  }
  // Outcome by what may have happened (docs/rules.md#r-ar-07): a step of this action already ran, so the
  // action as a whole did something, whatever the later step's failure says of itself.
  if (!outcome.ok && done > 0 && !outcome.mayHaveRun) {
    outcome = {
      ...outcome,
      mayHaveRun: true,
      warnings: [...outcome.warnings, `${done} earlier request${done === 1 ? '' : 's'} of this action ran before it failed`],
    };
  }
  const result: ActionResult = {
    success: outcome.ok,
    backend: 'appreveal',
    warnings: outcome.warnings ?? [],
    target: targetRecord(request, facts),
    timings: { dispatch: performance.now() - started },
    requestsSent,
  };
  if (!outcome.ok) {
    result.failureReason = outcome.reason;
    result.mayHaveRun = outcome.mayHaveRun;
    // The app's own words, verbatim (docs/rules.md#r-act-02).
    if (outcome.deviceMessage !== undefined) result.deviceMessage = outcome.deviceMessage.slice(0, MAX_REASON_CHARS);
  }
  // Every result says what may have happened (docs/rules.md#r-act-01), decided by the one table.
  result.outcome = outcomeClassOf(result);
  return result;
}

async function perform(client: AppRevealClient, request: ActionRequest, call: (run: () => Promise<unknown>) => Promise<void>, facts: Facts): Promise<Outcome> {
  switch (request.action) {
    case 'tap':
      await call(() => tap(client, request.target));
      return { ok: true };
    case 'longPress':
    case 'doubleTap':
      return noForm(`AppReveal has no ${request.action === 'longPress' ? 'long press' : 'double tap'} tool`);
    case 'sendKeys': {
      // Every step's tool is checked before the first is sent, so a later step with no form never
      // leaves the first one run and the action reported as not run.
      for (const step of request.steps) {
        if (step.kind === 'ime' || step.kind === 'tab')
          return noForm(`AppReveal has no tool for ${step.kind === 'tab' ? 'Tab' : `the IME action ${step.imeAction}`}`);
        const tools = step.kind === 'type' ? ['type_text'] : step.kind === 'clear' ? ['clear_text'] : ['clear_text', 'type_text'];
        const missing = tools.find((tool) => !client.has(tool));
        if (missing) return noForm(`this app did not register ${missing}`);
      }
      const resolved: { id: string | undefined; label?: string; focused?: { id: string; label?: string } } | { refused: string } = request.target
        ? await elementIdOf(client, request.target, 'type')
        : await focusedFieldOf(client);
      if ('refused' in resolved) return { ok: false, reason: 'target_not_found', mayHaveRun: false, warnings: [resolved.refused] };
      const id = resolved.id;
      if (id !== undefined) facts.element = { id, ...(resolved.label !== undefined ? { label: resolved.label } : {}) };
      const warnings: string[] = [];
      const focused = resolved.focused;
      if (focused) {
        facts.focused = focused;
        const name = focused.label ? `“${focused.label}” (${focused.id})` : focused.id;
        warnings.push(`no field was named: typed into ${name}, the field the app says has focus (get_view_tree isEditing)`);
      }
      for (const step of request.steps) {
        if (step.kind === 'type') await call(() => client.typeText(step.text, id));
        else if (step.kind === 'clear' || step.kind === 'replace') {
          if (!id) return noForm('clear_text needs an element id');
          await call(() => client.clearText(id));
          if (step.kind === 'replace') await call(() => client.typeText(step.text, id));
        } else return noForm(`AppReveal has no tool for ${step.kind === 'tab' ? 'Tab' : `the IME action ${step.imeAction}`}`);
      }
      return { ok: true, warnings };
    }
    case 'swipe': {
      // AppReveal scrolls a container by direction; a finger moving up scrolls the content down.
      const dy = request.end.y - request.start.y;
      const dx = request.end.x - request.start.x;
      const direction = Math.abs(dy) >= Math.abs(dx) ? (dy < 0 ? 'down' : 'up') : dx < 0 ? 'right' : 'left';
      const resolved = await elementIdOf(client, request.container, 'scroll');
      if ('refused' in resolved) return { ok: false, reason: 'target_not_found', mayHaveRun: false, warnings: [resolved.refused] };
      const container = resolved.id;
      if (container !== undefined) facts.element = { id: container, ...(resolved.label !== undefined ? { label: resolved.label } : {}) };
      await call(() => client.scroll(direction, container));
      return { ok: true, warnings: ['AppReveal scrolls by direction: the stroke’s length and duration are not used'] };
    }
    case 'back':
      if (!client.has('navigate_back')) return noForm('this app did not register navigate_back');
      await call(() => client.navigateBack());
      return { ok: true };
    case 'webTool': {
      if (!client.has(request.tool)) return noForm(`this app did not register ${request.tool}`);
      if (request.tool === 'web_click') await call(() => client.webClick(request.selector));
      else {
        if (request.text === undefined) return noForm('web_type needs the text to type');
        const text = request.text;
        // The app's own read of the control, before the text goes: a password input is a secret whatever
        // the request says (docs/rules.md#r-secret-08). The read changes nothing; its failure only means
        // the other signals decide. A request the user already marked secret needs no read: one round trip less.
        if (request.secret !== true && client.has('get_dom_interactive')) facts.secret = await webControlIsSecret(client, request.selector).catch(() => false);
        await call(() => client.webType(request.selector, text));
      }
      return { ok: true };
    }
    case 'assert':
      // Checked by the connection on its own read (AppRevealConnection.assertOn): no tool acts.
      return noForm('an assertion is checked on a read, not sent as a tool');
    case 'launch':
      return { ok: false, reason: 'no_lifecycle_form', mayHaveRun: false, warnings: ['AppReveal runs inside the app: it cannot launch or relaunch it'] };
    case 'openLink':
      if (!client.has('open_deeplink')) return noForm('this app did not register open_deeplink');
      await call(() => client.openDeeplink(request.url));
      return { ok: true };
    case 'scrollTo':
      if (!('elementId' in request.lookFor)) return noForm('scroll_to_element takes an element id, not text');
      await call(() => client.scrollToElement((request.lookFor as { elementId: string }).elementId));
      return { ok: true };
  }
}

async function tap(client: AppRevealClient, target: TargetSelector): Promise<unknown> {
  if ('id' in target) return client.tapElement(target.id);
  if ('text' in target) return client.tapText(target.text);
  if ('point' in target) return tapAt(client, target.point.x, target.point.y);
  const id = target.node['resource-id'];
  if (id) return client.tapElement(id);
  const b = target.node.bounds;
  if (!b) throw new AppRevealError('tool_error', 'the picked element has no id and no bounds');
  return tapAt(client, (b.left + b.right) / 2, (b.top + b.bottom) / 2);
}

/**
 * tap_point at a point of Parallax's screen. Where the app's frames are in its web view (Tauri's
 * localRect) its tap_point takes screen CSS pixels and finds the window by them
 * (tauri_integration.rs tap_dom_point, local_point_if_inside): the view's place on the screen, read
 * fresh so a moved window is followed, is added (docs/rules.md#r-ar-33).
 */
async function tapAt(client: AppRevealClient, x: number, y: number): Promise<unknown> {
  if (client.viewportLocal && client.has('get_elements')) {
    const origin = (await client.getElements()).elements.find((element) => element.origin)?.origin;
    if (origin) return client.tapPoint(x + origin.x, y + origin.y);
  }
  return client.tapPoint(x, y);
}

/** What an element is wanted for: typing into (a text field) or scrolling (a scroll view). */
type Purpose = 'type' | 'scroll';

/**
 * What iOS AppReveal lists an element as able to do (Elements/ElementInventory.swift `availableActions`:
 * a UITextField or UITextView "type", a UIScrollView "scroll"); `type_text` types only into a UITextField
 * or UITextView and `scroll` scrolls only a UIScrollView by `container_id` (Interaction/InteractionEngine.swift
 * `type`, `scroll`: "Element not editable", "Element not scrollable"). Tauri's DOM elements say `type_text`.
 */
function serves(element: AppRevealElement, purpose: Purpose): boolean {
  return purpose === 'type' ? element.actions.some((a) => a === 'type' || a === 'type_text') : element.actions.includes('scroll');
}

const holds = (e: AppRevealElement, x: number, y: number) =>
  x >= e.frame.x && x <= e.frame.x + e.frame.width && y >= e.frame.y && y <= e.frame.y + e.frame.height;
const area = (e: AppRevealElement) => e.frame.width * e.frame.height;

/** The element as the result names it: its id, and its label when it has one. */
const named = (e: AppRevealElement) => ({ id: e.id, ...(e.label !== undefined && e.label !== '' ? { label: e.label } : {}) });

/** The smallest element at a point that can do what is wanted (a field under a label, the list under a cell). */
function servingAt(elements: readonly AppRevealElement[], x: number, y: number, purpose: Purpose): AppRevealElement | undefined {
  return elements.filter((e) => holds(e, x, y) && serves(e, purpose)).sort((a, b) => area(a) - area(b))[0];
}

const WANTED: Record<Purpose, string> = { type: 'text field', scroll: 'scrollable element' };

/**
 * The app's element id for a target, or why there is none; nothing is sent on a refusal (docs/rules.md#r-ar-34).
 * An id is used as given; a picked node by its id (for a scroll, the scroll view it is in when it is none);
 * a text or a point is found on a fresh `get_elements` read: a text as the element whose label or value it
 * is, a point as the smallest element there that can take the keys or the scroll (a label over a field,
 * a cell in a list). Sent as no element, the keys would go to the first responder and the scroll to the
 * first scroll view (InteractionEngine.swift `type`, `scroll`). No target: undefined (the app's own choice).
 */
async function elementIdOf(
  client: AppRevealClient,
  target: TargetSelector | undefined,
  purpose: Purpose,
): Promise<{ id: string | undefined; label?: string } | { refused: string }> {
  if (!target) return { id: undefined };
  if ('id' in target) return { id: target.id };
  const pickedId = 'node' in target ? target.node['resource-id'] : undefined;
  if ('node' in target && purpose === 'type') return pickedId ? { id: pickedId } : { refused: 'the picked element has no AppReveal id: nothing was sent' };
  if (!client.has('get_elements'))
    return { refused: 'this app did not register get_elements, so a text, point or picked element cannot be found as an element: nothing was sent' };
  const { elements } = await client.getElements();
  /** The element itself when it can do what is wanted, else (a scroll) the scroll view it lies in. */
  const servingFor = (element: AppRevealElement): AppRevealElement | undefined =>
    serves(element, purpose)
      ? element
      : purpose === 'scroll'
        ? servingAt(elements, element.frame.x + element.frame.width / 2, element.frame.y + element.frame.height / 2, purpose)
        : element;
  if ('node' in target) {
    const listed = pickedId ? elements.find((e) => e.id === pickedId) : undefined;
    const b = target.node.bounds;
    const found = listed ? servingFor(listed) : b ? servingAt(elements, (b.left + b.right) / 2, (b.top + b.bottom) / 2, purpose) : undefined;
    return found ? named(found) : { refused: `the picked element is in no ${WANTED[purpose]} of the app: nothing was sent` };
  }
  if ('text' in target) {
    const hits = elements.filter((e) => e.label === target.text || e.value === target.text);
    const serving = hits.filter((e) => serves(e, purpose));
    const candidates = serving.length > 0 ? serving : hits;
    if (candidates.length === 0) return { refused: `no element of the app has the text "${target.text}": nothing was sent` };
    if (candidates.length > 1) return { refused: `${candidates.length} elements of the app have the text "${target.text}": nothing was sent` };
    const found = servingFor(candidates[0]!);
    return found ? named(found) : { refused: `the element with the text "${target.text}" is in no ${WANTED[purpose]} of the app: nothing was sent` };
  }
  const { x, y } = target.point;
  const found = servingAt(elements, x, y, purpose);
  return found ? named(found) : { refused: `no ${WANTED[purpose]} of the app is at ${Math.round(x)}, ${Math.round(y)}: nothing was sent` };
}

/** Whether the web control `selector` names is a secret by the app's get_dom_interactive (decoded and redacted by the client). */
async function webControlIsSecret(client: AppRevealClient, selector: string): Promise<boolean> {
  return (await client.webControls()).some((control) => control.selector === selector && control.secret === true);
}

/**
 * The field the app says has focus, for typing with no field named (docs/rules.md#r-ar-29). iOS AppReveal
 * types into `UIResponder.currentFirstResponder` when `type_text` has no element_id
 * (iOS/Sources/AppReveal/Interaction/InteractionEngine.swift `type`), and says which view that is only in
 * `get_view_tree`: each UITextField's `isEditing` (Elements/ElementInventory.swift dumpNode,
 * `node["isEditing"] = textField.isEditing`). So the field is read there, fresh, and typed into by its id;
 * where the app cannot say (no get_view_tree, no field editing, a focused field without an id, or more than
 * one), nothing is sent and the reason says why.
 */
async function focusedFieldOf(client: AppRevealClient): Promise<{ id: string; focused: { id: string; label?: string } } | { refused: string }> {
  if (!client.has('get_view_tree'))
    return {
      refused: 'no field was named, and this app cannot say which field has focus (it did not register get_view_tree): name or tap a field; nothing was sent',
    };
  const views = await client.getViewTree();
  const editing = views.filter((view): view is Record<string, unknown> => isRecord(view) && (view.isEditing === true || view.isEditing === 'true'));
  if (editing.length === 0)
    return {
      refused: 'no field was named, and the app reports no text field in focus (no view of get_view_tree is editing): tap a field first; nothing was sent',
    };
  if (editing.length > 1) return { refused: `no field was named, and ${editing.length} fields of the app say they are editing: name one; nothing was sent` };
  const [view] = editing as [Record<string, unknown>];
  const id = typeof view.accessibilityId === 'string' && view.accessibilityId !== '' ? view.accessibilityId : undefined;
  if (!id)
    return { refused: 'no field was named, and the field the app says has focus has no accessibility id to type into by: name a field; nothing was sent' };
  const label = typeof view.accessibilityLabel === 'string' && view.accessibilityLabel !== '' ? view.accessibilityLabel : undefined;
  return { id, focused: { id, ...(label !== undefined ? { label } : {}) } };
}

function noForm(why: string): Outcome {
  return { ok: false, reason: 'appreveal_unknown_tool', mayHaveRun: false, warnings: [why] };
}

function failureOf(error: unknown): Outcome {
  if (!(error instanceof AppRevealError)) return { ok: false, reason: 'appreveal_unreachable', mayHaveRun: true, warnings: [(error as Error).message] };
  // The message already lists an ambiguous tap_text's candidates.
  const warnings = [error.message];
  const said = error.details.appMessage !== undefined ? { deviceMessage: error.details.appMessage } : {};
  return { ...failureOfCode(error, warnings), ...said };
}

/** What the app's failure means for the action: the one table, APPREVEAL_FAILURE_ROWS (docs/protocol.md#p-ar-outcomes). */
function failureOfCode(error: AppRevealError, warnings: string[]): Outcome & { ok: false } {
  const row = APPREVEAL_FAILURE_ROWS[error.code];
  return { ok: false, reason: row.reason, mayHaveRun: row.class === 'mayHaveRun', warnings };
}

function targetRecord(request: ActionRequest, facts: Facts): ActionResult['target'] {
  if (request.action === 'webTool')
    return { resolvedBy: 'screen', selector: request.selector, ...(facts.secret === true || request.secret === true ? { secret: true } : {}) };
  const target = 'target' in request ? request.target : request.action === 'swipe' ? request.container : undefined;
  if (!target && facts.focused)
    return { resolvedBy: 'keyboardFocus', elementId: facts.focused.id, ...(facts.focused.label !== undefined ? { label: facts.focused.label } : {}) };
  if (!target) return { resolvedBy: request.action === 'scrollTo' ? 'lookFor' : 'screen' };
  // The element a text, point or picked node was found as, so the result says where it went (docs/rules.md#r-ar-34).
  const sentTo = facts.element ? { elementId: facts.element.id } : {};
  const sentToNamed = facts.element ? { ...sentTo, ...(facts.element.label !== undefined ? { label: facts.element.label } : {}) } : {};
  if ('id' in target) return { resolvedBy: 'id', selector: target.id, ...sentTo };
  if ('text' in target) return { resolvedBy: 'text', selector: target.text, ...sentToNamed };
  if ('point' in target) return { resolvedBy: 'point', point: target.point, ...sentToNamed };
  // A picked node: named as its tree row names it (docs/rules.md#r-ui-title), so the timeline and the CLI say what was tapped.
  const label = nodeLabel(target.node);
  return {
    resolvedBy: 'node',
    ...(target.node.bounds ? { bounds: target.node.bounds } : {}),
    ...(label !== undefined ? { label } : {}),
    title: nodeTitleText(target.node),
    ...sentTo,
  };
}

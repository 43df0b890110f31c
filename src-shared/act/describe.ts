/**
 * An action request in words, as the timeline, the replay report and a recorded trace show it: "tap",
 * "type “qa”", "swipe ↑ 240 pt", and what its selector named ("id submit"). Pure text from the request.
 */
import type { ActionRequest, Point, SendKeysStep, TargetSelector } from '@shared/protocol/action';

/** A user's text in curly quotes, cut at 40 characters. */
export const quote = (text: string) => `“${text.length > 40 ? `${text.slice(0, 39)}…` : text}”`;

/** A step in a few words; a secret's text is never quoted (docs/rules.md#r-secret), whether or not the step still holds it. */
export function keyStepText(step: SendKeysStep, secret = false): string {
  switch (step.kind) {
    case 'type':
      return secret ? 'type secret' : `type ${quote(step.text)}`;
    case 'clear':
      return 'clear';
    case 'replace':
      return secret ? 'replace with secret' : `replace with ${quote(step.text)}`;
    case 'ime':
      return `IME ${step.imeAction}`;
    case 'tab':
      return 'Tab';
  }
}

function direction(start: Point, end: Point): string {
  const dx = end.x - start.x;
  const dy = end.y - start.y;
  if (Math.abs(dy) >= Math.abs(dx)) return dy < 0 ? '↑' : '↓';
  return dx < 0 ? '←' : '→';
}

/** The action in a few words: "tap", "double tap", "long press 800 ms", "type “qa”", "swipe ↑ 240 pt". */
export function describeRequest(request: ActionRequest): string {
  switch (request.action) {
    case 'tap':
      return 'tap';
    case 'doubleTap':
      return 'double tap';
    case 'longPress':
      return `long press ${request.durationMs} ms`;
    case 'sendKeys':
      return request.steps.map((step) => keyStepText(step, request.secret === true)).join(', ');
    case 'swipe': {
      const length = Math.round(Math.hypot(request.end.x - request.start.x, request.end.y - request.start.y));
      const duration = request.durationMs !== undefined ? ` · ${request.durationMs} ms` : '';
      return `swipe ${direction(request.start, request.end)} ${length} pt${duration}`;
    }
    case 'scrollTo':
      return `scroll to ${'text' in request.lookFor ? quote(request.lookFor.text) : request.lookFor.elementId}`;
    case 'back':
      return 'back';
    case 'launch':
      return `${request.relaunch ? 'relaunch' : 'launch'}${request.bundleId !== undefined ? ` ${request.bundleId}` : ''}`;
    case 'openLink':
      return `open link ${request.url}`;
    case 'assert':
      return request.check === 'visible'
        ? 'assert visible'
        : request.check === 'notVisible'
          ? 'assert not visible'
          : `assert ${request.check === 'textEquals' ? 'text' : 'value'} = ${quote(request.expected ?? '')}`;
    case 'webTool':
      if (request.tool === 'web_click') return `web click ${request.selector}`;
      return `web type ${request.secret === true ? 'secret' : quote(request.text ?? '')} into ${request.selector}`;
  }
}

/** What the request named, before the device resolved it. */
export function describeSelector(selector: TargetSelector | undefined): string {
  if (!selector) return 'keyboard focus';
  if ('id' in selector) return `id ${selector.id}`;
  if ('text' in selector) return `text ${quote(selector.text)}`;
  if ('point' in selector) return `point ${Math.round(selector.point.x)}, ${Math.round(selector.point.y)}`;
  const n = selector.node;
  return `picked ${n['resource-id'] ?? n['sdk-element-id'] ?? n['web-element-id'] ?? n['content-desc'] ?? n.text ?? n.className ?? 'node'}`;
}

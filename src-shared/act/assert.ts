/**
 * Recorded assertions (docs/rules.md#r-asrt-01): what should be true of the screen, checked against one
 * read. The element is found with the dispatcher's own selector rules (resolve.ts) and read as XCUITest
 * reads it (element.ts: label, value), so the check, the exports and the replay agree on what it means.
 */
import type { AssertRequest } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { labelOf, valueOf } from '@shared/selectors/element';
import { resolveTarget, selectorValue } from './resolve';

export type AssertionCheck =
  { readonly ok: true; readonly detail: string; readonly node?: UiNode } | { readonly ok: false; readonly detail: string; readonly node?: UiNode };

const quoted = (text: string | undefined) => (text === undefined ? 'nothing' : JSON.stringify(text));

export function checkAssertion(request: AssertRequest, root: UiNode | undefined): AssertionCheck {
  const what = selectorValue(request.target);
  const resolution = resolveTarget(request.target, root);
  const node = resolution.kind === 'node' ? resolution.node : resolution.kind === 'point' ? resolution.found : undefined;
  switch (request.check) {
    case 'visible':
      return node ? { ok: true, detail: `${what} is visible`, node } : { ok: false, detail: `expected ${what} to be visible; the screen shows none` };
    case 'notVisible':
      return node ? { ok: false, detail: `expected ${what} not to be visible; the screen shows it`, node } : { ok: true, detail: `${what} is not visible` };
    case 'textEquals':
    case 'valueEquals': {
      const attribute = request.check === 'textEquals' ? 'label' : 'value';
      if (request.expected === undefined) return { ok: false, detail: `the assertion names no expected ${attribute}` };
      if (!node) return { ok: false, detail: `expected ${what} with ${attribute} ${quoted(request.expected)}; the screen shows none` };
      const actual = request.check === 'textEquals' ? labelOf(node) : valueOf(node);
      return actual === request.expected
        ? { ok: true, detail: `${what} has ${attribute} ${quoted(actual)}`, node }
        : { ok: false, detail: `expected ${what} with ${attribute} ${quoted(request.expected)}, found ${quoted(actual)}`, node };
    }
  }
}

// @vitest-environment jsdom
/**
 * The type bar's "secret" box (docs/rules.md#r-secret-03), as a user uses it on an iOS AppReveal app:
 * a field no signal classifies offers the choice and, when checked, the request says `secret: true`
 * (which the host, the trace and the exports then keep the text out of); a field a signal already calls
 * secret has the box checked and fixed; unchecked, the request carries no `secret` at all.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OfferedActions } from '@shared/inspect';
import type { ActionRequest } from '@shared/protocol/action';
import type { DeviceSummary } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import { InteractBar } from '@renderer/components/InteractBar';
import { typesWithheldText } from '@shared/act/secret';
import { useInspector } from '@renderer/state/store';

const device: DeviceSummary = {
  id: 'ar1',
  kind: 'appreveal',
  name: 'Demo app',
  url: 'http://127.0.0.1:1/',
  state: 'connected',
  supportedCommands: ['type_text', 'clear_text', 'tap_element'],
};
const offered: OfferedActions = {
  tapNode: true,
  tapPoint: true,
  doubleTap: false,
  longPress: false,
  swipe: false,
  type: true,
  clear: true,
  replace: true,
  imeDone: false,
  tab: false,
  missing: [],
};

// iOS AppReveal's fields (ElementInventory.swift classifyView): every UITextField is a `textField`; a
// secure one shows its value as bullets, an empty one shows nothing that says so.
const plain = { className: 'textField', role: 'textfield', 'resource-id': 'signup.code', 'content-desc': 'Invite code' } as UiNode;
const bulleted = { ...plain, 'resource-id': 'login.password', 'content-desc': 'Password', value: '••••' } as UiNode;

function typeWith(field: UiNode, text: string, check: boolean): ActionRequest {
  const act = vi.fn(async (_request: ActionRequest) => ({ result: { success: true } }));
  useInspector.getState().setTypeField(device.id, field);
  render(<InteractBar device={device} frame={undefined} offered={offered} act={act} />);
  if (check) fireEvent.click(screen.getByTestId('type-secret'));
  fireEvent.change(screen.getByTestId('type-input'), { target: { value: text } });
  fireEvent.click(screen.getByTestId('type-submit'));
  expect(act).toHaveBeenCalledTimes(1);
  return act.mock.calls[0]![0];
}

afterEach(() => {
  cleanup();
  useInspector.getState().setTypeField(device.id, null);
});

describe('R-SECRET-03: the type bar offers "secret" for a field Parallax cannot classify', () => {
  it('R-SECRET-03: checked on an unclassified field, the request says secret; the box is a password box', () => {
    const request = typeWith(plain, 'INV-4471', true);
    expect(request).toEqual({ action: 'sendKeys', steps: [{ kind: 'type', text: 'INV-4471' }], target: { id: 'signup.code' }, secret: true });
    expect((screen.getByTestId('type-input') as HTMLInputElement).type).toBe('password');
  });

  it('R-SECRET-03: left unchecked, the request carries no secret flag and the box shows the text', () => {
    const request = typeWith(plain, 'INV-4471', false);
    expect(request).not.toHaveProperty('secret');
    expect((screen.getByTestId('type-input') as HTMLInputElement).type).toBe('text');
  });

  it('R-SECRET-03: a field a signal calls secret (bullets) has the box checked and fixed, and its request says secret', () => {
    useInspector.getState().setTypeField(device.id, bulleted);
    render(<InteractBar device={device} frame={undefined} offered={offered} act={vi.fn()} />);
    const box = screen.getByTestId('type-secret') as HTMLInputElement;
    expect(box.checked).toBe(true);
    expect(box.disabled).toBe(true);
    cleanup();
    expect(typeWith(bulleted, 'hunter2', false)).toMatchObject({ secret: true });
  });
});

describe('R-SECRET-14: an empty Replace on a secret field is a clear, not a withheld step', () => {
  it('R-SECRET-14: Replace with an empty box on a bulleted field sends no secret flag, so the host, which refuses a secret whose text is empty, runs it', () => {
    const act = vi.fn(async (_request: ActionRequest) => ({ result: { success: true } }));
    useInspector.getState().setTypeField(device.id, bulleted);
    render(<InteractBar device={device} frame={undefined} offered={offered} act={act} />);
    fireEvent.click(screen.getByTestId('key-replace'));
    expect(act).toHaveBeenCalledTimes(1);
    const request = act.mock.calls[0]![0];
    expect(request).toEqual({ action: 'sendKeys', steps: [{ kind: 'replace', text: '' }], target: { id: 'login.password' } });
    expect(typesWithheldText(request)).toBe(false);
  });
});

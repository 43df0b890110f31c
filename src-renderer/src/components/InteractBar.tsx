import './InteractBar.css';
/**
 * Interact mode's keyboard: a text box, and Clear, Replace, IME Done and Tab. Keys go to the field the
 * user tapped last (native, bridge or DOM), named in the bar, until focus moves: Tab, an IME action or
 * another tap (docs/rules.md#r-act-03); with no field tapped a runner's keys follow keyboard focus. On an
 * AppReveal device only what its tools can do is offered (no IME or Tab tool; no type box without
 * type_text), and it types by element id only.
 */
import { useState, type FormEvent } from 'react';
import { fieldCaption, keyTargetFor, type OfferedActions } from '@shared/inspect';
import { hidesText } from '@shared/model/node';
import type { ActionRequest, SendKeysStep } from '@shared/protocol/action';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { useInspector } from '@renderer/state/store';
import { deviceBusy, useTimeline } from '@renderer/state/timeline';

export function InteractBar({
  device,
  frame,
  offered,
  act,
}: {
  device: DeviceSummary;
  frame: Frame | undefined;
  offered: OfferedActions;
  act: (request: ActionRequest) => Promise<unknown>;
}) {
  const [text, setText] = useState('');
  // "Treat as secret", for a field Parallax cannot classify (docs/rules.md#r-secret).
  const [asSecret, setAsSecret] = useState(false);
  const appReveal = device.kind === 'appreveal';
  const tappedField = useInspector((s) => s.typeField[device.id]);
  const busy = useTimeline((s) => deviceBusy(s.pending, device.id));
  const focused = frame?.observation?.focusedElement?.node;
  // The field last tapped; without one, a runner types into whatever has keyboard focus.
  const field = tappedField ?? (appReveal ? undefined : focused);
  const caption = fieldCaption(field);
  // A field any signal calls secret is one; the box offers the choice only where none does.
  const knownSecret = field ? hidesText(field) : false;
  const secret = knownSecret || asSecret;
  const connected = device.state === 'connected';
  // The app's own back navigation: only an AppReveal app that registered navigate_back has one.
  const canGoBack = appReveal && device.supportedCommands.includes('navigate_back');

  const send = async (steps: SendKeysStep[], clearAfter = false) => {
    const target = keyTargetFor(tappedField, appReveal);
    // Only a step that types text has a secret to keep: an empty Replace is a clear, and a secret with no
    // text is what the host keeps in place of one, which it refuses to send (docs/rules.md#r-secret-14).
    const types = steps.some((s) => (s.kind === 'type' || s.kind === 'replace') && s.text !== '');
    const request: ActionRequest = { action: 'sendKeys', steps, ...(target ? { target } : {}), ...(secret && types ? { secret: true } : {}) };
    const step = (await act(request)) as { result?: { success: boolean } } | undefined;
    // Tab and IME actions move focus (or leave the page): later keys follow the keyboard focus.
    if (step && steps.some((s) => s.kind === 'tab' || s.kind === 'ime')) useInspector.getState().setTypeField(device.id, null);
    if (clearAfter && step?.result?.success) setText('');
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text === '' || !offered.type) return;
    void send([{ kind: 'type', text }], true);
  };

  // AppReveal's clear_text needs an element id: without a tapped field there is nothing to clear.
  const needsField = appReveal && !tappedField?.['resource-id'];
  const missing = offered.missing.join('\n');
  const hints = [
    offered.tapNode ? 'click: tap' : null,
    offered.doubleTap ? 'double-click: double tap' : null,
    offered.longPress ? 'hold: long press' : null,
    offered.swipe ? 'drag: swipe' : null,
  ].filter((h): h is string => h !== null);

  return (
    <div className="canvas-bar mode-row interact-bar" data-testid="interact-bar" data-busy={String(busy)}>
      <span
        className={`type-field${caption ? '' : ' none'}`}
        data-testid="type-field"
        data-target={tappedField ? 'tapped' : 'focus'}
        title={
          appReveal
            ? 'AppReveal types into an element by id: tap a field first'
            : tappedField
              ? 'Keys go to the field you tapped, until Tab, an IME action or another tap moves focus'
              : 'Keys follow the keyboard focus on the device (tap a field to aim them)'
        }
      >
        <span className="interact-title">Type into</span>
        {caption ? <strong>{caption}</strong> : <em>{appReveal ? 'tap a field first' : 'the focused field'}</em>}
        {!appReveal && !tappedField && caption && <span className="muted"> (keyboard focus)</span>}
      </span>
      <form className="type-form" onSubmit={submit}>
        <input
          data-testid="type-input"
          type={secret ? 'password' : 'text'}
          spellCheck={false}
          autoComplete="off"
          placeholder={offered.type ? 'Text to type' : 'This app registered no type_text tool'}
          disabled={!offered.type || !connected}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="key-button primary" data-testid="type-submit" disabled={!offered.type || !connected || text === '' || busy}>
          Type
        </button>
        <label
          className="secret-toggle"
          title={
            knownSecret
              ? 'This field hides its text: what you type is kept out of the timeline, traces and exports'
              : 'Keep what you type out of the timeline, traces and exports; a recording asks for it as a variable'
          }
        >
          <input type="checkbox" data-testid="type-secret" checked={secret} disabled={knownSecret} onChange={(e) => setAsSecret(e.target.checked)} />
          secret
        </label>
      </form>
      <span className="control-sep" />
      {offered.clear && (
        <button
          type="button"
          className="key-button"
          data-testid="key-clear"
          disabled={!connected || needsField}
          title="Clear the field"
          onClick={() => void send([{ kind: 'clear' }])}
        >
          Clear
        </button>
      )}
      {offered.replace && (
        <button
          type="button"
          className="key-button"
          data-testid="key-replace"
          disabled={!connected || needsField}
          title="Replace the field's text with the text in the box"
          onClick={() => void send([{ kind: 'replace', text }], true)}
        >
          Replace
        </button>
      )}
      {offered.imeDone && (
        <button
          type="button"
          className="key-button"
          data-testid="key-ime-done"
          disabled={!connected}
          title="The keyboard's Done key (IME action done)"
          onClick={() => void send([{ kind: 'ime', imeAction: 'done' }])}
        >
          Done ⏎
        </button>
      )}
      {offered.tab && (
        <button
          type="button"
          className="key-button"
          data-testid="key-tab"
          disabled={!connected}
          title="Tab to the next field"
          onClick={() => void send([{ kind: 'tab' }])}
        >
          Tab ⇥
        </button>
      )}
      {canGoBack && (
        <>
          <span className="control-sep" />
          <button
            type="button"
            className="key-button"
            data-testid="key-back"
            disabled={!connected}
            title="Go back (the app's navigate_back)"
            onClick={() => void act({ action: 'back' })}
          >
            ‹ Back
          </button>
        </>
      )}
      <span className="spacer" />
      {busy && (
        <span className="busy-note" data-testid="device-busy">
          running… (the next action waits for its result)
        </span>
      )}
      <span className="gesture-hint" data-testid="gesture-hint" title={[...hints, ...(missing ? [missing] : [])].join('\n')}>
        {hints.length > 0 ? hints.join(' · ') : 'this device offers no gestures'}
      </span>
    </div>
  );
}

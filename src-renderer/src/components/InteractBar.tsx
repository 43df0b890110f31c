import './InteractBar.css';
/**
 * Interact mode's keyboard: a text box that types into the focused field, and Clear, Replace, IME Done
 * and Tab. On an AppReveal device only what its tools can do is offered (no IME or Tab tool; no type box
 * without type_text), and keys go to the field the user last tapped (AppReveal types by element id).
 */
import { useState, type FormEvent } from 'react';
import { fieldCaption, keyTargetFor, type OfferedActions } from '@shared/inspect';
import type { ActionRequest, SendKeysStep } from '@shared/protocol/action';
import type { DeviceSummary, Frame } from '@shared/api/api';
import { useInspector } from '@renderer/state/store';
import { useTimeline } from '@renderer/state/timeline';

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
  const appReveal = device.kind === 'appreveal';
  const tappedField = useInspector((s) => s.typeField[device.id]);
  const busy = useTimeline((s) => s.pending.some((p) => p.deviceId === device.id && p.error === undefined));
  const focused = frame?.observation?.focusedElement?.node;
  // A runner types into whatever has keyboard focus; AppReveal into the field last tapped.
  const field = appReveal ? tappedField : focused;
  const caption = fieldCaption(field);
  const connected = device.state === 'connected';
  // The app's own back navigation: only an AppReveal app that registered navigate_back has one.
  const canGoBack = appReveal && device.supportedCommands.includes('navigate_back');

  const send = async (steps: SendKeysStep[], clearAfter = false) => {
    const target = appReveal ? keyTargetFor(tappedField, true) : undefined;
    const request: ActionRequest = { action: 'sendKeys', steps, ...(target ? { target } : {}) };
    const step = (await act(request)) as { result?: { success: boolean } } | undefined;
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
        title={appReveal ? 'AppReveal types into an element by id: tap a field first' : 'Keys follow the keyboard focus on the device (tap a field first)'}
      >
        <span className="interact-title">Type into</span>
        {caption ? <strong>{caption}</strong> : <em>{appReveal ? 'tap a field first' : 'the focused field'}</em>}
      </span>
      <form className="type-form" onSubmit={submit}>
        <input
          data-testid="type-input"
          type="text"
          spellCheck={false}
          autoComplete="off"
          placeholder={offered.type ? 'Text to type' : 'This app registered no type_text tool'}
          disabled={!offered.type || !connected}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="key-button primary" data-testid="type-submit" disabled={!offered.type || !connected || text === ''}>
          Type
        </button>
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
      {busy && <span className="busy-note">sending…</span>}
      <span className="gesture-hint" data-testid="gesture-hint" title={[...hints, ...(missing ? [missing] : [])].join('\n')}>
        {hints.length > 0 ? hints.join(' · ') : 'this device offers no gestures'}
      </span>
    </div>
  );
}

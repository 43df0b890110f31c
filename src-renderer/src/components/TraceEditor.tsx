import './TraceEditor.css';
/**
 * The trace view's editor (docs/rules.md#r-edit): the selected step's edits (name, move, delete, its
 * text or selector, an assertion after it) are queued here, listed, and saved together as a new file
 * beside the recording, which then opens; the recording is never changed. "Run this step" and "Run from
 * here" replay the selected step alone, or it and the rest, on the Replay panel's device.
 */
import { useState } from 'react';
import type { TraceOpened, TraceViewStep } from '@shared/api/api';
import { ASSERTION_CHECKS, type AssertionCheckKind } from '@shared/protocol/action';
import type { TraceEdit } from '@shared/trace/trace-edit';
import { useApi } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';
import { openTraceInView } from '@renderer/state/trace-view';
import { startReplay, useReplay } from '@renderer/state/replay';
import { chosenDevice, useDevicesFollowed } from './ReplayPanel';

const CHECK_LABELS: Record<AssertionCheckKind, string> = {
  visible: 'visible',
  notVisible: 'not visible',
  textEquals: 'text equals',
  valueEquals: 'value equals',
};

/** One queued edit in words, by the filmstrip's step numbers. */
function editText(edit: TraceEdit, numberOf: (callId: string) => number): string {
  switch (edit.op) {
    case 'delete':
      return `delete step ${numberOf(edit.callId)}`;
    case 'move':
      return `move step ${numberOf(edit.callId)} to place ${edit.to + 1}`;
    case 'rename':
      return edit.label === '' ? `unname step ${numberOf(edit.callId)}` : `name step ${numberOf(edit.callId)} “${edit.label}”`;
    case 'setText':
      return `step ${numberOf(edit.callId)} types “${edit.text}”`;
    case 'setSelector':
      return `step ${numberOf(edit.callId)} aims at ${'id' in edit.selector ? `id ${edit.selector.id}` : `text “${edit.selector.text}”`}`;
    case 'insertAssertion': {
      const where = edit.after === null ? 'before step 1' : `after step ${numberOf(edit.after)}`;
      const by = 'id' in edit.selector ? `id ${edit.selector.id}` : `text “${edit.selector.text}”`;
      return `assert ${by} ${CHECK_LABELS[edit.check]}${edit.expected !== undefined ? ` “${edit.expected}”` : ''} ${where}`;
    }
  }
}

export function TraceEditor({ trace, step, index }: { trace: TraceOpened; step: TraceViewStep; index: number }) {
  const api = useApi();
  const [edits, setEdits] = useState<TraceEdit[]>([]);
  const [label, setLabel] = useState('');
  const [text, setText] = useState('');
  const [selector, setSelector] = useState('');
  const [assertBy, setAssertBy] = useState<'id' | 'text'>('id');
  const [assertWhat, setAssertWhat] = useState('');
  const [check, setCheck] = useState<AssertionCheckKind>('visible');
  const [expected, setExpected] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const devices = useDevicesFollowed();
  const choice = useReplay((s) => s.choice);
  const running = useReplay((s) => s.run?.running === true);
  const device = chosenDevice(
    (devices.data ?? []).filter((d) => d.state === 'connected'),
    choice.deviceId,
  );
  const numberOf = (callId: string) => trace.steps.findIndex((s) => s.callId === callId) + 1;
  const add = (edit: TraceEdit) => {
    setError(null);
    setEdits((list) => [...list, edit]);
  };
  const callId = step.callId;
  const needsExpected = check === 'textEquals' || check === 'valueEquals';
  const run = (only: boolean) => {
    if (!device) return;
    void startReplay(api, {
      path: trace.path,
      deviceId: device.id,
      stopOnDivergence: choice.stopOnDivergence,
      total: only ? 1 : trace.steps.length - index,
      fromCallId: callId,
      only,
      // The steps outside the run get no badge from it: they were not part of it, not "not reached".
      scope: only ? [callId] : trace.steps.slice(index).map((s) => s.callId),
    });
  };
  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      const saved = await api.call('trace.saveEdited', { path: trace.path, edits });
      setEdits([]);
      await openTraceInView(saved.path, () => Promise.resolve(saved));
    } catch (e) {
      setError(`The edits were not saved: ${errorMessage(e)}`);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="trace-editor" data-testid="trace-editor" aria-label="Edit the trace">
      <div className="trace-editor-row">
        <strong>Step {index + 1}</strong>
        <button type="button" className="mini-button" data-testid="edit-run-step" disabled={!device || running} onClick={() => run(true)}>
          Run this step
        </button>
        <button type="button" className="mini-button" data-testid="edit-run-from" disabled={!device || running} onClick={() => run(false)}>
          Run from here
        </button>
        <button
          type="button"
          className="mini-button"
          data-testid="edit-move-up"
          disabled={index === 0}
          onClick={() => add({ op: 'move', callId, to: index - 1 })}
        >
          Move earlier
        </button>
        <button
          type="button"
          className="mini-button"
          data-testid="edit-move-down"
          disabled={index >= trace.steps.length - 1}
          onClick={() => add({ op: 'move', callId, to: index + 1 })}
        >
          Move later
        </button>
        <button type="button" className="mini-button" data-testid="edit-delete" onClick={() => add({ op: 'delete', callId })}>
          Delete
        </button>
      </div>
      <form
        className="trace-editor-row"
        onSubmit={(e) => {
          e.preventDefault();
          add({ op: 'rename', callId, label: label.trim() });
          setLabel('');
        }}
      >
        <input data-testid="edit-label" placeholder={step.label ?? 'Name this step'} value={label} maxLength={200} onChange={(e) => setLabel(e.target.value)} />
        <button type="submit" className="mini-button" data-testid="edit-rename">
          Rename
        </button>
      </form>
      {step.text !== undefined && (
        <form
          className="trace-editor-row"
          onSubmit={(e) => {
            e.preventDefault();
            add({ op: 'setText', callId, text });
          }}
        >
          <input data-testid="edit-text" placeholder={step.text} value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit" className="mini-button" data-testid="edit-set-text">
            Set text
          </button>
        </form>
      )}
      {step.target !== '' && (
        <form
          className="trace-editor-row"
          onSubmit={(e) => {
            e.preventDefault();
            const value = selector.trim();
            if (value === '') return;
            add({ op: 'setSelector', callId, selector: value.startsWith('#') ? { id: value.slice(1) } : { text: value } });
          }}
        >
          <input data-testid="edit-selector" placeholder="#id or text" value={selector} onChange={(e) => setSelector(e.target.value)} />
          <button type="submit" className="mini-button" data-testid="edit-set-selector">
            Aim by this
          </button>
        </form>
      )}
      <form
        className="trace-editor-row"
        onSubmit={(e) => {
          e.preventDefault();
          const value = assertWhat.trim();
          if (value === '' || (needsExpected && expected === '')) return;
          add({
            op: 'insertAssertion',
            after: callId,
            check,
            selector: assertBy === 'id' ? { id: value } : { text: value },
            ...(needsExpected ? { expected } : {}),
          });
        }}
      >
        <span>Assert after it:</span>
        <select data-testid="edit-assert-by" value={assertBy} onChange={(e) => setAssertBy(e.target.value as 'id' | 'text')}>
          <option value="id">id</option>
          <option value="text">text</option>
        </select>
        <input
          data-testid="edit-assert-what"
          placeholder={assertBy === 'id' ? 'login.submit' : 'Sign In'}
          value={assertWhat}
          onChange={(e) => setAssertWhat(e.target.value)}
        />
        <select data-testid="edit-assert-check" value={check} onChange={(e) => setCheck(e.target.value as AssertionCheckKind)}>
          {ASSERTION_CHECKS.map((c) => (
            <option key={c} value={c}>
              {CHECK_LABELS[c]}
            </option>
          ))}
        </select>
        {needsExpected && <input data-testid="edit-assert-expected" placeholder="expected" value={expected} onChange={(e) => setExpected(e.target.value)} />}
        <button type="submit" className="mini-button" data-testid="edit-insert-assert">
          Insert assertion
        </button>
      </form>
      {edits.length > 0 && (
        <div className="trace-editor-pending" data-testid="edit-pending">
          <ol>
            {edits.map((edit, i) => (
              <li key={i} data-testid="edit-pending-item">
                {editText(edit, numberOf)}{' '}
                <button
                  type="button"
                  className="mini-button"
                  aria-label="Take this edit back"
                  onClick={() => setEdits((list) => list.filter((_, j) => j !== i))}
                >
                  ✕
                </button>
              </li>
            ))}
          </ol>
          <button type="button" className="mini-button primary" data-testid="edit-save" disabled={saving} onClick={() => void save()}>
            {saving ? 'Saving…' : 'Save edited copy'}
          </button>
          <span className="muted"> a new file beside this one; this trace stays as it is</span>
        </div>
      )}
      {error && (
        <div className="banner error" role="alert" data-testid="edit-error">
          {error}
        </div>
      )}
    </section>
  );
}

import './DemoPanel.css';
/**
 * The demo device's controls (docs/rules.md#r-qa-18): when the selected device is the Parallax demo, its
 * screen and every fault it can play, each with its help text, so every fail-closed reason can be tried
 * from the UI. The host reads and changes them through the demo's admin endpoint; the page never sees
 * its address. A fault with a value (milliseconds, a reason, a command) takes it before it is turned on.
 */
import { useEffect, useMemo, useState } from 'react';
import type { DemoState } from '@shared/api/api';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { demoScreenIn, type DemoFaultValue } from '@shared/protocol/demo-admin';
import { ACTION_REJECTION_REASONS } from '@shared/protocol/sdk';
import { RUNNER_COMMANDS } from '@shared/protocol/runner';
import { useDemoChange, useDemoState } from '@renderer/api/queries';
import { errorMessage, plural } from '@renderer/state/format';

type Known = DemoState['known'][number];

/** What a value fault starts with, before the user types another. */
const DEFAULT_VALUE: Record<Exclude<DemoFaultValue, 'flag'>, string> = {
  ms: '3000',
  count: '1000',
  uint64: '1',
  reason: ACTION_REJECTION_REASONS[3],
  space: 'window',
  command: 'request_tap_coordinates',
};

const CHOICES: Partial<Record<DemoFaultValue, readonly string[]>> = {
  space: ['screen', 'window', 'view'],
  command: RUNNER_COMMANDS,
};

/** The active faults as name → value ('' for a flag). */
function activeFaults(faults: readonly string[]): Map<string, string> {
  return new Map(
    faults.map((spec) => {
      const eq = spec.indexOf('=');
      return eq < 0 ? [spec, ''] : [spec.slice(0, eq), spec.slice(eq + 1)];
    }),
  );
}

function FaultRow({
  fault,
  on,
  value,
  busy,
  onChange,
}: {
  fault: Known;
  on: boolean;
  value: string | undefined;
  busy: boolean;
  onChange(spec: string | null): void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const kind = fault.value;
  const shown = draft ?? value ?? (kind === 'flag' ? '' : DEFAULT_VALUE[kind]);
  const spec = kind === 'flag' ? fault.name : `${fault.name}=${shown.trim()}`;
  const apply = () => {
    if (!on) return; // An off fault keeps what was typed, for when it is turned on.
    if (draft !== null && draft !== value) onChange(spec);
    setDraft(null);
  };
  const choices = CHOICES[kind];
  return (
    <li className={`demo-fault${on ? ' is-on' : ''}`} data-testid="demo-fault" data-name={fault.name} data-on={String(on)} data-value={value ?? ''}>
      <label className="demo-fault-line">
        <input type="checkbox" data-testid="demo-fault-toggle" checked={on} disabled={busy} onChange={(e) => onChange(e.target.checked ? spec : null)} />
        <span className="demo-fault-name">{fault.name}</span>
      </label>
      {kind !== 'flag' &&
        (choices ? (
          <select
            className="demo-fault-value"
            data-testid="demo-fault-value"
            aria-label={`${fault.name} value`}
            value={shown}
            disabled={busy}
            onChange={(e) => {
              if (on) onChange(`${fault.name}=${e.target.value}`);
              else setDraft(e.target.value);
            }}
          >
            {choices.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        ) : (
          <input
            className="demo-fault-value"
            data-testid="demo-fault-value"
            aria-label={`${fault.name} value`}
            list={kind === 'reason' ? 'demo-reasons' : undefined}
            inputMode={kind === 'reason' ? 'text' : 'numeric'}
            spellCheck={false}
            value={shown}
            disabled={busy}
            onChange={(e) => setDraft(e.target.value)}
            onBlur={apply}
            onKeyDown={(e) => {
              if (e.key === 'Enter') apply();
            }}
          />
        ))}
      <div className="demo-fault-help">{fault.help}</div>
    </li>
  );
}

export function DemoPanel({ device, frame }: { device: DeviceSummary | undefined; frame?: Frame | undefined }) {
  const state = useDemoState(device);
  const change = useDemoChange(device?.id ?? '');
  const [open, setOpen] = useState(true);
  // The Screen menu shows the device's real screen (docs/rules.md#r-phone-04): a tap that changed it on
  // the phone (a tab, a link) makes the demo's own answer read again, not a guess from the tree.
  // Per tree, not per render: live mode renders this for every picture, and the heavy screen's third
  // level holds thousands of views.
  const root = frame?.deviceId === device?.id ? frame?.observation?.viewHierarchy?.hierarchy : undefined;
  const shown = useMemo(() => demoScreenIn(root), [root]);
  const known = state.data?.screen;
  const { refetch, isFetching } = state;
  useEffect(() => {
    if (shown !== undefined && known !== undefined && shown !== known && !isFetching) void refetch();
    // Asked once per screen change seen; the answer is the demo's own.
  }, [shown, known]);
  if (!device || !state.data) return null;
  const demo = state.data;
  const active = activeFaults(demo.faults);
  const busy = change.isPending;
  return (
    <section className="demo-panel" data-testid="demo-panel" aria-label="Demo device">
      <button type="button" className="section-title demo-title" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} Demo device <span className="demo-count">{active.size > 0 ? plural(active.size, 'fault') + ' on' : 'no faults'}</span>
      </button>
      {open && (
        <div className="demo-body">
          <label className="demo-screen">
            <span>Screen</span>
            <select data-testid="demo-screen-select" value={demo.screen} disabled={busy} onChange={(e) => change.mutate({ screen: e.target.value })}>
              {demo.screens.map((screen) => (
                <option key={screen} value={screen}>
                  {screen}
                </option>
              ))}
            </select>
            {busy && <span className="demo-busy">applying…</span>}
          </label>
          {change.error && (
            <div className="form-error" data-testid="demo-error">
              {errorMessage(change.error)}
            </div>
          )}
          <p className="demo-note">Each fault makes the demo misbehave as a real device or app does; the next action says what it met.</p>
          <ul className="demo-faults" data-testid="demo-faults">
            {demo.known.map((fault) => (
              <FaultRow
                key={fault.name}
                fault={fault}
                on={active.has(fault.name)}
                value={active.get(fault.name)}
                busy={busy}
                onChange={(spec) => change.mutate(spec === null ? { remove: [fault.name] } : { add: [spec] })}
              />
            ))}
          </ul>
          <datalist id="demo-reasons">
            {ACTION_REJECTION_REASONS.map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
        </div>
      )}
    </section>
  );
}

/**
 * Recorded assertions (docs/rules.md#r-asrt-01): while the device records, the selected node (or the one
 * element the try box finds) offers Assert visible / not visible / text equals / value equals. Each is
 * an action like a tap: checked on the host's own read, a timeline row and a trace step, replayed and
 * exported with the selector a tap on the element would use.
 */
import type { ActionRequest, AssertionCheckKind, TargetSelector } from '@shared/protocol/action';
import type { DeviceSummary } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import type { TreeIndex } from '@shared/model/tree';
import { labelOf, valueOf, identifierOf } from '@shared/selectors/element';
import { withoutChildren } from '@shared/model/node';
import { useRecordingStatus } from '@renderer/api/queries';
import { useScopedInspector } from '@renderer/state/inspector-scope';
import { useSelectorTry } from '@renderer/state/selector-try';

/** The element by its identifier, else its label (what replays and exports find again), else the node itself. */
export function assertionTarget(node: UiNode): TargetSelector {
  const id = identifierOf(node);
  if (id !== undefined) return { id };
  const label = labelOf(node);
  if (label !== undefined) return { text: label };
  return { node: withoutChildren(node) };
}

export function AssertControls({
  device,
  tree,
  act,
}: {
  device: DeviceSummary | undefined;
  tree: TreeIndex;
  act: (request: ActionRequest) => Promise<unknown>;
}) {
  const status = useRecordingStatus();
  const selectedKey = useScopedInspector((s) => s.selectedKey);
  // The try box's last answer, read here rather than passed down, so it never renders App (docs/rules.md#r-hand-13).
  const tryMatches = useSelectorTry((s) => s.matches);
  const recording = status.data?.recording === true && status.data.deviceId === device?.id;
  if (!device || device.state !== 'connected' || !recording) return null;
  const tried = tryMatches?.length === 1 ? tree.byKey.get(tryMatches[0]!) : undefined;
  const selected = selectedKey === null ? undefined : tree.byKey.get(selectedKey);
  const flat = tried ?? selected;
  if (!flat) return null;
  const node = flat.node;
  const target = assertionTarget(node);
  const label = labelOf(node);
  const value = valueOf(node);
  const send = (check: AssertionCheckKind, expected?: string) => void act({ action: 'assert', target, check, ...(expected !== undefined ? { expected } : {}) });
  return (
    <div className="assert-controls" data-testid="assert-controls" data-source={tried ? 'try' : 'selected'}>
      <span className="muted">Assert {tried ? 'the try box’s match' : 'the selected element'}:</span>{' '}
      <button type="button" className="mini-button" data-testid="assert-visible" onClick={() => send('visible')}>
        visible
      </button>
      <button type="button" className="mini-button" data-testid="assert-not-visible" onClick={() => send('notVisible')}>
        not visible
      </button>
      <button
        type="button"
        className="mini-button"
        data-testid="assert-text"
        disabled={label === undefined}
        title={label === undefined ? 'The element has no label' : `label = ${JSON.stringify(label)}`}
        onClick={() => send('textEquals', label)}
      >
        text = {label === undefined ? '…' : JSON.stringify(label)}
      </button>
      <button
        type="button"
        className="mini-button"
        data-testid="assert-value"
        disabled={value === undefined}
        title={value === undefined ? 'The element has no value' : `value = ${JSON.stringify(value)}`}
        onClick={() => send('valueEquals', value)}
      >
        value = {value === undefined ? '…' : JSON.stringify(value)}
      </button>
    </div>
  );
}

/**
 * The observe-scope picker (docs/rules.md#r-scope-06) beside the strategy: the shown tree narrowed as
 * `parallax observe --observe-focus app / --observe-region content / --observe-overview` narrows it, and
 * what the scope did (`observeScope`) said beside it, so a narrowed tree never reads as the whole screen.
 */
import type { ObserveScope } from '@shared/protocol/observation';
import { VIEW_SCOPES, VIEW_SCOPE_TEXT, useObserveScope, type ViewScope } from '@renderer/state/observe-scope';

function scopeNote(scope: ObserveScope): string {
  const removed = scope.nodesBefore - scope.nodesAfter;
  const did = scope.applied.length > 0 ? scope.applied.join(' + ') : 'nothing removed';
  const focus = scope.focus && !scope.focus.matched ? ' (no foreign chrome found)' : '';
  return `${did}${focus}: ${scope.nodesAfter} of ${scope.nodesBefore} nodes${removed > 0 ? `, ${removed} hidden` : ''}`;
}

export function ScopeControl({ observeScope }: { observeScope: ObserveScope | undefined }) {
  const scope = useObserveScope((s) => s.scope);
  const setScope = useObserveScope((s) => s.setScope);
  return (
    <label
      className="control scope-control"
      title="Narrow the shown tree as seed 002's observe-scopes do; the device's frames, history and recordings stay whole"
    >
      <span className="control-label">Scope</span>
      <select data-testid="scope-select" value={scope} onChange={(e) => setScope(e.target.value as ViewScope)}>
        {VIEW_SCOPES.map((s) => (
          <option key={s} value={s}>
            {VIEW_SCOPE_TEXT[s]}
          </option>
        ))}
      </select>
      {observeScope && (
        <span
          className="control-label"
          data-testid="scope-note"
          data-applied={observeScope.applied.join(',')}
          data-nodes-after={observeScope.nodesAfter}
          data-nodes-before={observeScope.nodesBefore}
        >
          {scopeNote(observeScope)}
        </span>
      )}
    </label>
  );
}

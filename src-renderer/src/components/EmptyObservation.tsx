/**
 * An observation that holds nothing to inspect says why, as an error, instead of a blank screen
 * (docs/rules.md#r-ar-31): the verdict's words and each failed read's line, from the one rule the CLI's
 * `observe` uses too (`emptyObservationReasons`).
 */
import type { Frame } from '@shared/protocol/device';
import { emptyObservationReasons } from '@shared/inspect/observation';

export function EmptyObservation({ frame }: { frame: Frame | undefined }) {
  const observation = frame?.observation;
  const reasons = observation ? emptyObservationReasons(observation) : undefined;
  if (!reasons) return null;
  return (
    <div className="banner errors" role="alert" data-testid="empty-observation" data-count={reasons.length}>
      <div className="errors-title">Nothing to inspect in this observation{frame?.screenshot ? ' (the screenshot has no elements over it)' : ''}</div>
      <ul>
        {reasons.map((reason, i) => (
          <li key={i} data-testid="empty-observation-reason">
            {reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

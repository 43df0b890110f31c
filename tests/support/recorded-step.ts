/**
 * A recorded step as the recorder writes it (the action and its target resolved on the screen it was
 * recorded on), for the replay's pure judging tests (tests/unit/replay-judge, replay-scrolled).
 */
import type { ActionRequest } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import type { TimelineStep } from '@shared/trace/reader';
import { traceActionFor } from '@shared/trace/action-record';

export function recordedStep(request: ActionRequest, root: UiNode, callId = 'c1'): TimelineStep {
  const { action, target } = traceActionFor(request, root);
  return {
    index: 0,
    callId,
    kind: 'action',
    status: 'succeeded',
    statusText: 'succeeded',
    before: { type: 'action.before', callId, seq: 1, time: 1, action, ...(target ? { target } : {}) },
    observations: [],
    comparisons: [],
    notes: [],
    startTime: 1,
    warnings: [],
  };
}

/**
 * A recorded assertion on a runner (docs/rules.md#r-asrt-01): one read (the observation the UI shows
 * after it, with its screenshot), the pure check of src-shared/act/assert.ts, and nothing sent to the app.
 */
import type { z } from 'zod';
import type { AssertRequestSchema } from '@shared/protocol/action';
import { nodeTargetRecord, PLAIN_XCTEST } from '@shared/act';
import { checkAssertion } from '@shared/act/assert';
import { selectorValue } from '@shared/act/resolve';
import { type ActionRun, fail, ok, type Outcome } from './run';

export async function runAssert(run: ActionRun, request: z.output<typeof AssertRequestSchema>): Promise<Outcome> {
  const read = await run.observeAfter('freshRead');
  if (!read.root) return { served: PLAIN_XCTEST, ending: fail(run.readFailure(read), false), target: { resolvedBy: 'screen' } };
  const check = await run.timed('resolve', () => checkAssertion(request, read.root));
  const selector = selectorValue(request.target);
  const target = check.node
    ? nodeTargetRecord(check.node, 'id' in request.target ? 'id' : 'text' in request.target ? 'text' : 'node', { selector })
    : { resolvedBy: 'screen' as const, selector };
  return { served: PLAIN_XCTEST, ending: check.ok ? ok : fail('assertion_failed', false), target, warnings: [check.detail] };
}

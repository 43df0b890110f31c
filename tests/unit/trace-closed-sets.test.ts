/**
 * A trace's backend and fallback reason are closed sets (docs/protocol.md#p-action-result-api): every
 * value Parallax ever wrote reads, and anything else is refused naming the field, not carried as text.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS, FALLBACK_REASONS } from '@shared/protocol/observation';
import { TraceActionResultSchema } from '@shared/trace/schema';
import { ComparedOutcomeSchema } from '@shared/trace/action-record';

describe("a trace's backend and fallback reason", () => {
  it.each([...BACKENDS])('backend %s reads', (backend) => {
    expect(TraceActionResultSchema.parse({ success: true, backend }).backend).toBe(backend);
  });

  it.each([...FALLBACK_REASONS])('fallbackReason %s reads', (fallbackReason) => {
    expect(TraceActionResultSchema.parse({ success: true, backend: 'xctest', fallbackReason }).fallbackReason).toBe(fallbackReason);
  });

  it('refuses a value outside the set, naming the field', () => {
    for (const schema of [TraceActionResultSchema, ComparedOutcomeSchema]) {
      const backend = schema.safeParse({ success: true, backend: 'android' });
      expect(backend.success).toBe(false);
      expect(backend.error?.issues[0]?.path).toEqual(['backend']);
      const fallback = schema.safeParse({ success: true, backend: 'xctest', fallbackReason: 'because' });
      expect(fallback.error?.issues[0]?.path).toEqual(['fallbackReason']);
    }
  });
});

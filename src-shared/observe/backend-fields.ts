/** The two backend fields a merge may set (docs/rules.md#r-obs-06); absent when no bridge took part (R-SEL-02). */
import type { Backend, FallbackReason } from '@shared/protocol/observation';

export interface BackendFields {
  backend?: Backend;
  fallbackReason?: FallbackReason;
}

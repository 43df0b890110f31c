/** The two seed 000 result fields a merge may set; absent when no bridge took part. */
import type { Backend, FallbackReason } from '@shared/protocol/observation';

export interface BackendFields {
  backend?: Backend;
  fallbackReason?: FallbackReason;
}

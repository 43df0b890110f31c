/**
 * The capability cache (docs/rules.md#r-disc-03): one discovery, bound to the foreground app and the
 * generation it was probed in, so a probe answered for one foreground app never answers for another.
 *
 * The caller owns the generation counter and bumps it whenever the foreground app changes (a launch, a
 * switch, a relaunch of the same bundle). No timers: expiry is the caller's business.
 */
import type { SdkDiscovery } from './discovery';

export interface GenerationBinding {
  bundleId: string;
  generation: number;
}

export function sameBinding(a: GenerationBinding, b: GenerationBinding): boolean {
  return a.bundleId === b.bundleId && a.generation === b.generation;
}

export class CapabilityCache {
  private entry: { binding: GenerationBinding; discovery: Extract<SdkDiscovery, { ok: true }> } | undefined;
  /** The newest generation seen; a reply probed in an older one arrives too late to be stored. */
  private newestGeneration = Number.NEGATIVE_INFINITY;

  /** The discovery probed under exactly this binding, if any. */
  get(binding: GenerationBinding): Extract<SdkDiscovery, { ok: true }> | undefined {
    return this.entry && sameBinding(this.entry.binding, binding) ? this.entry.discovery : undefined;
  }

  /**
   * Stores a discovery probed under `binding`. Refused (false) when the binding is older than one already
   * seen, when the discovery is for another bundle, or when the probe failed: a failure must be retried,
   * never served from the cache as if it were an answer.
   */
  set(binding: GenerationBinding, discovery: SdkDiscovery): boolean {
    if (!discovery.ok || discovery.bundleId !== binding.bundleId) return false;
    if (binding.generation < this.newestGeneration) return false;
    this.newestGeneration = binding.generation;
    this.entry = { binding: { ...binding }, discovery };
    return true;
  }

  /** Marks `binding` as current: anything cached under another binding is dropped. */
  advance(binding: GenerationBinding): void {
    if (binding.generation >= this.newestGeneration) this.newestGeneration = binding.generation;
    if (this.entry && !sameBinding(this.entry.binding, binding)) this.entry = undefined;
  }

  clear(): void {
    this.entry = undefined;
  }
}

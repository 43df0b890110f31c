/**
 * What a replay needs of a trace (docs/rules.md#r-mem-04): its action steps, nothing else. Built in the
 * trace worker from the parsed trace, so the host (the web host's Replay button, `parallax replay`) holds
 * the actions (at most TRACE_EVENT_LIMITS' 100,000) and reads frames from the trace's index on demand,
 * never the events: a trace of a million observations costs the host nothing beyond its actions.
 */
import type { TimelineStep } from '@shared/trace/reader';
import type { TraceManifest } from '@shared/trace/schema';
import type { OpenedTrace, TraceResources } from './open';

export interface ReplayPlan {
  path: string;
  manifest: TraceManifest;
  /** How many steps the whole timeline has (actions, observations, notes): the CLI's column width. */
  timelineSteps: number;
  /** The timeline's action steps in order, each without the observations, comparisons and notes of its call. */
  actions: TimelineStep[];
}

/** The plan of an opened trace (run in the trace worker). */
export function replayPlanOf(trace: OpenedTrace): ReplayPlan {
  return {
    path: trace.path,
    manifest: trace.manifest,
    timelineSteps: trace.timeline.length,
    actions: trace.timeline.filter((step) => step.kind === 'action').map((step) => ({ ...step, observations: [], comparisons: [], notes: [] })),
  };
}

/** A plan joined to the trace's resources: what replayTrace takes, its timeline the actions alone. */
export type ReplayableTrace = TraceResources & { timeline: TimelineStep[]; plan: ReplayPlan };

export function replayableTrace(plan: ReplayPlan, resources: TraceResources): ReplayableTrace {
  return {
    path: resources.path,
    source: resources.source,
    inProgress: resources.inProgress,
    manifest: resources.manifest,
    hasResource: (ref) => resources.hasResource(ref),
    resource: (ref) => resources.resource(ref),
    resourceJson: (ref) => resources.resourceJson(ref),
    timeline: plan.actions,
    plan,
  };
}

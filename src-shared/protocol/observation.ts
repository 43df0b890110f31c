/**
 * The observation the inspector assembles for one iOS frame (docs/protocol.md#p-observation): the rules of
 * docs/rules.md#r-observation-spec adapted to iOS, R-OBS-06 and R-SEL-02 for the backend fields, and
 * docs/rules.md#r-strategies for strategy and quality. Produced by `src-shared/observe/assemble.ts`, the
 * one place that builds it; every other boundary (IPC, web host, trace files) decodes it with this schema.
 *
 * Capture identities are UInt64 decimal strings. `captureIdentity` is one of json.ts's UINT64_KEYS, so
 * stringifyJsonLossless writes it as bare digits and parseJsonLossless reads it back exactly.
 */
import { z } from 'zod';
import { UInt64Schema } from './json';
import { BoundsSchema, EdgeInsetsSchema, InsetsSchema, UiNodeSchema, ViewHierarchySchema, WindowInfoSchema } from './runner';
import { AccessibilityAuditSchema } from './accessibility';
import { BridgeActionKindSchema, OBSERVATION_BRIDGE_REASONS, SdkRelayFailureSchema } from './sdk';
import { PerfSnapshotSchema } from './perf';

// ---- Backend ----------------------------------------------------------------------------------------

/**
 * What served an observation or an action: the app's SDK bridges, XCTest through the runner, or the
 * app's own AppReveal MCP server. Observations and actions report the same names.
 */
export const BACKENDS = ['sdk', 'xctest', 'appreveal'] as const;
export const BackendSchema = z.enum(BACKENDS);
export type Backend = z.infer<typeof BackendSchema>;

/** `unsupported` only arises for actions; an observation falls back only as `unavailable`. */
export const FALLBACK_REASONS = ['unavailable', 'unsupported'] as const;
export const FallbackReasonSchema = z.enum(FALLBACK_REASONS);
export type FallbackReason = z.infer<typeof FallbackReasonSchema>;

/**
 * The observation bridge of one foreground app as discovery derived it (R-DISC-04): either
 * usable, with its schema version and sorted action kinds, or not, with one reason.
 */
export const BridgeStateSchema = z.discriminatedUnion('available', [
  z.object({
    available: z.literal(true),
    schemaVersion: z.number().int(),
    supportedActions: z.array(BridgeActionKindSchema),
  }),
  z.object({
    available: z.literal(false),
    reason: z.enum(OBSERVATION_BRIDGE_REASONS),
  }),
]);
export type BridgeState = z.infer<typeof BridgeStateSchema>;

import { NodeSourceSchema } from './node-source';
export { NodeSourceSchema, type NodeSource } from './node-source';

// ---- Strategy and quality (docs/rules.md#r-strategies) ---------------------------------------------

export const StrategySchema = z.enum(['visible', 'raw']);
export type Strategy = z.infer<typeof StrategySchema>;

export const QualityVerdictSchema = z.enum(['healthy', 'recovered', 'sparse']);
export type QualityVerdict = z.infer<typeof QualityVerdictSchema>;

export const QUALITY_REASONS = [
  /** XCTest returned controls or content. */
  'xctest_tree',
  /** XCTest returned the XCUIApplication node and nothing under it. */
  'application_root_only',
  /** XCTest returned the root and wrappers with no content and nothing interactive. */
  'non_interactive_wrappers_only',
  /** XCTest was sparse; the native bridge's merged nodes supplied the controls. */
  'sdk_bridge_supplied_controls',
  /** XCTest was sparse; the merged web view snapshot supplied the controls. */
  'web_bridge_supplied_controls',
  /** The runner reported an accessibility serialization failure (kAXError…) instead of a tree. */
  'ax_failure',
  /** The runner reported another hierarchy error instead of a tree. */
  'hierarchy_error',
  /** No hierarchy arrived at all (timeout, disconnect). */
  'hierarchy_unavailable',
  /** AppReveal: the app listed its own elements (get_elements). Not an XCTest read. */
  'appreveal_elements',
  /** AppReveal: the app's get_elements answered an empty list. */
  'appreveal_no_elements',
  /** AppReveal: the app registered no get_elements tool, so there is no element tree at all. */
  'appreveal_elements_not_offered',
  /** AppReveal: get_elements failed or did not answer. */
  'appreveal_elements_failed',
] as const;
export const QualityReasonSchema = z.enum(QUALITY_REASONS);
export type QualityReason = z.infer<typeof QualityReasonSchema>;

export const QualitySchema = z.object({ verdict: QualityVerdictSchema, reason: QualityReasonSchema });
export type Quality = z.infer<typeof QualitySchema>;

// ---- Layout warnings (R-LAY-01 to R-LAY-09) ---------------------------------------------------------

export const MAX_LAYOUT_WARNINGS = 100;

export const LayoutSideSchema = z.enum(['top', 'bottom', 'left', 'right', 'cutout']);
export type LayoutSide = z.infer<typeof LayoutSideSchema>;

/** Ordered from most to least severe; `advisory` findings are never failures. */
export const LAYOUT_SEVERITIES = ['error', 'warning', 'advisory'] as const;
export const LayoutSeveritySchema = z.enum(LAYOUT_SEVERITIES);
export type LayoutSeverity = z.infer<typeof LayoutSeveritySchema>;

export const LayoutWarningSchema = z.object({
  /** Index path (inspect/tree.ts NodeKey) of the element in this observation's viewHierarchy. */
  nodeKey: z.string(),
  side: LayoutSideSchema,
  region: z.enum(['statusBar', 'homeIndicator', 'leftInset', 'rightInset', 'displayCutout']),
  severity: LayoutSeveritySchema,
  /** Why a finding is only advisory. */
  advisory: z.enum(['edgeToEdgeBackground', 'scrollableContent']).optional(),
  /** How far the element extends into the unsafe region, in the observation's units (points). */
  overflowPx: z.number().nonnegative(),
  /** The effective inset on that side, in the same units. */
  insetPx: z.number().nonnegative(),
  bounds: BoundsSchema,
  className: z.string().optional(),
  /** What a reader would call the element (its id, label or text). */
  caption: z.string().optional(),
});
export type LayoutWarning = z.infer<typeof LayoutWarningSchema>;

export const LayoutWarningsSchema = z
  .object({
    scope: z.enum(['full', 'truncated', 'scoped']),
    /** The pre-cap count; present only when the list was capped. */
    total: z.number().int().nonnegative().optional(),
    warnings: z.array(LayoutWarningSchema).max(MAX_LAYOUT_WARNINGS),
  })
  .refine((w) => w.scope !== 'truncated' || w.total !== undefined, { path: ['total'], message: 'a truncated list states its total' });
export type LayoutWarnings = z.infer<typeof LayoutWarningsSchema>;

// ---- Partial failures -------------------------------------------------------------------------------

/** `appreveal`: a read of an AppReveal app's own tools (get_elements, get_screen, list_windows). */
export const OBSERVATION_STAGES = ['xctest', 'discovery', 'projection', 'bridge', 'web', 'layout', 'appreveal'] as const;
export const ObservationStageSchema = z.enum(OBSERVATION_STAGES);
export type ObservationStage = z.infer<typeof ObservationStageSchema>;

export const OBSERVATION_ERROR_CODES = [
  'ax_failure',
  'hierarchy_error',
  'hierarchy_unavailable',
  'capability_query_failed',
  'raw_too_large',
  'bridge_no_answer',
  'bridge_failure',
  'web_no_answer',
  'web_failure',
  /** A bug in a pure stage; the other stages' data is still there. */
  'internal_error',
] as const;
export const ObservationErrorCodeSchema = z.enum(OBSERVATION_ERROR_CODES);
export type ObservationErrorCode = z.infer<typeof ObservationErrorCodeSchema>;

export const ObservationErrorSchema = z.object({
  stage: ObservationStageSchema,
  code: ObservationErrorCodeSchema,
  message: z.string(),
  /** The relay's typed failure, when the stage was an SDK relay command. */
  failure: SdkRelayFailureSchema.optional(),
});
export type ObservationError = z.infer<typeof ObservationErrorSchema>;

// ---- Per-source outcome (diagnostics for the UI: why a source was or was not merged) ----------------

export const SourceOutcomeSchema = z.object({
  status: z.enum(['merged', 'not_merged', 'not_read']),
  /** A short code: `merged`, `flag_off`, `probe_failed`, a bridge reason, a relay failure, … */
  reason: z.string(),
  /** Nodes the source added to the tree. */
  nodes: z.number().int().nonnegative().optional(),
  /** XCTest leaves it removed (bridge duplicates) or replaced (web view leaves). */
  leaves: z.number().int().nonnegative().optional(),
});
export type SourceOutcome = z.infer<typeof SourceOutcomeSchema>;

// ---- The observation --------------------------------------------------------------------------------

export const ScreenSizeSchema = z.object({
  width: z.number(),
  height: z.number(),
  scale: z.number().optional(),
});

export const FocusedElementSchema = z.object({
  nodeKey: z.string(),
  source: NodeSourceSchema,
  /** The focused node's attributes, without its children. */
  node: UiNodeSchema,
});
export type FocusedElement = z.infer<typeof FocusedElementSchema>;

/**
 * Seed 002's observe-scope record (docs/rules.md#r-lay-10, #r-scope-01), as AutoMobile's `ObserveScopeMetadata`
 * (kaeawc/auto-mobile src/models/ObserveScope.ts): the transforms that ran, what they removed, the crop in
 * points and how FOCUS resolved its subtree.
 */
export const ObserveScopeKindSchema = z.enum(['focus', 'region', 'overview']);
export type ObserveScopeKind = z.infer<typeof ObserveScopeKindSchema>;
export const ObserveScopeSchema = z.object({
  /** In application order (focus, region, overview): focus and region when they removed a node, overview always. */
  applied: z.array(ObserveScopeKindSchema),
  nodesBefore: z.number().int().nonnegative(),
  nodesAfter: z.number().int().nonnegative(),
  /** The crop in the observation's units (points, fractional); absent without a screen size. */
  regionPx: z.object({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() }).optional(),
  /** How FOCUS resolved its subtree, when FOCUS was asked for. */
  focus: z.object({ by: z.enum(['anchor', 'foreground-app']), matched: z.boolean(), packageName: z.string().optional() }).optional(),
});
export type ObserveScope = z.infer<typeof ObserveScopeSchema>;

export const ObservationSchema = z
  .object({
    /** Device timestamp (the hierarchy's updatedAt), else the inspector's clock. */
    updatedAt: z.number(),
    updatedAtSource: z.enum(['device', 'server']),
    screenSize: ScreenSizeSchema.optional(),
    insets: InsetsSchema.optional(),
    /** Seed 002: the compatibility alias of the system-bar edges (docs/rules.md#r-obj-03); prefer `insets`. */
    systemInsets: EdgeInsetsSchema.optional(),
    rotation: z.number().int().optional(),
    activeWindow: z.object({ bundleId: z.string().optional(), window: WindowInfoSchema.optional() }).optional(),
    /** The projected (visible) or whole (raw) XCTest hierarchy with the bridge and web nodes merged in. */
    viewHierarchy: ViewHierarchySchema.optional(),
    focusedElement: FocusedElementSchema.optional(),
    layoutWarnings: LayoutWarningsSchema,
    errors: z.array(ObservationErrorSchema),
    /** R-SEL-02, R-OWV-16: present only when a registered bridge or a merged web view took part. */
    backend: BackendSchema.optional(),
    fallbackReason: FallbackReasonSchema.optional(),
    quality: QualitySchema,
    strategy: StrategySchema,
    /** Milliseconds per stage (`xctest`, `discovery`, `bridge`, `web`, `projection`, `merge`, `layout`, …). */
    timings: z.record(z.string(), z.number().nonnegative()),
    /** The merged bridge snapshot's capture: the observation a bridge action must name. */
    captureIdentity: UInt64Schema.optional(),
    /** The XCTest hierarchy's frame context token. */
    frameContext: z.string().optional(),
    /** The merged web snapshot: the DOM nodes' capture identity. */
    webSnapshotId: z.string().optional(),
    /** What discovery said about the foreground app's bridge (absent when the probe failed). */
    bridge: BridgeStateSchema.optional(),
    sources: z.object({ bridge: SourceOutcomeSchema.optional(), web: SourceOutcomeSchema.optional() }),
    /** Seed 002's accessibilityAudit: present when the audit mode is on (docs/rules.md#r-a11y). */
    accessibilityAudit: AccessibilityAuditSchema.optional(),
    /** Seed 002: present only while the device's perf mode is on (docs/rules.md#r-perfsnap). */
    perfSnapshot: PerfSnapshotSchema.optional(),
    /** Seed 002: present only when an observe-scope transform ran (`--observe-focus`, `--observe-region`, `--observe-overview`). */
    observeScope: ObserveScopeSchema.optional(),
  })
  .refine((o) => o.fallbackReason === undefined || o.backend === 'xctest', {
    path: ['fallbackReason'],
    message: 'a fallback reason goes with backend xctest',
  });
export type Observation = z.infer<typeof ObservationSchema>;

/**
 * The accessibility audit of one observation (docs/rules.md#r-a11y), as the observation carries it under
 * seed 002's name `accessibilityAudit` when the audit mode is on, and as a recording, a report and
 * `parallax audit --json` write it. The shape follows AutoMobile's own (kaeawc/auto-mobile
 * src/models/AccessibilityAudit.ts: `violations`, `summary.bySeverity`, `summary.notEvaluated`),
 * with the kinds named after XCTest's XCUIAccessibilityAuditType members.
 */
import { z } from 'zod';
import { BoundsSchema } from './runner';
import { NodeSourceSchema } from './node-source';

/** XCUIAccessibilityAuditType names (Apple: XCUIAccessibilityAuditType), one per kind of check. */
export const A11Y_KINDS = ['elementDetection', 'sufficientElementDescription', 'hitRegion', 'contrast', 'trait', 'textClipped'] as const;
export const A11yKindSchema = z.enum(A11Y_KINDS);
export type A11yKind = z.infer<typeof A11yKindSchema>;

/** Most to least severe. `error`: a VoiceOver or low-vision user is blocked; `warning`: hindered. */
export const A11Y_SEVERITIES = ['error', 'warning', 'info'] as const;
export const A11ySeveritySchema = z.enum(A11Y_SEVERITIES);
export type A11ySeverity = z.infer<typeof A11ySeveritySchema>;

/** An sRGB colour as `#rrggbb`. */
const HexColorSchema = z.string().regex(/^#[0-9a-f]{6}$/);

export const A11yFindingSchema = z.object({
  /** The rule's id in docs/rules.md (R-A11Y-NN). */
  rule: z.string(),
  kind: A11yKindSchema,
  severity: A11ySeveritySchema,
  /** Index path of the element in the observation's viewHierarchy (model/tree.ts NodeKey). */
  nodeKey: z.string(),
  /** Who the element is: enough to find it again in another observation of the same screen. */
  element: z.object({
    className: z.string().optional(),
    id: z.string().optional(),
    label: z.string().optional(),
    source: NodeSourceSchema,
  }),
  bounds: BoundsSchema,
  /** What is wrong, in a sentence a QA engineer can paste into a bug. */
  message: z.string(),
  /** What was measured, name to value (sizes in points, ratios, the labels compared). */
  evidence: z.record(z.string(), z.union([z.string(), z.number()])),
  /** Contrast findings: both colours as sampled from the screenshot, and the ratio against the one required. */
  colors: z.object({ foreground: HexColorSchema, background: HexColorSchema, ratio: z.number(), required: z.number() }).optional(),
  /** How to fix it. */
  fix: z.string(),
  /** Stable across observations of the same screen (rule + element identity): mutes and comparisons key on it. */
  fingerprint: z.string(),
});
export type A11yFinding = z.infer<typeof A11yFindingSchema>;

/** A report lists at most this many findings; the summary still counts all of them. */
export const MAX_A11Y_FINDINGS = 500;

export const AccessibilityAuditSchema = z.object({
  violations: z.array(A11yFindingSchema).max(MAX_A11Y_FINDINGS),
  summary: z.object({
    total: z.number().int().nonnegative(),
    bySeverity: z.record(A11ySeveritySchema, z.number().int().nonnegative()),
    byKind: z.record(A11yKindSchema, z.number().int().nonnegative()),
    /** Checks that could not run (contrast without a screenshot), so a missing check never reads as a pass. */
    notEvaluated: z.array(z.object({ kind: A11yKindSchema, reason: z.string() })),
  }),
  /** Present only when `violations` was capped at MAX_A11Y_FINDINGS. */
  truncated: z.object({ total: z.number().int(), omitted: z.number().int() }).optional(),
});
export type AccessibilityAudit = z.infer<typeof AccessibilityAuditSchema>;

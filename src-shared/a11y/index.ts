/** The accessibility audit (docs/rules.md#r-a11y): rules, the audit of one observation, and the colours it reads. */
export { A11Y_RULES, ruleOf, sourcesLine, type A11yRule, type A11yRuleId } from './rules';
export {
  auditObservation,
  auditTree,
  sameAuditInput,
  identityOf,
  type AuditInput,
  HIG_MIN_TARGET,
  WCAG_MIN_TARGET,
  MIN_CONTRAST,
  MIN_CONTRAST_LARGE,
  TEXT_WIDTH_KEY,
} from './audit';
export { contrastRatio, relativeLuminance, frameColors, hex, type Pixels, type Rgb } from './color';
export { panelFindings, A11Y_KIND_LABELS, type PanelFinding, type PanelGroup, type PanelFindings } from './panel';
export {
  auditsDiffFindings,
  diffAudits,
  AuditsDiffSchema,
  type AuditsDiff,
  diffFindings,
  findingsDiffSummary,
  fingerprintElement,
  stepFindings,
  FindingsDiffSchema,
  StepFindingSchema,
  StepFindingsSchema,
  type FindingsDiff,
  type StepFinding,
  type StepFindings,
} from './diff';

/**
 * The accessibility rules (docs/rules.md#r-a11y): one id, one kind, one plain-language explanation and the
 * sources each check stands on. Kinds are XCTest's audit types (XCUIAccessibilityAuditType), so a finding
 * here names the `performAccessibilityAudit(for:)` type that would raise it in a UI test.
 */
import type { A11yKind, A11ySeverity } from '@shared/protocol/accessibility';

export interface A11yRule {
  id: string;
  kind: A11yKind;
  /** The severity when nothing measured makes it worse. */
  severity: A11ySeverity;
  title: string;
  /** Why it matters, for the person reading the finding. */
  explanation: string;
  fix: string;
  /** Every rule cites all three (docs/rules.md#r-a11y-23): Apple's HIG, WCAG 2.2 and the XCTest audit type of its kind. */
  sources: { hig: string; wcag: string; xctest: `XCUIAccessibilityAuditType.${A11yKind}` };
}

const HIG_ACCESSIBILITY = 'Apple HIG: Accessibility';

export const A11Y_RULES = {
  'R-A11Y-01': {
    id: 'R-A11Y-01',
    kind: 'elementDetection',
    severity: 'error',
    title: 'Element XCTest cannot reach',
    explanation:
      'The app (its SDK bridge or a web view) shows this element on screen, but XCTest, which reads what VoiceOver reads, does not report it: a VoiceOver user will not find it.',
    fix: 'Make the view an accessibility element (isAccessibilityElement, or list it in the container’s accessibilityElements); for web content, remove aria-hidden or give it a role and a name.',
    sources: { hig: `${HIG_ACCESSIBILITY} (VoiceOver)`, wcag: 'WCAG 2.2 SC 4.1.2 Name, Role, Value', xctest: 'XCUIAccessibilityAuditType.elementDetection' },
  },
  'R-A11Y-02': {
    id: 'R-A11Y-02',
    kind: 'elementDetection',
    severity: 'error',
    title: 'XCTest cannot read the screen',
    explanation:
      'XCTest could not read this screen’s accessibility tree at all while the app’s SDK bridge could: assistive technology gets nothing from it either (one finding for the screen, not one per element).',
    fix: 'Find the view that breaks the accessibility serialisation (deep nesting, a custom container returning invalid elements) with the SDK tree shown here.',
    sources: { hig: `${HIG_ACCESSIBILITY} (VoiceOver)`, wcag: 'WCAG 2.2 SC 4.1.2 Name, Role, Value', xctest: 'XCUIAccessibilityAuditType.elementDetection' },
  },
  'R-A11Y-03': {
    id: 'R-A11Y-03',
    kind: 'sufficientElementDescription',
    severity: 'error',
    title: 'Control without a label',
    explanation: 'VoiceOver announces this control only by its type (“button”): the user cannot tell what it does.',
    fix: 'Set accessibilityLabel (or aria-label) to what the control does, in words.',
    sources: {
      hig: `${HIG_ACCESSIBILITY} (Labels)`,
      wcag: 'WCAG 2.2 SC 4.1.2 Name, Role, Value',
      xctest: 'XCUIAccessibilityAuditType.sufficientElementDescription',
    },
  },
  'R-A11Y-04': {
    id: 'R-A11Y-04',
    kind: 'sufficientElementDescription',
    severity: 'error',
    title: 'Label that says nothing',
    explanation:
      'The label is the element’s identifier, a file name or only punctuation: VoiceOver reads it out (“btn underscore close”, “icon dot png”) and the user learns nothing.',
    fix: 'Replace the label with words that say what the element is or does; keep identifiers in accessibilityIdentifier.',
    sources: {
      hig: `${HIG_ACCESSIBILITY} (Labels)`,
      wcag: 'WCAG 2.2 SC 2.4.6 Headings and Labels',
      xctest: 'XCUIAccessibilityAuditType.sufficientElementDescription',
    },
  },
  'R-A11Y-05': {
    id: 'R-A11Y-05',
    kind: 'sufficientElementDescription',
    severity: 'warning',
    title: 'Image without a description',
    explanation: 'VoiceOver reaches this image but has nothing to say about it.',
    fix: 'Describe what the image shows in accessibilityLabel (alt for web); if it is decoration, hide it from accessibility instead.',
    sources: {
      hig: `${HIG_ACCESSIBILITY} (Images)`,
      wcag: 'WCAG 2.2 SC 1.1.1 Non-text Content',
      xctest: 'XCUIAccessibilityAuditType.sufficientElementDescription',
    },
  },
  'R-A11Y-06': {
    id: 'R-A11Y-06',
    kind: 'sufficientElementDescription',
    severity: 'warning',
    title: 'Same label, different controls',
    explanation: 'Two different controls on this screen are announced with the same label: a VoiceOver user cannot tell them apart.',
    fix: 'Give each control a label that says what it acts on (“Delete photo”, “Delete album”).',
    sources: {
      hig: `${HIG_ACCESSIBILITY} (Labels)`,
      wcag: 'WCAG 2.2 SC 2.4.6 Headings and Labels',
      xctest: 'XCUIAccessibilityAuditType.sufficientElementDescription',
    },
  },
  'R-A11Y-07': {
    id: 'R-A11Y-07',
    kind: 'hitRegion',
    severity: 'warning',
    title: 'Target too small',
    explanation: 'The control is smaller than 44 × 44 points, the size Apple asks for; under 24 × 24 points it also fails WCAG’s minimum (an error).',
    fix: 'Make the tappable area at least 44 × 44 points (enlarge the frame or the hit area; the drawing may stay small).',
    sources: {
      hig: 'Apple HIG: Buttons (minimum 44×44 pt hit region)',
      wcag: 'WCAG 2.2 SC 2.5.8 Target Size (Minimum)',
      xctest: 'XCUIAccessibilityAuditType.hitRegion',
    },
  },
  'R-A11Y-08': {
    id: 'R-A11Y-08',
    kind: 'hitRegion',
    severity: 'warning',
    title: 'Targets overlap',
    explanation: 'Two controls overlap: a tap on the shared area may reach the other one.',
    fix: 'Separate the controls so their tappable areas do not overlap.',
    sources: {
      hig: 'Apple HIG: Layout (spacing between controls)',
      wcag: 'WCAG 2.2 SC 2.5.8 Target Size (Minimum), spacing',
      xctest: 'XCUIAccessibilityAuditType.hitRegion',
    },
  },
  'R-A11Y-09': {
    id: 'R-A11Y-09',
    kind: 'contrast',
    severity: 'error',
    title: 'Text contrast too low',
    explanation:
      'The text’s colour and the colour behind it, as the screenshot shows them, differ too little: under 4.5:1 (3:1 for large text) many people with low vision cannot read it.',
    fix: 'Darken the text or lighten the background (or the other way round) until the ratio meets the minimum; check it in both appearances.',
    sources: { hig: 'Apple HIG: Color (contrast)', wcag: 'WCAG 2.2 SC 1.4.3 Contrast (Minimum)', xctest: 'XCUIAccessibilityAuditType.contrast' },
  },
  'R-A11Y-10': {
    id: 'R-A11Y-10',
    kind: 'trait',
    severity: 'error',
    title: 'Acts like a button, not announced as one',
    explanation:
      'The app handles taps on this element (its SDK bridge or its web page says it is a button), but XCTest, and so VoiceOver, does not give it the button trait: the user does not know it can be activated.',
    fix: 'Add the .button accessibility trait (role="button" or a <button> for web).',
    sources: { hig: `${HIG_ACCESSIBILITY} (Traits)`, wcag: 'WCAG 2.2 SC 4.1.2 Name, Role, Value', xctest: 'XCUIAccessibilityAuditType.trait' },
  },
  'R-A11Y-11': {
    id: 'R-A11Y-11',
    kind: 'trait',
    severity: 'warning',
    title: 'Header without the header trait',
    explanation:
      'The app (its SDK bridge or its web page) says this text is a heading, but XCTest does not give it the header trait: VoiceOver users cannot jump to it with the headings rotor.',
    fix: 'Add the .header accessibility trait (an <h1>–<h6> or role="heading" for web).',
    sources: { hig: `${HIG_ACCESSIBILITY} (Traits)`, wcag: 'WCAG 2.2 SC 1.3.1 Info and Relationships', xctest: 'XCUIAccessibilityAuditType.trait' },
  },
  'R-A11Y-12': {
    id: 'R-A11Y-12',
    kind: 'textClipped',
    severity: 'warning',
    title: 'Text wider than its frame',
    explanation:
      'The text is wider than what shows it: its source reports a natural width wider than its frame, or its frame runs past the screen’s edge. The rest is cut off, for every reader, and more so at larger Dynamic Type sizes.',
    fix: 'Keep the label’s frame inside the screen (pin its trailing edge too) and let it wrap (numberOfLines = 0) or grow, instead of a fixed width or one line at its natural width.',
    sources: { hig: 'Apple HIG: Typography (Dynamic Type)', wcag: 'WCAG 2.2 SC 1.4.4 Resize Text', xctest: 'XCUIAccessibilityAuditType.textClipped' },
  },
} as const satisfies Record<string, A11yRule>;

export type A11yRuleId = keyof typeof A11Y_RULES;

/** A finding's rule, or undefined for an id this build does not know (a trace a newer one wrote, or a hostile one). */
export function ruleOf(id: string): A11yRule | undefined {
  return Object.hasOwn(A11Y_RULES, id) ? A11Y_RULES[id as A11yRuleId] : undefined;
}

/** What a rule stands on, in one line: Apple's HIG; WCAG 2.2; the XCTest audit type that raises it in a UI test. */
export function sourcesLine(rule: A11yRule): string {
  return [rule.sources.hig, rule.sources.wcag, rule.sources.xctest].join('; ');
}

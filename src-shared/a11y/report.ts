/**
 * A bug-report of one or more audits (docs/rules.md#r-a11y-14), as Markdown or HTML: per finding its
 * rule and sources, what is wrong and how to fix it, the element's frame, its cropped screenshot (the
 * caller crops: the core encodes no PNG) and the selector that finds it (selectors/generate.ts, the most
 * robust one XCTest can see, else the SDK's).
 */
import type { A11yFinding, AccessibilityAudit } from '@shared/protocol/accessibility';
import type { UiNode } from '@shared/protocol/runner';
import { selectorsFor, suggestionText } from '@shared/selectors/generate';
import { ruleOf, sourcesLine } from './rules';

export interface ReportScreen {
  /** "Step 3: tap Sign In", or the device URL. */
  title: string;
  audit: AccessibilityAudit;
  /** The tree the audit ran on, for the selectors. */
  root: UiNode | undefined;
  /** PNG data URLs of each finding's crop, by fingerprint. */
  crops?: ReadonlyMap<string, string>;
}

/** The selector a QA engineer pastes to find the element: the most robust Maestro one, else any. */
export function findingSelector(root: UiNode | undefined, finding: A11yFinding): string | undefined {
  if (!root) return undefined;
  let suggestions;
  try {
    suggestions = selectorsFor(root, finding.nodeKey);
  } catch {
    return undefined;
  }
  const best =
    suggestions.find((s) => s.syntax === 'maestro' && s.visibleTo === 'xctest') ?? suggestions.find((s) => s.syntax === 'xcuitest') ?? suggestions[0];
  return best ? suggestionText(best).replace(/\n/g, ' ') : undefined;
}

const frame = (f: A11yFinding) => `${f.bounds.left},${f.bounds.top} ${f.bounds.right - f.bounds.left}×${f.bounds.bottom - f.bounds.top} pt`;
const sources = (f: A11yFinding) => {
  const rule = ruleOf(f.rule);
  return rule ? sourcesLine(rule) : '';
};
const counts = (a: AccessibilityAudit) =>
  `${a.summary.total} findings (${a.summary.bySeverity.error ?? 0} errors, ${a.summary.bySeverity.warning ?? 0} warnings)`;

export function markdownReport(screens: readonly ReportScreen[]): string {
  const lines = ['# Accessibility findings', ''];
  for (const screen of screens) {
    lines.push(`## ${screen.title}`, '', counts(screen.audit), '');
    for (const n of screen.audit.summary.notEvaluated) lines.push(`- not evaluated: ${n.kind} (${n.reason})`);
    for (const f of screen.audit.violations) {
      const selector = findingSelector(screen.root, f);
      lines.push(`### ${f.severity.toUpperCase()} ${f.rule} ${ruleOf(f.rule)?.title ?? f.kind}`, '', f.message, '');
      lines.push(`- element: ${f.element.className ?? 'node'}${f.element.id ? ` \`${f.element.id}\`` : ''} at ${frame(f)} (${f.element.source})`);
      if (selector) lines.push(`- selector: \`${selector}\``);
      if (f.colors) lines.push(`- colours: text ${f.colors.foreground} on ${f.colors.background}, ${f.colors.ratio}:1 (needs ${f.colors.required}:1)`);
      lines.push(
        `- evidence: ${Object.entries(f.evidence)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
        `- fix: ${f.fix}`,
        `- sources: ${sources(f)}`,
      );
      const crop = screen.crops?.get(f.fingerprint);
      if (crop) lines.push('', `![${f.rule} ${f.element.label ?? ''}](${crop})`);
      lines.push('');
    }
  }
  return lines.join('\n');
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function htmlReport(screens: readonly ReportScreen[]): string {
  const parts = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Accessibility findings</title>',
    // The report holds its pictures inline and loads nothing (a strict policy: no script at all).
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">`,
    '<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px}.f{border:1px solid #ccc;border-radius:8px;padding:8px 12px;margin:8px 0}.error{border-left:6px solid #b00020}.warning{border-left:6px solid #a35b00}.sw{display:inline-block;width:12px;height:12px;border:1px solid #000;vertical-align:middle}img{max-width:320px;border:1px solid #999}code{background:#f2f2f2}</style></head><body><h1>Accessibility findings</h1>',
  ];
  for (const screen of screens) {
    parts.push(`<h2>${esc(screen.title)}</h2><p>${esc(counts(screen.audit))}</p>`);
    for (const n of screen.audit.summary.notEvaluated) parts.push(`<p>Not evaluated: ${esc(n.kind)} (${esc(n.reason)})</p>`);
    for (const f of screen.audit.violations) {
      const selector = findingSelector(screen.root, f);
      const crop = screen.crops?.get(f.fingerprint);
      parts.push(
        `<div class="f ${f.severity}" data-rule="${esc(f.rule)}"><h3>${esc(f.severity)} ${esc(f.rule)} ${esc(ruleOf(f.rule)?.title ?? f.kind)}</h3>`,
        `<p>${esc(f.message)}</p><ul><li>element: ${esc(f.element.className ?? 'node')}${f.element.id ? ` <code>${esc(f.element.id)}</code>` : ''} at ${esc(frame(f))} (${esc(f.element.source)})</li>`,
        selector ? `<li>selector: <code>${esc(selector)}</code></li>` : '',
        f.colors
          ? `<li>colours: text <span class="sw" style="background:${f.colors.foreground}"></span> ${f.colors.foreground} on <span class="sw" style="background:${f.colors.background}"></span> ${f.colors.background}, ${f.colors.ratio}:1 (needs ${f.colors.required}:1)</li>`
          : '',
        `<li>fix: ${esc(f.fix)}</li><li>sources: ${esc(sources(f))}</li></ul>`,
        crop && crop.startsWith('data:image/png;base64,') ? `<img alt="${esc(`${f.rule} ${f.element.label ?? ''}`)}" src="${crop}">` : '',
        '</div>',
      );
    }
  }
  parts.push('</body></html>');
  return parts.join('');
}

/**
 * The accessibility audit's ground truth (docs/rules.md#r-a11y): `parallax audit --device` against the demo
 * device over its real ports, the contrast read from the device's real screenshot. The access screen plants
 * one problem per rule beside a look-alike that is fine (resources/demo-app/index.html: data-planted,
 * data-clean); the test reads that truth from the page's source, so it measures what the audit finds of
 * what is planted and what it wrongly flags. The other demo screens are audited too: each finding listed
 * there was reviewed as real.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { main } from '@main/cli/main';
import type { A11yFinding, AccessibilityAudit } from '@shared/protocol/accessibility';
import { parseJsonLossless } from '@shared/protocol/json';
import { ObservationSchema } from '@shared/protocol/observation';

let device: DemoDeviceHandle;
let dir: string;

beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
  dir = mkdtempSync(join(tmpdir(), 'parallax-a11y-'));
}, 120_000);

afterAll(async () => {
  await device?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function show(screen: string): Promise<void> {
  const res = await fetch(`${device.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen }) });
  expect(res.ok).toBe(true);
}

async function audit(...extra: string[]): Promise<{ code: number; audit: AccessibilityAudit; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(['audit', '--device', device.runnerUrl, '--json', ...extra], { log: (l) => lines.push(l), error: (l) => lines.push(l) });
  const parsed = JSON.parse(lines.join('\n'));
  return { code, audit: parsed.screens[0].accessibilityAudit, lines };
}

/** The planted and clean elements of the access screen, from the page's own source: [rule, identifier or text]. */
function truth(): { planted: Array<[string, string]>; clean: Array<[string, string]> } {
  const html = readFileSync(join(import.meta.dirname, '../../resources/demo-app/index.html'), 'utf8');
  const section = html.slice(html.indexOf('id="screen-access"'), html.indexOf('<!-- The tab bar'));
  const planted: Array<[string, string]> = [];
  const clean: Array<[string, string]> = [];
  for (const m of section.matchAll(/<(\w+)([^>]*)>([^<]*)/g)) {
    const attrs = m[2]!;
    const rule = /data-(planted|clean)="([^"]+)"/.exec(attrs);
    if (!rule) continue;
    const id = /data-ax-id="([^"]+)"/.exec(attrs)?.[1] ?? m[3]!.trim();
    (rule[1] === 'planted' ? planted : clean).push([rule[2]!, id]);
  }
  return { planted, clean };
}

/** The element as the page names it: its accessibilityIdentifier, else (a path the bridge made up: "UILabel@0.1") its label. */
const who = (f: A11yFinding) => (f.element.id && !f.element.id.includes('@') ? f.element.id : (f.element.label ?? ''));

describe('R-A11Y ground truth: the access screen', () => {
  it('finds every planted problem, by kind, and flags no look-alike that is fine', async () => {
    await show('access');
    const { code, audit: result } = await audit();
    const { planted, clean } = truth();
    const found = result.violations.map((f) => `${f.rule} ${who(f)}`);
    const byKind = new Map<string, { planted: number; found: number }>();
    for (const [rule, id] of planted) {
      const kind = result.violations.find((f) => f.rule === rule)?.kind ?? rule;
      const row = byKind.get(kind) ?? { planted: 0, found: 0 };
      row.planted++;
      if (found.includes(`${rule} ${id}`)) row.found++;
      byKind.set(kind, row);
    }
    const plantedIds = new Set(planted.map(([, id]) => id));
    const falseFindings = result.violations.filter((f) => !plantedIds.has(who(f)));
    console.log('planted found of N, per kind:', Object.fromEntries(byKind), 'false findings:', falseFindings.length);
    expect(planted.length).toBeGreaterThanOrEqual(12);
    for (const [rule, id] of planted) expect(found, `${rule} on ${id}`).toContain(`${rule} ${id}`);
    for (const [, id] of clean) expect(result.violations.filter((f) => who(f) === id).map((f) => `${f.rule} ${id}`)).toEqual([]);
    expect(falseFindings.map((f) => `${f.rule} ${who(f)}: ${f.message}`)).toEqual([]);
    // The contrast finding shows both colours as the screenshot has them: #b4b4b8 text on the white card.
    const faint = result.violations.find((f) => f.rule === 'R-A11Y-09')!;
    expect(faint.colors!.ratio).toBeLessThan(4.5);
    expect(faint.colors!.background).toBe('#ffffff');
    expect(parseInt(faint.colors!.foreground.slice(1, 3), 16)).toBeGreaterThan(0xa0);
    expect(code).toBe(1);
  }, 60_000);

  it('R-A11Y-12: of the two promos with the same text, exactly the one whose frame runs past the screen’s edge is found clipped, not the one that wraps', async () => {
    await show('access');
    const { audit: result } = await audit();
    const clipped = result.violations.filter((f) => f.rule === 'R-A11Y-12');
    expect(clipped.map(who)).toEqual(['access.promo.clipped']);
    const [finding] = clipped;
    expect(finding!.kind).toBe('textClipped');
    expect(finding!.element.label).toBe('Free returns within 30 days, with a prepaid label');
    // What the finding rests on: the XCTest frame against the screen, and by how much the screen cuts it.
    expect(finding!.bounds.right).toBeGreaterThan(402);
    expect(finding!.evidence).toMatchObject({ basis: expect.stringContaining('XCTest'), screenWidth: 402, cutPt: finding!.bounds.right - 402 });
    // The look-alike is reported with the same words, inside the screen, and nothing is found on it.
    expect(result.violations.filter((f) => who(f) === 'access.promo.wrapped')).toEqual([]);
    expect(result.summary.byKind.textClipped).toBe(1);
  }, 60_000);

  it('--fail-on warning fails on warnings too; --fail-on error passes a screen with warnings only', async () => {
    await show('edges');
    const strict = await audit('--fail-on', 'warning');
    expect(strict.audit.violations.every((f) => f.severity === 'warning')).toBe(true);
    expect(strict.code).toBe(1);
    expect((await audit('--fail-on', 'error')).code).toBe(0);
  }, 60_000);

  it('writes a Markdown and an HTML report with each finding’s crop and the selector that finds its element', async () => {
    await show('access');
    const md = join(dir, 'report.md');
    const html = join(dir, 'report.html');
    await audit('--report', md);
    await audit('--report', html);
    const mdText = readFileSync(md, 'utf8');
    expect(mdText).toContain('R-A11Y-07');
    expect(mdText).toContain("selector: `id: 'access\\.info'`");
    expect(mdText).toMatch(/!\[R-A11Y-07[^\]]*\]\(data:image\/png;base64,/);
    const htmlText = readFileSync(html, 'utf8');
    expect(htmlText).toContain('data-rule="R-A11Y-09"');
    expect(htmlText).toMatch(/<img alt="R-A11Y-09[^"]*" src="data:image\/png;base64,/);
  }, 60_000);
});

describe('R-A11Y-13 the audit mode: the observation carries seed 002’s accessibilityAudit', () => {
  it('observe --accessibility-audit --json prints an observation whose accessibilityAudit decodes and holds the screen’s findings; without it, none', async () => {
    await show('access');
    const run = async (...flags: string[]) => {
      const lines: string[] = [];
      expect(await main(['observe', '--device', device.runnerUrl, '--json', ...flags], { log: (l) => lines.push(l), error: (l) => lines.push(l) })).toBe(0);
      return ObservationSchema.parse(parseJsonLossless(lines.join('\n')));
    };
    const audited = await run('--accessibility-audit');
    expect(audited.accessibilityAudit!.violations.map((f) => `${f.rule} ${who(f)}`)).toContain('R-A11Y-07 access.info');
    expect(audited.accessibilityAudit!.summary.notEvaluated.map((n) => n.kind)).not.toContain('contrast');
    expect((await run()).accessibilityAudit).toBeUndefined();
  }, 60_000);
});

describe('R-A11Y-14 parallax audit TRACE', () => {
  it('audits every stored frame of every step, the action steps’ before and after from their ViewHierarchy: the feed step of the demo QA trace has its 11 undescribed avatars', async () => {
    const lines: string[] = [];
    const trace = join(import.meta.dirname, '../fixtures/traces/demo-qa');
    const code = await main(['audit', trace, '--json', '--fail-on', 'warning'], { log: (l) => lines.push(l), error: (l) => lines.push(l) });
    const screens = JSON.parse(lines.join('\n')).screens as Array<{ title: string; accessibilityAudit: AccessibilityAudit }>;
    const titles = screens.map((s) => s.title);
    // The trace's 12 actions, each before and after, numbered as the trace view numbers them; its observations between.
    for (let n = 1; n <= 12; n++) {
      expect(titles.filter((t) => t.startsWith(`Step ${n} before: `))).toHaveLength(1);
      expect(titles.filter((t) => t.startsWith(`Step ${n} after: `))).toHaveLength(1);
    }
    expect(titles.filter((t) => t.startsWith('Observation ')).length).toBeGreaterThan(0);
    expect(titles.every((t) => /^(Step \d+ (before|after): |Observation (after|before) step \d+$)/.test(t))).toBe(true);
    const feed = screens.filter((s) => s.accessibilityAudit.violations.filter((f) => f.rule === 'R-A11Y-05').length === 11);
    expect(feed.some((s) => / (before|after): /.test(s.title))).toBe(true);
    expect(code).toBe(1);
  }, 60_000);
});

describe('R-A11Y: the other demo screens, every finding real', () => {
  it.each([
    ['login', []],
    // The avatars: XCTest reaches each image and none is described.
    ['feed', ['R-A11Y-05']],
    // aria-hidden around the chat launcher; the web form's 38 pt fields and 20 pt checkbox.
    [
      'checkout',
      [
        'R-A11Y-01 Chat',
        'R-A11Y-07 Account password',
        'R-A11Y-07 Chat',
        'R-A11Y-07 Email',
        'R-A11Y-07 Full name',
        'R-A11Y-07 Gift message',
        'R-A11Y-07 I agree to the terms',
        'R-A11Y-07 Shipping',
      ],
    ],
    // XCTest cannot serialise the screen; the 34 pt chips and the 31 pt switch.
    ['hostile', ['R-A11Y-02 Parallax Demo', 'R-A11Y-07 hostile.like', 'R-A11Y-07 hostile.notify', 'R-A11Y-07 hostile.repost']],
    // The undescribed backdrop image; the 36 pt edge buttons.
    ['edges', ['R-A11Y-05', 'R-A11Y-07 edges.close', 'R-A11Y-07 edges.flag', 'R-A11Y-07 edges.home', 'R-A11Y-07 edges.island']],
  ])(
    '%s',
    async (screen, expected) => {
      await show(screen);
      const { audit: result } = await audit();
      const seen = [
        ...new Set(
          result.violations.map((f) =>
            f.rule === 'R-A11Y-05' ? f.rule : `${f.rule} ${f.element.id && !f.element.id.includes('@') ? f.element.id : (f.element.label ?? '')}`,
          ),
        ),
      ].sort();
      console.log(`${screen}: ${result.summary.total} findings`, JSON.stringify(result.summary.byKind));
      expect(seen).toEqual([...expected].sort());
      expect(result.summary.notEvaluated.map((n) => n.kind)).not.toContain('contrast');
    },
    60_000,
  );
});

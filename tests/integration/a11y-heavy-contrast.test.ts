/**
 * Contrast on the heavy screen (docs/rules.md#r-a11y-25, #r-a11y-09): the heavy board's generated
 * screenshot (src-demo/heavy-recording.ts, `heavyScreenshot`) draws every text of the board's hierarchy in
 * the frame the hierarchy gives it, in real colours on its tile's, one value planted in a grey under 4.5:1.
 * The audit must measure every text there (none left as one colour, nothing to compare), find the planted
 * one and flag no clean one, both from the decoded picture and through the host's path: the recording
 * played by replay-device, observed with its screenshot by `parallax audit --device` and by the host's
 * DeviceManager, audited as the live panel's (LiveAudits, the audit worker). Dropping the
 * screenshot anywhere (not drawn, not recorded, not sent) leaves contrast not evaluated, which fails here.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_COLORS, HEAVY_LOW_CONTRAST, heavyHierarchy, heavyScreenshot, writeHeavyRecording } from '@demo/heavy-recording';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';
import { decodeScreenshot } from '@main/a11y/audit-frame';
import { LiveAudits } from '@main/a11y/live-audit';
import { DeviceProfiles } from '@main/a11y/profiles';
import { main } from '@main/cli/main';
import { DeviceManager } from '@main/devices/manager';
import { auditTree, contrastRatio, frameColors, hex, MIN_CONTRAST } from '@shared/a11y';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { UiNode } from '@shared/protocol/runner';

const SCREEN = { width: 402, height: 874 };
const SCALE = 3;
const rgb = ([r, g, b]: readonly number[]) => ({ r: r!, g: g!, b: b! });

/** Every text of the board: the bar's title and each tile's title and value, with the tile it is on. */
function texts(root: UiNode): Array<{ node: UiNode; tile: number | undefined; part: number }> {
  const [bar, board] = root.node!;
  const out: Array<{ node: UiNode; tile: number | undefined; part: number }> = (bar!.node ?? []).map((node) => ({ node, tile: undefined, part: 0 }));
  (board!.node ?? []).forEach((cell, at) =>
    (cell.node?.[0]?.node ?? []).filter((n) => n.role === 'text').forEach((node, part) => out.push({ node, tile: at + 1, part })),
  );
  return out;
}

const planted = (t: { tile: number | undefined; part: number }) => t.tile === HEAVY_LOW_CONTRAST.tile && t.part === 1;

function contrastFindings(audit: AccessibilityAudit) {
  return audit.violations.filter((f) => f.kind === 'contrast');
}

/** The planted value's finding: the grey on the tile's colour, under 4.5:1, on tile 2's value label. */
function expectPlantedOnly(audit: AccessibilityAudit, root: UiNode): void {
  expect(audit.summary.notEvaluated.map((n) => n.kind)).not.toContain('contrast');
  expect(audit.summary.byKind.contrast).toBe(1);
  const [finding] = contrastFindings(audit);
  const value = texts(root).find(planted)!.node;
  expect(finding!.rule).toBe('R-A11Y-09');
  expect(finding!.element.label).toBe(value.text);
  expect(finding!.bounds).toEqual(value.bounds);
  expect(finding!.colors).toMatchObject({ foreground: hex(rgb(HEAVY_COLORS.lowContrast)), background: hex(rgb(HEAVY_COLORS.tile)), required: MIN_CONTRAST });
  expect(finding!.colors!.ratio).toBeLessThan(MIN_CONTRAST);
}

describe('R-A11Y-25: contrast is measured on the heavy screen, from a screenshot whose pixels are its frames', () => {
  for (const nodes of [1_000, 5_000, 50_000]) {
    it(`R-A11Y-25: at ${nodes} nodes every text's frame holds its two colours, the planted value alone is under 4.5:1 and alone is flagged`, () => {
      const root = heavyHierarchy(nodes).hierarchy!;
      const pixels = decodeScreenshot(heavyScreenshot(nodes));
      const all = texts(root);
      expect(all.length).toBeGreaterThan(2);
      for (const t of all) {
        const r = t.node.bounds!;
        // The frame as the audit reads it (inset, R-A11Y-09): a text drawn in it, its colours measurable.
        const inset = Math.min(4, (r.bottom - r.top) * 0.15, (r.right - r.left) * 0.15);
        const colors = frameColors(pixels, (r.left + inset) * SCALE, (r.top + inset) * SCALE, (r.right - inset) * SCALE, (r.bottom - inset) * SCALE);
        expect(colors, `${t.node.text} at tile ${t.tile}: nothing drawn in its frame`).toBeDefined();
        if (planted(t)) expect(colors!.ratio).toBeLessThan(MIN_CONTRAST);
        else expect(colors!.ratio, `${t.node.text} at tile ${t.tile}`).toBeGreaterThanOrEqual(MIN_CONTRAST);
      }
      expectPlantedOnly(auditTree({ root, screen: SCREEN, pixels }), root);
    }, 60_000);
  }

  it('R-A11Y-25: a picked tile (systemBlue, its texts in black) is clean; the planted value is still the one finding', () => {
    const picked = new Set([1]);
    const root = heavyHierarchy(5_000, { picked }).hierarchy!;
    const audit = auditTree({ root, screen: SCREEN, pixels: decodeScreenshot(heavyScreenshot(5_000, picked)) });
    expectPlantedOnly(audit, root);
    // White on systemBlue would have been 3.6:1: the black chosen clears 4.5:1.
    expect(contrastRatio(rgb(HEAVY_COLORS.pickedText), rgb(HEAVY_COLORS.picked))).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  it('R-A11Y-25: without the screenshot, contrast is said not evaluated and nothing is found (what the checks above tell apart)', () => {
    const root = heavyHierarchy(1_000).hierarchy!;
    const audit = auditTree({ root, screen: SCREEN });
    expect(audit.summary.notEvaluated.map((n) => n.kind)).toContain('contrast');
    expect(audit.summary.byKind.contrast).toBe(0);
  });

  describe('through the host: the heavy recording played back, observed with its screenshot by `parallax audit --device` and by the live host', () => {
    const NODES = 2_000;
    const dir = mkdtempSync(join(tmpdir(), 'parallax-heavy-contrast-'));
    let device: ReplayDevice | undefined;
    beforeAll(async () => {
      writeHeavyRecording(dir, { nodes: NODES });
      device = await startReplayDevice(dir);
    }, 120_000);
    afterAll(async () => {
      await device?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('R-A11Y-25: the recording keeps each frame’s screenshot, and the audit of the observed frame finds the planted value, no clean text', async () => {
      // The recording answers each screenshot request with the picture of its frame.
      const shots = readdirSync(dir).filter((name) => name.endsWith('request_screenshot.json'));
      expect(shots).toHaveLength(2);
      for (const name of shots) {
        const { response } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { response: { data: string } };
        expect(decodeScreenshot(response.data)).toMatchObject({ width: SCREEN.width * SCALE, height: SCREEN.height * SCALE });
      }
      const lines: string[] = [];
      const code = await main(['audit', '--device', device!.url, '--json', '--timeout', '120000'], { log: (l) => lines.push(l), error: (l) => lines.push(l) });
      const audit = (JSON.parse(lines.join('\n')) as { screens: Array<{ accessibilityAudit: AccessibilityAudit }> }).screens[0]!.accessibilityAudit;
      expectPlantedOnly(audit, heavyHierarchy(NODES).hierarchy!);
      // The planted contrast is an error: --fail-on error's default says so.
      expect(code).toBe(1);
    }, 180_000);

    it('R-A11Y-25: the live panel’s audit (LiveAudits, in the audit worker) of the frame the host observed finds the planted value, no clean text', async () => {
      const manager = new DeviceManager();
      try {
        const { id } = manager.connect(device!.url);
        const frame = await manager.observe(id, { screenshot: true });
        expect(frame.screenshot?.dataBase64, 'the host’s frame carries its screenshot').toBeTruthy();
        const live = new LiveAudits(manager, new DeviceProfiles(join(dir, 'settings.json')));
        const answer = await live.audit(id);
        expectPlantedOnly(answer.audit!, heavyHierarchy(NODES).hierarchy!);
      } finally {
        await manager.closeAll();
      }
    }, 180_000);
  });
});

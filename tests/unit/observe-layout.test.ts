import { describe, expect, it } from 'vitest';
import { LayoutWarningsSchema, MAX_LAYOUT_WARNINGS } from '@shared/protocol/observation';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { findLayoutWarnings, layoutWarnings, scopeLayoutWarnings, type LayoutInput } from '@shared/observe';

const W = 402;
const H = 874;
const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
/** An iPhone with a Dynamic Island: 62 pt top, 34 pt bottom, the island at the top centre. */
const INSETS: NonNullable<ViewHierarchy['insets']> = {
  available: true,
  source: 'uiWindowScene',
  units: 'points',
  safeArea: { top: 62, left: 0, bottom: 34, right: 0 },
  displayCutoutInfo: { classification: 'dynamicIsland', bounds: [rect(140, 11, 262, 48)] },
  systemChrome: { visibility: 'visible', statusBar: 'visible', source: 'uiWindowScene' },
};

function input(children: UiNode[], over: Partial<LayoutInput> = {}): LayoutInput {
  return {
    root: { className: 'XCUIApplication', bounds: rect(0, 0, W, H), node: children },
    screenWidth: W,
    screenHeight: H,
    screenScale: 3,
    insets: INSETS,
    ...over,
  };
}

describe('layoutWarnings', () => {
  it('R-LAY-02, R-LAY-03: a text element overlapping the status bar is flagged with overflowPx and insetPx in points', () => {
    const result = layoutWarnings(input([{ className: 'UILabel', text: 'Title', bounds: rect(16, 40, 120, 80) }]));
    expect(result.scope).toBe('full');
    expect(result.total).toBeUndefined();
    expect(result.warnings).toEqual([
      expect.objectContaining({ nodeKey: '0.0', side: 'top', region: 'statusBar', overflowPx: 22, insetPx: 62, severity: 'warning', caption: 'Title' }),
    ]);
  });

  it('R-LAY-05: an interactive element in the home-indicator area is flagged more severely than text', () => {
    const warnings = findLayoutWarnings(
      input([
        { className: 'UILabel', text: 'Footer', bounds: rect(16, 830, 200, 850) },
        { className: 'UIButton', clickable: 'true', 'resource-id': 'buy', bounds: rect(16, 820, 386, 870) },
      ]),
    );
    expect(warnings.map((w) => [w.nodeKey, w.side, w.severity, w.overflowPx, w.insetPx])).toEqual([
      ['0.1', 'bottom', 'error', 30, 34],
      ['0.0', 'bottom', 'warning', 10, 34],
    ]);
  });

  it('R-LAY-02: an element overlapping the display cutout is flagged against the cutout', () => {
    const warnings = findLayoutWarnings(input([{ className: 'UIButton', clickable: 'true', 'resource-id': 'island', bounds: rect(180, 30, 220, 70) }]));
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ side: 'cutout', region: 'displayCutout', overflowPx: 18, insetPx: 48 }),
        expect.objectContaining({ side: 'top', overflowPx: 32, insetPx: 62 }),
      ]),
    );
  });

  it('R-LAY-02: left and right insets (landscape) are unsafe sides too', () => {
    const landscape = { ...INSETS, safeArea: { top: 0, left: 62, bottom: 21, right: 62 }, displayCutoutInfo: { classification: 'none' } };
    const warnings = findLayoutWarnings(input([{ className: 'UIButton', clickable: 'true', bounds: rect(40, 200, 100, 240) }], { insets: landscape }));
    expect(warnings).toEqual([expect.objectContaining({ side: 'left', region: 'leftInset', overflowPx: 22, insetPx: 62 })]);
  });

  it('R-LAY-02: elements inside the safe area are not flagged', () => {
    expect(layoutWarnings(input([{ className: 'UIButton', clickable: 'true', text: 'OK', bounds: rect(16, 100, 386, 800) }])).warnings).toEqual([]);
  });

  it('R-LAY-04: the descendant wins — a flagged descendant fully contained by a flagged ancestor on the same side keeps the descendant finding', () => {
    const warnings = findLayoutWarnings(
      input([
        {
          className: 'UIButton',
          'resource-id': 'header',
          clickable: 'true',
          bounds: rect(10, 20, 300, 100),
          node: [{ className: 'UILabel', text: 'Inner', bounds: rect(20, 30, 200, 60) }],
        },
      ]),
    );
    const top = warnings.filter((w) => w.side === 'top');
    expect(top.map((w) => w.nodeKey)).toEqual(['0.0.0']);
  });

  it('R-LAY-04: the descendant rule is per side — an ancestor keeps its finding on a side its descendant does not reach', () => {
    const warnings = findLayoutWarnings(
      input([
        {
          className: 'UIButton',
          clickable: 'true',
          bounds: rect(10, 20, 300, 860),
          node: [{ className: 'UILabel', text: 'Inner', bounds: rect(20, 30, 200, 60) }],
        },
      ]),
    );
    expect(warnings.map((w) => [w.nodeKey, w.side])).toEqual(
      expect.arrayContaining([
        ['0.0', 'bottom'],
        ['0.0.0', 'top'],
      ]),
    );
    expect(warnings.find((w) => w.nodeKey === '0.0' && w.side === 'top')).toBeUndefined();
  });

  it('R-LAY-05: edge-to-edge backgrounds are advisory, not failures', () => {
    const warnings = findLayoutWarnings(input([{ className: 'UIImageView', clickable: 'true', 'resource-id': 'hero', bounds: rect(0, 0, W, 300) }]));
    expect(warnings.every((w) => w.severity === 'advisory' && w.advisory === 'edgeToEdgeBackground')).toBe(true);
  });

  it('R-LAY-05: scrollable content is advisory, not a failure', () => {
    const warnings = findLayoutWarnings(
      input([
        {
          className: 'UITableView',
          scrollable: 'true',
          bounds: rect(0, 0, W, H),
          node: [{ className: 'UIButton', clickable: 'true', text: 'Row', bounds: rect(16, 40, 386, 90) }],
        },
      ]),
    );
    const row = warnings.find((w) => w.nodeKey === '0.0.0')!;
    expect(row).toMatchObject({ severity: 'advisory', advisory: 'scrollableContent' });
  });

  it(`R-LAY-07: over ${MAX_LAYOUT_WARNINGS} findings the list is truncated to the highest-severity, largest-overflow ${MAX_LAYOUT_WARNINGS}, total = pre-cap count`, () => {
    const children: UiNode[] = [];
    for (let i = 0; i < 150; i++) {
      // Text with growing overflow, and every tenth one interactive (more severe).
      const depth = 1 + (i % 60);
      children.push({
        className: i % 10 === 0 ? 'UIButton' : 'UILabel',
        text: `t${i}`,
        ...(i % 10 === 0 ? { clickable: 'true' as const } : {}),
        bounds: rect(i, 62 - depth, i + 1, 70),
      });
    }
    const noCutout = { ...INSETS, displayCutoutInfo: { classification: 'none' } };
    const result = layoutWarnings(input(children, { insets: noCutout }));
    expect(result.scope).toBe('truncated');
    expect(result.total).toBe(150);
    expect(result.warnings).toHaveLength(MAX_LAYOUT_WARNINGS);
    expect(result.warnings.slice(0, 15).every((w) => w.severity === 'error')).toBe(true);
    const overflows = result.warnings.slice(15).map((w) => w.overflowPx);
    expect(overflows).toEqual([...overflows].sort((a, b) => b - a));
    expect(Math.min(...overflows)).toBeGreaterThanOrEqual(
      Math.max(
        ...findLayoutWarnings(input(children, { insets: noCutout }))
          .slice(MAX_LAYOUT_WARNINGS)
          .map((w) => w.overflowPx),
      ),
    );
    expect(LayoutWarningsSchema.safeParse(result).success).toBe(true);
  });

  it('R-LAY-08: a scoped list keeps only warnings whose element is still present, drops the stale total, and caps anew', () => {
    const ranked = findLayoutWarnings(
      input([
        { className: 'UILabel', text: 'a', bounds: rect(0, 40, 50, 80) },
        { className: 'UILabel', text: 'b', bounds: rect(60, 40, 100, 80) },
      ]),
    );
    const scoped = scopeLayoutWarnings(ranked, (key) => (key === '0.1' ? '0.0' : undefined));
    expect(scoped).toEqual({ scope: 'scoped', warnings: [expect.objectContaining({ nodeKey: '0.0', caption: 'b' })] });
  });

  it('R-LAY-02: with insets unavailable (as the recorded runner reports them) there is nothing to warn about', () => {
    const unavailable = { available: false, source: 'unavailable', units: 'unknown', displayCutoutInfo: { classification: 'unknown' } };
    expect(layoutWarnings(input([{ className: 'UILabel', text: 'x', bounds: rect(0, 0, 100, 20) }], { insets: unavailable }))).toEqual({
      scope: 'full',
      warnings: [],
    });
  });

  it('decision: pixel insets are converted to points with the screen scale', () => {
    const pixels = { ...INSETS, units: 'pixels', safeArea: { top: 186, left: 0, bottom: 102, right: 0 }, displayCutoutInfo: { classification: 'none' } };
    const [w] = findLayoutWarnings(input([{ className: 'UILabel', text: 'x', bounds: rect(0, 40, 100, 80) }], { insets: pixels }));
    expect(w).toMatchObject({ insetPx: 62, overflowPx: 22 });
  });

  it('decision: without typed insets, the compatibility systemInsets stand in', () => {
    const [w] = findLayoutWarnings(
      input([{ className: 'UILabel', text: 'x', bounds: rect(0, 40, 100, 80) }], {
        insets: undefined,
        systemInsets: { top: 47, left: 0, bottom: 34, right: 0 },
      }),
    );
    expect(w).toMatchObject({ side: 'top', insetPx: 47, overflowPx: 7 });
  });
});

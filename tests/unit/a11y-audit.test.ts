// The accessibility audit's rules (docs/rules.md#r-a11y), one table per rule: each case a small merged
// tree as the observe pipeline builds it (XCTest nodes, SDK bridge nodes with their xctest.* twin extras,
// web view nodes), the finding expected or none for the look-alike that is fine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditTree, contrastRatio, frameColors, type Pixels } from '@shared/a11y';
import { AccessibilityAuditSchema } from '@shared/protocol/accessibility';
import type { UiNode } from '@shared/protocol/runner';

const SCREEN = { width: 402, height: 874 };
type B = [number, number, number, number];
const bounds = ([left, top, w, h]: B) => ({ left, top, right: left + w, bottom: top + h });

/** An XCTest node. */
const x = (className: string, b: B, fields: Partial<UiNode> = {}): UiNode => ({ className, bounds: bounds(b), ...fields });
/** An SDK bridge node; `twin` is what XCTest reported for it (absent: XCTest did not report it). */
const sdk = (role: string, b: B, fields: Partial<UiNode> = {}, twin?: Record<string, string>): UiNode => ({
  className: role,
  bounds: bounds(b),
  clickable: 'true',
  ...fields,
  extras: {
    'sdk.source': 'sdkBridge',
    ...(twin ? Object.fromEntries([['xctest.twin', 'replaced'], ...Object.entries(twin).map(([k, v]) => [`xctest.${k}`, v])]) : {}),
  },
});
const app = (...children: UiNode[]): UiNode => ({ className: 'XCUIApplication', text: 'App', bounds: bounds([0, 0, 402, 874]), node: children });

const audit = (root: UiNode, extra: Parameters<typeof auditTree>[0] extends infer T ? Partial<T> : never = {}) => auditTree({ root, screen: SCREEN, ...extra });
const rules = (root: UiNode, extra = {}) => audit(root, extra).violations.map((f) => `${f.rule} ${f.element.label ?? f.element.className}`);

describe('R-A11Y-01 element detection: what the app shows and XCTest does not reach', () => {
  it.each([
    ['a bridge button with no XCTest twin', app(sdk('button', [16, 100, 100, 44], { 'content-desc': 'Pay' })), ['R-A11Y-01 Pay']],
    [
      'a bridge button XCTest also reports (twin)',
      app(sdk('button', [16, 100, 100, 44], { 'content-desc': 'Pay' }, { className: 'UIButton', role: 'button', text: 'Pay' })),
      [],
    ],
    ['an unlabelled bridge container (layout, not an element)', app(sdk('other', [0, 0, 402, 874])), []],
  ])('%s', (_name, root, expected) => {
    expect(rules(root)).toEqual(expected);
  });

  it('a web element under aria-hidden (DOM reports it, XCTest does not)', () => {
    const chat: UiNode = {
      className: 'button',
      'web-role': 'button',
      'content-desc': 'Chat',
      bounds: bounds([300, 120, 60, 44]),
      extras: { 'sdk.source': 'sdkWebBridge' },
    };
    expect(rules(app(chat))).toEqual(['R-A11Y-01 Chat']);
  });

  it('a cell scrolled out of its list is not reported (clipped by its container)', () => {
    const list = sdk(
      'collectionView',
      [0, 116, 402, 700],
      { node: [sdk('button', [0, 44, 402, 72], { 'content-desc': 'Post 8' })] },
      { className: 'UICollectionView' },
    );
    expect(rules(app(list))).toEqual([]);
  });

  it('R-A11Y-02: XCTest read nothing at all: one finding for the screen, not one per element', () => {
    const root = app(sdk('button', [16, 100, 100, 44], { 'content-desc': 'Pay' }), sdk('button', [16, 200, 100, 44], { 'content-desc': 'Cancel' }));
    const found = audit(root, { xctestUnreadable: 'ax_failure' }).violations;
    expect(found.map((f) => f.rule)).toEqual(['R-A11Y-02']);
    expect(found[0]!.evidence).toMatchObject({ xctest: 'ax_failure', bridgeElements: 2 });
  });
});

describe('R-A11Y-03 to R-A11Y-06 description', () => {
  it.each([
    ['R-A11Y-03 a button without a label', app(x('UIButton', [16, 100, 100, 44], { role: 'button' })), ['R-A11Y-03 UIButton']],
    ['R-A11Y-03 a field without label or placeholder', app(x('UITextField', [16, 100, 300, 44], { role: 'textfield' })), ['R-A11Y-03 UITextField']],
    ['R-A11Y-03 look-alike: a field named by its placeholder', app(x('UITextField', [16, 100, 300, 44], { role: 'textfield', 'hint-text': 'Email' })), []],
    [
      'R-A11Y-04 a label that is the identifier',
      app(x('UIButton', [16, 100, 100, 44], { role: 'button', 'content-desc': 'btn_close' })),
      ['R-A11Y-04 btn_close'],
    ],
    ['R-A11Y-04 a dotted identifier', app(x('UIButton', [16, 100, 100, 44], { role: 'button', text: 'settings.gear' })), ['R-A11Y-04 settings.gear']],
    ['R-A11Y-04 a file name', app(x('UIButton', [16, 100, 100, 44], { role: 'button', 'content-desc': 'icon_share@2x.png' })), ['R-A11Y-04 icon_share@2x.png']],
    ['R-A11Y-04 punctuation only', app(x('UIButton', [16, 100, 100, 44], { role: 'button', 'content-desc': '…' })), ['R-A11Y-04 …']],
    ['R-A11Y-04 symbol only', app(x('UIButton', [16, 100, 100, 44], { role: 'button', 'content-desc': '+' })), ['R-A11Y-04 +']],
    ['R-A11Y-04 look-alike: words with a hyphen and a time', app(x('UIButton', [16, 100, 100, 44], { role: 'button', 'content-desc': 'Wi-Fi at 10:30' })), []],
    ['R-A11Y-04 look-alike: a price', app(x('UIButton', [16, 100, 100, 44], { role: 'button', 'content-desc': 'Pay $4.50' })), []],
    ['R-A11Y-05 an image without a description', app(x('UIImageView', [16, 100, 44, 44], { role: 'image' })), ['R-A11Y-05 UIImageView']],
    ['R-A11Y-05 look-alike: a described image', app(x('UIImageView', [16, 100, 44, 44], { role: 'image', 'content-desc': 'Profile photo of Ana' })), []],
    [
      'R-A11Y-06 two different buttons both "Delete"',
      app(
        x('UIButton', [16, 100, 100, 44], { role: 'button', text: 'Delete', 'resource-id': 'photo.delete' }),
        x('UIButton', [16, 200, 100, 44], { role: 'button', text: 'Delete', 'resource-id': 'album.delete' }),
      ),
      ['R-A11Y-06 Delete', 'R-A11Y-06 Delete'],
    ],
    [
      'R-A11Y-06 look-alike: one button seen twice (bridge node and the XCTest node kept beside it)',
      app(
        sdk('button', [16, 100, 100, 44], { 'content-desc': 'Delete' }, { className: 'UIButton', role: 'button', text: 'Delete' }),
        x('UIButton', [16, 100, 100, 44], { role: 'button', text: 'Delete' }),
      ),
      [],
    ],
  ])('%s', (_name, root, expected) => {
    expect(rules(root)).toEqual(expected);
  });

  it('R-A11Y-03 reads the label XCTest reports, not the bridge’s: a bridge label VoiceOver never gets is no label', () => {
    const node = sdk('button', [16, 100, 100, 44], { 'content-desc': 'Share' }, { className: 'UIButton', role: 'button' });
    expect(rules(app(node))).toEqual(['R-A11Y-03 Share']);
  });
});

describe('R-A11Y-07 and R-A11Y-08 hit region', () => {
  it.each([
    ['a 30 pt tall button: warning (HIG 44)', app(x('UIButton', [16, 100, 100, 30], { role: 'button', text: 'Go' })), ['R-A11Y-07 warning']],
    ['a 20 × 20 switch: error (under WCAG 24)', app(x('UISwitch', [16, 100, 20, 20], { role: 'switch', 'content-desc': 'On' })), ['R-A11Y-07 error']],
    ['look-alike: exactly 44 × 44', app(x('UIButton', [16, 100, 44, 44], { role: 'button', text: 'Go' })), []],
    ['look-alike: a small disabled button', app(x('UIButton', [16, 100, 30, 30], { role: 'button', text: 'Go', enabled: 'false' })), []],
    ['look-alike: small text (not a target)', app(x('UILabel', [16, 100, 30, 14], { role: 'text', text: 'Go' })), []],
    [
      'two buttons overlapping by 20 pt',
      app(x('UIButton', [16, 100, 100, 44], { role: 'button', text: 'One' }), x('UIButton', [96, 100, 100, 44], { role: 'button', text: 'Two' })),
      ['R-A11Y-08 warning'],
    ],
    [
      'look-alike: a button inside a bigger control (contained, not overlapping)',
      app(x('UIButton', [0, 100, 402, 72], { role: 'button', text: 'Row' }), x('UIButton', [342, 114, 44, 44], { role: 'button', text: 'Like' })),
      [],
    ],
    [
      'look-alike: two fields touching at an edge',
      app(
        x('UITextField', [16, 100, 300, 44], { role: 'textfield', 'hint-text': 'A' }),
        x('UITextField', [16, 144, 300, 44], { role: 'textfield', 'hint-text': 'B' }),
      ),
      [],
    ],
  ])('%s', (_name, root, expected) => {
    expect(audit(root).violations.map((f) => `${f.rule} ${f.severity}`)).toEqual(expected);
  });

  it('a target half under a tab bar drawn after it is not measured (its frame is not what a finger gets)', () => {
    const root = app(
      x('UIButton', [342, 777, 44, 44], { role: 'button', text: 'Like' }),
      x('UITabBar', [0, 791, 402, 83], { node: [x('UIButton', [321, 792, 81, 49], { role: 'button', text: 'Edges' })] }),
    );
    expect(rules(root)).toEqual([]);
  });
});

/** A screenshot at 3x of one colour, with rectangles painted over it. */
function picture(background: [number, number, number], rects: Array<{ at: B; color: [number, number, number] }>, scale = 3): Pixels {
  const width = SCREEN.width * scale;
  const height = SCREEN.height * scale;
  const data = new Uint8Array(width * height * 4);
  const paint = (x0: number, y0: number, x1: number, y1: number, [r, g, b]: [number, number, number]) => {
    for (let y = y0; y < y1; y++)
      for (let xx = x0; xx < x1; xx++) {
        const i = (y * width + xx) * 4;
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
        data[i + 3] = 255;
      }
  };
  paint(0, 0, width, height, background);
  for (const { at, color } of rects) paint(at[0] * scale, at[1] * scale, (at[0] + at[2]) * scale, (at[1] + at[3]) * scale, color);
  return { width, height, data };
}

/** A label's frame with "glyphs": vertical strokes of `ink` covering about a third of it. */
const glyphs = (at: B, ink: [number, number, number]) =>
  Array.from({ length: Math.floor(at[2] / 3) }, (_, i) => ({ at: [at[0] + i * 3, at[1] + 2, 1, at[3] - 4] as B, color: ink }));

describe('R-A11Y-09 contrast, from the screenshot’s pixels', () => {
  it('WCAG’s reference ratios: black on white 21:1, #767676 on white 4.54:1', () => {
    expect(contrastRatio({ r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 })).toBeCloseTo(21, 5);
    expect(contrastRatio({ r: 0x76, g: 0x76, b: 0x76 }, { r: 255, g: 255, b: 255 })).toBeCloseTo(4.54, 2);
  });

  it('reads the background as the commonest colour and the text as the most different one covering 1%', () => {
    const px = picture([255, 255, 255], glyphs([16, 100, 120, 20], [0x99, 0x99, 0x99]));
    const colors = frameColors(px, 16 * 3, 100 * 3, 136 * 3, 120 * 3)!;
    expect(colors.background).toEqual({ r: 255, g: 255, b: 255 });
    expect(colors.foreground).toEqual({ r: 0x99, g: 0x99, b: 0x99 });
  });

  const label = (text: string, b: B): UiNode => x('UILabel', b, { role: 'text', text });
  it.each([
    ['grey #999 on white (2.85:1): error with both colours', [0x99, 0x99, 0x99], [16, 100, 200, 20], 'R-A11Y-09 #999999 on #ffffff 2.85'],
    ['look-alike: #767676 on white (4.54:1) passes', [0x76, 0x76, 0x76], [16, 100, 200, 20], ''],
    ['large text (a one-line 30 pt frame) #888 on white (3.54:1) passes 3:1', [0x88, 0x88, 0x88], [16, 100, 300, 36], ''],
    ['normal text #888 on white (3.54:1) fails 4.5:1', [0x88, 0x88, 0x88], [16, 100, 300, 20], 'R-A11Y-09 #888888 on #ffffff 3.54'],
  ] as const)('%s', (_name, ink, at, expected) => {
    const px = picture([255, 255, 255], glyphs(at as unknown as B, ink as unknown as [number, number, number]));
    const found = audit(app(label('Hello', at as unknown as B)), { pixels: px }).violations;
    expect(found.map((f) => `${f.rule} ${f.colors?.foreground} on ${f.colors?.background} ${f.colors?.ratio}`).join('')).toBe(expected);
  });

  it('disabled text is exempt (WCAG 1.4.3: inactive components)', () => {
    const at: B = [16, 100, 200, 44];
    const px = picture([255, 255, 255], glyphs(at, [0xcc, 0xcc, 0xcc]));
    expect(rules(app(x('UIButton', at, { role: 'button', text: 'Pay later', enabled: 'false' })), { pixels: px })).toEqual([]);
  });

  it('without a screenshot, contrast is reported as not evaluated, never as passed', () => {
    expect(audit(app(label('Hello', [16, 100, 200, 20]))).summary.notEvaluated).toContainEqual({ kind: 'contrast', reason: 'no screenshot of this frame' });
  });
});

describe('R-A11Y-10 and R-A11Y-11 traits: what the app says against what XCTest gives', () => {
  it.each([
    [
      'R-A11Y-10 the bridge says button, XCTest says other',
      sdk('button', [16, 100, 200, 60], { 'content-desc': 'Open offer' }, { className: 'UIView', text: 'Open offer' }),
      ['R-A11Y-10 Open offer'],
    ],
    [
      'R-A11Y-10 look-alike: a real button',
      sdk('button', [16, 100, 200, 60], { 'content-desc': 'Buy' }, { className: 'UIButton', role: 'button', text: 'Buy' }),
      [],
    ],
    [
      'R-A11Y-11 the bridge says header, XCTest says text',
      sdk('header', [16, 100, 200, 30], { 'content-desc': 'Settings' }, { className: 'UILabel', role: 'text', text: 'Settings' }),
      ['R-A11Y-11 Settings'],
    ],
    [
      'R-A11Y-11 look-alike: a real header',
      sdk('header', [16, 100, 200, 30], { 'content-desc': 'Settings' }, { className: 'UILabel', role: 'heading', text: 'Settings' }),
      [],
    ],
  ])('%s', (_name, node, expected) => {
    expect(rules(app(node))).toEqual(expected);
  });
});

describe('R-A11Y-12 text clipping', () => {
  it('reports text whose natural width a source gives as wider than its frame, and only then', () => {
    const clipped = x('UILabel', [16, 100, 100, 20], { role: 'text', text: 'A long title', extras: { 'text.width': '160' } });
    const fits = x('UILabel', [16, 200, 100, 20], { role: 'text', text: 'Short', extras: { 'text.width': '60' } });
    expect(rules(app(clipped, fits))).toEqual(['R-A11Y-12 A long title']);
    expect(audit(app(label('x', [0, 0, 1, 1]))).summary.notEvaluated.map((n) => n.kind)).toContain('textClipped');
  });
  const label = (text: string, b: B): UiNode => x('UILabel', b, { role: 'text', text });
  it('R-A11Y-12: without a natural width, a text whose XCTest frame runs past the screen edge is cut there, and the finding says what it rests on', () => {
    const past = label('Free delivery on every order this week', [16, 300, 480, 20]);
    const inside = label('Fits', [16, 340, 300, 20]);
    const result = audit(app(past, inside));
    expect(rules(app(past, inside))).toEqual(['R-A11Y-12 Free delivery on every order this week']);
    const [finding] = result.violations.filter((f) => f.rule === 'R-A11Y-12');
    expect(finding!.evidence).toMatchObject({ basis: expect.stringContaining('XCTest'), cutPt: 16 + 480 - SCREEN.width });
    // What no source reports stays said: truncation inside a frame cannot be seen.
    expect(result.summary.notEvaluated.find((n) => n.kind === 'textClipped')?.reason).toContain('inside its own frame');
  });

  it('R-A11Y-12: text under a scroll view, a control past the edge, and a reported width that fits are not clipped text', () => {
    const scroller = x('UIScrollView', [0, 100, SCREEN.width, 400], { node: [label('A wide row of tags to scroll through', [0, 120, 900, 20])] });
    const button = x('UIButton', [300, 500, 200, 44], { role: 'button', text: 'Continue' });
    const measured = x('UILabel', [16, 600, 500, 20], { role: 'text', text: 'Measured', extras: { 'text.width': '80' } });
    expect(rules(app(scroller, button, measured)).filter((r) => r.startsWith('R-A11Y-12'))).toEqual([]);
  });
});

describe('the audit as the observation carries it', () => {
  it('decodes with the schema, counts by severity and kind, and keys findings stably', () => {
    const root = app(x('UIButton', [16, 100, 30, 30], { role: 'button', 'resource-id': 'close' }));
    const result = audit(root);
    expect(AccessibilityAuditSchema.parse(result)).toEqual(result);
    expect(result.summary.bySeverity).toMatchObject({ error: 1, warning: 1 });
    expect(result.summary.byKind).toMatchObject({ sufficientElementDescription: 1, hitRegion: 1 });
    expect(result.violations.map((f) => f.fingerprint)).toEqual(['R-A11Y-03|close', 'R-A11Y-07|close']);
  });

  it('the demo screens recorded as fixtures: every finding listed (the ground truth, reviewed one by one)', () => {
    const found: Record<string, string[]> = {};
    for (const screen of ['login', 'feed', 'checkout', 'hostile', 'edges']) {
      const h = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/demo-observations', `${screen}.json`), 'utf8'));
      const result = auditTree({
        root: h.hierarchy,
        screen: SCREEN,
        safeArea: h.insets.safeArea,
        xctestUnreadable: screen === 'hostile' ? 'ax_failure' : undefined,
      });
      found[screen] = [...new Set(result.violations.map((f) => `${f.rule} ${f.element.label ?? ''}`))];
    }
    expect(found).toEqual({
      login: [],
      // The avatars: XCTest reaches each image, and none has a description.
      feed: ['R-A11Y-05 '],
      checkout: [
        // aria-hidden="true" around the chat launcher: the DOM shows it, XCTest does not.
        'R-A11Y-01 Chat',
        'R-A11Y-07 I agree to the terms',
        'R-A11Y-07 Full name',
        'R-A11Y-07 Email',
        'R-A11Y-07 Account password',
        'R-A11Y-07 Shipping',
        'R-A11Y-07 Gift message',
        'R-A11Y-07 Chat',
      ],
      hostile: ['R-A11Y-02 Parallax Demo', 'R-A11Y-07 Like', 'R-A11Y-07 Repost', 'R-A11Y-07 Notify me'],
      edges: ['R-A11Y-05 ', 'R-A11Y-07 Close', 'R-A11Y-07 Island', 'R-A11Y-07 Flag', 'R-A11Y-07 Home'],
    });
  });
});

describe('R-A11Y-16 linear on adversarial screens: stacked frames and many bars', () => {
  it('R-A11Y-16 text frames stacked on one spot are read once: 2,000 of them (8M samples if each were read) are all measured', () => {
    // Each 300 x 40 pt frame at 3x holds 108,000 pixels, read as 4,096 samples: 2,000 reads would pass the
    // 4,000,000-sample budget halfway and leave the rest not evaluated.
    const texts = Array.from({ length: 2_000 }, (_, i) => x('UILabel', [16, 100, 300, 40], { role: 'text', text: `Grey ${i}` }));
    const pixels = picture([0xff, 0xff, 0xff], [{ at: [20, 110, 200, 20], color: [0x99, 0x99, 0x99] }]);
    const result = audit(app(...texts), { pixels });
    expect(result.summary.byKind.contrast).toBe(2_000);
    expect(result.summary.notEvaluated.filter((n) => n.kind === 'contrast')).toEqual([]);
    expect(result.violations.find((f) => f.rule === 'R-A11Y-09')?.colors).toMatchObject({ foreground: '#999999', background: '#ffffff' });
  });

  it('R-A11Y-16 with 500 tool bars on screen, a target under a later bar is still not measured, one under its own bar or an earlier one is', () => {
    const bars = Array.from({ length: 500 }, (_, i) => x('UIToolbar', [0, 400 + (i % 10), 402, 44]));
    const root = app(
      x('UIButton', [8, 420, 30, 30], { role: 'button', text: 'Under a later bar' }),
      ...bars,
      x('UIToolbar', [0, 700, 402, 44], { node: [x('UIButton', [8, 705, 30, 30], { role: 'button', text: 'In its own bar' })] }),
      x('UIButton', [60, 402, 30, 30], { role: 'button', text: 'Over the bars' }),
    );
    expect(rules(root).filter((r) => r.startsWith('R-A11Y-07'))).toEqual(['R-A11Y-07 In its own bar', 'R-A11Y-07 Over the bars']);
  });
});

describe('R-A11Y-16 only the kept findings are made whole', () => {
  it('R-A11Y-16 a screen of 1,800 findings counts all of them, keeps the 500 most severe first in the order found, each with its words and evidence', () => {
    // 600 unlabelled 20 pt buttons side by side (R-A11Y-03 error, R-A11Y-07 error) then 600 labelled 30 pt ones stacked on one spot (R-A11Y-07 warning).
    const small = Array.from({ length: 600 }, (_, i) => x('UIButton', [(i % 20) * 20, 100 + Math.floor(i / 20) * 20, 20, 20], { role: 'button' }));
    const wide = Array.from({ length: 600 }, (_, i) => x('UIButton', [300, 750, 30, 30], { role: 'button', text: `Go ${i}` }));
    const result = audit(app(...small, ...wide));
    expect(result.summary.total).toBe(1_800);
    expect(result.summary.bySeverity).toMatchObject({ error: 1_200, warning: 600 });
    expect(result.truncated).toEqual({ total: 1_800, omitted: 1_300 });
    expect(result.violations).toHaveLength(500);
    expect(result.violations.every((f) => f.severity === 'error' && f.message.length > 0 && Object.keys(f.evidence).length > 0)).toBe(true);
    expect(result.violations[0]!.message).toBe('This button has no label: VoiceOver says only “button”.');
    // The description rules run before the hit region: the 500 kept are the first 500 unlabelled buttons.
    expect(new Set(result.violations.map((f) => f.rule))).toEqual(new Set(['R-A11Y-03']));
    expect(result.violations[499]!.bounds).toEqual({ left: 380, top: 580, right: 400, bottom: 600 });
  });
});

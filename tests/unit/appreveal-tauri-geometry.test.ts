/**
 * Tauri geometry (docs/rules.md#r-ar-33), with cases computed as AppReveal's crate computes them
 * (Windows/appreveal-tauri/src/tauri_integration.rs): `window_css_origin` = inner_position / scale_factor
 * (CSS px); each element's `rect` = origin + the DOM rect, `localRect` = the DOM rect, `frame` = rect with
 * `{:.0}`; `tauri_windows` frame = outer_position, outer_size (physical px); the snapshot's `viewport` =
 * innerWidth × innerHeight (CSS px). Parallax draws the web view's space: frames are local, the screen is
 * the viewport, and window frames are brought into the same space.
 */
import { describe, expect, it } from 'vitest';
import { AppRevealElementsReplySchema } from '@shared/protocol/appreveal';
import { appRevealElementToUiNode, desktopScaleOf, windowFrameInViewport } from '@shared/observe/appreveal';

/** What the crate's collect_dom_elements sends for one DOM rect, given the window's inner position and scale. */
function tauriElement(local: { x: number; y: number; width: number; height: number }, inner: { x: number; y: number }, scale: number, index = 0) {
  const origin = { x: inner.x / Math.max(1, scale), y: inner.y / Math.max(1, scale) };
  const x = origin.x + local.x;
  const y = origin.y + local.y;
  return {
    id: `web.main.${index}`,
    windowId: 'main',
    source: 'tauri_webview_dom',
    idSource: 'dom',
    selector: '#user',
    label: 'Username',
    role: 'textbox',
    tag: 'input',
    type: 'text',
    value: '',
    actions: ['tap', 'type_text', 'clear_text'],
    enabled: true,
    visible: true,
    frame: [x, y, local.width, local.height].map((n) => n.toFixed(0)).join(','),
    rect: { x, y, width: local.width, height: local.height },
    localRect: local,
  };
}

const cases = [
  { name: 'scale 1, window at the corner', inner: { x: 0, y: 0 }, scale: 1 },
  { name: 'scale 2 (HiDPI), window moved', inner: { x: 480, y: 296 }, scale: 2 },
  { name: 'scale 1.5, odd position', inner: { x: 301, y: 157 }, scale: 1.5 },
];

describe('Tauri element frames', () => {
  it.each(cases)('R-AR-33: $name: the frame is the rect in the web view, and the view’s place on the screen is kept', ({ inner, scale }) => {
    const local = { x: 32.5, y: 120.25, width: 338, height: 44 };
    const reply = AppRevealElementsReplySchema.parse({
      elements: [tauriElement(local, inner, scale)],
      webviews: [{ windowId: 'main', url: 'tauri://localhost/', title: 'Demo', viewport: { width: 402, height: 874 }, elements: [] }],
      count: 1,
    });
    const element = reply.elements[0]!;
    expect(element.frame).toEqual(local);
    expect(element.origin?.x).toBeCloseTo(inner.x / scale, 9);
    expect(element.origin?.y).toBeCloseTo(inner.y / scale, 9);
    expect(reply.viewport).toEqual({ width: 402, height: 874 });
    // The box is drawn where the page has it, whatever the scale and the window's position.
    expect(appRevealElementToUiNode(element).bounds).toEqual({ left: 33, top: 120, right: 371, bottom: 164 });
  });

  it('R-AR-33: an element without localRect (iOS, older ports) keeps its frame and has no origin', () => {
    const reply = AppRevealElementsReplySchema.parse({
      screenKey: 'auth.login',
      elements: [{ id: 'login.email', type: 'textField', frame: '32,364,338,34', enabled: 'true', visible: 'true', tappable: 'true', actions: 'tap,type' }],
    });
    expect(reply.elements[0]?.frame).toEqual({ x: 32, y: 364, width: 338, height: 34 });
    expect(reply.elements[0]?.origin).toBeUndefined();
    expect(reply.viewport).toBeUndefined();
  });
});

describe('Tauri window frames in the web view’s space', () => {
  it('R-AR-33: the scale a window implies is its outer width over the viewport’s, in quarter steps, never below 1', () => {
    expect(desktopScaleOf(804, 402)).toBe(2);
    // A Windows window's invisible borders (8 px a side at 100%) do not skew it.
    expect(desktopScaleOf(816, 800)).toBe(1);
    expect(desktopScaleOf(1216, 800)).toBe(1.5);
    expect(desktopScaleOf(300, 402)).toBe(1);
    expect(desktopScaleOf(0, 402)).toBe(1);
  });

  it('R-AR-33: a HiDPI window moved away from the corner outlines its own web view, not a box twice its size elsewhere', () => {
    // outer_position (240, 120) physical, outer_size 804 × 1804 (a 28 CSS px title bar), scale 2:
    // inner_position (240, 176) physical, so the web view's origin is (120, 88) CSS.
    const frame = windowFrameInViewport({ x: 240, y: 120, width: 804, height: 1804 }, { width: 402, height: 874 }, { x: 120, y: 88 });
    expect(frame).toEqual({ x: 0, y: -28, width: 402, height: 902 });
  });
});

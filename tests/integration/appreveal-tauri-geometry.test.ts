/**
 * R-AR-33 against the demo's Tauri flavour over its real port, which speaks as the crate does on a HiDPI
 * desktop with the window moved (tauri_integration.rs; TAURI_DESKTOP in src-demo/appreveal/tools.ts):
 * the screen is the web view's viewport, boxes are where the page has them, the window's physical outer
 * frame outlines that same web view, and a tap at a point of Parallax's screen lands on the element
 * drawn there (the view's place on the screen is added, as the crate's tap_point takes screen CSS px).
 */
import { describe, expect, it } from 'vitest';
import { TAURI_DESKTOP, tauriCssOrigin } from '@demo/appreveal/tools';
import type { UiNode } from '@shared/protocol/runner';
import { useConnectedDemo } from '../support/host-over-demo';

const all = (node: UiNode | undefined): UiNode[] => (node ? [node, ...(node.node ?? []).flatMap(all)] : []);

describe('the Tauri flavour on a HiDPI desktop, its window moved', () => {
  const setup = useConnectedDemo({ demo: { screen: 'login', appRevealFlavor: 'tauri' }, via: 'appreveal', connectTimeoutMs: 10_000 });

  it('R-AR-33: the screen is the web view, and the window outlines it, not a box twice its size elsewhere', async () => {
    const frame = await setup.connection.observe({});
    const hierarchy = frame.observation?.viewHierarchy;
    const width = hierarchy?.screenWidth ?? 0;
    const height = hierarchy?.screenHeight ?? 0;
    expect(width).toBeGreaterThan(0);
    // Every box is inside the viewport (CSS px from its top-left), none shifted by the window's place.
    for (const node of all(hierarchy?.hierarchy).slice(1)) {
      expect(node.bounds?.left ?? -1).toBeGreaterThanOrEqual(0);
      expect(node.bounds?.right ?? Infinity).toBeLessThanOrEqual(width + 1);
    }
    const window = frame.appReveal?.windows.find((w) => w.isKey);
    // Its title bar sits above the web view; its width and left edge are the web view's.
    expect(window?.frame).toEqual({ x: 0, y: -TAURI_DESKTOP.titleBarCss, width, height: height + TAURI_DESKTOP.titleBarCss });
    console.log(
      `R-AR-33 figures: viewport ${width}×${height} CSS px; window frame ${JSON.stringify(window?.frame)}; web view origin ${JSON.stringify(tauriCssOrigin())}`,
    );
  });

  it('R-AR-33: a tap at a point of the screen lands on the element drawn there', async () => {
    const frame = await setup.connection.observe({});
    const origin = tauriCssOrigin();
    // A tab whose centre, taken as a screen point without the view's origin, would land elsewhere in the window.
    const tab = all(frame.observation?.viewHierarchy?.hierarchy).find((n) => {
      const b = n.bounds;
      const selector = n.extras?.['appreveal.selector'] ?? '';
      return b && /^\[data-testid="tab\.(?!login)/.test(selector) && (b.left + b.right) / 2 > origin.x + 10 && (b.top + b.bottom) / 2 > origin.y + 10;
    });
    expect(tab, 'a tab right of and below the web view origin').toBeDefined();
    const b = tab!.bounds!;
    const name = /tab\.([^"]+)/.exec(tab!.extras?.['appreveal.selector'] ?? '')?.[1];
    const tapped = await setup.connection.act({ action: 'tap', target: { point: { x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 } } });
    expect(tapped.result.success).toBe(true);
    expect(tapped.after?.appReveal?.screen?.screenKey).toBe(name);
  });
});

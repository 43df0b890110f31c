import { describe, expect, it } from 'vitest';
import { UiNodeSchema, type UiNode } from '@shared/protocol/runner';
import { WebSnapshotSchema, type WebSnapshot } from '@shared/protocol/sdk';
import { flattenTree } from '@shared/model/tree';
import { isWebTextEntry, mapWebBounds, mergeWebRead, shouldReadWebViews, type WebRead } from '@shared/observe';
import { SDK_SOURCE_KEY } from '@shared/model/node';

const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
/** The web view sits at (0, 100), 400 × 600 points. */
const WV = rect(0, 100, 400, 700);
const entry = { webViewId: 'wv-1', url: 'https://shop.example/cart', allowedOrigins: ['https://shop.example'], contentProcessAvailable: true };

function screen(webViewChildren: UiNode[] = [], extra: UiNode[] = []): UiNode {
  return {
    className: 'XCUIApplication',
    bounds: rect(0, 0, 400, 800),
    node: [
      { className: 'UIView', bounds: rect(0, 0, 400, 800), node: [{ className: 'WKWebView', 'resource-id': 'web', bounds: WV, node: webViewChildren }] },
      ...extra,
    ],
  };
}

type El = Partial<WebSnapshot['elements'][number]> & { id: string; bounds: [number, number, number, number] };
const el = (e: El) => ({ enabled: true, visible: true, focused: false, ...e });

function snap(elements: El[], over: Partial<WebSnapshot> = {}): WebSnapshot {
  return WebSnapshotSchema.parse({ snapshotId: 's7', documentId: 'doc-3', url: 'https://shop.example/cart?x=1', elements: elements.map(el), ...over });
}
const read = (snapshot: WebSnapshot | undefined, webViews = [entry], failure?: string): WebRead => ({
  kind: 'reply',
  reply: { available: true, webViews, ...(snapshot ? { snapshot } : {}), ...(failure ? { failure: failure as never } : {}) },
});
const webView = (root: UiNode) => flattenTree(root).find((f) => f.node.className === 'WKWebView')!.node;
const domNodes = (root: UiNode) =>
  flattenTree(root)
    .filter((f) => f.node.extras?.[SDK_SOURCE_KEY] === 'sdkWebBridge')
    .map((f) => f.node);
const byWebId = (root: UiNode, id: string) => domNodes(root).find((n) => n['web-element-id'] === id);

describe('Observe: web views — when to read and when to merge', () => {
  it('R-OWV-01: exactly one outermost WKWebView on screen is read', () => {
    expect(shouldReadWebViews(screen())).toBe(true);
    const two = screen([], [{ className: 'WKWebView', bounds: rect(0, 700, 400, 800) }]);
    expect(shouldReadWebViews(two)).toBe(false);
  });

  it('R-OWV-03: merged only when the app registered exactly one web view and the screen shows exactly one outermost WKWebView', () => {
    const s = snap([{ id: 'a', role: 'button', label: 'Pay', bounds: [10, 10, 100, 40] }]);
    expect(mergeWebRead(screen(), read(s))).toMatchObject({ merged: true, reason: 'merged', nodes: 1, webViewId: 'wv-1', snapshotId: 's7' });
    const twoRegistered = mergeWebRead(screen(), read(s, [entry, { ...entry, webViewId: 'wv-2' }]));
    expect(twoRegistered).toMatchObject({ merged: false, reason: 'registered_web_views_2' });
    const twoOnScreen = screen([], [{ className: 'WKWebView', bounds: rect(0, 700, 400, 800) }]);
    expect(mergeWebRead(twoOnScreen, read(s))).toMatchObject({ merged: false, reason: 'web_views_on_screen_2' });
    expect(mergeWebRead(twoOnScreen, read(s)).root).toBe(twoOnScreen);
  });

  const withoutSnapshot: { rule: string; name: string; read: WebRead; unreadable: boolean }[] = [
    { rule: 'R-OWV-15', name: 'none posted yet (no_snapshot)', read: read(undefined, [entry], 'no_snapshot'), unreadable: false },
    { rule: 'R-OWV-15', name: 'a disallowed origin', read: read(undefined, [entry], 'disallowed_origin'), unreadable: false },
    { rule: 'R-OWV-15', name: 'a terminated web process', read: read(undefined, [entry], 'web_process_unavailable'), unreadable: false },
    { rule: 'R-OWV-15', name: 'a reply without a snapshot', read: read(undefined), unreadable: false },
    { rule: 'R-OWV-02', name: 'a reply that cannot be read (bad_reply), which is logged', read: read(undefined, [entry], 'bad_reply'), unreadable: true },
    { rule: 'R-OWV-02', name: 'a timeout, which is logged', read: { kind: 'timeout' }, unreadable: true },
  ];
  for (const row of withoutSnapshot) {
    it(`${row.rule}: a web view without a snapshot — ${row.name} — keeps only its XCTest nodes`, () => {
      const before = screen([{ className: 'UIButton', text: 'Pay', bounds: rect(10, 110, 100, 140) }]);
      const out = mergeWebRead(before, row.read);
      expect(out.merged).toBe(false);
      expect(out.unreadable).toBe(row.unreadable);
      expect(out.root).toBe(before);
    });
  }
});

describe('Observe: web views — viewport mapping', () => {
  const table: { name: string; bounds: [number, number, number, number]; viewport?: WebSnapshot['viewport']; expected: ReturnType<typeof rect> | null }[] = [
    {
      name: 'a snapshot without a viewport takes CSS pixels as points, offset by the web view origin',
      bounds: [10, 20, 100, 40],
      expected: rect(10, 120, 110, 160),
    },
    {
      name: 'the viewport CSS width spans the web view width (a page without a device-width viewport)',
      bounds: [98, 49, 196, 98],
      viewport: { offsetLeft: 0, offsetTop: 0, width: 980, height: 1470, scale: 0.408 },
      expected: rect(40, 120, 120, 160),
    },
    {
      name: 'pinch zoom: the viewport offset is subtracted and its (smaller) CSS width spans the web view',
      bounds: [150, 350, 50, 25],
      viewport: { offsetLeft: 100, offsetTop: 300, width: 200, height: 300, scale: 2 },
      expected: rect(100, 200, 200, 250),
    },
    { name: 'bounds are clipped to the web view', bounds: [-20, 580, 100, 50], expected: rect(0, 680, 80, 700) },
    { name: 'fractional points are truncated to whole points', bounds: [10.9, 20.5, 10.3, 10.8], expected: rect(10, 120, 21, 131) },
    { name: 'an element wholly outside the web view is dropped', bounds: [10, 650, 100, 40], expected: null },
    {
      name: 'an element scrolled out of a pinch-zoomed viewport is dropped',
      bounds: [0, 0, 50, 50],
      viewport: { offsetLeft: 100, offsetTop: 300, width: 200, height: 300, scale: 2 },
      expected: null,
    },
  ];
  for (const row of table) {
    it(`R-OWV-05: ${row.name}`, () => {
      expect(mapWebBounds(row.bounds, row.viewport, WV)).toEqual(row.expected);
    });
  }

  it('R-OWV-05: the mapped, clipped bounds are what the merged node carries', () => {
    const out = mergeWebRead(
      screen(),
      read(
        snap([{ id: 'z', role: 'button', bounds: [150, 350, 50, 25] }], { viewport: { offsetLeft: 100, offsetTop: 300, width: 200, height: 300, scale: 2 } }),
      ),
    );
    expect(byWebId(out.root, 'z')!.bounds).toEqual(rect(100, 200, 200, 250));
  });
});

describe('Observe: web views — which elements and how they map', () => {
  const elements: El[] = [
    { id: 'pay', role: 'button', label: 'Pay now', value: 'pay', bounds: [10, 10, 100, 40] },
    { id: 'q', role: 'input', inputType: 'search', label: 'Search', value: 'shoes', bounds: [10, 60, 300, 30], focused: true },
    { id: 'secret', role: 'input', inputType: 'password', label: 'Password', valueRedacted: true, bounds: [10, 100, 300, 30] },
    { id: 'note', role: 'textarea', label: 'Note', bounds: [10, 140, 300, 60] },
    { id: 'agree', role: 'input', inputType: 'checkbox', label: 'Agree', value: 'on', bounds: [10, 210, 20, 20] },
    { id: 'off', role: 'button', label: 'Disabled', enabled: false, bounds: [10, 240, 100, 30] },
    { id: 'hidden', role: 'button', label: 'Hidden by CSS', visible: false, bounds: [10, 280, 100, 30] },
    { id: 'dup', role: 'link', label: 'First', bounds: [10, 320, 100, 20] },
    { id: 'dup', role: 'link', label: 'Second', bounds: [10, 350, 100, 20] },
    { id: 'far', role: 'button', label: 'Below the fold', bounds: [10, 900, 100, 30] },
  ];
  const out = mergeWebRead(screen(), read(snap(elements)));

  it('R-OWV-04: each visible DOM element is attached as a child of its WKWebView node', () => {
    expect(webView(out.root).node!.map((n) => n['web-element-id'])).toEqual(['pay', 'q', 'secret', 'note', 'agree', 'off']);
  });

  it('R-OWV-04: an element that is not visible is not attached', () => {
    expect(byWebId(out.root, 'hidden')).toBeUndefined();
  });

  it('R-OWV-06: elements whose id occurs more than once in the snapshot are dropped', () => {
    expect(byWebId(out.root, 'dup')).toBeUndefined();
  });

  it('R-OWV-06: an element wholly outside the web view is dropped', () => {
    expect(byWebId(out.root, 'far')).toBeUndefined();
  });

  it('R-OWV-07: label → content-desc, value → text, role → class, enabled → clickable', () => {
    expect(byWebId(out.root, 'pay')).toMatchObject({ 'content-desc': 'Pay now', text: 'pay', className: 'button', clickable: 'true' });
    expect(byWebId(out.root, 'off')).toMatchObject({ enabled: 'false' });
    expect(byWebId(out.root, 'off')!.clickable).toBeUndefined();
  });

  it('R-OWV-07: a redacted value is not reported as text but as value-redacted "true"', () => {
    const secret = byWebId(out.root, 'secret')!;
    expect(secret['value-redacted']).toBe('true');
    expect(secret.text).toBeUndefined();
  });

  it('R-OWV-10: elements carry web-view-id, web-snapshot-id, web-element-id, web-document-id, web-origin, web-role and sdk.source sdkWebBridge', () => {
    expect(byWebId(out.root, 'q')).toMatchObject({
      'web-view-id': 'wv-1',
      'web-snapshot-id': 's7',
      'web-element-id': 'q',
      'web-document-id': 'doc-3',
      'web-origin': 'https://shop.example',
      'web-role': 'input',
      extras: { [SDK_SOURCE_KEY]: 'sdkWebBridge' },
    });
  });

  it('R-OWV-10: web-document-id only when the SDK reports it, web-origin only when the URL has one', () => {
    const bare = mergeWebRead(
      screen(),
      read(snap([{ id: 'a', role: 'button', bounds: [0, 0, 10, 10] }], { documentId: undefined, url: 'about:blank' }), [{ ...entry, url: undefined } as never]),
    );
    const node = byWebId(bare.root, 'a')!;
    expect(node['web-document-id']).toBeUndefined();
    expect(node['web-origin']).toBeUndefined();
    expect(node['web-view-id']).toBe('wv-1');
  });

  it('R-OWV-12: an unreplaced element keeps its own focus', () => {
    expect(byWebId(out.root, 'q')!.focused).toBe('true');
  });

  it('R-OWV-10: the merged tree still decodes with the runner node schema', () => {
    expect(UiNodeSchema.safeParse(out.root).success).toBe(true);
  });

  const entryRoles: { element: Pick<El, 'role' | 'inputType'>; textfield: boolean }[] = [
    { element: { role: 'textarea' }, textfield: true },
    ...['text', 'search', 'email', 'url', 'tel', 'password', 'number'].map((inputType) => ({ element: { role: 'input', inputType }, textfield: true })),
    { element: { role: 'input' }, textfield: true }, // an input that reports no inputType
    { element: { role: 'input', inputType: 'checkbox' }, textfield: false },
    { element: { role: 'input', inputType: 'radio' }, textfield: false },
    { element: { role: 'input', inputType: 'submit' }, textfield: false },
    { element: { role: 'button' }, textfield: false },
  ];
  for (const row of entryRoles) {
    it(`R-OWV-09: ${row.element.role}${row.element.inputType ? ` type=${row.element.inputType}` : ''} ${row.textfield ? 'reports' : 'does not report'} role textfield`, () => {
      expect(isWebTextEntry(row.element)).toBe(row.textfield);
      const one = mergeWebRead(screen(), read(snap([{ id: 'x', ...row.element, bounds: [0, 0, 50, 20] }])));
      expect(byWebId(one.root, 'x')!.role).toBe(row.textfield ? 'textfield' : undefined);
    });
  }
});

describe('Observe: web views — XCTest leaves inside the web view', () => {
  // XCTest sees the page's button at the same screen rect the DOM element maps to: (10, 110)–(110, 150).
  const leafBounds = rect(10, 110, 110, 150);
  const dom = (over: Partial<El> = {}): El => ({ id: 'pay', role: 'button', label: 'Pay now', value: 'pay', bounds: [10, 10, 100, 40], ...over });

  it('R-OWV-11: a leaf with the same bounds and the same label is replaced by the DOM element in the leaf’s place', () => {
    const before = screen([
      {
        className: 'UIView',
        bounds: rect(0, 100, 400, 700),
        node: [
          { className: 'UIStaticText', text: 'Header', bounds: rect(0, 100, 400, 110) },
          { className: 'UIButton', text: 'Pay now', bounds: leafBounds },
        ],
      },
    ]);
    const out = mergeWebRead(before, read(snap([dom()])));
    const wrapper = webView(out.root).node![0]!;
    expect(wrapper.node![1]).toMatchObject({ 'web-element-id': 'pay', text: 'Pay now', className: 'UIButton' });
    // Placed where the leaf was, and not attached a second time under the web view.
    expect(webView(out.root).node).toHaveLength(1);
    expect(out.leavesReplaced).toBe(1);
  });

  const matchTable: { name: string; leaf: UiNode }[] = [
    { name: 'the same label (content-desc)', leaf: { className: 'UIButton', 'content-desc': 'Pay now', bounds: leafBounds } },
    { name: 'the same value', leaf: { className: 'UIButton', value: 'pay', bounds: leafBounds } },
    { name: 'the same id', leaf: { className: 'UIButton', 'resource-id': 'pay', bounds: leafBounds } },
  ];
  for (const row of matchTable) {
    it(`R-OWV-11: a leaf with the same bounds and ${row.name} as a DOM element is replaced`, () => {
      const out = mergeWebRead(screen([row.leaf]), read(snap([dom()])));
      expect(webView(out.root).node).toHaveLength(1);
      expect(webView(out.root).node![0]!['web-element-id']).toBe('pay');
    });
  }

  it('R-OWV-11: a leaf with the same label but other bounds is not replaced', () => {
    const out = mergeWebRead(screen([{ className: 'UIButton', text: 'Pay now', bounds: rect(10, 111, 110, 150) }]), read(snap([dom()])));
    expect(webView(out.root).node!.map((n) => n['web-element-id'])).toEqual([undefined, 'pay']);
  });

  it('R-OWV-12: every attribute the fresh leaf reports wins over the snapshot’s (resource-id, native class, input properties, focus)', () => {
    const leaf: UiNode = {
      className: 'UITextField',
      role: 'textfield',
      'resource-id': 'native-q',
      text: 'boots',
      'hint-text': 'Search',
      focused: 'false',
      clickable: 'true',
      bounds: leafBounds,
    };
    const out = mergeWebRead(
      screen([leaf]),
      read(snap([dom({ id: 'q', role: 'input', inputType: 'search', label: 'Search', value: 'boots', focused: true })])),
    );
    expect(webView(out.root).node![0]).toMatchObject({
      className: 'UITextField',
      role: 'textfield',
      'resource-id': 'native-q',
      text: 'boots',
      'hint-text': 'Search',
      focused: 'false',
      'web-element-id': 'q',
      'web-role': 'input',
      'content-desc': 'Search',
    });
  });

  it('R-OWV-12: the DOM element adds its web identity and what the leaf does not report, but never its focus', () => {
    const out = mergeWebRead(screen([{ className: 'UIButton', text: 'Pay now', bounds: leafBounds }]), read(snap([dom({ focused: true })])));
    const node = webView(out.root).node![0]!;
    expect(node).toMatchObject({
      'web-view-id': 'wv-1',
      'web-snapshot-id': 's7',
      'web-element-id': 'pay',
      'web-document-id': 'doc-3',
      'content-desc': 'Pay now',
      clickable: 'true',
      extras: { [SDK_SOURCE_KEY]: 'sdkWebBridge' },
    });
    expect(node.focused).toBeUndefined();
  });

  it('R-OWV-12: a redacted value stays value-redacted when the replaced leaf reports a readable value', () => {
    const out = mergeWebRead(
      screen([{ className: 'UITextField', text: 'Password', value: 'hunter2', bounds: leafBounds }]),
      read(snap([dom({ id: 'pw', label: 'Password', value: undefined, valueRedacted: true })])),
    );
    expect(webView(out.root).node![0]).toMatchObject({ value: 'hunter2', 'value-redacted': 'true', 'web-element-id': 'pw' });
  });

  it('R-OWV-13: a leaf that two DOM elements both match (a wrapper and the control it wraps) is not replaced', () => {
    const out = mergeWebRead(
      screen([{ className: 'UIButton', text: 'Pay now', bounds: leafBounds }]),
      read(snap([dom({ id: 'wrap', role: 'div' }), dom({ id: 'btn' })])),
    );
    expect(webView(out.root).node!.map((n) => n['web-element-id'] ?? n.className)).toEqual(['UIButton', 'wrap', 'btn']);
    expect(out.leavesReplaced).toBe(0);
  });

  it('R-OWV-13: a leaf whose attributes match different DOM elements (label one, value another) is not replaced', () => {
    const leaf: UiNode = { className: 'UITextField', 'content-desc': 'Amount', value: '42', bounds: leafBounds };
    const out = mergeWebRead(screen([leaf]), read(snap([dom({ id: 'a', label: 'Amount', value: '1' }), dom({ id: 'b', label: 'Other', value: '42' })])));
    expect(webView(out.root).node![0]).toBe(leaf);
    expect(out.leavesReplaced).toBe(0);
  });

  it('decision: a DOM element that two XCTest leaves match replaces neither and is attached under the web view', () => {
    const twin: UiNode = { className: 'UIButton', text: 'Pay now', bounds: leafBounds };
    const out = mergeWebRead(screen([twin, { ...twin }]), read(snap([dom()])));
    expect(webView(out.root).node!.map((n) => n['web-element-id'] ?? n.className)).toEqual(['UIButton', 'UIButton', 'pay']);
  });

  it('R-OWV-13: a redacted value never matches a leaf', () => {
    const out = mergeWebRead(
      screen([{ className: 'UITextField', value: 'x', bounds: leafBounds }]),
      read(snap([dom({ id: 'pw', label: 'PIN', value: 'x', valueRedacted: true })])),
    );
    expect(out.leavesReplaced).toBe(0);
  });

  it('the input tree is not modified', () => {
    const before = screen([{ className: 'UIButton', text: 'Pay now', bounds: leafBounds }]);
    const copy = JSON.stringify(before);
    mergeWebRead(before, read(snap([dom()])));
    expect(JSON.stringify(before)).toBe(copy);
  });
});

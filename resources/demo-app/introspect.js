// The simulated OS's view of one document, evaluated by the demo device in a frame. It is a single
// function expression, called with { mode: 'native' | 'web' }:
//  - native: the app shell, where each UIKit view is an element carrying data-ax-class;
//  - web: a web view's document, read the way XCTest reads WKWebView content: leaves with labels and
//    values, no DOM ids.
// Rects are CSS pixels relative to the frame's viewport; the caller converts them to screen points.
(function introspect(options) {
  'use strict';
  const round = (n) => Math.round(n * 100) / 100;
  const rectFrom = (r) => [round(r.left), round(r.top), round(r.width), round(r.height)];
  const rectOf = (el) => rectFrom(el.getBoundingClientRect());
  const rendered = (el) => {
    if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    const style = getComputedStyle(el);
    return style.display !== 'none' && style.visibility !== 'hidden';
  };
  const text = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const isTextInput = (el) =>
    el instanceof HTMLTextAreaElement ||
    (el instanceof HTMLInputElement && ['text', 'search', 'email', 'url', 'tel', 'password', 'number', ''].includes(el.type));

  function native() {
    const screen = document.querySelector('.screen:not(.inactive)');
    const chrome = {};
    for (const el of document.querySelectorAll('[data-chrome]')) chrome[el.dataset.chrome] = rectOf(el);
    const styles = getComputedStyle(document.documentElement);
    const safeArea = {
      top: parseFloat(styles.getPropertyValue('--safe-top')) || 0,
      bottom: parseFloat(styles.getPropertyValue('--safe-bottom')) || 0,
    };
    const app = document.getElementById('app');
    return {
      screen: screen ? screen.dataset.screen : null,
      hostile: screen ? screen.dataset.axHostile || null : null,
      chrome,
      safeArea,
      statusBarVisible: !!document.querySelector('.status-bar') && rendered(document.querySelector('.status-bar')),
      viewport: { width: window.innerWidth, height: window.innerHeight },
      root: app ? nativeNode(app, null) : null,
    };
  }

  // `box` is the element's client rect when the caller already measured it (one layout query per view:
  // a heavy screen has 50,000 of them).
  function nativeNode(el, box) {
    const cls = el.dataset.axClass;
    const rect = rectFrom(box || el.getBoundingClientRect());
    const node = {
      cls,
      id: el.dataset.axId || undefined,
      role: el.dataset.axRole || undefined,
      rect,
      enabled: !el.matches(':disabled'),
      focused: document.activeElement === el,
      selected: el.dataset.axSelected === 'true',
      children: [],
    };
    const label = el.dataset.axLabel;
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      node.label = label || undefined;
      if (el.type === 'checkbox') {
        node.checkable = true;
        node.checked = el.checked;
        node.value = el.checked ? '1' : '0';
      } else {
        node.editable = true;
        node.secure = el.type === 'password';
        node.value = el.value;
        node.placeholder = el.placeholder || undefined;
      }
    } else if (cls === 'UIButton' || cls === 'UILabel' || cls === 'XCUIApplication') {
      node.label = label || text(el.innerText || el.textContent) || undefined;
      if (el.dataset.axValue) node.value = el.dataset.axValue;
    } else {
      node.label = label || undefined;
      if (el.dataset.axValue) node.value = el.dataset.axValue;
    }
    if (el.dataset.axScrollable === 'true') {
      node.scrollable = true;
      node.scroll = { top: el.scrollTop, height: el.scrollHeight, clientHeight: el.clientHeight };
    }
    if (el.dataset.webviewId) {
      node.webViewId = el.dataset.webviewId;
      // The web content's origin on screen: the iframe's content box.
      const cs = getComputedStyle(el);
      node.contentOrigin = [round(rect[0] + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft)),
        round(rect[1] + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop))];
      node.contentUrl = el.getAttribute('src') || '';
    }
    // A reusing container (UICollectionView) only has cells for what is on screen, plus one row of
    // prefetched cells on either side.
    let childWindow = null;
    if (el.dataset.axReuse === 'cells') {
      const first = el.querySelector('[data-ax-class]');
      const margin = first ? first.getBoundingClientRect().height : 0;
      childWindow = [rect[1] - margin, rect[1] + rect[3] + margin];
    }
    collectChildren(el, node.children, childWindow);
    return node;
  }

  function collectChildren(el, out, reuseWindow) {
    for (const child of el.children) {
      if (!(child instanceof HTMLElement)) continue;
      if (child.hidden || !rendered(child)) continue;
      if (child.dataset.axClass) {
        const r = child.getBoundingClientRect();
        if (reuseWindow && (r.bottom <= reuseWindow[0] || r.top >= reuseWindow[1])) continue;
        if (r.width <= 0 && r.height <= 0) continue;
        out.push(nativeNode(child, r));
      } else {
        collectChildren(child, out, reuseWindow);
      }
    }
  }

  const WEB_SELECTOR = 'h1, h2, h3, h4, h5, h6, p, label, a[href], button, input:not([type=hidden]), select, textarea, [contenteditable=""], [contenteditable="true"], img';

  function webLabel(el) {
    const aria = el.getAttribute('aria-label');
    if (aria) return text(aria);
    if (el.labels && el.labels.length) return text(el.labels[0].textContent);
    if (el instanceof HTMLImageElement) return text(el.alt);
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return '';
    return text(el.innerText || el.textContent);
  }

  function web() {
    const leaves = [];
    for (const el of document.querySelectorAll(WEB_SELECTOR)) {
      // Accessibility leaves out an aria-hidden subtree, and XCTest reads web content through it.
      if (!rendered(el) || el.closest('[aria-hidden="true"]')) continue;
      const rect = rectOf(el);
      if (rect[2] <= 0 || rect[3] <= 0) continue;
      // A label wrapping its control is read through the control.
      if (el instanceof HTMLLabelElement && el.control && el.contains(el.control)) {
        const own = text(Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join(' '));
        if (!own) continue;
      }
      const leaf = { rect, enabled: !el.matches(':disabled'), focused: document.activeElement === el };
      if (el instanceof HTMLInputElement && el.type === 'checkbox') {
        Object.assign(leaf, { kind: 'switch', label: webLabel(el), checked: el.checked, value: el.checked ? '1' : '0' });
      } else if (isTextInput(el)) {
        Object.assign(leaf, {
          kind: el instanceof HTMLTextAreaElement ? 'textview' : 'textfield',
          label: webLabel(el), value: el.value, placeholder: el.placeholder || undefined, secure: el.type === 'password',
        });
      } else if (el.isContentEditable && (el.contentEditable === 'true' || el.contentEditable === '')) {
        Object.assign(leaf, { kind: 'textview', label: webLabel(el), value: text(el.innerText) });
      } else if (el instanceof HTMLSelectElement) {
        const option = el.options[el.selectedIndex];
        Object.assign(leaf, { kind: 'popup', label: webLabel(el), value: option ? text(option.text) : '' });
      } else if (el instanceof HTMLButtonElement || el instanceof HTMLInputElement) {
        Object.assign(leaf, { kind: 'button', label: webLabel(el) || text(el.value) });
      } else if (el instanceof HTMLAnchorElement) {
        Object.assign(leaf, { kind: 'link', label: webLabel(el) });
      } else if (el instanceof HTMLImageElement) {
        Object.assign(leaf, { kind: 'image', label: webLabel(el) });
      } else {
        const heading = /^H[1-6]$/.test(el.tagName);
        const label = webLabel(el);
        if (!label) continue;
        Object.assign(leaf, { kind: heading ? 'heading' : 'text', label });
      }
      leaves.push(leaf);
    }
    return {
      url: location.href,
      title: document.title,
      viewport: { width: window.innerWidth, height: window.innerHeight, scrollY: window.scrollY },
      leaves,
    };
  }

  return options && options.mode === 'web' ? web() : native();
})

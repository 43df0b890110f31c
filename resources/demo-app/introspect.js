// The simulated OS's view of one document, evaluated by the demo device in a frame. It is a single
// function expression, called with { mode: 'native' | 'web', sliced?: boolean }:
//  - native: the app shell, where each UIKit view is an element carrying data-ax-class;
//  - web: a web view's document, read the way XCTest reads WKWebView content: leaves with labels and
//    values, no DOM ids.
// Rects are CSS pixels relative to the frame's viewport; the caller converts them to screen points.
// A sliced native read returns a promise (docs/rules.md#r-perf-10); every other read returns its value.
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

  // How a native read takes its time (docs/rules.md#r-perf-10). A heavy screen's 50,000 views take
  // Chromium about half a second to read, and while one task runs Chromium draws nothing, so a
  // screenshot would wait for the whole read. Sliced, the read yields to the page's event loop every
  // SLICE_MS, so a frame (and a capture) is drawn between slices, the way an iPhone's compositor keeps
  // drawing while XCTest reads the views.
  const SLICE_MS = 8;
  // A read that saw the page change between its slices starts again; after this many fresh starts it
  // reads in one task, which nothing can interleave: a page that never stops changing pauses the
  // picture for one read rather than never being read.
  const MAX_RESTARTS = 3;
  // Events a change between slices announces itself by (besides DOM mutations and scroll offsets).
  const CHANGE_EVENTS = ['scroll', 'input', 'change', 'focusin', 'focusout', 'keydown', 'keyup', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'click'];

  // A yield that lets the page draw a frame: a message-channel task (no 4 ms setTimeout clamp).
  // Not scheduler.yield(): its continuation runs before the frame does, and a capture waited for the
  // whole read as in one task (bench `demo-device`, measured).
  const tick = () =>
    new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(null);
    });

  /**
   * Everything that tells a read the page moved under it: DOM mutations, the change events, the scroll
   * offsets of the scrolling views (a programmatic scroll fires its event only at the next frame), and
   * the app controls the device makes (app-page.ts counts them in window.__parallaxControls: a control
   * may set a field's value, which neither mutates the DOM nor fires an event).
   */
  function watchChanges() {
    let moved = false;
    const mark = () => {
      moved = true;
    };
    const observer = new MutationObserver(mark);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const type of CHANGE_EVENTS) document.addEventListener(type, mark, true);
    window.addEventListener('resize', mark);
    // The scrolling views are found once per attempt: one that comes or goes is a DOM mutation, and a
    // query over 50,000 views at every slice would cost more than the slice.
    let scrollers = [];
    const where = () => {
      let at = `${window.__parallaxControls || 0}|${window.scrollX},${window.scrollY}`;
      for (const el of scrollers) at += `|${el.scrollTop},${el.scrollLeft}`;
      return at;
    };
    let seen = '';
    return {
      /** Whether anything moved since the last reset. */
      moved() {
        if (observer.takeRecords().length) moved = true;
        return moved || where() !== seen;
      },
      reset() {
        observer.takeRecords();
        moved = false;
        scrollers = Array.from(document.querySelectorAll('[data-ax-scrollable="true"]'));
        seen = where();
      },
      stop() {
        observer.disconnect();
        for (const type of CHANGE_EVENTS) document.removeEventListener(type, mark, true);
        window.removeEventListener('resize', mark);
      },
    };
  }

  /**
   * The native views: with `sliced`, a promise of them, read in slices. A change between two slices
   * starts the read again (MAX_RESTARTS times, then in one task), so the answer is the page as it was
   * at one moment, never a mix of two states.
   */
  function native(sliced) {
    if (!sliced) return readNative(null);
    const watch = watchChanges();
    const attempt = async (restarts) => {
      watch.reset();
      const read = await readNative(restarts < MAX_RESTARTS ? watch : null);
      return read || attempt(restarts + 1);
    };
    return attempt(0).finally(() => watch.stop());
  }

  /**
   * One read of the native views. With a watch it yields every SLICE_MS and gives up (null) when the
   * page moved while it yielded; without one it runs in one task.
   */
  function readNative(watch) {
    const screen = document.querySelector('.screen:not(.inactive)');
    const chrome = {};
    for (const el of document.querySelectorAll('[data-chrome]')) chrome[el.dataset.chrome] = rectOf(el);
    const styles = getComputedStyle(document.documentElement);
    const safeArea = {
      top: parseFloat(styles.getPropertyValue('--safe-top')) || 0,
      bottom: parseFloat(styles.getPropertyValue('--safe-bottom')) || 0,
    };
    const app = document.getElementById('app');
    // The views whose children are still to be read. A view's node is made, and placed among its
    // siblings, when its parent is read: the order the work is done in is not the order of the tree.
    const pending = [];
    const capture = {
      screen: screen ? screen.dataset.screen : null,
      hostile: screen ? screen.dataset.axHostile || null : null,
      chrome,
      safeArea,
      statusBarVisible: !!document.querySelector('.status-bar') && rendered(document.querySelector('.status-bar')),
      viewport: { width: window.innerWidth, height: window.innerHeight },
      root: app ? nativeNode(app, null, pending) : null,
    };
    if (!watch) {
      while (pending.length) collectChildren(pending.pop(), pending);
      return capture;
    }
    return (async () => {
      let deadline = performance.now() + SLICE_MS;
      let held = false;
      while (pending.length) {
        collectChildren(pending.pop(), pending);
        if (pending.length && performance.now() >= deadline) {
          await tick();
          // A test's gate (the fault xctest-read-hold): one read waits here, between two slices, until the
          // page changes (or the fault is cleared); where the change lands is then the test's choice.
          if (!held && window.__parallaxHoldReads) {
            held = true;
            window.__parallaxHoldReads = false;
            window.__parallaxReadsHeld = (window.__parallaxReadsHeld || 0) + 1;
            const released = window.__parallaxReadsReleased || 0;
            while (!watch.moved() && (window.__parallaxReadsReleased || 0) === released) await new Promise((resolve) => setTimeout(resolve, 10));
          }
          if (watch.moved()) return null;
          deadline = performance.now() + SLICE_MS;
        }
      }
      return capture;
    })();
  }

  // `box` is the element's client rect when the caller already measured it (one layout query per view:
  // a heavy screen has 50,000 of them). Its children are read later: `pending` gets that work.
  // Attributes are read with getAttribute: `dataset` costs three to four times as much per read
  // (measured over 50,000 views: about 80 ms of a 500 ms read, against 25 ms).
  function nativeNode(el, box, pending) {
    const cls = el.getAttribute('data-ax-class');
    const rect = rectFrom(box || el.getBoundingClientRect());
    const node = {
      cls,
      id: el.getAttribute('data-ax-id') || undefined,
      role: el.getAttribute('data-ax-role') || undefined,
      rect,
      enabled: !el.matches(':disabled'),
      focused: document.activeElement === el,
      selected: el.getAttribute('data-ax-selected') === 'true',
      children: [],
    };
    if (el.getAttribute('data-ax-hidden') === 'true') node.axHidden = true;
    if (el.getAttribute('data-ax-tap') === 'true') node.tappable = true;
    const textStyle = el.getAttribute('data-ax-text-style');
    if (textStyle) node.textStyle = textStyle;
    const label = el.getAttribute('data-ax-label');
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
      if (el.getAttribute('data-ax-value')) node.value = el.getAttribute('data-ax-value');
    } else {
      node.label = label || undefined;
      if (el.getAttribute('data-ax-value')) node.value = el.getAttribute('data-ax-value');
    }
    if (el.getAttribute('data-ax-scrollable') === 'true') {
      node.scrollable = true;
      node.scroll = { top: el.scrollTop, height: el.scrollHeight, clientHeight: el.clientHeight };
    }
    if (el.getAttribute('data-webview-id')) {
      node.webViewId = el.getAttribute('data-webview-id');
      // The web content's origin on screen: the iframe's content box.
      const cs = getComputedStyle(el);
      node.contentOrigin = [round(rect[0] + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft)),
        round(rect[1] + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop))];
      node.contentUrl = el.getAttribute('src') || '';
    }
    // A reusing container (UICollectionView) only has cells for what is on screen, plus one row of
    // prefetched cells on either side.
    let childWindow = null;
    if (el.getAttribute('data-ax-reuse') === 'cells') {
      const first = el.querySelector('[data-ax-class]');
      const margin = first ? first.getBoundingClientRect().height : 0;
      childWindow = [rect[1] - margin, rect[1] + rect[3] + margin];
    }
    pending.push({ el, node, childWindow });
    return node;
  }

  /** Reads one view's children: each becomes a node in place, its own children left to `pending`. */
  function collectChildren(work, pending) {
    collectInto(work.el, work.node.children, work.childWindow, pending);
  }

  function collectInto(el, out, reuseWindow, pending) {
    for (const child of el.children) {
      if (!(child instanceof HTMLElement)) continue;
      if (child.hidden || !rendered(child)) continue;
      if (child.getAttribute('data-ax-class')) {
        const r = child.getBoundingClientRect();
        if (reuseWindow && (r.bottom <= reuseWindow[0] || r.top >= reuseWindow[1])) continue;
        if (r.width <= 0 && r.height <= 0) continue;
        out.push(nativeNode(child, r, pending));
      } else {
        // A plain element (a layout wrapper) is no view: its views are its parent's children, here.
        collectInto(child, out, reuseWindow, pending);
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

  return options && options.mode === 'web' ? web() : native(!!(options && options.sliced));
})

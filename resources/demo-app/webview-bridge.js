// AutoMobileWebViewBridge page script: the script the SDK adds to an opted-in WKWebView
// (a WKUserScript, main frame only). It describes the page as AutoMobileWebSnapshot elements and
// performs the bounded AutoMobileWebControlAction set. It never evaluates code it is sent: the only
// thing callable from outside is perform(), and it takes data.
(() => {
  'use strict';
  // The app shell is native UI, not a web view; nested frames inside a web view are not its main frame.
  if (window.top === window) return;
  if (!String(window.name).startsWith('wkwebview:')) return;
  // An empty web view (about:blank, a terminated process's blank page) has no page to describe.
  if (!/^https?:$/.test(location.protocol)) return;
  const post = globalThis.__autoMobileWebBridgePost;
  const hello = globalThis.__autoMobileWebBridgeHello;
  if (typeof post !== 'function' || typeof hello !== 'function') return;

  const COALESCE_MS = 100;
  const SELECTOR = [
    'a[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', '[contenteditable=""]', '[contenteditable="true"]',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'label', 'li', 'img', '[role]', '[tabindex]',
  ].join(', ');

  const documentId = typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `doc-${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}`;
  // Element ids live as long as the document: a WeakMap keeps them off the DOM (an attribute would be a
  // mutation the page can see and copy), and the counter never reuses an id.
  const ids = new WeakMap();
  const elementsById = new Map();
  let nextId = 1;
  let policy = { redactText: false, maxElements: 500, maxMessageBytes: 131072 };
  let started = false;

  const idFor = (el) => {
    let id = ids.get(el);
    if (!id) {
      id = `e${nextId++}`;
      ids.set(el, id);
      elementsById.set(id, new WeakRef(el));
    }
    return id;
  };
  const round = (n) => Math.round(n * 100) / 100;
  const text = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const isEditor = (el) => el.isContentEditable && (el.contentEditable === 'true' || el.contentEditable === '');

  function implicitRole(el) {
    if (el instanceof HTMLInputElement) return el.type === 'checkbox' || el.type === 'radio' ? el.type : 'input';
    if (el instanceof HTMLTextAreaElement) return 'textarea';
    if (el instanceof HTMLSelectElement) return 'select';
    if (el instanceof HTMLButtonElement) return 'button';
    if (el instanceof HTMLAnchorElement) return 'link';
    if (el instanceof HTMLImageElement) return 'img';
    if (/^H[1-6]$/.test(el.tagName)) return 'heading';
    if (el instanceof HTMLLabelElement) return 'label';
    if (el instanceof HTMLLIElement) return 'listitem';
    if (isEditor(el)) return 'textbox';
    return 'text';
  }

  function labelOf(el) {
    const aria = el.getAttribute('aria-label');
    if (aria) return text(aria);
    if (el.labels && el.labels.length) return text(el.labels[0].textContent);
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return text(el.placeholder);
    if (el instanceof HTMLSelectElement) return '';
    if (el instanceof HTMLImageElement) return text(el.alt);
    if (isEditor(el)) return '';
    return text(el.innerText || el.textContent).slice(0, 200);
  }

  function valueOf(el) {
    if (el instanceof HTMLInputElement) {
      if (el.type === 'checkbox' || el.type === 'radio') return el.checked ? 'true' : 'false';
      return el.value;
    }
    if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return el.value;
    if (isEditor(el)) return text(el.innerText);
    return undefined;
  }

  function visible(el, rect) {
    if (!(rect.width > 0 && rect.height > 0)) return false;
    if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    const style = getComputedStyle(el);
    return style.display !== 'none' && style.visibility !== 'hidden';
  }

  function describe(el) {
    const rect = el.getBoundingClientRect();
    const element = {
      id: idFor(el),
      role: el.getAttribute('role') || implicitRole(el),
      bounds: [round(rect.left), round(rect.top), round(rect.width), round(rect.height)],
      enabled: !el.matches(':disabled'),
      visible: visible(el, rect),
      focused: document.activeElement === el,
    };
    const label = labelOf(el);
    if (label) element.label = label;
    if (el instanceof HTMLInputElement) element.inputType = el.type;
    const value = valueOf(el);
    if (value !== undefined) {
      // Redaction happens here, before the snapshot leaves the page: a password never leaves at all.
      const secret = el instanceof HTMLInputElement && el.type === 'password';
      if (policy.redactText || secret) element.valueRedacted = true;
      else element.value = value;
    }
    return element;
  }

  function snapshot() {
    const all = Array.from(document.querySelectorAll(SELECTOR), describe);
    const vv = window.visualViewport;
    return {
      documentId,
      url: location.href,
      title: document.title,
      viewport: vv
        ? { offsetLeft: round(vv.offsetLeft), offsetTop: round(vv.offsetTop), width: round(vv.width), height: round(vv.height), scale: vv.scale }
        : undefined,
      // Ids are assigned to every element in document order before the cut, so the bound never shifts them.
      elements: all.slice(0, Math.max(0, policy.maxElements)),
    };
  }

  let lastPost = -Infinity;
  let timer = 0;
  function postNow() {
    if (timer) {
      clearTimeout(timer);
      timer = 0;
    }
    lastPost = performance.now();
    const message = JSON.stringify(snapshot());
    const bytes = new TextEncoder().encode(message).length;
    const out = bytes > policy.maxMessageBytes ? JSON.stringify({ documentId, tooLarge: true, bytes }) : message;
    post(out).catch(() => {});
  }
  // Geometry, focus and typed values change without a mutation; these are coalesced to one post per 100 ms.
  function schedule() {
    if (!started || timer) return;
    timer = setTimeout(() => {
      timer = 0;
      postNow();
    }, Math.max(0, lastPost + COALESCE_MS - performance.now()));
  }

  function resolve(elementId) {
    const el = elementsById.get(elementId)?.deref();
    if (!el || !el.isConnected) throw new Error(`element ${elementId} is no longer in the document`);
    return el;
  }
  const fire = (el, ...types) => {
    for (const type of types) el.dispatchEvent(new Event(type, { bubbles: true }));
  };

  function insertText(el, value) {
    el.focus();
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      let start = null;
      try {
        start = el.selectionStart;
      } catch {
        start = null;
      }
      if (start === null) el.value += value; // email and number inputs have no selection API
      else el.setRangeText(value, start, el.selectionEnd ?? start, 'end');
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: value }));
      return;
    }
    if (isEditor(el)) {
      const selection = getSelection();
      if (!selection || !el.contains(selection.anchorNode)) {
        const range = document.createRange();
        range.selectNodeContents(el);
        range.collapse(false);
        selection.removeAllRanges();
        selection.addRange(range);
      }
      document.execCommand('insertText', false, value);
      return;
    }
    throw new Error('element does not accept text');
  }

  const actions = {
    click: (a) => resolve(a.elementId).click(),
    focus: (a) => resolve(a.elementId).focus(),
    insertText: (a) => insertText(resolve(a.elementId), a.text),
    setValue: (a) => {
      // An assigned value is what WebKit's bridge does; a contenteditable ignores it.
      const el = resolve(a.elementId);
      el.value = a.text;
      fire(el, 'input', 'change');
    },
    clear: (a) => {
      const el = resolve(a.elementId);
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) el.value = '';
      else if (isEditor(el)) el.textContent = '';
      else throw new Error('element has no value to clear');
      fire(el, 'input', 'change');
    },
    select: (a) => {
      const el = resolve(a.elementId);
      if (!(el instanceof HTMLSelectElement)) throw new Error('element is not a select');
      const option = Array.from(el.options).find((o) => o.value === a.value) || Array.from(el.options).find((o) => text(o.text) === a.value);
      if (!option) throw new Error(`no option ${a.value}`);
      el.value = option.value;
      fire(el, 'input', 'change');
    },
    scroll: (a) => {
      const target = a.elementId ? resolve(a.elementId) : document.scrollingElement || document.documentElement;
      target.scrollBy({ left: a.x, top: a.y, behavior: 'instant' });
    },
    scrollIntoView: (a) => resolve(a.elementId).scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' }),
    submit: (a) => {
      const el = resolve(a.elementId);
      const form = el instanceof HTMLFormElement ? el : el.form || el.closest('form');
      if (!form) throw new Error('element is not in a form');
      form.requestSubmit();
    },
  };

  const api = Object.freeze({
    // action: { kind, elementId?, text?, value?, x?, y? }, already checked by the native bridge.
    perform(action) {
      const run = Object.prototype.hasOwnProperty.call(actions, action && action.kind) ? actions[action.kind] : null;
      if (!run) throw new Error('unknown action');
      run(action);
      return { documentId };
    },
    configure(next) {
      policy = { ...policy, ...next };
      schedule();
      return true;
    },
    documentId: () => documentId,
  });
  Object.defineProperty(globalThis, '__autoMobileWebBridge', { value: api, writable: false, configurable: false, enumerable: false });

  function start() {
    if (started) return;
    started = true;
    new MutationObserver(() => postNow()).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    document.addEventListener('scroll', schedule, true);
    for (const type of ['focusin', 'focusout', 'input', 'change']) document.addEventListener(type, schedule, true);
    window.addEventListener('resize', schedule);
    if (window.visualViewport) {
      window.visualViewport.addEventListener('resize', schedule);
      window.visualViewport.addEventListener('scroll', schedule);
    }
    postNow();
  }

  hello(documentId)
    .then((p) => {
      if (p && typeof p === 'object') policy = { ...policy, ...p };
    })
    .catch(() => {})
    .finally(() => {
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
      else start();
      window.addEventListener('load', () => postNow(), { once: true });
    });
})();

// The demo app's behaviour. Everything the app "knows" lives in the DOM, so what XCTest, the SDK
// bridge and the screenshot report always agree with what the page shows.
(() => {
  'use strict';

  const SCREENS = ['login', 'feed', 'checkout', 'hostile', 'edges', 'heavy', 'access'];
  const FEED_LENGTH = 60;
  // The feed opens scrolled into the middle so there is content both above and below what is visible.
  const FEED_INITIAL_ROW = 8;
  const LONG_PRESS_MS = 500;

  const $ = (id) => document.getElementById(id);
  let current = 'login';
  let beforeFullscreen = 'login';
  const history = [];

  function showScreen(name, { pushHistory = true } = {}) {
    if (!SCREENS.includes(name)) throw new Error(`unknown screen ${name}`);
    if (name === current) return current;
    if (pushHistory) history.push(current);
    const fullscreen = name === 'edges';
    if (fullscreen && current !== 'edges') beforeFullscreen = current;
    current = name;
    for (const section of document.querySelectorAll('.screen')) section.classList.toggle('inactive', section.dataset.screen !== name);
    document.body.classList.toggle('fullscreen-presented', fullscreen);
    document.body.classList.toggle('dark-chrome', fullscreen);
    for (const tab of document.querySelectorAll('.tab')) {
      const selected = tab.dataset.tab === name;
      tab.classList.toggle('selected', selected);
      tab.dataset.axSelected = String(selected);
    }
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    if (name === 'feed' && !feedPositioned) positionFeed();
    if (name === 'heavy' && heavyBuilt !== heavyNodes) buildHeavy();
    return current;
  }

  function back() {
    const previous = history.pop();
    if (!previous) return false;
    showScreen(previous, { pushHistory: false });
    return true;
  }

  // Tab bar
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => showScreen(tab.dataset.tab));
  }

  // Login
  $('login-submit').addEventListener('click', () => {
    const user = $('login-username').value.trim();
    const password = $('login-password').value;
    const status = $('login-status');
    status.hidden = false;
    if (!user || !password) {
      status.textContent = 'Enter a username and a password.';
      status.classList.add('error');
    } else {
      status.textContent = `Signed in as ${user}`;
      status.classList.remove('error');
      signIn(user, password);
    }
  });
  // What a real app's Sign In sends its backend (src-demo/phone/demo-api.ts): a JSON login and an OAuth
  // password grant, a form body, each carrying the typed password, so the app's network capture holds it.
  function signIn(user, password) {
    const sent = [
      fetch('/api/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ username: user, password }),
      }),
      fetch('/api/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: user, password }).toString(),
      }),
    ];
    // The app reads each answer, as a real one does; the status already says what the screen shows, and
    // a failed request is the capture's to report.
    for (const request of sent) request.then((response) => response.json()).catch(() => undefined);
  }
  for (const field of [$('login-username'), $('login-password')]) {
    field.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      if (field.id === 'login-username') $('login-password').focus();
      else $('login-submit').click();
    });
  }

  // Feed
  let feedPositioned = false;
  const palette = ['#ff9f0a', '#30d158', '#64d2ff', '#bf5af2', '#ff375f', '#ffd60a', '#5e5ce6'];
  const list = $('feed-list');
  for (let i = 1; i <= FEED_LENGTH; i++) {
    const cell = document.createElement('div');
    cell.className = 'cell';
    cell.dataset.axClass = 'UICollectionViewCell';
    cell.dataset.axId = `feed.cell.${i}`;
    cell.dataset.axRole = 'listitem';
    cell.innerHTML = `
      <div class="avatar" style="background:${palette[i % palette.length]}" data-ax-class="UIImageView" data-ax-role="image"></div>
      <div class="texts">
        <p class="cell-title" data-ax-class="UILabel" data-ax-role="text">Post ${i}</p>
        <p class="cell-subtitle" data-ax-class="UILabel" data-ax-role="text">${i * 3} replies &middot; ${(i * 7) % 60} min ago</p>
      </div>
      <button class="like" data-ax-class="UIButton" data-ax-id="feed.like.${i}" data-ax-label="Like Post ${i}">&#9829;</button>`;
    list.appendChild(cell);
  }
  list.addEventListener('click', (event) => {
    const like = event.target.closest('.like');
    if (!like) return;
    like.classList.toggle('liked');
    like.dataset.axSelected = String(like.classList.contains('liked'));
    like.dataset.axValue = like.classList.contains('liked') ? 'liked' : '';
  });
  function positionFeed() {
    feedPositioned = true;
    const first = list.querySelector('.cell');
    list.scrollTop = (first ? first.offsetHeight : 72) * FEED_INITIAL_ROW;
  }

  // Heavy: a board of tiles sized to a node count, built on first show (docs/rules.md#r-perf-01). Each
  // tile is a small view tree of TILE_NODES views, the way a dashboard cell nests its labels and chart.
  const HEAVY_FIXED_NODES = 11; // application, screen, navigation bar and title, board, tab bar and its 5 tabs
  const TILE_NODES = 50;
  const BARS_PER_GROUP = 10;
  const BAR_GROUPS = 4;
  let heavyNodes = 50000;
  let heavyBuilt = 0;
  const board = $('heavy-board');
  function buildHeavy() {
    heavyBuilt = heavyNodes;
    const tiles = Math.max(1, Math.round((heavyNodes - HEAVY_FIXED_NODES) / TILE_NODES));
    const cols = Math.max(1, Math.ceil(Math.sqrt((tiles * 402) / 675)));
    board.style.setProperty('--cols', String(cols));
    board.style.setProperty('--rows', String(Math.ceil(tiles / cols)));
    const bars = (tile, group) => {
      let html = '';
      for (let b = 0; b < BARS_PER_GROUP; b++) {
        const height = 20 + ((tile * 7 + group * 13 + b * 29) % 80);
        html += `<div class="bar" data-ax-class="UIView" style="height:${height}%"></div>`;
      }
      return html;
    };
    const parts = [];
    for (let i = 1; i <= tiles; i++) {
      let groups = '';
      for (let g = 0; g < BAR_GROUPS; g++) groups += `<div class="bar-group" data-ax-class="UIView">${bars(i, g)}</div>`;
      const change = (((i * 37) % 200) - 100) / 10;
      parts.push(`<div class="tile" data-ax-class="UICollectionViewCell" data-ax-id="heavy.tile.${i}" data-ax-label="Tile ${i}">
        <div class="tile-content" data-ax-class="UIView">
          <p class="tile-title" data-ax-class="UILabel" data-ax-role="text">T${i}</p>
          <p class="tile-value" data-ax-class="UILabel" data-ax-role="text">${change > 0 ? '+' : ''}${change.toFixed(1)}%</p>
          <div class="tile-icon" data-ax-class="UIImageView" data-ax-role="image" style="background:${palette[i % palette.length]}"></div>
          <div class="tile-chart" data-ax-class="UIView">${groups}</div>
        </div>
      </div>`);
    }
    board.innerHTML = parts.join('');
  }
  board.addEventListener('click', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile) return;
    tile.classList.toggle('picked');
    tile.dataset.axSelected = String(tile.classList.contains('picked'));
  });
  function setHeavyNodes(count) {
    const n = Math.floor(Number(count));
    if (!Number.isFinite(n) || n < HEAVY_FIXED_NODES + TILE_NODES || n > 200000) throw new Error(`heavy node count out of range: ${count}`);
    heavyNodes = n;
    if (current === 'heavy') buildHeavy();
    return heavyNodes;
  }

  // Checkout web views: the promo one exists only when the app shows two web views.
  const webviews = {
    checkout: $('webview-checkout'),
    promo: $('webview-promo'),
  };
  function loadWebView(id) {
    const frame = webviews[id];
    frame.src = frame.dataset.src;
  }
  function setWebViews({ twoWebViews, checkoutTerminated }) {
    const promo = webviews.promo;
    if (twoWebViews && promo.hidden) {
      promo.hidden = false;
      loadWebView('promo');
    } else if (!twoWebViews && !promo.hidden) {
      promo.hidden = true;
      promo.removeAttribute('src');
    }
    const checkout = webviews.checkout;
    // A terminated web content process leaves a blank web view until the app reloads it.
    if (checkoutTerminated) checkout.src = 'about:blank';
    else if (checkout.getAttribute('src') !== checkout.dataset.src) loadWebView('checkout');
  }
  loadWebView('checkout');

  // Hostile
  for (const chip of [$('hostile-like'), $('hostile-repost')]) {
    chip.addEventListener('click', () => {
      chip.classList.toggle('on');
      chip.dataset.axSelected = String(chip.classList.contains('on'));
    });
  }
  $('hostile-post').addEventListener('click', () => {
    const text = $('hostile-reply').value.trim();
    const status = $('hostile-status');
    status.hidden = false;
    status.textContent = text ? `Replied: ${text}` : 'Write something first.';
    status.classList.toggle('error', !text);
    if (text) $('hostile-reply').value = '';
  });

  // Edges: each button reports which edge it sits on when pressed; a long press marks it.
  $('edges-close').addEventListener('click', () => showScreen(beforeFullscreen === 'edges' ? 'login' : beforeFullscreen));
  for (const id of ['edges-island', 'edges-flag', 'edges-home']) {
    $(id).addEventListener('click', () => {
      $('edges-caption').textContent = `${$(id).textContent} pressed`;
    });
  }

  // Long press anywhere: a press held for LONG_PRESS_MS toggles the pressed look of the control
  // under it, so a long press is observable and different from a tap.
  let pressTimer = 0;
  document.addEventListener('pointerdown', (event) => {
    const target = event.target.closest('button, .cell');
    clearTimeout(pressTimer);
    if (!target) return;
    pressTimer = setTimeout(() => {
      target.classList.toggle('pressed');
      target.dataset.axValue = target.classList.contains('pressed') ? 'long-pressed' : '';
    }, LONG_PRESS_MS);
  });
  for (const type of ['pointerup', 'pointercancel']) document.addEventListener(type, () => clearTimeout(pressTimer));

  // Variants: the same app after a designer changed it (a moved button, a renamed label, a removed row),
  // switched from the admin endpoint, so a replay of a recording made before the change meets it.
  const VARIANTS = ['moved-button', 'renamed-label', 'removed-row'];
  let variants = [];
  const originalLabels = new Map();
  function relabel(el, text, axLabel) {
    if (!originalLabels.has(el)) originalLabels.set(el, { text: el.textContent, axLabel: el.dataset.axLabel });
    const original = originalLabels.get(el);
    if (text === undefined) {
      el.textContent = original.text;
      if (original.axLabel === undefined) delete el.dataset.axLabel;
      else el.dataset.axLabel = original.axLabel;
    } else {
      el.textContent = text;
      if (axLabel !== undefined) el.dataset.axLabel = axLabel;
    }
  }
  function postVariants() {
    const frame = webviews.checkout;
    if (frame.contentWindow) frame.contentWindow.postMessage({ demoVariants: variants }, '*');
  }
  function setVariants(list) {
    for (const name of list) if (!VARIANTS.includes(name)) throw new Error(`unknown variant ${name}`);
    variants = [...list];
    const on = (name) => variants.includes(name);
    for (const name of VARIANTS) document.body.classList.toggle(`variant-${name}`, on(name));
    // Moved: Sign In goes below the passkey button.
    const submit = $('login-submit');
    const passkey = $('login-passkey');
    if (on('moved-button')) passkey.after(submit);
    else passkey.before(submit);
    // Renamed: Sign In, the feed's like buttons, Like on the timeline, Home on the edges.
    relabel(submit, on('renamed-label') ? 'Log In' : undefined);
    relabel($('hostile-like'), on('renamed-label') ? 'Heart' : undefined);
    relabel($('edges-home'), on('renamed-label') ? 'Start' : undefined);
    for (const like of document.querySelectorAll('#feed-list .like')) {
      if (!originalLabels.has(like)) originalLabels.set(like, { axLabel: like.dataset.axLabel });
      like.dataset.axLabel = on('renamed-label') ? like.dataset.axLabel.replace(/^Like /, 'Favourite ') : originalLabels.get(like).axLabel;
    }
    // Removed: the passkey row, the feed's Post 12, the timeline's Notify me row, the island button.
    passkey.hidden = on('removed-row');
    $('hostile-notify').closest('.switch-row').hidden = on('removed-row');
    $('edges-island').hidden = on('removed-row');
    document.querySelector('[data-ax-id="feed.cell.12"]').hidden = on('removed-row');
    postVariants();
    return [...variants];
  }
  webviews.checkout.addEventListener('load', postVariants);

  function reset() {
    for (const input of document.querySelectorAll('#app input')) {
      if (input.type === 'checkbox') input.checked = false;
      else input.value = '';
    }
    for (const status of document.querySelectorAll('.status')) status.hidden = true;
    for (const el of document.querySelectorAll('.liked, .on, .pressed')) el.classList.remove('liked', 'on', 'pressed');
    feedPositioned = false;
    history.length = 0;
    showScreen('login', { pushHistory: false });
  }

  window.__demoApp = Object.freeze({
    screens: SCREENS,
    showScreen: (name) => showScreen(name),
    currentScreen: () => current,
    /** The screens Back returns through, oldest first (AppReveal's get_navigation_stack reads it). */
    history: () => [...history],
    back,
    setWebViews,
    setHeavyNodes,
    variants: () => [...variants],
    setVariants,
    reset,
  });
  showScreen('login', { pushHistory: false });
  document.querySelector('.tab[data-tab="login"]').classList.add('selected');
  document.querySelector('.tab[data-tab="login"]').dataset.axSelected = 'true';
})();

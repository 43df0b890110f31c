// Injected into every frame, the way iOS posts accessibility notifications: it tells the simulated OS
// that something on screen may have changed, so the runner can re-read the screen and push a
// hierarchy_update. It carries no data; the runner always re-reads the screen itself.
(() => {
  'use strict';
  const notify = globalThis.__parallaxAxChanged;
  if (typeof notify !== 'function') return;
  let pending = false;
  const fire = () => {
    if (pending) return;
    pending = true;
    // Batches a burst (typing, a fling) into one notification; the runner debounces further.
    setTimeout(() => {
      pending = false;
      notify().catch(() => {});
    }, 30);
  };
  const start = () => {
    new MutationObserver(fire).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    fire();
  };
  for (const type of ['scroll', 'input', 'change', 'focusin', 'focusout']) document.addEventListener(type, fire, true);
  window.addEventListener('resize', fire);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
})();

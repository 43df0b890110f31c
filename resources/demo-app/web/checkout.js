// The shop's own page logic: ordinary web code that knows nothing about the bridge.
(() => {
  'use strict';
  const form = document.getElementById('checkout-form');
  const status = document.getElementById('order-status');
  let orders = 0;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = document.getElementById('name').value.trim();
    const terms = document.getElementById('terms').checked;
    status.hidden = false;
    if (!name || !terms) {
      status.textContent = !name ? 'Enter your name.' : 'Accept the terms to continue.';
      status.className = 'error';
      return;
    }
    const shipping = document.getElementById('shipping');
    status.textContent = `Order placed for ${name} (${shipping.options[shipping.selectedIndex].text}).`;
    status.className = 'ok';
    // Each order gets a fresh receipt element; the previous one leaves the document.
    document.getElementById('receipt')?.remove();
    const receipt = document.createElement('p');
    receipt.id = 'receipt';
    receipt.textContent = `Receipt #${++orders}`;
    status.after(receipt);
  });
  document.getElementById('chat-launcher').addEventListener('click', () => {
    status.hidden = false;
    status.textContent = 'Support will answer in the chat shortly.';
    status.className = 'ok';
  });
  document.getElementById('shipping').addEventListener('change', (event) => {
    const express = event.target.value === 'express';
    document.querySelector('#summary strong').textContent = express ? '$57.00' : '$48.00';
  });
})();

// Variants the demo app sends (app.js setVariants): the page after a designer changed it.
(() => {
  'use strict';
  const order = document.getElementById('place-order');
  const later = document.getElementById('pay-later');
  const text = order.textContent;
  window.addEventListener('message', (event) => {
    const variants = event.data && Array.isArray(event.data.demoVariants) ? event.data.demoVariants : null;
    if (!variants) return;
    // Moved: Place order goes above Pay later. Renamed: Place order reads Buy now. Removed: no Pay later.
    if (variants.includes('moved-button')) later.before(order);
    else later.after(order);
    order.textContent = variants.includes('renamed-label') ? 'Buy now' : text;
    later.hidden = variants.includes('removed-row');
  });
})();

/**
 * R-SECRET-08: a web_type's secret comes from the user's mark or, failing that, from the app's own read of
 * the control (get_dom_interactive). A request already marked secret needs no such read: the action sends
 * the one request it is for. Counted on a client whose tools are the app's, answering as the Swift
 * DOMSerializer's interactive list does (`selector`, `type`).
 */
import { describe, expect, it } from 'vitest';
import { actThroughAppReveal } from '@main/appreveal/actions';
import type { AppRevealClient } from '@main/appreveal/client';
import { webControlsOf } from '@shared/observe/appreveal-redact';

function appWithPassword() {
  const sent: string[] = [];
  const client = {
    has: (tool: string) => tool === 'web_type' || tool === 'get_dom_interactive',
    webControls: () => {
      sent.push('get_dom_interactive');
      return Promise.resolve(webControlsOf({ elements: [{ selector: '#password', tag: 'input', type: 'password' }] }));
    },
    webType: () => {
      sent.push('web_type');
      return Promise.resolve({ success: true });
    },
  } as unknown as AppRevealClient;
  return { client, sent };
}

describe('R-SECRET-08: where a web_type learns that its text is a secret', () => {
  it('an unmarked web_type into a password control reads the control first and is recorded as a secret', async () => {
    const { client, sent } = appWithPassword();
    const result = await actThroughAppReveal(client, { action: 'webTool', tool: 'web_type', selector: '#password', text: 'pw' });
    expect(sent).toEqual(['get_dom_interactive', 'web_type']);
    expect(result).toMatchObject({ success: true, target: { selector: '#password', secret: true } });
  });

  it('a web_type the user marked secret sends only the typing, and is recorded as a secret all the same', async () => {
    const { client, sent } = appWithPassword();
    const result = await actThroughAppReveal(client, { action: 'webTool', tool: 'web_type', selector: '#password', text: 'pw', secret: true });
    expect(sent).toEqual(['web_type']);
    expect(result).toMatchObject({ success: true, target: { selector: '#password', secret: true } });
  });
});

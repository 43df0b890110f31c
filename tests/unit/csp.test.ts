/**
 * R-SHOW-03: the page's CSP is complete in both hosts. The web host and Electron send RENDERER_CSP as a
 * header; the page carries its own copy in a meta tag (for a host that serves it without the header), and
 * that copy holds every directive of the header a meta tag can carry (frame-ancestors only works as a header).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENDERER_CSP } from '@main/host/web-host';

const directives = (csp: string) =>
  new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d] as const),
  );

describe('the CSP (R-SHOW-03)', () => {
  it("R-SHOW-03: the page's meta CSP holds each directive of the header's, object-src, base-uri and form-action included", () => {
    const html = readFileSync(join(__dirname, '..', '..', 'src-renderer', 'index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBeDefined();
    const header = directives(RENDERER_CSP);
    const page = directives(meta!);
    for (const name of ['object-src', 'base-uri', 'form-action']) expect(header.get(name)).toBe(`${name} 'none'`);
    header.delete('frame-ancestors');
    expect(Object.fromEntries(page)).toEqual(Object.fromEntries(header));
  });
});

/**
 * Where the demo device looks for Chromium, in order, on each platform; no browser is started here.
 */
import { describe, expect, it } from 'vitest';
import { findBrowser, NO_BROWSER_MESSAGE } from '@demo/phone/find-browser';

function fs(files: string[], dirs: Record<string, string[]> = {}) {
  const set = new Set(files);
  return { isFile: (p: string) => set.has(p), listDir: (p: string) => dirs[p] ?? [] };
}

describe('findBrowser', () => {
  it('prefers the explicit option, then PARALLAX_BROWSER, and never falls back from a missing one', () => {
    const files = fs(['/opt/my/chrome', '/env/chrome', '/usr/bin/chromium']);
    expect(findBrowser({ ...files, explicitPath: '/opt/my/chrome', env: { PARALLAX_BROWSER: '/env/chrome' }, platform: 'linux', home: '/h' })).toBe(
      '/opt/my/chrome',
    );
    expect(findBrowser({ ...files, env: { PARALLAX_BROWSER: '/env/chrome' }, platform: 'linux', home: '/h' })).toBe('/env/chrome');
    expect(() => findBrowser({ ...files, explicitPath: '/nope', env: {}, platform: 'linux', home: '/h' })).toThrow(/browserPath does not exist: \/nope/);
    expect(() => findBrowser({ ...files, env: { PARALLAX_BROWSER: '/nope' }, platform: 'linux', home: '/h' })).toThrow(/PARALLAX_BROWSER/);
  });

  it('on Linux: /usr/bin/chromium, then the PATH, then Playwright browsers (newest full build first)', () => {
    expect(findBrowser({ ...fs(['/usr/bin/chromium', '/bin/google-chrome']), env: { PATH: '/bin' }, platform: 'linux', home: '/h' })).toBe('/usr/bin/chromium');
    expect(findBrowser({ ...fs(['/bin/google-chrome']), env: { PATH: '/x:/bin' }, platform: 'linux', home: '/h' })).toBe('/bin/google-chrome');
    const cache = '/h/.cache/ms-playwright';
    const found = findBrowser({
      ...fs(
        [
          `${cache}/chromium-1100/chrome-linux/chrome`,
          `${cache}/chromium-1200/chrome-linux64/chrome`,
          `${cache}/chromium_headless_shell-1300/chrome-linux/headless_shell`,
        ],
        {
          [cache]: ['chromium-1100', 'chromium-1200', 'chromium_headless_shell-1300', 'ffmpeg-1010'],
        },
      ),
      env: { PATH: '' },
      platform: 'linux',
      home: '/h',
    });
    expect(found).toBe(`${cache}/chromium-1200/chrome-linux64/chrome`);
  });

  it('on macOS and Windows: Google Chrome in its usual places', () => {
    expect(
      findBrowser({ ...fs(['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome']), env: { PATH: '/usr/bin' }, platform: 'darwin', home: '/Users/u' }),
    ).toBe('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    const win = 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe';
    expect(findBrowser({ ...fs([win]), env: { Path: 'C:\\Windows', ProgramFiles: 'C:\\Program Files' }, platform: 'win32', home: 'C:\\Users\\u' })).toBe(win);
  });

  it('says in one line how to get a browser when there is none', () => {
    let message = '';
    try {
      findBrowser({ ...fs([]), env: { PATH: '/bin' }, platform: 'linux', home: '/h' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(NO_BROWSER_MESSAGE);
    expect(message).not.toContain('\n');
    expect(message).toMatch(/apt-get install chromium/);
    expect(message).toMatch(/PARALLAX_BROWSER/);
  });
});

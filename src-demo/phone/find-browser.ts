/**
 * Finds a Chromium-family browser for the demo device's rendered app.
 *
 * An explicit setting wins and is never second-guessed: if it points nowhere, that is an error rather
 * than a silent fall-back to some other browser the user did not ask for.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const NO_BROWSER_MESSAGE =
  'No Chromium or Chrome found for the demo device: install one (Debian/Ubuntu: sudo apt-get install chromium; ' +
  'macOS/Windows: install Google Chrome; anywhere: npx playwright install chromium) or set PARALLAX_BROWSER=/path/to/chrome';

export interface FindBrowserOptions {
  /** An explicit path (the `browserPath` option); wins over everything. */
  explicitPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
  /** For tests: whether a file exists and is a file. */
  isFile?: (path: string) => boolean;
  /** For tests: the entries of a folder, or [] when it cannot be read. */
  listDir?: (path: string) => string[];
}

const defaultIsFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const defaultListDir = (path: string): string[] => {
  try {
    return existsSync(path) ? readdirSync(path) : [];
  } catch {
    return [];
  }
};

/** The browser's executable path, or throws an Error whose message says in one line how to get one. */
export function findBrowser(options: FindBrowserOptions = {}): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = options.home ?? homedir();
  const isFile = options.isFile ?? defaultIsFile;
  const listDir = options.listDir ?? defaultListDir;

  const explicit = options.explicitPath ?? (env.PARALLAX_BROWSER ? env.PARALLAX_BROWSER : undefined);
  if (explicit !== undefined) {
    if (isFile(explicit)) return explicit;
    const source = options.explicitPath !== undefined ? 'browserPath' : 'PARALLAX_BROWSER';
    throw new Error(`The browser set by ${source} does not exist: ${explicit} (point it at a Chromium or Chrome executable)`);
  }

  for (const candidate of candidates(env, platform, home, listDir)) {
    if (isFile(candidate)) return candidate;
  }
  throw new Error(NO_BROWSER_MESSAGE);
}

function candidates(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string, listDir: (p: string) => string[]): string[] {
  const out: string[] = [];
  const win = platform === 'win32';
  if (!win) out.push('/usr/bin/chromium');

  const names = win ? ['chrome.exe', 'chromium.exe'] : ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
  const pathVar = env.PATH ?? env.Path ?? '';
  const sep = win ? ';' : ':';
  for (const dir of pathVar.split(sep).filter(Boolean)) {
    for (const name of names) out.push(joinFor(platform, dir, name));
  }

  if (platform === 'darwin') {
    for (const root of ['/Applications', join(home, 'Applications')]) {
      out.push(`${root}/Google Chrome.app/Contents/MacOS/Google Chrome`);
      out.push(`${root}/Chromium.app/Contents/MacOS/Chromium`);
    }
  }
  if (win) {
    for (const root of [env.ProgramFiles, env['ProgramFiles(x86)'], env.LOCALAPPDATA].filter((r): r is string => !!r)) {
      out.push(`${root}\\Google\\Chrome\\Application\\chrome.exe`);
      out.push(`${root}\\Chromium\\Application\\chrome.exe`);
    }
  }

  out.push(...playwrightBrowsers(env, platform, home, listDir));
  return out;
}

/** Playwright's installed Chromium builds, newest revision first. */
function playwrightBrowsers(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string, listDir: (p: string) => string[]): string[] {
  const roots: string[] = [];
  if (env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== '0') roots.push(env.PLAYWRIGHT_BROWSERS_PATH);
  if (platform === 'darwin') roots.push(join(home, 'Library', 'Caches', 'ms-playwright'));
  else if (platform === 'win32') roots.push(`${env.LOCALAPPDATA ?? `${home}\\AppData\\Local`}\\ms-playwright`);
  else roots.push(join(env.XDG_CACHE_HOME ?? join(home, '.cache'), 'ms-playwright'));

  const inside: Record<string, string[]> = {
    linux: ['chrome-linux64/chrome', 'chrome-linux/chrome', 'chrome-linux/headless_shell', 'chrome-headless-shell-linux64/chrome-headless-shell'],
    darwin: [
      'chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
      'chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
      'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
      'chrome-mac/headless_shell',
    ],
    win32: ['chrome-win64\\chrome.exe', 'chrome-win\\chrome.exe', 'chrome-win\\headless_shell.exe'],
  };
  const layouts = inside[platform] ?? inside.linux ?? [];
  const out: string[] = [];
  for (const root of roots) {
    const builds = listDir(root)
      .filter((name) => /^chromium(_headless_shell)?-\d+$/.test(name))
      // Full Chromium before the headless shell, then newest revision first.
      .sort((a, b) => rank(b) - rank(a));
    for (const build of builds) {
      for (const layout of layouts) out.push(joinFor(platform, joinFor(platform, root, build), layout));
    }
  }
  return out;
}

function rank(build: string): number {
  const revision = Number(build.slice(build.lastIndexOf('-') + 1)) || 0;
  return (build.includes('headless_shell') ? 0 : 1_000_000_000) + revision;
}

function joinFor(platform: NodeJS.Platform, a: string, b: string): string {
  if (platform === 'win32') return `${a.replace(/[\\/]+$/, '')}\\${b}`;
  return `${a.replace(/\/+$/, '')}/${b}`;
}

/**
 * Docs that cannot rot (issue 23, docs/architecture.md#floors): every `docs/*.md#anchor` that code, tests
 * or docs cite names an anchor that exists, and every repository path the docs name exists. A rename
 * that forgets its citations fails here, not in a reader's browser.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const SOURCE_DIRS = ['src-shared', 'src-main', 'src-renderer', 'src-demo', 'tests', 'e2e', 'bench', 'docs', 'bin', '.ci'];
const ROOT_FILES = [
  'README.md',
  'eslint.config.js',
  'package.json',
  'playwright.config.ts',
  'vitest.config.ts',
  'electron.vite.config.ts',
  'aliases.config.ts',
];
const TEXT = /\.(ts|tsx|js|mjs|md|json|css|html|sh)$/;

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (TEXT.test(name) || !name.includes('.')) out.push(path);
  }
  return out;
}

const files = [...SOURCE_DIRS.flatMap((d) => walk(join(ROOT, d))), ...ROOT_FILES.map((f) => join(ROOT, f)).filter(existsSync)];
const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

/** GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  const ids = new Set<string>();
  for (const m of text.matchAll(/<a\s+id="([^"]+)"/g)) ids.add(m[1]!);
  for (const m of text.matchAll(/^#{1,6}\s+(.+)$/gm)) ids.add(slug(m[1]!));
  return ids;
}

const anchors = new Map(docs.map((d) => [d, anchorsOf(d)]));

/** Every `docs/x.md#y` in any file, and `x.md#y` / `(#y)` links inside docs/*.md, with where it was cited. */
function citations(): { where: string; doc: string; anchor: string }[] {
  const out: { where: string; doc: string; anchor: string }[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(ROOT, file);
    const inDocs = rel.startsWith('docs/') && rel.endsWith('.md');
    const pattern = inDocs ? /(?:docs\/)?([a-z-]+\.md)?#([A-Za-z0-9_-]+)\)?/g : /docs\/([a-z-]+\.md)#([A-Za-z0-9_-]+)/g;
    for (const m of text.matchAll(pattern)) {
      if (inDocs && m[1] === undefined && !m[0].endsWith(')')) continue; // a bare "#" that is no link
      if (inDocs && m[1] === undefined && text[m.index! - 1] !== '(') continue;
      if (text[m.index! + m[0].length] === '…') continue; // `docs/protocol.md#p-…`: the anchors' naming, not one anchor
      const doc = m[1] ?? relative('docs', rel);
      if (!anchors.has(doc)) continue; // another repository's file (a peer's README.md#...)
      out.push({ where: rel, doc, anchor: m[2]! });
    }
  }
  return out;
}

const PEERS = /(AutoMobile|AppReveal|Tauri|Maestro|WebDriverAgent|CtrlProxy)[^.]*$/;
/** A rules table's test column names a test by its file without the ending: `e2e/actions-truth`, `bench/replay`. */
const ENDINGS = ['', '.ts', '.spec.ts', '.test.ts', '.bench.ts', '.md'];

/** Repository paths the docs name in backticks or links: `src-shared/model/node.ts`, `tests/unit/...`. */
function namedPaths(): { where: string; path: string }[] {
  const roots = ['src-shared/', 'src-main/', 'src-renderer/', 'src-demo/', 'tests/', 'e2e/', 'bench/', 'docs/', 'resources/', '.ci/', 'bin/'];
  const out: { where: string; path: string }[] = [];
  for (const doc of [...docs.map((d) => `docs/${d}`), 'README.md']) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const m of text.matchAll(/`([^`\s]+)`|\]\(([^)#\s]+)[)#]/g)) {
      let path = (m[1] ?? m[2])!.replace(/^\.\//, '');
      if (m[2] !== undefined && !path.includes('/') && doc.startsWith('docs/')) path = `docs/${path}`;
      path = path.replace(/[:#].*$/, '').replace(/[.,;]$/, '');
      if (!roots.some((r) => path.startsWith(r))) continue;
      if (/[*{}<>$]|\.\.\./.test(path)) continue; // a pattern, not a path
      // A peer's own file (AutoMobile `docs/install/homebrew.md`, AppReveal's `docs/tools.md`), named beside the peer.
      if (PEERS.test(text.slice(Math.max(0, m.index! - 200), m.index!))) continue;
      out.push({ where: doc, path });
    }
  }
  return out;
}

describe('docs that cannot rot', () => {
  it('every docs/*.md#anchor cited in code, tests and docs exists', () => {
    const cited = citations();
    expect(cited.length).toBeGreaterThan(100);
    const dangling = cited.filter((c) => !anchors.get(c.doc)!.has(c.anchor)).map((c) => `${c.where}: docs/${c.doc}#${c.anchor}`);
    expect([...new Set(dangling)]).toEqual([]);
  });

  it('every repository path the docs name exists', () => {
    const named = namedPaths();
    expect(named.length).toBeGreaterThan(50);
    const missing = named.filter((n) => !ENDINGS.some((e) => existsSync(join(ROOT, n.path + e)))).map((n) => `${n.where}: ${n.path}`);
    expect([...new Set(missing)]).toEqual([]);
  });
});

/**
 * A trace recorded on the demo device (tests/fixtures/traces/demo-qa: its manifest, events and
 * observations, screenshots left out) exported to a Maestro flow and an XCUITest method, against
 * golden files, and each output read against the syntax its tool documents: every command, key and
 * selector Maestro's; every query XCUITest's, evaluated on the screen its step was recorded on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from '@shared/protocol/json';
import type { UiNode } from '@shared/protocol/runner';
import { buildTimeline, filmstripNumbers, readTraceEvents, validateManifest } from '@shared/trace/reader';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { exportXcuiTest } from '@shared/trace/xcuitest';
import { secretVariableName } from '@shared/trace/variables';
import { readMaestroFlow } from '@shared/trace/maestro-flow';
import { evaluateIn, indexScreen, parseMaestroSelector, parseSelector } from '@shared/selectors';

const FIXTURES = join(__dirname, '..', 'fixtures', 'traces');
const DIR = join(FIXTURES, 'demo-qa');

const manifestRead = validateManifest(JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')));
if (!manifestRead.ok) throw manifestRead.error;
const manifest = manifestRead.manifest;
const eventsRead = readTraceEvents(readFileSync(join(DIR, 'events.jsonl'), 'utf8'));
if (!eventsRead.ok) throw eventsRead.error;
const timeline = buildTimeline(eventsRead.events);
const observations = new Map<string, unknown>();
for (const file of readdirSync(join(DIR, 'resources'))) {
  observations.set(`sha256:${file.replace(/\.json$/, '')}`, parseJsonLossless(readFileSync(join(DIR, 'resources', file), 'utf8')));
}
const maestro = exportMaestroFlow(manifest, timeline, observations);
const xcuitest = exportXcuiTest(manifest, timeline, observations);

/** The before-screen and the recorded target of filmstrip step `n`. */
function stepAt(n: number): { root: UiNode; targetKey: string | undefined } {
  const numbers = filmstripNumbers(timeline);
  const step = timeline.find((s) => numbers.get(s.callId) === n)!;
  const observation = observations.get(step.before!.observationRef!) as { hierarchy: UiNode };
  return { root: observation.hierarchy, targetKey: step.before?.target?.nodeKey };
}

describe('exports of a recorded demo trace', () => {
  it('R-QA-08: the Maestro flow matches its golden file', () => {
    expect(maestro.yaml).toBe(readFileSync(join(FIXTURES, 'demo-qa.maestro.yaml'), 'utf8'));
  });

  it('R-QA-08: the XCUITest method matches its golden file', () => {
    expect(xcuitest.swift).toBe(readFileSync(join(FIXTURES, 'demo-qa.xcuitest.swift'), 'utf8'));
  });

  it('R-QA-09, R-QA-11, R-HAND-12: the flow is one Maestro reads: documented commands, keys, selectors and parameters', () => {
    const COMMANDS = new Set([
      'tapOn',
      'doubleTapOn',
      'longPressOn',
      'inputText',
      'eraseText',
      'pressKey',
      'swipe',
      'scrollUntilVisible',
      'launchApp',
      'hideKeyboard',
      'openLink',
    ]);
    const KEYS = new Set(['Enter', 'Backspace', 'Home', 'Lock']);
    expect(maestro.yaml.endsWith('\n')).toBe(true);
    const flow = readMaestroFlow(maestro.yaml);
    expect(flow.appId).toBe('dev.parallax.demo');
    for (const { name, line, args } of flow.commands) {
      const where = `line ${line}: ${name}`;
      expect(COMMANDS.has(name), where).toBe(true);
      if (name === 'pressKey') expect(KEYS.has(String(args['key'])), where).toBe(true);
      if (name === 'inputText') expect(String(args['text']), where).toMatch(/^(?!.*\$\{(?![A-Z_][A-Z0-9_]*\})).*$/);
      // The selector's text and id are Maestro patterns our own matcher must take as Maestro does.
      if (['tapOn', 'doubleTapOn', 'longPressOn'].includes(name) && args['point'] === undefined) {
        const lines = Object.entries(args).map(([k, v]) => `${k}: ${typeof v === 'string' ? `'${v.replaceAll("'", "''")}'` : String(v)}`);
        expect(() => parseMaestroSelector(lines.join('\n')), where).not.toThrow();
      }
      for (const point of [args['start'], args['end'], args['point']]) if (point !== undefined) expect(point, where).toMatch(/^\d+%, \d+%$|^\d+, \d+$/);
    }
    // The secret is a parameter, named once, the way the trace names it; its value is nowhere.
    expect(maestro.variables).toEqual(['LOGIN_PASSWORD']);
    expect(maestro.yaml).toContain('- inputText: ${LOGIN_PASSWORD}');
    expect(maestro.yaml).toContain('-e LOGIN_PASSWORD=');
    expect(maestro.yaml).not.toContain('correct horse');
  });

  it('R-QA-08: every XCUITest query is XCUITest syntax and finds, on its step\u2019s recorded screen, exactly the element the step acted on', () => {
    const blocks = xcuitest.swift.split(/^ {4}\/\/ Step (\d+): .*$/m);
    let checked = 0;
    for (let i = 1; i < blocks.length; i += 2) {
      const n = Number(blocks[i]);
      const code = blocks[i + 1]!;
      const { root, targetKey } = stepAt(n);
      const screen = indexScreen(root);
      // A query, up to the action it ends with; a coordinate, the keyboard and a scroll search's target
      // (not on screen yet) are not element queries of the step.
      const query =
        /^\s*(?:let \w+ = )?(app\.(?!coordinate|keyboards|swipe|descendants\(matching: \.any\)\[)(?:[^"\n]|"(?:[^"\\]|\\.)*")*?)(?:\.(?:tap|doubleTap|press|swipeUp|swipeDown|swipeLeft|swipeRight)\(.*)?$/gm;
      for (const match of code.matchAll(query)) {
        const expression = match[1]!;
        const parsed = parseSelector(expression, 'xcuitest');
        const found = evaluateIn(parsed, screen, 'xctest').map((j) => screen.nodes[j]!.key);
        expect(found, `step ${n}: ${expression}`).toHaveLength(1);
        const partner = screen.partner[screen.byKey.get(targetKey!)!]!;
        expect([targetKey, partner >= 0 ? screen.nodes[partner]!.key : targetKey], `step ${n}: ${expression}`).toContain(found[0]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
    // Balanced, and one method.
    for (const [open, close] of [
      ['{', '}'],
      ['(', ')'],
      ['[', ']'],
    ] as const) {
      const code = xcuitest.swift.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\/\/.*$/gm, '');
      expect(code.split(open).length, open).toBe(code.split(close).length);
    }
    expect(xcuitest.swift.match(/func test\w+\(\) throws \{/g)).toHaveLength(1);
  });

  it('R-QA-09: IME, long press, swipes and scrolls have their native forms in both', () => {
    expect(maestro.yaml).toContain('- pressKey: Enter');
    expect(maestro.yaml).toMatch(/- longPressOn:\n {4}id: '/);
    expect(maestro.yaml).toMatch(/- swipe:\n {4}start: '\d+%, \d+%'\n {4}end: '\d+%, \d+%'\n {4}duration: 300/);
    expect(maestro.yaml).toMatch(/- scrollUntilVisible:\n {4}element:\n {6}text: 'Post 30'\n {4}direction: DOWN/);
    expect(xcuitest.swift).toContain('app.keyboards.buttons["Done"].tap()');
    expect(xcuitest.swift).toMatch(/\.press\(forDuration: 0\.8\)/);
    expect(xcuitest.swift).toMatch(/\.press\(forDuration: 0\.05, thenDragTo: app\.coordinate/);
    expect(xcuitest.swift).toMatch(/where !\(target\d+\.exists && target\d+\.isHittable\) \{\n {8}app\.swipeUp\(\)/);
  });

  it('R-QA-08: an element only the DOM reports is a point, and both exports say why', () => {
    expect(maestro.yaml).toMatch(
      /# Parallax: step 11: only the web view's DOM reports this element; plain XCTest cannot find it: tapping where it was\n- tapOn:\n {4}point: /,
    );
    expect(xcuitest.swift).toContain(
      "// Parallax: step 11: only the web view's DOM reports this element; plain XCTest cannot find it: using the point where it was",
    );
  });

  it('R-QA-11: the secret is read from the environment under the one name the trace gives it', () => {
    const numbers = filmstripNumbers(timeline);
    const step = timeline.find((s) => numbers.get(s.callId) === 2)!;
    expect(secretVariableName(step.before!.target, 2)).toBe('LOGIN_PASSWORD');
    expect(xcuitest.variables).toEqual(['LOGIN_PASSWORD']);
    expect(xcuitest.swift).toContain('ProcessInfo.processInfo.environment["LOGIN_PASSWORD"]');
    expect(xcuitest.swift).toContain('field2.typeText(loginPassword)');
  });
});

describe('secret variable names', () => {
  it.each([
    [{ xctest: { 'resource-id': 'login.password' } }, 'LOGIN_PASSWORD'],
    [{ selector: { id: 'pinCode' } }, 'PIN_CODE'],
    [{ xctest: { className: 'UISecureTextField', text: 'Account password' } }, 'ACCOUNT_PASSWORD'],
    [{ node: { 'content-desc': '2FA code' } }, '_2FA_CODE'],
    [{ node: { className: 'UISecureTextField' } }, 'SECRET_STEP_4'],
    [undefined, 'SECRET_STEP_4'],
  ])('R-QA-11: %j is %s', (target, name) => {
    expect(secretVariableName(target, 4)).toBe(name);
  });
});

/**
 * Exports do in their tool what was recorded (docs/rules.md#r-hand-02 … r-hand-05): the Maestro flow
 * read by a real YAML parser and its strings evaluated as Maestro's Env.kt evaluates them
 * (src-shared/trace/maestro-flow.ts); XCUITest locals held to Swift's reserved words; CLI
 * selectors split by a real shell (bash) and parsed by the CLI's own parser (node:util parseArgs with
 * the CLI's options).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { selectorsFor } from '@shared/selectors';
import { encodeTraceEvent } from '@shared/trace/encode';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { evaluateScripts, maestroLiteralText } from '@shared/trace/maestro-handoff';
import { exportXcuiTest } from '@shared/trace/xcuitest';
import { swiftVariableName } from '@shared/trace/variables';
import { buildTimeline, readTraceEvents } from '@shared/trace/reader';
import { resourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';
import { ACTION_USAGE, OPTIONS, buildActionRequest } from '@main/cli/actions';
import { hardLabelsRoot } from '../support/hard-labels';
import { readMaestroFlow } from '@shared/trace/maestro-flow';
import { indexScreen } from '@shared/selectors/screen';
import { maestroFind } from '@shared/selectors/maestro-match';
import { maestroQuery, type MaestroSelector } from '@shared/selectors/maestro';

/** A script engine that evaluates a JSON string literal (a subset of JavaScript's) or a declared variable, and refuses anything else. */
function literalEngine(variables: readonly string[]): (script: string) => string {
  return (script) => {
    if (variables.includes(script)) return `<${script}>`;
    try {
      const value: unknown = JSON.parse(script);
      if (typeof value === 'string') return value;
    } catch {
      // not a literal
    }
    throw new Error(`Maestro would run ${JSON.stringify(script)} as JavaScript`);
  };
}

const manifest: TraceManifest = {
  format: 'parallax-trace',
  version: 1,
  createdAt: '2026-12-01T09:00:00.000Z',
  device: { name: 'demo', kind: 'runner', url: 'ws://127.0.0.1:8765/ws' },
  app: { bundleId: 'dev.parallax.demo' },
};
const SCREEN = resourceRef('3'.repeat(64));

function exportsOf(actions: { action: Record<string, unknown>; target?: Record<string, unknown>; ok?: boolean }[]) {
  let seq = 0;
  const events: TraceEvent[] = actions.flatMap(({ action, target, ok = true }, n) => [
    { type: 'action.before', callId: `c${n}`, seq: seq++, time: 1000 + seq, observationRef: SCREEN, action, ...(target ? { target } : {}) } as TraceEvent,
    {
      type: 'action.after',
      callId: `c${n}`,
      seq: seq++,
      time: 1000 + seq,
      result: ok ? { success: true, backend: 'xctest' } : { success: false, backend: 'xctest', failureReason: 'element_not_found' },
    } as TraceEvent,
  ]);
  const read = readTraceEvents(events.map((e) => encodeTraceEvent(e)).join(''));
  if (!read.ok) throw read.error;
  const steps = buildTimeline(read.events);
  const observations = new Map<string, unknown>([[SCREEN, { hierarchy: hardLabelsRoot() }]]);
  return { maestro: exportMaestroFlow(manifest, steps, observations), xcuitest: exportXcuiTest(manifest, steps, observations) };
}

describe('R-HAND-02: ${…} in what a flow types is text, not JavaScript (Env.kt evaluateScripts)', () => {
  const CASES = [
    'price ${total}',
    '${a} and ${b}',
    'already \\${escaped}',
    'a \\${b} ${c}',
    'unclosed ${x',
    '} then ${',
    'two lines ${a}\nand ${b} ${c}',
    '$${x}}',
    'quote " and \\ backslash ${q}',
    'no scripts at all',
    'sep\u2028${a}',
  ];
  it.each(CASES)('R-HAND-02: %j reads back as itself after Maestro evaluates it', (text) => {
    expect(evaluateScripts(maestroLiteralText(text), literalEngine([]))).toBe(text);
  });

  it('R-HAND-02: written as is, Maestro would run `total` as JavaScript (the bug)', () => {
    expect(() => evaluateScripts('price ${total}', literalEngine([]))).toThrow(/would run "total"/);
  });

  it('R-HAND-02: the exported flow types the text exactly, and a secret stays the variable it is meant to be', () => {
    const { maestro } = exportsOf([
      { action: { kind: 'inputText', text: 'price ${total} and ${tax}' }, target: { nodeKey: '0.13' } },
      {
        action: { kind: 'inputText', text: 'hunter2' },
        target: { nodeKey: '0.20', node: { className: 'UISecureTextField', 'resource-id': 'default', password: 'true' } },
      },
    ]);
    const flow = readMaestroFlow(maestro.yaml);
    const typed = flow.commands.filter((c) => c.name === 'inputText').map((c) => evaluateScripts(String(c.args['text']), literalEngine(maestro.variables)));
    expect(typed).toEqual(['price ${total} and ${tax}', '<DEFAULT>']);
  });
});

describe('R-HAND-03: keys, durations and empty flows as Maestro runs them on iOS', () => {
  it('R-HAND-03: Tab, Escape and the volume keys are comments that say the iOS driver ignores them; Enter and Backspace are commands', () => {
    const { maestro } = exportsOf(['tab', 'escape', 'volumeUp', 'enter', 'backspace', 'home'].map((key) => ({ action: { kind: 'pressKey', key } })));
    const flow = readMaestroFlow(maestro.yaml);
    expect(flow.commands.filter((c) => c.name === 'pressKey').map((c) => c.args['key'])).toEqual(['Enter', 'Backspace', 'Home']);
    for (const key of ['Tab', 'Escape', 'Volume Up'])
      expect(maestro.yaml).toContain(
        `pressKey: ${key} is not exported: Maestro's iOS driver does nothing for it (IOSDriver.kt pressKey acts on Backspace, Enter, Home and Lock only)`,
      );
    expect(maestro.notes).toHaveLength(3);
  });

  it('R-HAND-03: a long press held other than 3 s says Maestro holds 3 s (IOSDriver.kt longPress)', () => {
    const { maestro } = exportsOf([{ action: { kind: 'longPress', durationMs: 800 }, target: { nodeKey: '0.2' } }]);
    expect(maestro.yaml).toContain("held for 800 ms when recorded; Maestro's longPressOn takes no duration and holds 3000 ms on iOS");
    expect(readMaestroFlow(maestro.yaml).commands.map((c) => c.name)).toEqual(['longPressOn']);
  });

  it('R-HAND-03: a trace whose actions all failed is still a flow Maestro reads, one that changes nothing', () => {
    const { maestro } = exportsOf([
      { action: { kind: 'tap' }, target: { nodeKey: '0.2' }, ok: false },
      { action: { kind: 'tap' }, target: { nodeKey: '0.3' }, ok: false },
    ]);
    const flow = readMaestroFlow(maestro.yaml);
    expect(flow.commands.map((c) => c.name)).toEqual(['waitForAnimationToEnd']);
    expect(maestro.yaml).toContain('Maestro refuses a flow without commands');
  });

  it('R-HAND-03: the reader refuses what Maestro refuses: no commands part, an unknown command', () => {
    expect(() => readMaestroFlow("appId: 'x'\n---\n")).toThrow(/No content/);
    expect(() => readMaestroFlow("appId: 'x'\n---\n- tapOnn: 'a'\n")).toThrow(/line 3: Invalid command: "tapOnn" is not a Maestro command/);
  });
});

describe('R-HAND-14: childOf in the exported flow, read back as Maestro reads and runs it', () => {
  const root = hardLabelsRoot();
  const replies = flattenTree(root).filter((f) => f.node['text'] === 'Reply');
  /** A tap on `key` as the recorder writes it: the node and what XCTest reported of it. */
  const tapOn = (key: string) => {
    const node = replies.find((f) => f.key === key)!.node;
    return {
      action: { kind: 'tap' },
      target: { nodeKey: key, node: { className: node.className, text: 'Reply' }, xctest: { className: 'UIButton', text: 'Reply' } },
    };
  };
  /** The command's selector as YamlElementSelector reads it (childOf a selector itself), run by Maestro's rules on what XCTest reports. */
  const asSelector = (args: Record<string, unknown>): MaestroSelector => ({
    ...(typeof args['id'] === 'string' ? { id: args['id'] } : {}),
    ...(typeof args['text'] === 'string' ? { text: args['text'] } : {}),
    ...(args['index'] !== undefined ? { index: Number(args['index']) } : {}),
    ...(args['childOf'] !== undefined ? { childOf: asSelector(args['childOf'] as Record<string, unknown>) } : {}),
  });
  const found = (selector: MaestroSelector) => {
    const screen = indexScreen(root);
    return maestroFind(screen.xctest, maestroQuery(selector), screen.xctest.members()).map((i) => screen.keyOf(i));
  };

  it("R-HAND-14: a Reply with no id of its own is exported inside its thread (childOf id 'thread\\.2'), a flow Maestro reads that taps exactly it", () => {
    const second = replies[1]!;
    const { maestro } = exportsOf([tapOn(second.key)]);
    expect(maestro.yaml).toContain(
      "# Parallax: step 1: 5 elements match without the parent it is a child of (childOf)\n- tapOn:\n    text: 'Reply'\n    childOf:\n      id: 'thread\\.2'\n",
    );
    const flow = readMaestroFlow(maestro.yaml);
    const tap = flow.commands.find((c) => c.name === 'tapOn')!;
    expect(tap.args).toEqual({ text: 'Reply', childOf: { id: 'thread\\.2' } });
    expect(found(asSelector(tap.args))).toEqual([second.key]);
    // Without its parent, the same text is five Replies: the childOf is what makes it this one.
    expect(found({ text: 'Reply' })).toHaveLength(5);
  });

  it('R-HAND-14: every Reply exports a selector Maestro resolves to it alone: childOf where a parent tells it apart, else the index', () => {
    for (const f of replies) {
      const { maestro } = exportsOf([tapOn(f.key)]);
      const tap = readMaestroFlow(maestro.yaml).commands.find((c) => c.name === 'tapOn')!;
      const selector = asSelector(tap.args);
      if (selector.index === undefined) expect(selector.childOf).toBeDefined();
      expect(found(selector)).toEqual([f.key]);
    }
  });
});

describe('R-HAND-04: XCUITest locals are never Swift keywords nor the export’s own names', () => {
  it.each([
    ['DEFAULT', 'default_'],
    ['CLASS', 'class_'],
    ['IN', 'in_'],
    ['APP', 'app_'],
    ['FIELD3', 'field3_'],
    ['TARGET12', 'target12_'],
    ['LOGIN_PASSWORD', 'loginPassword'],
    ['DEFAULT_VALUE', 'defaultValue'],
  ])('R-HAND-04: %s is the local %s', (name, local) => {
    expect(swiftVariableName(name)).toBe(local);
  });

  it('R-HAND-04: a secret typed into fields named default, in and app declares locals that compile', () => {
    const secret = (key: string, id: string) => ({ nodeKey: key, node: { className: 'UISecureTextField', 'resource-id': id, password: 'true' } });
    const { xcuitest } = exportsOf([
      { action: { kind: 'inputText', text: 'a' }, target: secret('0.20', 'default') },
      { action: { kind: 'inputText', text: 'b' }, target: secret('0.21', 'in') },
      { action: { kind: 'inputText', text: 'c' }, target: secret('0.22', 'app') },
    ]);
    const declared = [...xcuitest.swift.matchAll(/\blet (\w+) =/g)].map((m) => m[1]);
    expect(declared).toEqual(expect.arrayContaining(['app', 'default_', 'in_', 'app_']));
    expect(new Set(declared).size).toBe(declared.length);
    expect(xcuitest.swift).not.toMatch(/\blet (default|in|class) =/);
  });
});

describe('R-HAND-05: CLI selectors survive any value', () => {
  const DEMO = join(__dirname, '..', 'fixtures', 'demo-observations');
  const demoRoot = (s: string): UiNode => ViewHierarchySchema.parse(JSON.parse(readFileSync(join(DEMO, `${s}.json`), 'utf8'))).hierarchy!;

  /** The words bash gives the CLI for a pasted `parallax tap <selector>`. */
  function shellWords(selector: string): string[] {
    const out = spawnSync('bash', ['-c', `printf '%s\\0' ${selector}`], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    return out.stdout.split('\0').slice(0, -1);
  }
  const cliParse = (args: string[]) => parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;

  it('R-HAND-05: written with a space, a value that starts with a dash is refused by the CLI’s own parser (the bug)', () => {
    expect(() => cliParse(shellWords("--text '-5% off'"))).toThrow(/--text=-XYZ|ambiguous/);
    expect(cliParse(shellWords("--text='-5% off'")).text).toBe('-5% off');
  });

  it('R-HAND-05: every CLI selector generated on the demo screens and the hard labels is read by bash and the CLI as the value it names', () => {
    let right = 0;
    let total = 0;
    for (const root of [...['login', 'feed', 'checkout', 'hostile', 'edges'].map(demoRoot), hardLabelsRoot()]) {
      const flags = new Set<string>();
      for (const f of flattenTree(root)) for (const s of selectorsFor(root, f.key)) if (s.syntax === 'parallax') flags.add(s.selector);
      for (const selector of flags) {
        total++;
        const values = cliParse(shellWords(selector));
        const [flag, value] = Object.entries(values)[0]!;
        if (selector.startsWith(`--${flag}`) && typeof value === 'string' && value !== '') right++;
      }
    }
    console.log(`R-HAND-05 CLI: ${right} of ${total} generated selectors read by bash and parseArgs`);
    expect(right).toBe(total);
    expect(total).toBeGreaterThan(20);
  });
});

describe('R-HAND-11: scroll-to speaks the ecosystem’s direction', () => {
  const request = (...args: string[]) =>
    buildActionRequest('scroll-to', parseArgs({ args: ['--look-for', 'Contact support', ...args], options: OPTIONS, strict: true }).values);

  it('R-HAND-11: --direction down reveals what is below, as Maestro and Appium mean it: the finger swipes up', () => {
    expect(request('--direction', 'down')).toMatchObject({ action: 'scrollTo', direction: 'up' });
    expect(request('--direction', 'up')).toMatchObject({ direction: 'down' });
    expect(request('--direction', 'left')).toMatchObject({ direction: 'right' });
    // The default looks below, as before: a recorded scroll search keeps the finger's direction.
    expect(request()).toMatchObject({ direction: 'up' });
  });

  it('R-HAND-11: the help says it plainly', () => {
    expect(ACTION_USAGE).toContain('down reveals what is\n                          below (the finger swipes up)');
  });
});

/**
 * The Maestro flow reader (docs/rules.md#r-hand-12) against the forms Maestro's own reader takes and
 * refuses: mobile-dev-inc/maestro maestro-orchestra/src/main/java/maestro/orchestra/yaml/
 * YamlCommandReader.kt (config, `---`, a list; "No content to map"; "Unrecognized field"),
 * YamlFluentCommand.kt (bare names, one-key mappings, string shorthands), YamlElementSelector.kt (keys).
 */
import { describe, expect, it } from 'vitest';
import { MAX_FLOW_CHARS, MaestroFlowError, readMaestroFlow } from '@shared/trace/maestro-flow';

const flow = (commands: string) => `appId: com.example.app\n---\n${commands}`;
const refusal = (text: string): MaestroFlowError => {
  try {
    readMaestroFlow(text);
  } catch (e) {
    if (e instanceof MaestroFlowError) return e;
    throw e;
  }
  throw new Error('read without error');
};

describe('R-HAND-12: a Maestro flow read as YamlCommandReader reads it', () => {
  it('R-HAND-12: config, `---` and commands; bare names and one-key mappings, each with its line', () => {
    const read = readMaestroFlow(flow('- launchApp\n- hideKeyboard\n- tapOn:\n    id: login\n- back\n'));
    expect(read.appId).toBe('com.example.app');
    expect(read.commands.map((c) => [c.name, c.line])).toEqual([
      ['launchApp', 3],
      ['hideKeyboard', 4],
      ['tapOn', 5],
      ['back', 7],
    ]);
    expect(read.commands[2]!.args).toEqual({ id: 'login' });
  });

  it('R-HAND-12: shorthand forms (YamlFluentCommand): a string is the selector text, the app id, the link, the key, the text typed', () => {
    const read = readMaestroFlow(
      flow(
        [
          '- tapOn: "Sign In"',
          '- longPressOn: Post 12',
          '- assertVisible: Welcome',
          '- assertNotVisible: Error',
          '- launchApp: com.other',
          '- stopApp: com.other',
          '- clearState',
          '- openLink: https://example.com/a',
          '- pressKey: Enter',
          '- inputText: 123',
          '- eraseText: 20',
          '- eraseText',
          '',
        ].join('\n'),
      ),
    );
    expect(read.commands.map((c) => c.args)).toEqual([
      { text: 'Sign In' },
      { text: 'Post 12' },
      { text: 'Welcome' },
      { text: 'Error' },
      { appId: 'com.other' },
      { appId: 'com.other' },
      {},
      { link: 'https://example.com/a' },
      { key: 'Enter' },
      { text: '123' },
      { charactersToErase: 20 },
      {},
    ]);
  });

  it('R-HAND-12: the map forms: launchApp options, scrollUntilVisible, swipe, relative selectors (YamlElementSelector)', () => {
    const read = readMaestroFlow(
      flow(
        [
          '- launchApp:',
          '    appId: com.example.app',
          '    clearState: true',
          '    stopApp: false',
          '    permissions: { all: deny }',
          '- scrollUntilVisible:',
          '    element:',
          "      text: 'Post 30'",
          '    direction: DOWN',
          '    timeout: 20000',
          '- swipe:',
          "    start: '50%, 69%'",
          "    end: '50%, 34%'",
          '    duration: 300',
          '- tapOn:',
          '    text: OK',
          "    index: '1'",
          '    enabled: true',
          '    below: Title',
          '    childOf:',
          '      id: dialog',
          '    containsDescendants:',
          '      - Icon',
          '      - id: badge',
          '',
        ].join('\n'),
      ),
    );
    expect(read.commands.map((c) => c.args)).toEqual([
      { appId: 'com.example.app', clearState: true, stopApp: false, permissions: { all: 'deny' } },
      { element: { text: 'Post 30' }, direction: 'DOWN', timeout: 20000 },
      { start: '50%, 69%', end: '50%, 34%', duration: 300 },
      { text: 'OK', index: 1, enabled: true, below: { text: 'Title' }, childOf: { id: 'dialog' }, containsDescendants: [{ text: 'Icon' }, { id: 'badge' }] },
    ]);
  });

  it('R-HAND-12: what Maestro refuses is refused with its kind and line', () => {
    const cases: [string, MaestroFlowError['kind'], number, RegExp][] = [
      [flow(''), 'no-commands', 0, /No content to map/],
      [flow('- tapOn: a\n- tapOnn: b\n'), 'unknown-command', 4, /"tapOnn" is not a Maestro command/],
      [flow('- swipee\n'), 'unknown-command', 3, /Invalid command/],
      [flow('- tapOn:\n    txt: a\n'), 'unknown-field', 4, /Unrecognized field "txt"/],
      [flow('- launchApp:\n    clearstate: true\n'), 'unknown-field', 4, /Unrecognized field "clearstate"/],
      [flow('- tapOn:\n    enabled: yes please\n'), 'bad-value', 4, /true or false/],
      [flow('- scrollUntilVisible:\n    element: a\n    direction: down\n'), 'bad-value', 5, /UP, DOWN, LEFT or RIGHT/],
      [flow('- tapOn:\n    index: first\n'), 'bad-value', 4, /whole number/],
      [flow('- inputText\n'), 'bad-value', 3, /needs a parameter/],
      [flow('- swipe: up\n'), 'bad-value', 3, /takes a mapping/],
      [flow('- tapOn: a\n  inputText: b\n'), 'shape', 3, /one command/],
      [flow('tapOn: a\n'), 'shape', 3, /not a list/],
      ['- tapOn: a\n', 'shape', 0, /not 1 document/],
      ['appId: [\n---\n- back\n', 'yaml', 2, /./],
      [flow('- tapOn: "unclosed\n'), 'yaml', 4, /./],
      ['name: x\n---\n- back\n', 'shape', 1, /no appId/],
    ];
    for (const [text, kind, line, message] of cases) {
      const error = refusal(text);
      expect([error.kind, error.line], text).toEqual([kind, line]);
      expect(error.message, text).toMatch(message);
    }
  });

  it('R-HAND-12: a flow over the size limit is refused before it is parsed; aliases expand within bounds', () => {
    const big = flow(`- inputText: '${'a'.repeat(MAX_FLOW_CHARS)}'\n`);
    expect(refusal(big).kind).toBe('too-large');
    const laughs = ['appId: x', 'a: &a [l, l, l, l, l, l, l, l, l]'];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(9)
          .fill(`*${'abcdefghi'[i - 1]}`)
          .join(', ')}]`,
      );
    expect(refusal(`${laughs.join('\n')}\n---\n- back\n`).kind).toBe('yaml');
  });
});

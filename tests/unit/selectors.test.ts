import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import {
  ELEMENT_TYPES,
  MAX_SELECTOR_LENGTH,
  SelectorError,
  elementAttributes,
  elementTypeOf,
  indexScreen,
  recheckSuggestions,
  selectorsFor,
  trySelector,
  type SelectorSuggestion,
} from '@shared/selectors';
import { iosAttributes } from '@shared/inspect';
import { goldenRoot } from '../support/golden';

const DEMO = join(__dirname, '..', 'fixtures', 'demo-observations');
function demoRoot(screen: string): UiNode {
  const root = ViewHierarchySchema.parse(JSON.parse(readFileSync(join(DEMO, `${screen}.json`), 'utf8'))).hierarchy;
  if (!root) throw new Error(`${screen} has no tree`);
  return root;
}
const keyOf = (root: UiNode, test: (n: UiNode) => boolean) => flattenTree(root).find((f) => test(f.node))!.key;

/** Evaluates a suggestion the way a pasted selector is evaluated: in its tool's view, or among merged nodes when only the bridge or DOM sees it (the selectors panel's recheck). */
function reevaluate(root: UiNode, s: SelectorSuggestion): string[] {
  return recheckSuggestions(root, [s])[0]!.found;
}

const ROOTS: [string, () => UiNode][] = [
  ['golden Settings (0008)', () => goldenRoot()],
  ['golden after the tap (0014)', () => goldenRoot('0014-request_hierarchy_if_stale.json')],
  ...['login', 'feed', 'checkout', 'hostile', 'edges'].map((s) => [`demo ${s}`, () => demoRoot(s)] as [string, () => UiNode]),
];

describe('selectors: generated for a node, checked on its observation', () => {
  it.each(ROOTS)('R-QA-01: every selector generated on %s finds exactly the node it came from, with the count it claims', (_name, load) => {
    const root = load();
    let checked = 0;
    for (const f of flattenTree(root)) {
      const screen = indexScreen(root);
      const i = screen.byKey.get(f.key)!;
      const partner = screen.partner[i]!;
      const allowed = new Set([f.key, ...(partner >= 0 ? [screen.nodes[partner]!.key] : [])]);
      for (const s of selectorsFor(root, f.key)) {
        expect(allowed.has(s.target), `${f.key}: ${s.selector}`).toBe(true);
        expect(reevaluate(root, s), `${f.key} ${s.syntax} ${s.selector}`).toEqual([s.target]);
        expect(s.count).toBe(1);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('R-QA-01: the Login button picked by id gets its id first in every syntax, XPath last among Appium', () => {
    const root = demoRoot('login');
    const key = keyOf(root, (n) => n['resource-id'] === 'login.submit');
    const list = selectorsFor(root, key);
    const first = (syntax: string) => list.find((s) => s.syntax === syntax)!;
    expect(first('maestro')).toMatchObject({ selector: "id: 'login\\.submit'", visibleTo: 'xctest', basis: 'identifier' });
    expect(first('xcuitest')).toMatchObject({ selector: 'app.buttons["login.submit"]', visibleTo: 'xctest' });
    expect(first('appium')).toMatchObject({ strategy: 'accessibility id', selector: 'login.submit' });
    expect(first('parallax')).toMatchObject({ selector: '--id login.submit' });
    const appium = list.filter((s) => s.syntax === 'appium').map((s) => s.strategy);
    expect(appium.lastIndexOf('xpath')).toBe(appium.length - 1);
    expect(appium.indexOf('accessibility id')).toBe(0);
  });

  it('R-QA-01: a label shared by two elements gets an index, and only then', () => {
    const root = demoRoot('login');
    const key = keyOf(root, (n) => n['resource-id'] === 'login.submit');
    const texts = selectorsFor(root, key).filter((s) => s.syntax === 'maestro' && s.strategy === 'text');
    // "Sign In" is the navigation title too: the text selector needs its index.
    expect(texts).toEqual([expect.objectContaining({ selector: "text: 'Sign In'\nindex: 1", of: 2 })]);
    const unique = selectorsFor(
      root,
      keyOf(root, (n) => n['resource-id'] === 'login.passkey'),
    ).filter((s) => s.syntax === 'maestro');
    expect(unique.map((s) => s.selector)).toEqual(["id: 'login\\.passkey'", "text: 'Sign in with Passkey'"]);
  });

  it('R-QA-02: an element only the DOM reports is marked, and XCTest-based tools find nothing for it', () => {
    const root = demoRoot('checkout');
    const key = keyOf(root, (n) => n['content-desc'] === 'Chat');
    const list = selectorsFor(root, key);
    expect(list.length).toBeGreaterThan(0);
    for (const s of list) expect(s.visibleTo).toBe('sdkWebBridge');
    expect(list.filter((s) => s.syntax !== 'parallax').every((s) => s.note?.includes('will not find it'))).toBe(true);
    const tried = trySelector("text: 'Chat'", root);
    expect(tried).toMatchObject({ ok: true, syntax: 'maestro', matches: [], onlyMerged: [key] });
  });

  it('R-QA-02: a bridge node merged over the XCTest node it replaced is found as XCTest saw it', () => {
    const root = demoRoot('login');
    const key = keyOf(root, (n) => n['resource-id'] === 'tab.feed' && n['sdk-element-id'] === 'tab.feed');
    expect(trySelector('app.buttons["tab.feed"]', root)).toMatchObject({ ok: true, matches: [key], onlyMerged: [] });
    expect(selectorsFor(root, key).every((s) => s.visibleTo === 'xctest')).toBe(true);
  });

  it('R-QA-02: a bridge node beside the XCTest container it describes points at that container for XCTest', () => {
    const root = demoRoot('login');
    const bridge = keyOf(root, (n) => n['sdk-element-id'] === 'screen.login');
    const xctest = keyOf(root, (n) => n['resource-id'] === 'screen.login' && n['sdk-element-id'] === undefined);
    const maestro = selectorsFor(root, bridge).find((s) => s.syntax === 'maestro')!;
    expect(maestro).toMatchObject({ selector: "id: 'screen\\.login'", target: xctest, visibleTo: 'xctest' });
    // The CLI resolves on the merged tree, where the bridge node answers for the pair.
    expect(trySelector('--id screen.login', root)).toMatchObject({ ok: true, matches: [bridge] });
  });
});

describe('selectors: read and evaluated in every syntax', () => {
  const root = goldenRoot();
  const general = keyOf(root, (n) => n['resource-id'] === 'com.apple.settings.general');
  const cases: [string, string, string[] | number][] = [
    ['Maestro id', "id: 'com\\.apple\\.settings\\.general'", [general]],
    ['Maestro id regex', "id: 'com\\.apple\\.settings\\.gen.*'", [general]],
    ['Maestro text shorthand in a flow line', '- tapOn: General', [general]],
    ['Maestro block under its command', "- tapOn:\n    text: 'General'\n    enabled: true", [general]],
    ['Maestro flow mapping with index', "{text: 'chevron\\.forward', index: 0}", 0],
    ['Maestro index past the matches', "text: 'General'\nindex: 3", []],
    ['XCUITest subscript', 'app.buttons["com.apple.settings.general"]', [general]],
    ['XCUITest subscript by label, with a trailing tap', 'app.buttons["General"].tap()', [general]],
    ['XCUITest matching(identifier:)', 'XCUIApplication().descendants(matching: .any).matching(identifier: "General")', [general]],
    ['XCUITest predicate with an argument', 'app.buttons.element(matching: NSPredicate(format: "label BEGINSWITH[c] %@", "gener"))', [general]],
    ['XCUITest containing', 'app.cells.containing(.button, identifier: "General").buttons.firstMatch', [general]],
    ['XCUITest boundBy', 'app.cells.element(boundBy: 2).buttons.element(boundBy: 0)', [general]],
    [
      'XCUITest elementType raw value',
      'app.descendants(matching: .any).matching(NSPredicate(format: "elementType == 9 AND label == %@", "General"))',
      [general],
    ],
    ['Appium accessibility id', 'accessibility id: com.apple.settings.general', [general]],
    ['Appium ~ shorthand', '~com.apple.settings.general', [general]],
    ['Appium class name', 'XCUIElementTypeSearchField', 1],
    ['Appium predicate', "-ios predicate string: type == 'XCUIElementTypeButton' AND label IN {'General', 'Camera'}", 2],
    ['Appium bare predicate', "name == 'com.apple.settings.general' AND enabled == 1", [general]],
    ['Appium class chain', '**/XCUIElementTypeCell/XCUIElementTypeButton[`label == "General"`]', [general]],
    ['Appium class chain with containing predicate', '**/XCUIElementTypeCell[$label == "General"$]/XCUIElementTypeButton', [general]],
    ['Appium class chain position from the end', '**/XCUIElementTypeButton[`name BEGINSWITH "com.apple.settings."`][-1]', 1],
    ['XPath by attribute', '//XCUIElementTypeButton[@name="com.apple.settings.general"]', [general]],
    ['XPath functions', "//XCUIElementTypeButton[contains(@label, 'Gener') and not(@value)]", [general]],
    ['XPath position per parent', '//XCUIElementTypeCell/XCUIElementTypeButton[1]', 11],
    ['XPath position over the set', '(//XCUIElementTypeCell/XCUIElementTypeButton)[3]', [general]],
    ['XPath absolute path', '/XCUIElementTypeApplication/XCUIElementTypeSearchField', 1],
    ['XPath union', '//XCUIElementTypeSearchField | //XCUIElementTypeNavigationBar', 2],
    ['CLI --id', '--id com.apple.settings.general', [general]],
    ['CLI --text quoted', "--text 'General'", [general]],
  ];
  it.each(cases)('R-QA-03: %s', (_name, input, expected) => {
    const result = trySelector(input, root);
    expect(result.ok, result.ok ? '' : result.error.message).toBe(true);
    if (!result.ok) return;
    if (typeof expected === 'number') expect(result.matches).toHaveLength(expected);
    else expect(result.matches).toEqual(expected);
  });

  const invalid: [string, string, RegExp][] = [
    ['an unclosed subscript', 'app.buttons["x"', /closing \]/],
    ['an unknown query member', 'app.widgets["x"]', /not an XCUIElementQuery member/],
    ['a subscript on one element', 'app.buttons["a"]["b"]', /applies to a query/],
    ['a predicate with an unknown attribute', "-ios predicate string: colour == 'red'", /unknown attribute "colour"/],
    ['a predicate that stops early', 'label ==', /ends where a value was expected/],
    ['a Maestro key that is not a selector', "colour: 'red'", /not a Maestro selector key/],
    ['a Maestro relative selector', "below: 'Settings'", /relative selectors/],
    ['a Maestro regex that does not compile', "text: '(unclosed'", /not a valid regular expression/],
    ['a class chain with position 0', '**/XCUIElementTypeButton[0]', /positions start at 1/],
    // An unknown type is Other in WDA (R-HAND-09, u/handoffs-wda); two positions are refused.
    ['a class chain with two positions', '**/XCUIElementTypeButton[1][2]', /two positions in one step/],
    // R-HAND-08: WebDriverAgent fails a query whose result holds an attribute (FBXPath.m collectMatchingSnapshots).
    ['an XPath that selects attributes', '//XCUIElementTypeButton/@name', /finds elements only/],
    ['an XPath that does not close', '//XCUIElementTypeButton[@name="x"', /expected "\]"/],
    ['a class name that is not a type', 'class name: UIButton', /not an XCUIElementType name/],
    ['a CLI flag without a value', '--id', /write --id VALUE|needs a value/],
    ['plain words', 'General', /not a selector in any syntax/],
  ];
  it.each(invalid)('R-QA-03: %s is refused with a reason, never thrown', (_name, input, reason) => {
    const result = trySelector(input, root);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(SelectorError);
    expect(result.error.message).toMatch(reason);
  });

  it('R-QA-03: a selector over the size limit is refused before it is read', () => {
    const result = trySelector(`id: '${'x'.repeat(MAX_SELECTOR_LENGTH)}'`, root);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/longer than 4096/);
  });
});

describe('selectors: element types', () => {
  it.each([
    [{ className: 'UIButton', role: 'button' }, 'Button'],
    [{ className: 'UILabel', role: 'text' }, 'StaticText'],
    [{ className: 'UISearchBar', role: 'textfield' }, 'SearchField'],
    [{ className: 'UITableViewCell', role: 'listitem' }, 'Cell'],
    [{ className: 'UIView', role: 'checkbox' }, 'CheckBox'],
    [{ className: 'UIView', role: 'tab' }, 'Tab'],
    [{ className: 'UIView' }, 'Other'],
    [{ className: 'XCUIApplication' }, 'Application'],
    [{ className: 'WKWebView' }, 'WebView'],
    [{ className: 'navigationBar' }, 'NavigationBar'],
    [{ className: 'button' }, 'Button'],
    [{ className: 'input', role: 'textfield' }, 'TextField'],
    [{ className: 'XCUIElementTypeSwitch' }, 'Switch'],
  ])('R-QA-04: %j is XCUIElementType%s', (node, type) => {
    expect(elementTypeOf(node)).toBe(type);
  });

  it('R-QA-04: every type has one XCUIElementType name, one raw value and its Swift case', () => {
    expect(new Set(ELEMENT_TYPES.map((t) => t.raw)).size).toBe(ELEMENT_TYPES.length);
    expect(ELEMENT_TYPES.find((t) => t.name === 'Button')).toMatchObject({ xcuiName: 'XCUIElementTypeButton', raw: 9, swiftCase: 'button', query: 'buttons' });
    expect(ELEMENT_TYPES.find((t) => t.name === 'StaticText')).toMatchObject({ raw: 48, query: 'staticTexts' });
  });

  it('R-QA-04: the runner label in text and the Android-style label in content-desc both read as the label', () => {
    expect(elementAttributes({ className: 'UIButton', text: 'General', 'resource-id': 'g' })).toMatchObject({ identifier: 'g', label: 'General' });
    expect(elementAttributes({ className: 'UITextField', 'content-desc': 'Email', text: 'jane@example.com', 'hint-text': 'you@example.com' })).toMatchObject({
      label: 'Email',
      value: 'jane@example.com',
      placeholderValue: 'you@example.com',
      xcuiType: 'XCUIElementTypeTextField',
    });
  });
});

describe('attributes in iOS terms', () => {
  it('R-QA-13: identifier, label, type and frame in points, each with its wire name', () => {
    const root = goldenRoot();
    const general = flattenTree(root).find((f) => f.node['resource-id'] === 'com.apple.settings.general')!.node;
    const rows = iosAttributes(general);
    expect(rows).toEqual(
      expect.arrayContaining([
        { name: 'identifier', wire: 'resource-id', value: 'com.apple.settings.general' },
        { name: 'label', wire: 'text', value: 'General' },
        { name: 'type', wire: 'className, role', value: 'XCUIElementTypeButton' },
        { name: 'enabled', wire: 'enabled', value: 'true' },
      ]),
    );
    expect(rows.find((r) => r.name === 'frame')).toMatchObject({ wire: 'bounds', value: expect.stringMatching(/^x \d+, y \d+, \d+ × \d+ pt$/) });
    expect(rows.some((r) => r.name === 'seen by XCTest')).toBe(false);
  });

  it('R-QA-13: a DOM-only element says XCTest does not report it; a bridge node over an XCTest one says as what', () => {
    const checkout = demoRoot('checkout');
    const chat = flattenTree(checkout).find((f) => f.node['content-desc'] === 'Chat')!.node;
    expect(iosAttributes(chat).find((r) => r.name === 'seen by XCTest')?.value).toBe("no: only the web view's DOM reports it");
    const login = demoRoot('login');
    const submit = flattenTree(login).find((f) => f.node['sdk-element-id'] === 'login.submit' || f.node['resource-id'] === 'login.submit')!.node;
    expect(iosAttributes(submit).find((r) => r.name === 'seen by XCTest')?.value).toBe('as XCUIElementTypeButton login.submit');
  });
});

describe('selectors panel: suggestions kept while the screen changes', () => {
  it("R-QA-21: the Sign In button's selectors, rechecked on the Feed screen, find nothing; on the same screen each finds it", () => {
    const login = demoRoot('login');
    const key = keyOf(login, (n) => n['resource-id'] === 'login.submit');
    const suggestions = selectorsFor(login, key);
    expect(suggestions.length).toBeGreaterThan(4);
    for (const check of recheckSuggestions(login, suggestions)) expect(check).toMatchObject({ found: [expect.any(String)], findsTarget: true });
    const feed = recheckSuggestions(demoRoot('feed'), suggestions);
    expect(feed.every((c) => !c.findsTarget)).toBe(true);
    expect(feed.filter((c) => c.found.length === 0).length).toBeGreaterThan(0);
  });
});

describe('selectors panel: a recheck on the screen the suggestions were made on', () => {
  it('R-PERF-08: answers what evaluating each suggestion again answers, for every node of every screen', () => {
    for (const [name, make] of ROOTS) {
      const root = make();
      for (const { key } of flattenTree(root)) {
        const list = selectorsFor(root, key);
        // A copy of the list is not known to have been made on this tree: it is evaluated again.
        expect(recheckSuggestions(root, list), `${name} ${key}`).toEqual(recheckSuggestions(root, [...list]));
      }
    }
  });
});

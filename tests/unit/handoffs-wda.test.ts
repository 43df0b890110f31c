/**
 * Predicate keys per syntax, case-sensitive (docs/rules.md#r-hand-07): Appium's predicates and class
 * chains take WebDriverAgent's FBElement attributes (FBElementUtils.m `wdAttributeNamesMapping`, which
 * throws FBUnknownAttributeException on any other name), XCUITest's NSPredicate takes XCTest's
 * XCUIElementAttributes by key-value coding.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { readFileSync } from 'node:fs';
import { elementTypeByName, indexScreen, pageSourceXml, parseClassChain, SelectorError, trySelector } from '@shared/selectors';

const root = {
  className: 'XCUIApplication',
  node: [{ className: 'UIButton', text: 'Go', 'resource-id': 'go', bounds: { left: 10, top: 20, right: 50, bottom: 60 } }],
} as UiNode;
const count = (text: string) => {
  const r = trySelector(text, root);
  return r.ok ? r.matches.length : r.error.reason;
};

describe('R-HAND-07: predicate keys as each tool reads them', () => {
  it.each([
    ["-ios predicate string: name == 'go'", 1],
    ["-ios predicate string: wdName == 'go'", 1],
    ['-ios predicate string: rect.x == 10 AND wdRect.height == 40', 1],
    ["-ios predicate string: type == 'XCUIElementTypeButton' AND enabled == 1 AND visible == 1", 1],
    ["**/XCUIElementTypeButton[`label == 'Go'`]", 1],
    ['app.buttons.element(matching: NSPredicate(format: "identifier == %@ AND isEnabled == 1", "go"))', 1],
    ['app.buttons.element(matching: NSPredicate(format: "elementType == 9 AND hasFocus == 0"))', 1],
  ])('R-HAND-07: %s finds %d', (text, n) => {
    expect(count(text)).toBe(n);
  });

  it.each([
    ["-ios predicate string: identifier == 'go'", /unknown attribute "identifier" for WebDriverAgent/],
    ["-ios predicate string: title == ''", /unknown attribute "title" for WebDriverAgent/],
    ['-ios predicate string: isEnabled == 1', /unknown attribute "isEnabled" for WebDriverAgent/],
    ["-ios predicate string: Name == 'go'", /unknown attribute "Name"/],
    ["**/XCUIElementTypeButton[`identifier == 'go'`]", /unknown attribute "identifier" for WebDriverAgent/],
    ['app.buttons.element(matching: NSPredicate(format: "name == %@", "go"))', /unknown attribute "name" for XCTest/],
    ['app.buttons.element(matching: NSPredicate(format: "visible == 1"))', /unknown attribute "visible" for XCTest/],
    ['app.buttons.element(matching: NSPredicate(format: "Identifier == %@", "go"))', /unknown attribute "Identifier" for XCTest/],
    // FBElementUtils.m wdAttributeNamesMapping: a dictionary of `wd…` names and their aliases, exact.
    ['-ios predicate string: Index == 0', /unknown attribute "Index" for WebDriverAgent/],
    ['-ios predicate string: uid == "x"', /unknown attribute "uid" for WebDriverAgent/],
    ['-ios predicate string: wdaccessible == 1', /unknown attribute "wdaccessible" for WebDriverAgent/],
    ['-ios predicate string: Rect.x == 10', /unknown attribute "Rect.x" for WebDriverAgent/],
  ])('R-HAND-07: %s is refused as its tool refuses it', (text, reason) => {
    expect(count(text)).toMatch(reason);
  });

  it.each([
    '-ios predicate string: hittable == 1',
    '-ios predicate string: index == 0',
    '-ios predicate string: wdAccessible == 1',
    // `wdUID`'s alias keeps its case, as an uppercase abbreviation (wdAttributeNamesMapping).
    '-ios predicate string: UID == "x"',
    '-ios predicate string: wdUID == "x"',
    // NSExpression+FBFormat.m looks up only the part before the first dot.
    '-ios predicate string: name.length == 2',
  ])('R-HAND-07: %s is a key WebDriverAgent accepts: refused as not evaluated here, not as unknown', (text) => {
    expect(count(text)).toMatch(/WebDriverAgent attribute the observation does not hold/);
  });

  it.each(['verticalSizeClass == 1', 'horizontalSizeClass == 1'].map((p) => `app.buttons.element(matching: NSPredicate(format: "${p}"))`))(
    'R-HAND-07: %s is an XCUIElementAttributes key: refused as not evaluated here, not as unknown',
    (text) => {
      expect(count(text)).toMatch(/an XCTest attribute the observation does not hold/);
    },
  );
});

/*
 * WDA's own cases: WebDriverAgentTests/UnitTests/FBClassChainTests.m, read at AirtestProject/iOS-Tagent
 * b001c4e (a fork of appium/WebDriverAgent that keeps its unit tests; the parser is appium/WebDriverAgent
 * 952ed2a WebDriverAgentLib/Utilities/FBClassChainQueryParser.m). Line numbers are that file's.
 */
const type = (name: string) => elementTypeByName(name)!.name;
const shape = (text: string) =>
  parseClassChain(text).steps.map((s) => ({
    type: s.type,
    descendant: s.descendant,
    position: s.filters.find((f) => f.kind === 'position')?.n,
    predicates: s.filters.filter((f) => f.kind !== 'position').length,
  }));
const step = (t: string, descendant: boolean, position?: number, predicates = 0) => ({ type: type(t), descendant, position, predicates });

describe('R-HAND-09: class chains by WebDriverAgent’s grammar (FBClassChainQueryParser.m)', () => {
  it.each([
    // FBClassChainTests.m:22 testValidChain
    ['XCUIElementTypeWindow/XCUIElementTypeButton', [step('Window', false), step('Button', false)]],
    // :40 testValidChainWithStar
    [
      'XCUIElementTypeWindow/XCUIElementTypeButton[3]/*[4]/*[5]/XCUIElementTypeAlert',
      [step('Window', false), step('Button', false, 3), step('Any', false, 4), step('Any', false, 5), step('Alert', false)],
    ],
    // :73 testValidSingleStarChain
    ['*', [step('Any', false)]],
    // :86 testValidSingleStarIndirectChain
    ['**/*/*/XCUIElementTypeButton', [step('Any', true), step('Any', false), step('Button', false)]],
    // :109 testValidDoubleIndirectChainAndStar
    ['**/XCUIElementTypeButton/**/*', [step('Button', true), step('Any', true)]],
    // :127 testValidDoubleIndirectChainAndClassName
    ['**/XCUIElementTypeButton/**/XCUIElementTypeImage', [step('Button', true), step('Image', true)]],
    // :145 testValidChainWithNegativeIndex
    ['XCUIElementTypeWindow/XCUIElementTypeButton[-1]', [step('Window', false), step('Button', false, -1)]],
    // :165 testValidChainWithSinglePredicate
    ["XCUIElementTypeWindow[`name == 'blabla'`]/XCUIElementTypeButton", [step('Window', false, undefined, 1), step('Button', false)]],
    // :185 testValidChainWithMultiplePredicates
    [
      "XCUIElementTypeWindow[`name == 'blabla'`]/XCUIElementTypeButton[`value == 'blabla'`]",
      [step('Window', false, undefined, 1), step('Button', false, undefined, 1)],
    ],
    // :205 testValidChainWithIndirectSearchAndPredicates
    [
      "**/XCUIElementTypeTable[`name == 'blabla'`][10]/**/XCUIElementTypeButton[`value == 'blabla'`]",
      [step('Table', true, 10, 1), step('Button', true, undefined, 1)],
    ],
    // :225 testValidChainWithMultiplePredicatesAndPositions (doubled backticks are literal ones)
    ['*[`name == "к``ири````\'лиця"`][3]/XCUIElementTypeButton[`value == "blabla"`][-1]', [step('Any', false, 3, 1), step('Button', false, -1, 1)]],
    // :245 testValidChainWithDescendantPredicate
    ["**/XCUIElementTypeTable[$type == 'XCUIElementTypeImage' AND name == 'olala'$][`name == 'blabla'`][10]", [step('Table', true, 10, 2)]],
    // :259 testValidChainWithMultipleDescendantPredicates
    [
      "**/XCUIElementTypeTable[$type == 'XCUIElementTypeImage' AND name == 'olala'$][`value == 'peace'`][$value == 'yolo'$][`name == 'blabla'`][10]",
      [step('Table', true, 10, 4)],
    ],
  ])('R-HAND-09: WDA’s valid chain %s reads as FBClassChainTests.m says', (text, steps) => {
    expect(shape(text)).toEqual(steps);
  });

  // FBClassChainTests.m:273-303, testInvalidChains: every one is refused.
  it.each([
    '/XCUIElementTypeWindow',
    'XCUIElementTypeWindow/',
    'XCUIElementTypeWindow//*',
    'XCUIElementTypeWindow*/*',
    '**',
    '***',
    '**/*/**',
    '/**',
    'XCUIElementTypeWindow/**',
    '**[1]/XCUIElementTypeWindow',
    "**[`name == '1'`]/XCUIElementTypeWindow",
    'XCUIElementTypeWindow[0]',
    'XCUIElementTypeWindow[1][1]',
    'blabla',
    'XCUIElementTypeWindow/blabla',
    ' XCUIElementTypeWindow',
    'XCUIElementTypeWindow[ 2 ]',
    'XCUIElementTypeWindow[[2]',
    'XCUIElementTypeWindow[2]]',
    'XCUIElementType[Window[2]]',
    'XCUIElementTypeWindow[visible = 1]',
    'XCUIElementTypeWindow[1][`visible = 1`]',
    'XCUIElementTypeWindow[1] [`visible = 1`]',
    'XCUIElementTypeWindow[ `visible = 1`]',
    'XCUIElementTypeWindow[`visible = 1][`name = "bla"`]',
    'XCUIElementTypeWindow[`visible = 1]',
    'XCUIElementTypeWindow[$visible = 1]',
    'XCUIElementTypeWindow[``]',
    'XCUIElementTypeWindow[$$]',
    'XCUIElementTypeWindow[`name = "bla```bla"`]',
    'XCUIElementTypeWindow[$name = "bla$$$bla"$]',
  ])('R-HAND-09: WDA’s invalid chain %s is refused', (text) => {
    expect(() => parseClassChain(text)).toThrow(SelectorError);
  });

  it.each([
    // Tokenizer (tokenizedQueryWithQuery:): the character WDA stops at, 1-based as in its message.
    ['**/XCUIElementTypeButton [1]', /unexpected character " " at position 25/],
    ['XCUIElementTypeButton[1 ]', /unexpected character " " at position 24/],
    ['XCUIElementTypeButton2', /unexpected character "2" at position 22/],
    ['XCUIElementTypeButton[`a`b`]', /unexpected character "b" at position 26/],
    ['XCUIElementTypeButton/', /unexpected character "\/" at position 22/],
    // Compiler (compiledQueryWithTokenizedQuery:): its checks, in its words.
    ["**/XCUIElementTypeButton[1][`label == 'Go'`]", /a predicate after the position/],
    ['**/XCUIElementTypeButton[1][2]', /two positions in one step/],
    ['XCUIElementTypeButton[1-2]', /the position "1-2" is not an integer other than 0/],
    ['XCUIElementTypeButton[--1]', /the position "--1" is not an integer/],
    ['XCUIElementTypeButton[4294967296]', /the position "4294967296" is not an integer other than 0/],
    ['**/**/XCUIElementTypeButton', /descendant markers cannot be duplicated/],
    ['Button', /"Button" is a class name unknown to WebDriverAgent: did you mean XCUIElementTypeButton\?/],
    ['XCUIElementType', /unknown to WebDriverAgent/],
  ])('R-HAND-09: %s is refused where WDA refuses it', (text, reason) => {
    expect(count(`-ios class chain: ${text}`)).toMatch(reason);
  });

  it.each([
    // FBStarToken / FBDescendantMarkerToken: `**`, `***` and `**/` before a type are all the marker.
    ['**XCUIElementTypeButton', [step('Button', true)]],
    ['***XCUIElementTypeButton', [step('Button', true)]],
    ['XCUIElementTypeOther/**XCUIElementTypeButton', [step('Other', false), step('Button', true)]],
    // FBAbstractPredicateToken: marks before the first character are dropped, a doubled mark is one.
    ["XCUIElementTypeButton[```label == 'Go'`]", [step('Button', false, undefined, 1)]],
    ["XCUIElementTypeButton[$label == 'a$$b'$][-1]", [step('Button', false, -1, 1)]],
    // FBElementTypeTransformer: XCUIElementTypeAny is a name in its table, an unknown XCUIElementType… is Other.
    ['XCUIElementTypeAny[2]', [step('Any', false, 2)]],
    ['XCUIElementTypeNoSuchType', [step('Other', false)]],
    ['XCUIElementTypeÜber', [step('Other', false)]],
  ])('R-HAND-09: %s is read as WDA reads it', (text, steps) => {
    expect(shape(text)).toEqual(steps);
  });

  it('R-HAND-09: a predicate then a position is read, a doubled mark matches one, and an unknown type finds the Other elements', () => {
    expect(count("-ios class chain: **/XCUIElementTypeButton[`label == 'Go'`][1]")).toBe(1);
    expect(count("-ios class chain: **/XCUIElementTypeButton[`label == 'Go'`][-1]")).toBe(1);
    expect(count("-ios class chain: **/XCUIElementTypeButton[`label == 'Go'`][2]")).toBe(0);
    expect(count("-ios class chain: *[$label == 'Go'$]")).toBe(0);
    expect(count("-ios class chain: **[$label == 'Go'$]")).toMatch(/unexpected character/);
    expect(count('-ios class chain: **/XCUIElementTypeNoSuchType')).toBe(0);
    expect(count("-ios class chain: ***XCUIElementTypeButton[`label == 'Go'`]")).toBe(1);
  });
});

describe('R-HAND-10: in the merged view, XCUITest and Appium selectors are answered on the tree XCTest reported', () => {
  // The demo's feed screen as `parallax observe` merged it: the bridge's tab bar (kept beside XCTest's
  // UITabBar) holds the tab buttons, and XCTest's UITabBar is left empty (tests/fixtures/demo-observations).
  const merged = JSON.parse(readFileSync('tests/fixtures/demo-observations/feed.json', 'utf8')).hierarchy as UiNode;
  const feedKey = (() => {
    const r = trySelector('app.buttons["tab.feed"]', merged);
    return r.ok ? r.matches : [];
  })();

  it.each([
    'app.tabBars.buttons["tab.feed"]',
    'app.tabBars.firstMatch.buttons["tab.feed"]',
    '-ios class chain: **/XCUIElementTypeTabBar/XCUIElementTypeButton[`name == "tab.feed"`]',
    '//XCUIElementTypeTabBar/XCUIElementTypeButton[@name="tab.feed"]',
    "//XCUIElementTypeButton[@name='tab.feed']/parent::XCUIElementTypeTabBar",
  ])('R-HAND-10: %s finds what XCTest reports, as with "XCTest only" ticked', (text) => {
    const r = trySelector(text, merged);
    expect(r.ok && r.matches.length).toBe(1);
    expect(r.ok && r.onlyMerged).toEqual([]);
    if (!text.includes('parent::')) expect(r.ok && r.matches).toEqual(feedKey);
  });

  it('R-HAND-10: the page source shows the tab buttons inside the tab bar, as WDA writes it', () => {
    const screen = indexScreen(merged);
    const xml = pageSourceXml(screen.xctestReported()!.screen.xctest);
    expect(xml).toMatch(/<XCUIElementTypeTabBar[^>]*>\s*<XCUIElementTypeButton[^>]*name="tab\.login"/);
  });

  it('R-HAND-10: the Parallax CLI still resolves on the merged tree, bridge identities included', () => {
    const r = trySelector('--id tab.feed', merged);
    expect(r.ok && r.matches).toEqual(feedKey);
  });
});

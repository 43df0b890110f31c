/**
 * Appium's XPath as WebDriverAgent evaluates it (docs/rules.md#r-hand-08): the page source WDA writes
 * from what XCTest reports (FBXPath.m, XCUIElement+FBWebDriverAttributes.m), evaluated by an XPath 1.0
 * engine from the root element, with WDA's functions (FBXPathExtensions.m). Each expected value below is
 * what WDA's own code computes for the element described beside it.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { indexScreen, MAX_PAGE_SOURCE_ELEMENTS, pageSourceXml, trySelector } from '@shared/selectors';

const box = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });

const root = {
  className: 'XCUIApplication',
  text: 'Demo',
  bounds: box(0, 0, 402, 874),
  node: [
    {
      className: 'UIWindow',
      bounds: box(0, 0, 402, 874),
      node: [
        // An empty text field: WDA writes its label even empty, its value falls back to the placeholder.
        { className: 'UITextField', 'resource-id': 'login.email', 'hint-text': 'Email', bounds: box(16, 100, 386, 144) },
        // A static text: its value falls back to its label; a control character is dropped from the XML.
        { className: 'UILabel', text: 'Post\u000112', bounds: box(16.5, 150.25, 116.7, 180) },
        // A selected button without a value: "1".
        { className: 'UIButton', text: 'Feed', 'resource-id': 'tab.feed', selected: 'true', bounds: box(0, 800, 134, 874) },
        { className: 'UIButton', text: 'Profile', bounds: box(134, 800, 268, 874), enabled: 'false' },
        { className: 'UISwitch', text: 'Alerts', checked: 'true', bounds: box(300, 200, 351, 231) },
        { className: 'UISwitch', text: 'Sounds', bounds: box(300, 240, 351, 271) },
      ],
    },
  ],
} as unknown as UiNode;

const count = (text: string) => {
  const r = trySelector(text, root, 'appium');
  return r.ok ? r.matches.length : r.error.reason;
};

describe('R-HAND-08: the page source WebDriverAgent writes', () => {
  it('R-HAND-08: element names, attributes in WDA order, values with their fallbacks, integral frames', () => {
    expect(pageSourceXml(indexScreen(root).xctest)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" label="Demo" enabled="true" visible="true" x="0" y="0" width="402" height="874" index="0">',
        '  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" x="0" y="0" width="402" height="874" index="0">',
        '    <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="Email" name="login.email" label="" enabled="true" visible="true" x="16" y="100" width="370" height="44" index="0" placeholderValue="Email"/>',
        '    <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Post12" name="Post12" label="Post12" enabled="true" visible="true" x="16" y="150" width="101" height="30" index="1"/>',
        '    <XCUIElementTypeButton type="XCUIElementTypeButton" value="1" name="tab.feed" label="Feed" enabled="true" visible="true" x="0" y="800" width="134" height="74" index="2"/>',
        '    <XCUIElementTypeButton type="XCUIElementTypeButton" name="Profile" label="Profile" enabled="false" visible="true" x="134" y="800" width="134" height="74" index="3"/>',
        '    <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" value="1" name="Alerts" label="Alerts" enabled="true" visible="true" x="300" y="200" width="51" height="31" index="4"/>',
        '    <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" value="0" name="Sounds" label="Sounds" enabled="true" visible="true" x="300" y="240" width="51" height="31" index="5"/>',
        '  </XCUIElementTypeWindow>',
        '</XCUIElementTypeApplication>',
        '',
      ].join('\n'),
    );
  });

  it('R-HAND-08: a screen over the page source limit is refused before the document is built', () => {
    const big = {
      className: 'XCUIApplication',
      node: Array.from({ length: MAX_PAGE_SOURCE_ELEMENTS }, (_, i) => ({ className: 'UIButton', text: `b${i}` })),
    } as unknown as UiNode;
    const r = trySelector('//XCUIElementTypeButton', big, 'appium');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.reason).toMatch(/5,001 elements; WebDriverAgent's page source is built here for at most 5,000/);
  });
});

describe('R-HAND-08: XPath 1.0 evaluated as WebDriverAgent evaluates it', () => {
  it.each([
    // The context node is the application element (FBXPath.m: xpathCtx->node = doc->children).
    ['XCUIElementTypeWindow', 1],
    ['./XCUIElementTypeWindow/XCUIElementTypeButton', 2],
    ['xpath: .', 1],
    ['xpath: self::node()', 1],
    ['/XCUIElementTypeApplication', 1],
    ['/XCUIElementTypeWindow', 0],
    // The fallbacks: an empty field has label "" and its placeholder as value; a selected button "1".
    ['//XCUIElementTypeTextField[@label=""]', 1],
    ['//XCUIElementTypeTextField[@value="Email"]', 1],
    ['//XCUIElementTypeButton[@value="1"]', 1],
    ['//XCUIElementTypeStaticText[@value="Post12"]', 1],
    ['//XCUIElementTypeSwitch[@value="0"]', 1],
    ['//*[@enabled="false"]', 1],
    ['//*[@width > 100 and @height < 50]', 2],
    ['//*[@index="2"]', 1],
    // Axes, paths inside predicates, text(), functions and operators of XPath 1.0 in full.
    ['//XCUIElementTypeButton[@name="tab.feed"]/following-sibling::*', 3],
    ['//XCUIElementTypeSwitch[1]/preceding-sibling::XCUIElementTypeButton', 2],
    ['//XCUIElementTypeStaticText/ancestor::*', 2],
    ['//*[XCUIElementTypeSwitch[@label="Sounds"]]', 1],
    ['//*[count(XCUIElementTypeButton) = 2]', 1],
    ['//*[concat(@label, "!") = "Feed!"]', 1],
    ['//*[@x div 2 = 150 and @y mod 40 = 0]', 2],
    ['//*[text()]', 0],
    ['//*[substring-before(@name, ".") = "tab"]', 1],
    ['//*[translate(@label, "FEDO", "fedo") = "feed"]', 1],
    ['(//XCUIElementTypeButton | //XCUIElementTypeSwitch)[last()]', 1],
    // WebDriverAgent's own functions (FBXPathExtensions.m): matches() searches, flag i ignores case.
    ['//*[matches(@label, "^feed$", "i")]', 1],
    ['//*[matches(@label, "ee")]', 1],
    ['//*[matches(@label, "(unclosed")]', 0],
    ['//*[ends-with(@name, ".feed")]', 1],
    ['//*[lower-case(@label) = "profile"]', 1],
    ['//*[upper-case(@label) = "PROFILE"]', 1],
    // A value that is not a node set selects no element (FBXPath.m collectMatchingSnapshots).
    ['count(//*)', 0],
    ['"text"', 0],
  ])('R-HAND-08: %s finds %d', (text, n) => {
    expect(count(text)).toBe(n);
  });

  it.each([
    ['//XCUIElementTypeButton/preceding::*', /the preceding axis is not evaluated here: the XPath engine used counts ancestors in it/],
    ['//XCUIElementTypeWindow/following::*', /the following axis is not evaluated here/],
    ['//XCUIElementTypeButton/@name', /selects an attribute; WebDriverAgent finds elements only/],
    ['/', /selects the document/],
    ['//XCUIElementTypeStaticText/text()', 0],
    ['//*[@hittable="true"]', /@hittable is written by WebDriverAgent from XCTest, and the observation does not hold it/],
    ['//*[@accessible="true"]', /@accessible is written by WebDriverAgent/],
    ['//*[replace(@label, "e", "a") = "Faad"]', /WebDriverAgent's replace\(\) is not evaluated here/],
    ['//*[matches(@label)]', /matches\(\) takes 2 or 3 arguments/],
    ['//*[colour(@label)]', /colour\(\) is not an XPath 1.0 function nor one WebDriverAgent adds/],
    ['//*[@label = $x]', /\$x: WebDriverAgent defines no variables/],
    ['//*[@label="x"', /expected "\]" to close the one here/],
    ['//*[@label="x]', /a string literal is not closed/],
    ['//*[@label=]', /not an XPath 1.0 expression/],
  ])('R-HAND-08: %s is refused with its reason', (text, reason) => {
    const r = count(text);
    if (typeof reason === 'number') expect(r).toBe(reason);
    else expect(r).toMatch(reason);
  });

  it('R-HAND-08: a path inside a predicate that scans the screen per element is refused over the budget, evaluated under it', () => {
    expect(count('//*[count(//*) > 0]')).toBe(8);
    const rows = {
      className: 'XCUIApplication',
      node: Array.from({ length: 600 }, (_, i) => ({ className: 'UIButton', text: `b${i}` })),
    } as unknown as UiNode;
    const r = trySelector('//*[count(//*) > 0]', rows, 'appium');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.reason).toMatch(/scans the screen once per element: about 3\.6e\+5 visits over 601 elements/);
    // A child path in a predicate costs the children only, whatever the screen's size.
    const linear = trySelector('//*[XCUIElementTypeButton[@label="b599"]]', rows, 'appium');
    expect(linear.ok && linear.matches.length).toBe(1);
  });
});

/**
 * Predicate keys per syntax, case-sensitive (docs/rules.md#r-hand-07): Appium's predicates and class
 * chains take WebDriverAgent's FBElement attributes (FBElementUtils.m `wdAttributeNamesMapping`, which
 * throws FBUnknownAttributeException on any other name), XCUITest's NSPredicate takes XCTest's
 * XCUIElementAttributes by key-value coding.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { trySelector } from '@shared/selectors';

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
  ])('R-HAND-07: %s is refused as its tool refuses it', (text, reason) => {
    expect(count(text)).toMatch(reason);
  });

  it.each(['-ios predicate string: hittable == 1', '-ios predicate string: index == 0', '-ios predicate string: wdAccessible == 1'])(
    'R-HAND-07: %s is a key WebDriverAgent accepts: refused as not evaluated here, not as unknown',
    (text) => {
      expect(count(text)).toMatch(/WebDriverAgent attribute the observation does not hold/);
    },
  );
});

describe('R-HAND-09: class chains by WebDriverAgent’s grammar (FBClassChainQueryParser.m)', () => {
  it.each([
    ["**/XCUIElementTypeButton[1][`label == 'Go'`]", /a predicate after the position/],
    ['**/XCUIElementTypeButton[1][2]', /two positions in one step/],
    ['**/XCUIElementTypeButton [1]', /expected "\/" between steps/],
  ])('R-HAND-09: %s is refused', (text, reason) => {
    expect(count(`-ios class chain: ${text}`)).toMatch(reason);
  });

  it('R-HAND-09: a predicate then a position is read, and a type WDA does not know is Other', () => {
    expect(count("-ios class chain: **/XCUIElementTypeButton[`label == 'Go'`][1]")).toBe(1);
    expect(count('-ios class chain: **/XCUIElementTypeNoSuchType')).toBe(0);
  });
});

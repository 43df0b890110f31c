/**
 * R-SHOW-01: a bidirectional control in a label is shown, not obeyed: "\u202Elive" would read "evil".
 * Shown as Xcode's view debugger shows it, <U+202E>; in the exports escaped, so the file reads as the
 * label is and the tool that runs it still matches the real label.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { hasBidiControls, visibleText } from '@shared/model/visible-text';
import { yamlString } from '@shared/selectors/maestro';
import { swiftString } from '@shared/selectors/xcuitest';

const LIVE = '\u202Elive';

describe('displays cannot lie (R-SHOW-01)', () => {
  it('R-SHOW-01: each bidirectional control is written out as its code point, the rest left as it is', () => {
    expect(visibleText(LIVE)).toBe('<U+202E>live');
    expect(visibleText('a\u2066b\u2069c\u200Fd\u061Ce')).toBe('a<U+2066>b<U+2069>c<U+200F>d<U+061C>e');
    expect(visibleText('Sign In · Ünïcödé ✓')).toBe('Sign In · Ünïcödé ✓');
    expect(hasBidiControls(LIVE)).toBe(true);
    expect(hasBidiControls(LIVE)).toBe(true);
    expect(hasBidiControls('live')).toBe(false);
  });

  it('R-SHOW-01: the Maestro flow escapes it, and a YAML reader reads the real label back', () => {
    const scalar = yamlString(LIVE);
    expect(scalar).toBe('"\\u202elive"');
    expect(hasBidiControls(scalar)).toBe(false);
    expect(parse(`text: ${scalar}`)).toEqual({ text: LIVE });
  });

  it('R-SHOW-01: the XCUITest method escapes it as a Swift \\u{…}, which is the same string to Swift', () => {
    expect(swiftString(LIVE)).toBe('"\\u{202e}live"');
  });
});

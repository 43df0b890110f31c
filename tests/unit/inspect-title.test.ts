/**
 * R-UI-TITLE: words a person reads. A row names a node by its type in iOS terms, its label or text and
 * its id (`Button "Sign In" · login.submit`); an index id only when nothing else names it. Search finds
 * a type by any spelling. The nodes are the demo's Login screen as the merge reports it.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { frameText, isIndexId, nodeSourceName, nodeTitle, nodeTitleText, searchNodesIn, targetTitleText, typeNamedBy } from '@shared/inspect';
import { nodeTargetRecord } from '@shared/model/identity';
import { pointTargetRecord } from '@shared/act/tap';
import { summarizeResult } from '@main/cli/actions';
import { ActionResultSchema } from '@shared/protocol/action';

const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
const bridge = (extra: Record<string, string>) => ({ 'sdk.source': 'sdkBridge', ...extra });

const submit: UiNode = {
  className: 'button',
  'content-desc': 'Sign In',
  'resource-id': 'login.submit',
  bounds: rect(16, 330, 386, 380),
  extras: bridge({ 'xctest.twin': 'replaced', 'xctest.className': 'UIButton', 'xctest.resource-id': 'login.submit', 'xctest.text': 'Sign In' }),
};
const header: UiNode = {
  className: 'header',
  'content-desc': 'Sign In',
  'resource-id': 'UILabel@0.0.0.0',
  bounds: rect(16, 119, 149, 160),
  extras: bridge({ 'xctest.twin': 'replaced', 'xctest.className': 'UILabel', 'xctest.text': 'Sign In' }),
};
const screen: UiNode = {
  className: 'other',
  'resource-id': 'screen.login',
  bounds: rect(0, 0, 402, 874),
  extras: bridge({ 'xctest.twin': 'replaced', 'xctest.className': 'UIView', 'xctest.resource-id': 'screen.login' }),
  node: [header, submit],
};
const anonymous: UiNode = { className: 'image', 'resource-id': 'UIImageView@0.0.1.0.0', bounds: rect(16, 57, 60, 101), extras: bridge({}) };
const password: UiNode = { className: 'UISecureTextField', 'resource-id': 'login.password', text: 'hunter2', bounds: rect(16, 266, 386, 310) };
const xctestButton: UiNode = { className: 'UIButton', 'resource-id': 'tab.feed', text: 'Feed', bounds: rect(80, 791, 160, 840) };
const root: UiNode = { className: 'XCUIApplication', text: 'Parallax Demo', bounds: rect(0, 0, 402, 874), node: [screen, anonymous, password, xctestButton] };

describe('R-UI-TITLE: a row in words a person reads', () => {
  const table: { name: string; node: UiNode; text: string }[] = [
    { name: 'a bridge button: its XCTest type, label, id', node: submit, text: 'Button "Sign In" · login.submit' },
    { name: 'a label with only an index id: the label, no id', node: header, text: 'StaticText "Sign In"' },
    { name: 'a container: its type and id', node: screen, text: 'Other · screen.login' },
    { name: 'an anonymous image: the index id, since nothing else names it', node: anonymous, text: 'Image · UIImageView@0.0.1.0.0' },
    { name: 'a password field: never its text', node: password, text: 'SecureTextField · login.password' },
    { name: 'an XCTest node', node: xctestButton, text: 'Button "Feed" · tab.feed' },
  ];
  for (const row of table) {
    it(`R-UI-TITLE: ${row.name}`, () => {
      expect(nodeTitleText(row.node)).toBe(row.text);
    });
  }

  it('R-UI-TITLE: index ids are the bridge\u2019s class@path, nothing a person named', () => {
    expect(['UILabel@0.0.1', 'WKWebView@0.0.1', 'UIView@0'].map(isIndexId)).toEqual([true, true, true]);
    expect(['login.submit', 'Sign In', 'a@b.c', 'feed.cell.9'].map(isIndexId)).toEqual([false, false, false, false]);
    expect(nodeTitle(header).id).toBe('');
  });

  it('R-UI-TITLE: the accessible name follows the node\u2019s real source (AppReveal is not XCTest)', () => {
    expect(nodeSourceName({ className: 'UIButton', extras: { 'appreveal.type': 'button' } })).toBe('AppReveal');
    expect(nodeSourceName(xctestButton)).toBe('XCTest');
    expect(nodeSourceName(submit)).toBe('SDK bridge');
  });
});

describe('R-UI-TITLE: search finds a type by any spelling', () => {
  const nodes = flattenTree(root);
  const found = (query: string) => searchNodesIn(nodes, query).keys.map((key) => nodes.find((f) => f.key === key)!.node);
  for (const query of ['button', 'Button', 'UIButton', 'XCUIElementTypeButton', 'buttons', '.button']) {
    it(`R-UI-TITLE: "${query}" finds the bridge button and the XCTest button`, () => {
      expect(found(query)).toEqual(expect.arrayContaining([submit, xctestButton]));
      expect(found(query)).not.toContain(header);
    });
  }
  it('R-UI-TITLE: "UILabel" finds the bridge header XCTest reports as a label; an ordinary word names no type', () => {
    expect(found('UILabel')).toContain(header);
    expect(typeNamedBy('Sign')).toBeUndefined();
    expect(typeNamedBy('UIWhatever')).toBeUndefined();
    expect(found('Sign In')).toEqual([header, submit]);
  });
  it('R-UI-TITLE: typing on past a type name still narrows (the last search is not reused across it)', () => {
    expect(found('UIButt')).toEqual([xctestButton]);
    expect(found('UIButton')).toEqual(expect.arrayContaining([submit, xctestButton]));
  });
});

describe('R-UI-TITLE: the CLI names what it acted on as a person would', () => {
  const result = (target: Record<string, unknown>) =>
    ActionResultSchema.parse({
      success: true,
      outcome: 'done',
      requestsSent: 1,
      timings: { total: 12 },
      warnings: [],
      target: { resolvedBy: 'text', ...target },
    });
  it('R-UI-TITLE: tap --text prints the element as its tree row names it, with its frame in points', () => {
    // The target record of the Login screen's navigation-bar title, as the resolver writes it.
    const record = nodeTargetRecord(header, 'text', { selector: 'Sign In' });
    expect(record.title).toBe('StaticText "Sign In"');
    expect(summarizeResult('tap', result(record))).toMatch(/^tap StaticText "Sign In" \(x 16, y 119, 133 × 41 pt\): ok/);
    expect(summarizeResult('tap', result(nodeTargetRecord(submit, 'id')))).toMatch(/^tap Button "Sign In" · login.submit \(x 16, y 330, 370 × 50 pt\): ok/);
  });
  it('R-UI-TITLE: a record from before titles names the label and a person\u2019s id; an index id only when nothing else names it', () => {
    expect(summarizeResult('tap', result({ elementId: 'UILabel@0.0.0.0', label: 'Sign In' }))).toMatch(/^tap "Sign In": ok/);
    expect(summarizeResult('tap', result({ elementId: 'login.submit', label: 'Sign In' }))).toMatch(/^tap "Sign In" · login.submit: ok/);
    expect(summarizeResult('tap', result({ elementId: 'UILabel@0.0.0.0' }))).toMatch(/^tap UILabel@0.0.0.0: ok/);
    expect(targetTitleText({ resolvedBy: 'id', selector: 'login.submit' })).toBeUndefined();
    expect(summarizeResult('type', result({ resolvedBy: 'text', selector: 'Username', elementId: 'login.username' }))).toMatch(/^type login.username: ok/);
  });
  it('R-UI-TITLE: a point tap says what is there and where, never an identity', () => {
    const record = pointTargetRecord({ x: 50, y: 120 }, header);
    expect(record).not.toHaveProperty('elementId');
    expect(summarizeResult('tap', result(record))).toMatch(/^tap 50,120 \(StaticText "Sign In" there, x 16, y 119, 133 × 41 pt\): ok/);
    expect(frameText({ left: 0, top: 62, right: 402, bottom: 168 })).toBe('x 0, y 62, 402 × 106 pt');
  });
});

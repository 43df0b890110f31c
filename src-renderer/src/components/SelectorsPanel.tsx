import './SelectorsPanel.css';
/**
 * The selectors panel (docs/rules.md#r-qa-21, #r-qa-22): for the selected node, the selectors that find
 * it in Maestro, XCUITest, Appium and the Parallax CLI, most robust first, each with what it finds on
 * the observation shown now, who can see it (a selector only the SDK bridge or the DOM resolves is
 * marked: plain XCTest, and so Maestro and Appium, will not find it) and a copy button; and a "try a
 * selector" box that reads any of those syntaxes and highlights every match on the screen and in the
 * tree (App feeds its matches to both), or says why the text is not a selector.
 */
import { memo, useLayoutEffect, useMemo, useRef } from 'react';
import type { UiNode } from '@shared/protocol/runner';
import type { NodeKey } from '@shared/model/tree';
import { countNodes } from '@shared/model/node';
import { SOURCE_LABELS } from '@shared/inspect';
import {
  formatMaestroFlowMapping,
  parseMaestroSelector,
  recheckSuggestions,
  selectorsFor,
  selectorSteps,
  suggestionText,
  SYNTAX_LABELS,
  type SelectorSuggestion,
  type SelectorTry,
  type SuggestionCheck,
} from '@shared/selectors';
import { useScopedInspector } from '@renderer/state/inspector-scope';
import { useSelectorTry } from '@renderer/state/selector-try';
import { useAfterPaint } from '@renderer/hooks/useAfterPaint';
import { useSelectorTryResult } from '@renderer/hooks/useSelectorTryResult';
import { plural } from '@renderer/state/format';
import { CopyButton } from './CopyButton';
import { PageSource } from './PageSource';

/** The suggestions for the selected node, kept while the node is gone from a newer screen so their counts say so. */
function useSuggestions(root: UiNode | undefined, key: NodeKey | null): { key: NodeKey; list: SelectorSuggestion[]; gone: boolean } | null {
  const kept = useRef<{ key: NodeKey; list: SelectorSuggestion[] } | null>(null);
  return useMemo(() => {
    if (key === null || !root) {
      kept.current = null;
      return null;
    }
    const list = selectorsFor(root, key);
    if (list.length > 0 || kept.current?.key !== key) kept.current = { key, list };
    const shown = kept.current;
    return { key, list: shown.list, gone: list.length === 0 && shown.list.length > 0 };
  }, [root, key]);
}

/** Over this many nodes, a node's selectors are found after its selection is drawn. */
const HEAVY_NODES = 5_000;
const heavyRoots = new WeakMap<UiNode, boolean>();
function heavy(root: UiNode): boolean {
  let known = heavyRoots.get(root);
  if (known === undefined) heavyRoots.set(root, (known = countNodes(root, HEAVY_NODES) > HEAVY_NODES));
  return known;
}

/** A selection's heavy part (the tree's index and maps), in tasks before its suggestions'. */
function prepare({ root, key }: { root: UiNode | undefined; key: NodeKey | null }): (() => void)[] {
  return root && key !== null ? selectorSteps(root) : [];
}

function visibilityText(s: SelectorSuggestion): string {
  return s.visibleTo === 'xctest'
    ? 'XCTest sees it: every tool finds it'
    : `only the ${SOURCE_LABELS[s.visibleTo]} reports it: plain XCTest (Maestro, Appium) will not find it`;
}

export function SelectorTryBox({ result, pending = false }: { result: SelectorTry | null; pending?: boolean }) {
  const text = useSelectorTry((s) => s.text);
  const setText = useSelectorTry((s) => s.setText);
  return (
    <div className="selector-try">
      <div className="selector-try-line">
        <input
          data-testid="selector-try-input"
          type="search"
          spellCheck={false}
          aria-label="Try a selector"
          placeholder="Try a selector: id: 'x', app.buttons[&quot;x&quot;], ~x, //XCUIElementTypeButton, --text x"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setText('');
          }}
        />
      </div>
      {pending && !result && (
        <div className="selector-try-pending" data-testid="selector-try-pending" role="status">
          Evaluating…
        </div>
      )}
      {result &&
        (result.ok ? (
          <div
            className="selector-try-result"
            data-testid="selector-try-result"
            data-count={result.matches.length}
            data-syntax={result.syntax}
            data-pending={String(pending)}
            role="status"
          >
            <strong>{result.matches.length === 0 ? 'no match' : plural(result.matches.length, 'match', 'matches')}</strong> as {SYNTAX_LABELS[result.syntax]} (
            {result.strategy}){result.syntax === 'parallax' ? ' on the merged tree' : ' in what XCTest reports'}
            {result.onlyMerged.length > 0 && (
              <span className="selector-try-merged" data-testid="selector-try-merged" data-count={result.onlyMerged.length}>
                {' '}
                · {plural(result.onlyMerged.length, 'more element')} only the SDK bridge or the DOM reports, which this tool will not find
              </span>
            )}
          </div>
        ) : (
          <div className="selector-try-error" data-testid="selector-try-error" role="alert">
            Not a selector: {result.error.message}
          </div>
        ))}
    </div>
  );
}

export function SelectorsPanel({
  root,
  tryResult,
  tryPending = false,
  unavailable,
}: {
  root: UiNode | undefined;
  tryResult: SelectorTry | null;
  /** The box's text is being evaluated (in the worker); `tryResult` is the last answer for it, or null. */
  tryPending?: boolean;
  /** Why this device has no selectors to offer (an AppReveal app's elements do not come from XCTest). */
  unavailable?: string | undefined;
}) {
  const selected = useScopedInspector((s) => s.selectedKey);
  // On a heavy screen the selection, and a new frame, are drawn first; the selectors (the tree's index
  // and the node's suggestions) follow in a task of their own after the paint (docs/rules.md#r-perf-11).
  const wanted = useMemo(() => ({ root, key: selected }), [root, selected]);
  const shown = useAfterPaint(wanted, root !== undefined && heavy(root), prepare);
  const suggestions = useSuggestions(shown.root, shown.key);
  // A new selection whose selectors are still being found says so, rather than showing the last node's.
  const finding = selected !== null && shown.key !== selected;
  const checks = useMemo(() => (suggestions && shown.root ? recheckSuggestions(shown.root, suggestions.list) : []), [suggestions, shown.root]);
  return (
    <section className="panel selectors-panel" data-testid="selectors-panel" data-node-key={suggestions?.key ?? ''}>
      <div className="panel-title">Selectors</div>
      <SelectorTryBox result={tryResult} pending={tryPending} />
      {!unavailable && <PageSource root={root} />}
      <SelectorList unavailable={unavailable} finding={finding} suggestions={suggestions} checks={checks} />
    </section>
  );
}

/**
 * A selector as the try box holds it: the box is one line (an input drops line breaks), so a Maestro
 * selector of several lines (`index:`, a `childOf:` block) goes in as the flow mapping that reads back
 * the same (docs/rules.md#r-hand-15).
 */
function tryBoxText(syntax: SelectorSuggestion['syntax'], text: string): string {
  return syntax === 'maestro' && text.includes('\n') ? formatMaestroFlowMapping(parseMaestroSelector(text)) : text;
}

/**
 * The node's selectors, apart from the try box: memoized, so a keystroke in the box (which renders the
 * panel) does not draw the list again (docs/rules.md#r-hand-13).
 */
const SelectorList = memo(function SelectorList({
  unavailable,
  finding,
  suggestions,
  checks,
}: {
  unavailable: string | undefined;
  finding: boolean;
  suggestions: { key: NodeKey; list: SelectorSuggestion[]; gone: boolean } | null;
  checks: readonly SuggestionCheck[];
}) {
  const setText = useSelectorTry((s) => s.setText);
  return (
    <div className="selectors-list">
      {unavailable ? (
        <div className="empty-note" data-testid="selectors-unavailable">
          {unavailable}
        </div>
      ) : finding ? (
        <div className="empty-note" data-testid="selectors-finding" role="status">
          Finding selectors…
        </div>
      ) : !suggestions ? (
        <div className="empty-note">Select a node to see the selectors that find it.</div>
      ) : suggestions.list.length === 0 ? (
        <div className="empty-note" data-testid="selectors-none">
          No selector finds exactly this node: it has no identifier, label or type that sets it apart.
        </div>
      ) : (
        <>
          {suggestions.gone && <div className="banner warn">This node is gone from the screen shown now: counts are on the current screen.</div>}
          <ol className="selectors" data-testid="selectors" data-node-key={suggestions.key}>
            {suggestions.list.map((s, i) => {
              const check = checks[i];
              const count = check?.found.length ?? 0;
              const text = suggestionText(s);
              return (
                <li
                  key={`${s.syntax}-${s.strategy}-${s.selector}`}
                  className={`selector-row${s.visibleTo === 'xctest' ? '' : ' bridge-only'}`}
                  data-testid="selector-row"
                  data-syntax={s.syntax}
                  data-strategy={s.strategy}
                  data-selector={text}
                  data-visible-to={s.visibleTo}
                  data-target={s.target}
                  data-count={count}
                  data-finds-target={String(check?.findsTarget ?? false)}
                >
                  <div className="selector-head">
                    <span className="selector-syntax">{SYNTAX_LABELS[s.syntax]}</span>
                    <span className="selector-strategy">{s.strategy}</span>
                    <span
                      className={`selector-count${check?.findsTarget ? '' : ' off'}`}
                      title="What it finds on the screen shown now"
                      data-testid="selector-count"
                    >
                      {count === 0 ? 'no match' : plural(count, 'match', 'matches')}
                    </span>
                    {s.visibleTo !== 'xctest' && (
                      <span className={`selector-seen src-${s.visibleTo}`} data-testid="selector-bridge-only" title={visibilityText(s)}>
                        {SOURCE_LABELS[s.visibleTo]} only
                      </span>
                    )}
                    <span className="spacer" />
                    <button
                      type="button"
                      className="copy-button"
                      data-testid="selector-try"
                      title="Try it: highlight what it finds"
                      onClick={() => setText(tryBoxText(s.syntax, text))}
                    >
                      Try
                    </button>
                    <CopyButton text={s.selector} testId="selector-copy" title={`Copy the ${SYNTAX_LABELS[s.syntax]} selector`} />
                  </div>
                  <code className="selector-text" title={visibilityText(s)}>
                    {s.selector}
                  </code>
                  {(s.note ?? s.of) !== undefined && (
                    <div className="selector-note">{s.note ?? `${plural(s.of ?? 0, 'element')} match without the position.`}</div>
                  )}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </div>
  );
});

/**
 * The panel as the live view shows it (docs/rules.md#r-hand-13): the box's text is evaluated here, on
 * `tryRoot`, in the worker, and only the answers' matches go to the store the screen and the tree read
 * (state/selector-try): typing renders this panel, not App. While new text is evaluated the last
 * answer's marks stay (as under a new tree), and the box says it is evaluating.
 */
export function SelectorsPanelWithTry({
  root,
  tryRoot,
  unavailable,
}: {
  root: UiNode | undefined;
  /** The tree the box evaluates on (also an AppReveal app's, whose elements get no suggestions). */
  tryRoot: UiNode | undefined;
  unavailable?: string | undefined;
}) {
  const text = useSelectorTry((s) => s.text);
  const answered = useSelectorTry((s) => s.answered);
  const tried = useSelectorTryResult(text, tryRoot);
  const empty = text.trim() === '';
  const result = tried.result;
  // Before the paint: the marks change in the same frame as the box's answer.
  useLayoutEffect(() => {
    if (empty) answered(null);
    else if (result) answered(result.ok ? result.matches : []);
    else answered(useSelectorTry.getState().matches ?? []);
  }, [empty, result, answered]);
  return <SelectorsPanel root={root} tryResult={result} tryPending={tried.pending} unavailable={unavailable} />;
}

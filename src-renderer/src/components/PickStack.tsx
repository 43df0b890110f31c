import './PickStack.css';
/** Where the pick stands in the stack of boxes under the picked point: "2 of 5 at this point". */
import { nodeTitle, nodeTitleText } from '@shared/inspect';
import { useInspectorStore, useScopedInspector } from '@renderer/state/inspector-scope';
import type { FlatNode } from '@shared/model/tree';

/** A crumb is short: the type, and the label or id when the node has one (`Button "Sign In"`). */
function crumbText(node: FlatNode['node']): string {
  const { type, label, id } = nodeTitle(node);
  const cut = (text: string) => (text.length > 24 ? `${text.slice(0, 23)}…` : text);
  if (label !== '') return `${type} "${cut(label)}"`;
  return id !== '' ? `${type} · ${cut(id)}` : type;
}

export function PickStack({ stack }: { stack: readonly FlatNode[] }) {
  const store = useInspectorStore();
  const pick = useScopedInspector((s) => s.pick);
  const active = pick !== null && stack.length > 0;
  const index = active ? Math.min(pick.index, stack.length - 1) : -1;
  return (
    <div
      className="pick-stack"
      data-testid="pick-stack"
      data-index={index}
      data-count={active ? stack.length : 0}
      title="Click the same point again, press Tab or use the wheel over the screen to move through the stack"
    >
      {active ? (
        <>
          <span className="pick-count">
            {index + 1} of {stack.length} at this point
          </span>
          <span className="pick-crumbs">
            {stack.map((f, i) => (
              <button
                key={f.key}
                type="button"
                className={`crumb${i === index ? ' current' : ''}`}
                title={`${nodeTitleText(f.node)} (${f.key})`}
                onClick={() =>
                  store.getState().cyclePick(
                    stack.map((s) => s.key),
                    i - index,
                  )
                }
              >
                {crumbText(f.node)}
              </button>
            ))}
          </span>
        </>
      ) : (
        <span className="muted">click a box to pick it; click again, Tab or Alt+wheel for the one below; the wheel zooms, a drag pans</span>
      )}
    </div>
  );
}

/**
 * Copy a piece of text (docs/rules.md#r-qa-20): the system clipboard through the async Clipboard API,
 * else the older copy command on a hidden text area (a page the browser refuses the API to). The button
 * says "Copied" for a moment, or why it could not.
 */
import { useEffect, useState } from 'react';

export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // Refused (no permission, no focus, an insecure page): the copy command still works inside a click.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused the clipboard');
}

const SHOWN_MS = 1200;

export function CopyButton({
  text,
  label = 'Copy',
  title,
  testId = 'copy-button',
  className = 'copy-button',
}: {
  /** What is copied; a function is read at the click (a subtree's JSON is built only then). */
  text: string | (() => string);
  label?: string;
  title?: string;
  testId?: string;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className={className}
      data-testid={testId}
      data-copied={state}
      title={state === 'failed' ? 'The browser refused the clipboard: select the text and copy it by hand' : (title ?? 'Copy to the clipboard')}
      onClick={(e) => {
        e.stopPropagation();
        copyText(typeof text === 'function' ? text() : text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Not copied' : label}
    </button>
  );
}

import './ModeToggle.css';
/** Inspect / Interact: what a click on the screen does. Key `I` switches too. */
import { useInspector } from '@renderer/state/store';

export function ModeToggle({ disabled }: { disabled?: boolean }) {
  const mode = useInspector((s) => s.mode);
  const toggleMode = useInspector((s) => s.toggleMode);
  return (
    <button
      type="button"
      className={`mode-toggle mode-${mode}`}
      data-testid="mode-toggle"
      data-mode={mode}
      aria-pressed={mode === 'interact'}
      disabled={disabled}
      title={
        mode === 'inspect'
          ? 'Inspect: clicks pick boxes. Click (or press I) to interact: clicks act on the device.'
          : 'Interact: clicks act on the device. Click (or press I) to inspect: clicks pick boxes.'
      }
      onClick={toggleMode}
    >
      <span className={`mode-seg${mode === 'inspect' ? ' on' : ''}`}>
        <svg className="mode-glyph" viewBox="0 0 16 16" aria-hidden>
          <circle cx="8" cy="8" r="5" />
          <path d="M8 0v4M8 12v4M0 8h4M12 8h4" />
        </svg>
        Inspect
      </span>
      <span className={`mode-seg${mode === 'interact' ? ' on' : ''}`}>
        <svg className="mode-glyph" viewBox="0 0 16 16" aria-hidden>
          <circle cx="8" cy="8" r="2.5" className="fill" />
          <circle cx="8" cy="8" r="6" />
        </svg>
        Interact
      </span>
      <kbd className="mode-key">I</kbd>
    </button>
  );
}

import './SearchBox.css';
/** Find nodes by label, id, text or type; every match is highlighted on the screen and in the tree, Enter / ▼ and Shift+Enter / ▲ step through them. */
import type { SearchMatches } from '@shared/inspect';
import { plural } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';

export function SearchBox({ matches }: { matches: SearchMatches }) {
  const { keys } = matches;
  const query = useInspector((s) => s.searchQuery);
  const cursor = useInspector((s) => s.searchCursor);
  const setQuery = useInspector((s) => s.setSearchQuery);
  const active = query.trim() !== '';
  const count = !active ? '' : keys.length === 0 ? 'no match' : cursor >= 0 ? `${cursor + 1} of ${keys.length}` : plural(keys.length, 'match', 'matches');
  return (
    <div className="search-box">
      <input
        data-testid="search-input"
        type="search"
        spellCheck={false}
        placeholder="Find by label, id or type (button, UIButton)"
        aria-label="Find nodes"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            useInspector.getState().stepSearch(keys, e.shiftKey ? -1 : 1);
          } else if (e.key === 'Escape') setQuery('');
        }}
      />
      <span data-testid="search-count" data-count={active ? keys.length : 0} className={`search-count${active && keys.length === 0 ? ' none' : ''}`}>
        {count}
      </span>
      {active && keys.length > 0 && (
        <span className="search-step">
          <button
            type="button"
            data-testid="search-previous"
            title="Previous match (Shift+Enter)"
            aria-label="Previous match"
            onClick={() => useInspector.getState().stepSearch(keys, -1)}
          >
            ▲
          </button>
          <button
            type="button"
            data-testid="search-next"
            title="Next match (Enter)"
            aria-label="Next match"
            onClick={() => useInspector.getState().stepSearch(keys, 1)}
          >
            ▼
          </button>
        </span>
      )}
    </div>
  );
}

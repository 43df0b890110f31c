import './SearchBox.css';
/** Find nodes by id, label, text or class; every match is highlighted on the screen and in the tree. */
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
        placeholder="Find by id, label, text or class"
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
    </div>
  );
}

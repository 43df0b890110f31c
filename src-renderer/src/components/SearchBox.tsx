import './SearchBox.css';
/** Find nodes by id, label, text or class; every match is highlighted on the screen and in the tree. */
import type { SearchHit } from '@shared/inspect';
import { plural } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';

export function SearchBox({ matches }: { matches: readonly SearchHit[] }) {
  const query = useInspector((s) => s.searchQuery);
  const cursor = useInspector((s) => s.searchCursor);
  const setQuery = useInspector((s) => s.setSearchQuery);
  const active = query.trim() !== '';
  const count = !active
    ? ''
    : matches.length === 0
      ? 'no match'
      : cursor >= 0
        ? `${cursor + 1} of ${matches.length}`
        : plural(matches.length, 'match', 'matches');
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
            useInspector.getState().stepSearch(
              matches.map((m) => m.key),
              e.shiftKey ? -1 : 1,
            );
          } else if (e.key === 'Escape') setQuery('');
        }}
      />
      <span data-testid="search-count" data-count={active ? matches.length : 0} className={`search-count${active && matches.length === 0 ? ' none' : ''}`}>
        {count}
      </span>
    </div>
  );
}

// Filter chips: kind, year, place, person, camera and library, each with how many assets it holds
// (the list's facets). The chosen filters live in the address, so they survive a reload, a link
// and the back button; the library and the search results narrow the same way.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useLibrary } from '../stores/library.ts';
import { useCollections } from '../stores/collections.ts';
import { useNav } from '../stores/nav.ts';
import type { ListFilters } from '../api/videos.ts';
import type { SearchFacets } from '../api/search.ts';

const FILTER_LABELS: Record<keyof ListFilters, string> = {
  kind: 'Kind',
  person: 'Person',
  place: 'Place',
  year: 'Year',
  camera: 'Camera',
  library_id: 'Library',
  collection_id: 'Collection',
  favorite: 'Favourites',
};

/** The filters of an address's parameters (#/library?kind=…, #/search?q=…&year=…). */
export function filtersOf(params: URLSearchParams): ListFilters {
  const f: ListFilters = {};
  for (const k of Object.keys(FILTER_LABELS) as Array<keyof ListFilters>) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f;
}

/**
 * `hashOf` makes the address of the screen with these filters (given as a query string). The
 * counts are the library store's facets (the library loads them after its timeline), or those given
 * (`counts`: a search's, counted in its results).
 */
export function Chips({ filters, hashOf, counts }: { filters: ListFilters; hashOf: (query: string) => string; counts?: SearchFacets }) {
  const library = useLibrary((s) => s.facets);
  const facets = counts ? { ...counts, libraries: [] } : library;
  const collections = useCollections((s) => s.list);
  const loadCollections = useCollections((s) => s.load);
  useEffect(() => void (collections ?? loadCollections()), [collections, loadCollections]);
  const go = useNav((s) => s.go);
  // Where the filters run past the row (a narrow window), their end fades: more are a scroll away.
  const row = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);
  useLayoutEffect(() => {
    const el = row.current;
    if (!el) return;
    const look = () => setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
    look();
    const seen = new ResizeObserver(look);
    seen.observe(el);
    el.addEventListener('scroll', look, { passive: true });
    return () => {
      seen.disconnect();
      el.removeEventListener('scroll', look);
    };
  });
  const set = (k: keyof ListFilters, v: string | null) => {
    const next = new URLSearchParams(Object.entries({ ...filters, [k]: v ?? '' }).filter(([, x]) => x) as Array<[string, string]>);
    go(hashOf(next.toString()));
  };
  if (!facets) return null;
  const options: Array<[keyof ListFilters, Array<{ value: string; label: string; count: number }>]> = [
    ['kind', facets.kinds.map((k) => ({ value: k.value, label: k.value, count: k.count }))],
    ['year', facets.years.map((y) => ({ value: String(y.value), label: String(y.value), count: y.count }))],
    ['place', facets.places.map((p) => ({ value: p.value, label: p.value, count: p.count }))],
    ['person', facets.people.map((p) => ({ value: p.value, label: p.name, count: p.count }))],
    ['camera', facets.cameras.map((c) => ({ value: c.value, label: c.value, count: c.count }))],
    ['library_id', facets.libraries.map((l) => ({ value: l.value, label: l.path.split(/[\\/]/).pop() || l.path, count: l.count }))],
    [
      'collection_id',
      counts
        ? counts.collections.map((c) => ({ value: c.value, label: c.name, count: c.count }))
        : (collections ?? []).map((c) => ({ value: c.collection_id, label: c.name, count: c.asset_count })),
    ],
    ['favorite', [{ value: 'true', label: 'only', count: -1 }]],
  ];
  /** Chips with one choice that still narrow (a collection, favourites). */
  const single = new Set<keyof ListFilters>(['collection_id', 'favorite']);
  return (
    <div className={`chips ${more ? 'chips-more' : ''}`} role="toolbar" aria-label="filters" ref={row}>
      {options
        .map(
          ([k, list]) =>
            [k, filters[k] && !list.some((o) => o.value === filters[k]) ? [...list, { value: filters[k], label: filters[k], count: 0 }] : list] as const,
        )
        .filter(([k, list]) => list.length > (single.has(k) || counts ? 0 : 1) || filters[k])
        .map(([k, list]) => (
          <label key={k} className={`chip ${filters[k] ? 'chip-on' : ''}`}>
            {FILTER_LABELS[k]}
            <select aria-label={`filter by ${FILTER_LABELS[k].toLowerCase()}`} value={filters[k] ?? ''} onChange={(e) => set(k, e.target.value || null)}>
              <option value="">all</option>
              {list.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                  {o.count >= 0 ? ` (${o.count})` : ''}
                </option>
              ))}
            </select>
            {filters[k] ? (
              <button className="chip-clear" aria-label={`clear ${FILTER_LABELS[k].toLowerCase()}`} onClick={() => set(k, null)}>
                ×
              </button>
            ) : null}
          </label>
        ))}
    </div>
  );
}

// Search results: one list of moments across videos, photos and documents, each with its picture,
// where it is (page, time), what found it and the words that matched; what the query was understood
// as (dates, places, people, kinds read from its words); the library's filter chips and an order.
// Arrow keys move, Enter opens.
import { useEffect, useMemo, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSearch } from '../stores/search.ts';
import { useLibrary } from '../stores/library.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import { stepHash, useBrowse } from '../stores/browse.ts';
import type { SearchHit, SearchResponse } from '../api/search.ts';
import { Chips, filtersOf } from './Chips.tsx';
import { takenLabel } from './Info.tsx';

export function Highlighted({ text, ranges, max = 280 }: { text: string; ranges: SearchHit['snippet']['highlights']; max?: number }) {
  // Show the part around the first highlight when the text is long.
  const first = ranges[0]?.[0] ?? 0;
  const start = text.length > max && first > max / 3 ? text.lastIndexOf(' ', first - max / 3) + 1 : 0;
  const end = Math.min(text.length, start + max);
  const parts: ReactNode[] = [];
  let at = start;
  for (const [s, e] of ranges) {
    if (e <= start || s >= end) continue;
    if (s > at) parts.push(text.slice(at, s));
    parts.push(<mark key={s}>{text.slice(Math.max(s, at), Math.min(e, end))}</mark>);
    at = Math.min(e, end);
  }
  if (at < end) parts.push(text.slice(at, end));
  return (
    <>
      {start > 0 ? '… ' : ''}
      {parts}
      {end < text.length ? ' …' : ''}
    </>
  );
}

export function where(h: Pick<SearchHit, 'asset_kind' | 'page' | 'timestamp'>): string {
  if (h.page !== null) return `page ${h.page}`;
  if (h.asset_kind === 'video') {
    const s = Math.floor(h.timestamp);
    return `at ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  }
  return 'photo';
}

export function hitHash(h: SearchHit): string {
  return viewHash(h.video_id, { page: h.page, timestamp: h.timestamp, box: h.region ?? h.passage?.bbox ?? null });
}

/** Opens a hit in the viewer, ← and → stepping through the results and Esc coming back to them. */
export function openHit(hits: SearchHit[], i: number) {
  const from = window.location.hash;
  const steps = hits.map((h) => ({ id: h.video_id, hash: hitHash(h) }));
  useBrowse.getState().begin(from, steps);
  useNav.getState().go(stepHash(steps[i], from));
}

function Hit({ h, active, onOpen }: { h: SearchHit; active: boolean; onOpen(): void }) {
  const text = h.passage ?? h.snippet;
  return (
    <li className={`hit ${active ? 'active' : ''}`} data-video={h.video_id} aria-selected={active}>
      <button className="hit-open" onClick={onOpen}>
        <div className="hit-thumb">
          {h.frame_url ? <img src={h.frame_url} alt="" loading="lazy" /> : <div className={`kind-icon kind-${h.asset_kind}`}>{h.asset_kind}</div>}
        </div>
        <div className="hit-body">
          <div className="hit-title">
            <span className="hit-name">{h.file_name}</span> <span className="hit-where">{where(h)}</span>
            <span className={`badge badge-${h.asset_kind}`}>{h.asset_kind}</span>
            <span className="badge">{h.modality}</span>
            {h.taken_at && h.asset_kind !== 'document' ? <span className="hit-when">{takenLabel(h.taken_at)}</span> : null}
            {h.region ? <span className="badge badge-box">{h.region.label || 'box'}</span> : null}
          </div>
          <p className="hit-snippet">
            {text.text ? (
              <Highlighted text={text.text} ranges={text.highlights} />
            ) : (
              <em>{h.modality === 'picture' ? 'matched by how it looks' : 'no text'}</em>
            )}
          </p>
          <div className="hit-evidence">
            {h.evidence.map((e) => `${e.retriever} ${e.modality}`).join(' · ')} — score {h.score.toFixed(2)}
          </div>
        </div>
      </button>
    </li>
  );
}

const day = (d: Date) => d.toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** A range of days in words: "in 2019", "in July 2019", "from 1 March 2020 to 31 May 2020", "before …". */
export function takenSpan(after?: string, before?: string): string | null {
  const a = after ? new Date(after) : null;
  // `taken_before` is exclusive: the last day is the one before it.
  const end = before ? new Date(before) : null;
  const b = end ? new Date(end.getTime() - 1) : null;
  if (a && end && b) {
    const midnight = (d: Date) => d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0;
    if (midnight(a) && midnight(end) && a.getUTCDate() === 1 && end.getUTCDate() === 1) {
      if (a.getUTCMonth() === 0 && end.getUTCMonth() === 0 && end.getUTCFullYear() === a.getUTCFullYear() + 1) return `in ${a.getUTCFullYear()}`;
      if (Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + 1, 1) === end.getTime())
        return `in ${a.toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' })}`;
    }
    return day(a) === day(b) ? `on ${day(a)}` : `from ${day(a)} to ${day(b)}`;
  }
  if (a) return `since ${day(a)}`;
  if (b) return `until ${day(b)}`;
  return null;
}

/** What the query was understood as, in words: "taken 2019 · in Paris · with Anna · photos". */
function Understood({ r }: { r: SearchResponse }) {
  const f = r.interpreted.filters;
  const parts: string[] = [];
  const span = takenSpan(f.taken_after, f.taken_before);
  if (span) parts.push(`taken ${span}`);
  if (f.place) parts.push(`in ${f.place}`);
  if (f.people?.length) parts.push(`with ${f.people.length} ${f.people.length === 1 ? 'person' : 'people'}`);
  if (f.kinds?.length) parts.push(f.kinds.map((k) => `${k}s`).join(' and '));
  if (f.camera) parts.push(`camera ${f.camera}`);
  if (f.rating_min !== undefined) parts.push(`rated ${f.rating_min}+`);
  if (parts.length === 0 && r.interpreted.phrases.length === 0) return null;
  return (
    <p className="understood" data-testid="understood">
      Understood as {r.interpreted.words ? <strong>“{r.interpreted.words}”</strong> : 'everything'}
      {parts.length ? ` · ${parts.join(' · ')}` : ''}
      {r.interpreted.phrases.length ? <small> (from “{r.interpreted.phrases.join('”, “')}”)</small> : null}
    </p>
  );
}

export function SearchView({ params }: { params: URLSearchParams }) {
  const { result, loading, error, cursor } = useSearch(useShallow((s) => ({ result: s.result, loading: s.loading, error: s.error, cursor: s.cursor })));
  const run = useSearch((s) => s.run);
  const move = useSearch((s) => s.move);
  const go = useNav((s) => s.go);
  const key = params.toString();
  const { query, filters, order } = useMemo(() => {
    const p = new URLSearchParams(key);
    return { query: p.get('q') ?? '', filters: filtersOf(p), order: p.get('order') === 'taken_at' ? ('taken_at' as const) : ('relevance' as const) };
  }, [key]);
  const hashOf = (q: string, o = order) => {
    const p = new URLSearchParams(q);
    p.set('q', query);
    if (o === 'taken_at') p.set('order', o);
    return `#/search?${p.toString()}`;
  };
  useEffect(() => void run(query, filters, order), [query, filters, order, run]);
  const loadFacets = useLibrary((s) => s.loadFacets);
  useEffect(() => void loadFacets(), [loadFacets]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).tagName === 'INPUT' || (e.target as HTMLElement).tagName === 'SELECT') return;
      if (e.key === 'ArrowDown') move(1);
      else if (e.key === 'ArrowUp') move(-1);
      else if (e.key === 'Enter' && result?.hits[cursor]) openHit(result.hits, cursor);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move, go, result, cursor]);
  const chipQuery = new URLSearchParams(Object.entries(filters) as Array<[string, string]>).toString();

  return (
    <section className="search" data-testid="search">
      <header className="section-head">
        <h2>
          Results for “{query}”{' '}
          {result ? (
            <small>
              {result.hits.length} moment{result.hits.length === 1 ? '' : 's'} · {result.recipe}
            </small>
          ) : null}
        </h2>
        <label>
          Order{' '}
          <select aria-label="order" value={order} onChange={(e) => go(hashOf(chipQuery, e.target.value as 'relevance' | 'taken_at'))}>
            <option value="relevance">best match</option>
            <option value="taken_at">newest taken</option>
          </select>
        </label>
      </header>
      <Chips filters={filters} hashOf={(q) => hashOf(q)} />
      {result ? <Understood r={result} /> : null}
      {loading ? <p className="empty">Searching…</p> : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {result && result.hits.length === 0 ? <p className="empty">Nothing in the library matches “{query}”.</p> : null}
      <ol className="hits">
        {result?.hits.map((h, i) => (
          <Hit key={`${h.video_id}:${h.page}:${h.timestamp}:${i}`} h={h} active={i === cursor} onOpen={() => openHit(result.hits, i)} />
        ))}
      </ol>
    </section>
  );
}

// Search results: one list of moments across videos, photos and documents, each with its picture,
// where it is (page, time), what found it and the words that matched. Arrow keys move, Enter opens.
import { useEffect, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSearch } from '../stores/search.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import type { SearchHit } from '../api/search.ts';

export function Highlighted({ text, ranges, max = 280 }: { text: string; ranges: Array<[number, number]>; max?: number }) {
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

function Hit({ h, active }: { h: SearchHit; active: boolean }) {
  const go = useNav((s) => s.go);
  const text = h.passage ?? h.snippet;
  return (
    <li className={`hit ${active ? 'active' : ''}`} data-video={h.video_id} aria-selected={active}>
      <button className="hit-open" onClick={() => go(hitHash(h))}>
        <div className="hit-thumb">
          {h.frame_url ? <img src={h.frame_url} alt="" loading="lazy" /> : <div className={`kind-icon kind-${h.asset_kind}`}>{h.asset_kind}</div>}
        </div>
        <div className="hit-body">
          <div className="hit-title">
            <span className="hit-name">{h.file_name}</span> <span className="hit-where">{where(h)}</span>
            <span className={`badge badge-${h.asset_kind}`}>{h.asset_kind}</span>
            <span className="badge">{h.modality}</span>
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

export function SearchView({ query }: { query: string }) {
  const { result, loading, error, cursor } = useSearch(useShallow((s) => ({ result: s.result, loading: s.loading, error: s.error, cursor: s.cursor })));
  const run = useSearch((s) => s.run);
  const move = useSearch((s) => s.move);
  const go = useNav((s) => s.go);
  useEffect(() => void run(query), [query, run]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).tagName === 'INPUT') return;
      if (e.key === 'ArrowDown') move(1);
      else if (e.key === 'ArrowUp') move(-1);
      else if (e.key === 'Enter' && result?.hits[cursor]) go(hitHash(result.hits[cursor]));
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move, go, result, cursor]);

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
      </header>
      {loading ? <p className="empty">Searching…</p> : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {result && result.hits.length === 0 ? <p className="empty">Nothing in the library matches “{query}”.</p> : null}
      <ol className="hits">
        {result?.hits.map((h, i) => (
          <Hit key={`${h.video_id}:${h.page}:${h.timestamp}:${i}`} h={h} active={i === cursor} />
        ))}
      </ol>
    </section>
  );
}

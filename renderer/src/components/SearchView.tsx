// Search results laid out for what they are: photos (and videos found by how they look) as a
// justified grid with the hit's box outlined on hover; documents one row each with their best page
// snippets ("N more pages" shows the rest); videos one row each with their moments marked on a bar
// of their length. The group of the best hit comes first. What the query was understood as shows as
// chips that take it away again; the filter chips count the results (the response's facets); a date
// range narrows them. Results of several kinds show the best of each (the overview), each kind's
// whole list a link away (its kind chip); a list of one kind loads more at its end. ↑/↓ move (the
// cursor kept in view), Enter opens, and coming back shows the results where they were.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { groupOf, scrolled, shownOrder, useSearch, type DayRange } from '../stores/search.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import { stepHash, useBrowse } from '../stores/browse.ts';
import type { SearchHit, SearchMoment, SearchResponse } from '../api/search.ts';
import { Chips, filtersOf } from './Chips.tsx';
import { takenLabel } from './Info.tsx';
import { justify } from '../layout/justify.ts';
import { counted } from '../plural.ts';

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

/** m:ss of a time in seconds. */
export const clockOf = (t: number) => {
  const s = Math.floor(t);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export function where(h: Pick<SearchHit, 'asset_kind' | 'page' | 'timestamp'>): string {
  if (h.page !== null) return `page ${h.page}`;
  if (h.asset_kind === 'video') return `at ${clockOf(h.timestamp)}`;
  return 'photo';
}

/** What found a hit, in words (the engine's own names stay in the details). */
const FOUND_BY: Record<SearchHit['modality'], string> = {
  name: 'file name',
  passage: 'text',
  ocr: 'text in the picture',
  transcript: 'spoken',
  caption: 'description',
  label: 'what it shows',
  object: 'what it shows',
  person: 'a person',
  sound: 'a sound',
  picture: 'how it looks',
  place: 'place',
  metadata: 'date and details',
};

export function hitHash(h: Pick<SearchHit, 'video_id' | 'page' | 'timestamp' | 'region' | 'passage'>): string {
  return viewHash(h.video_id, { page: h.page, timestamp: h.timestamp, box: h.region ?? h.passage?.bbox ?? null });
}

const momentHash = (h: SearchHit, m: SearchMoment) => viewHash(h.video_id, { page: m.page, timestamp: m.timestamp, box: m.region });

/** Opens a hit (at one of its moments) in the viewer, ← and → stepping through the results and Esc coming back to them. */
export function openHit(hits: SearchHit[], i: number, at?: SearchMoment) {
  const from = window.location.hash;
  scrolled.set(useSearch.getState().key, window.scrollY);
  useSearch.getState().setCursor(i);
  const steps = hits.map((h) => ({ id: h.video_id, hash: hitHash(h) }));
  useBrowse.getState().begin(from, steps);
  useNav.getState().go(stepHash(at ? { id: hits[i].video_id, hash: momentHash(hits[i], at) } : steps[i], from));
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

/** The query without one of the phrases it was understood by ("photos in Paris 2019" without "in Paris"). */
export function withoutPhrase(query: string, phrase: string): string {
  const cut = (q: string, p: string) => {
    const i = q.toLowerCase().indexOf(p.toLowerCase());
    return i < 0 ? null : `${q.slice(0, i)} ${q.slice(i + p.length)}`;
  };
  let q = cut(query, phrase);
  // People said as "Anna, Ben & Carl" were understood as "Anna and Ben and Carl": each name goes.
  if (q === null) {
    q = query;
    for (const part of phrase.split(/\s+and\s+/)) q = cut(q, part) ?? q;
  }
  return q
    .replace(/\s*[,&]\s*(?=[,&]|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What each understood phrase became, in words: chips that take it away. */
function understoodChips(r: SearchResponse): Array<{ phrase: string; label: string }> {
  const f = r.interpreted.filters;
  return r.interpreted.phrases.map((phrase) => {
    const p = phrase.toLowerCase();
    const span = takenSpan(f.taken_after, f.taken_before);
    if (f.place && p.includes(f.place.toLowerCase())) return { phrase, label: `in ${f.place}` };
    if (f.kinds?.length && /^(photo|picture|image|video|film|clip|movie|document|pdf|file|page)/.test(p))
      return { phrase, label: f.kinds.map((k) => (k === 'image' ? 'photos' : `${k}s`)).join(' and ') };
    if (f.people?.length && / and /.test(p)) return { phrase, label: `with ${phrase}` };
    return { phrase, label: span ? `taken ${span}` : phrase };
  });
}

function Understood({ r, query, go }: { r: SearchResponse; query: string; go(q: string): void }) {
  const chips = understoodChips(r);
  if (chips.length === 0 && !r.interpreted.set_aside) return null;
  const span = takenSpan(r.interpreted.filters.taken_after, r.interpreted.filters.taken_before);
  return (
    <div className="understood" data-testid="understood">
      {chips.length ? (
        <div className="understood-chips" role="group" aria-label="understood as">
          <span className="muted">Understood as</span>
          {r.interpreted.words ? <strong>“{r.interpreted.words}”</strong> : null}
          {chips.map((c) => (
            <span key={c.phrase} className="chip chip-on understood-chip" data-phrase={c.phrase}>
              {c.label}
              <button
                className="chip-clear"
                aria-label={`remove “${c.phrase}”`}
                title={`Search without “${c.phrase}”`}
                onClick={() => go(withoutPhrase(query, c.phrase))}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      ) : null}
      {r.interpreted.set_aside ? (
        <p className="set-aside" role="status">
          Nothing taken {span ?? 'then'} matches “{r.interpreted.set_aside}”: everything taken {span ?? 'then'} is shown, newest first.
        </p>
      ) : null}
    </div>
  );
}

/** How the search went, in words: what it looked for and where, the related words it added, then the engine's own recipe. */
function HowItSearched({ r }: { r: SearchResponse }) {
  const words = r.interpreted.set_aside ? '' : r.interpreted.words.trim();
  const byMeaning = r.recipe.includes('dense(');
  // Related words grouped by the words of the query they stand for: "puppy, pooch for “dog”".
  const groups = new Map<string, string[]>();
  for (const { word, for: of } of r.interpreted.related) {
    const key = of.join(', ');
    groups.set(key, [...(groups.get(key) ?? []), word]);
  }
  return (
    <div className="recipe-body" data-testid="how">
      {words ? (
        <p>
          Looked for <strong>“{words}”</strong> in the text of pages, file names, what photos and videos show, and what is said in them
          {byMeaning ? ', and by meaning: passages and pictures close to it even without its words' : ''}.
        </p>
      ) : (
        <p>Listed what the filters hold, newest first.</p>
      )}
      {words ? (
        groups.size ? (
          <p data-testid="how-related">
            Also looked for related words, ranked below the words asked for:{' '}
            {[...groups].map(([of, related], i) => (
              <span key={of}>
                {i ? '; ' : ''}
                {related.join(', ')} <span className="muted">for “{of}”</span>
              </span>
            ))}
            .
          </p>
        ) : (
          <p data-testid="how-related">No related words were added: none that the library holds.</p>
        )
      ) : null}
      <p className="recipe-engine">
        Engine {r.engine}: <code>{r.recipe}</code>
        {r.engine_fallback ? ` (${r.engine_fallback})` : ''}
      </p>
    </div>
  );
}

/** A result's button: the keyboard's cursor sits on one at a time (it is focused, so it is in view). */
function useCursor(active: boolean) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (active && document.activeElement?.closest('.search-results') && ref.current !== document.activeElement) ref.current?.focus();
  }, [active]);
  return ref;
}

function PhotoTile({ h, i, active, width, height, open }: { h: SearchHit; i: number; active: boolean; width: number; height: number; open(i: number): void }) {
  const ref = useCursor(active);
  const box = h.region;
  return (
    <button
      ref={ref}
      className={`result-tile ${active ? 'active' : ''}`}
      style={{ width, height }}
      data-video={h.video_id}
      data-index={i}
      tabIndex={active ? 0 : -1}
      aria-label={`${h.file_name}${h.taken_at ? `, ${takenLabel(h.taken_at)}` : ''}${box?.label ? `, ${box.label}` : ''}`}
      title={`${h.file_name} — found by ${FOUND_BY[h.modality]}`}
      onClick={() => open(i)}
    >
      {h.frame_url ? <img src={h.frame_url} alt="" loading="lazy" draggable={false} /> : null}
      {h.asset_kind === 'video' ? <span className="tile-badge">▶ {clockOf(h.timestamp)}</span> : null}
      {box ? (
        // A box at the top of the tile has its label inside it: above, the tile would cut it off.
        <span
          className={`tile-box ${box.y < 0.12 ? 'label-in' : ''}`}
          style={{ left: `${box.x * 100}%`, top: `${box.y * 100}%`, width: `${box.w * 100}%`, height: `${box.h * 100}%` }}
        >
          {box.label ? <span className="tile-box-label">{box.label}</span> : null}
        </span>
      ) : null}
    </button>
  );
}

function PhotoGrid({ items, cursor, open }: { items: Array<{ h: SearchHit; i: number }>; cursor: number; open(i: number): void }) {
  const el = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    setWidth(node.clientWidth);
    const ro = new ResizeObserver(() => setWidth(node.clientWidth));
    ro.observe(node);
    return () => ro.disconnect();
  }, []);
  const rows = useMemo(() => (width ? justify(Float64Array.from(items.map(({ h }) => h.ratio)), 0, items.length, width, 170, 6) : []), [items, width]);
  return (
    <div className="result-grid" ref={el}>
      {rows.map((r) => (
        <div className="result-row" key={r.from} style={{ height: r.height }}>
          {items.slice(r.from, r.to).map(({ h, i }, k) => (
            <PhotoTile key={h.video_id} h={h} i={i} active={i === cursor} width={r.widths[k]} height={r.height} open={open} />
          ))}
        </div>
      ))}
    </div>
  );
}

const SNIPPETS = 3;

function DocumentRow({ h, i, active, open }: { h: SearchHit; i: number; active: boolean; open(i: number, at?: SearchMoment): void }) {
  const ref = useCursor(active);
  const [all, setAll] = useState(false);
  const moments = h.moments ?? [];
  const shown = all ? [...moments].sort((a, b) => (a.page ?? 0) - (b.page ?? 0)) : moments.slice(0, SNIPPETS);
  const more = (h.moment_count ?? moments.length) - SNIPPETS;
  return (
    <li className={`result-row-item ${active ? 'active' : ''}`} data-video={h.video_id}>
      <button ref={ref} className="result-main" tabIndex={active ? 0 : -1} onClick={() => open(i)} data-index={i}>
        <span className="result-thumb doc">{h.frame_url ? <img src={h.frame_url} alt="" loading="lazy" /> : <span className="kind-icon">doc</span>}</span>
        <span className="result-title">
          <span className="hit-name">{h.file_name}</span>
          <span className="muted"> · {counted(h.moment_count ?? 1, 'page')} found</span>
        </span>
      </button>
      <ol className="page-snippets">
        {shown.map((m) => (
          <li key={`${m.page}:${m.timestamp}`}>
            <button className="snippet" tabIndex={-1} onClick={() => open(i, m)} data-page={m.page ?? ''}>
              <span className="snippet-where">p. {m.page}</span>
              <span className="snippet-text">
                {m.snippet.text ? <Highlighted text={m.snippet.text} ranges={m.snippet.highlights} max={220} /> : <em>{FOUND_BY[m.modality]}</em>}
              </span>
            </button>
          </li>
        ))}
      </ol>
      {more > 0 ? (
        <button className="link more-pages" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? 'fewer pages' : counted(more, 'more page')}
        </button>
      ) : null}
    </li>
  );
}

function VideoRow({ h, i, active, open }: { h: SearchHit; i: number; active: boolean; open(i: number, at?: SearchMoment): void }) {
  const ref = useCursor(active);
  const moments = h.moments ?? [];
  const length = Math.max(h.duration_s ?? 0, ...moments.map((m) => m.timestamp + 1));
  const best = moments[0];
  return (
    <li className={`result-row-item ${active ? 'active' : ''}`} data-video={h.video_id}>
      <button ref={ref} className="result-main" tabIndex={active ? 0 : -1} onClick={() => open(i)} data-index={i}>
        <span className="result-thumb">
          {h.frame_url ? <img src={h.frame_url} alt="" loading="lazy" /> : <span className="kind-icon">video</span>}
          <span className="tile-badge">▶ {clockOf(h.timestamp)}</span>
        </span>
        <span className="result-title">
          <span className="hit-name">{h.file_name}</span>
          <span className="muted">
            {' '}
            · {counted(h.moment_count ?? 1, 'moment')}
            {h.duration_s ? ` of ${clockOf(h.duration_s)}` : ''} · {FOUND_BY[h.modality]}
          </span>
          <span className="snippet-text">
            {best?.snippet.text ? <Highlighted text={best.snippet.text} ranges={best.snippet.highlights} max={200} /> : null}
          </span>
        </span>
      </button>
      <div className="moment-bar" role="group" aria-label={`moments of ${h.file_name}`}>
        {moments.map((m) => (
          <button
            key={m.timestamp}
            className="moment-mark"
            tabIndex={-1}
            style={{ left: `${(m.timestamp / length) * 100}%`, opacity: 0.45 + 0.55 * m.score }}
            title={`${clockOf(m.timestamp)} — ${m.snippet.text.slice(0, 80) || FOUND_BY[m.modality]}`}
            aria-label={`play from ${clockOf(m.timestamp)}`}
            onClick={() => open(i, m)}
          />
        ))}
      </div>
    </li>
  );
}

const TITLES = { photos: 'Photos', documents: 'Documents', videos: 'Videos' } as const;
/** How many of each kind the overview shows when the results are of several kinds. */
const OVERVIEW = { photos: 14, documents: 4, videos: 4 } as const;
const KIND_OF = { photos: 'image', documents: 'document', videos: 'video' } as const;

export function SearchView({ params }: { params: URLSearchParams }) {
  const { result, loading, more, error, cursor } = useSearch(
    useShallow((s) => ({ result: s.result, loading: s.loading, more: s.more, error: s.error, cursor: s.cursor })),
  );
  const run = useSearch((s) => s.run);
  const loadMore = useSearch((s) => s.loadMore);
  const go = useNav((s) => s.go);
  const key = params.toString();
  const { query, filters, order, range } = useMemo(() => {
    const p = new URLSearchParams(key);
    const range: DayRange = {};
    if (p.get('from')) range.from = p.get('from')!;
    if (p.get('to')) range.to = p.get('to')!;
    return { query: p.get('q') ?? '', filters: filtersOf(p), order: p.get('order') === 'taken_at' ? ('taken_at' as const) : ('relevance' as const), range };
  }, [key]);
  const hashOf = (chips: string, o = order, r: DayRange = range, q = query) => {
    const p = new URLSearchParams(chips);
    p.set('q', q);
    if (o === 'taken_at') p.set('order', o);
    if (r.from) p.set('from', r.from);
    if (r.to) p.set('to', r.to);
    return `#/search?${p.toString()}`;
  };
  const chipQuery = new URLSearchParams(Object.entries(filters) as Array<[string, string]>).toString();
  useEffect(() => void run(query, filters, order, range), [query, filters, order, range, run]);
  const hits = useMemo(() => (result ? shownOrder(result.hits) : []), [result]);
  const overview = !filters.kind && new Set(hits.map(groupOf)).size > 1;
  const setCursor = useSearch((s) => s.setCursor);
  const open = (i: number, at?: SearchMoment) => openHit(hits, i, at);

  // Back from a hit: the results where they were.
  const storeKey = useSearch((s) => s.key);
  useLayoutEffect(() => {
    if (!result) return;
    const y = scrolled.get(storeKey);
    if (y === undefined) return;
    // After the grid has measured its width and laid its rows out (a frame's work, before it is painted).
    const frame = requestAnimationFrame(() => {
      scrolled.delete(storeKey);
      window.scrollTo(0, y);
      // The result seen last (stepped to in the viewer) brought into view if it is not.
      const seen = document.querySelector<HTMLElement>(`.search-results [data-index="${useSearch.getState().cursor}"]`);
      seen?.focus({ preventScroll: true });
      seen?.scrollIntoView({ block: 'nearest' });
    });
    return () => cancelAnimationFrame(frame);
  }, [result, storeKey]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        // Through the results shown, in their order on screen; from outside them, to the cursor's first.
        const at = visible.indexOf(cursor);
        const step = t.closest('.search-results') ? (e.key === 'ArrowDown' ? 1 : -1) : 0;
        const next = visible[Math.max(0, Math.min(visible.length - 1, at + step))];
        if (next !== undefined) setCursor(next);
        // The cursor's result takes the focus (and so comes into view).
        requestAnimationFrame(() => document.querySelector<HTMLElement>(`.search-results [data-index="${useSearch.getState().cursor}"]`)?.focus());
      } else if (e.key === 'Enter' && hits[cursor] && !t.closest('button, a')) open(cursor);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  // More as the end of the list comes into view.
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node = end.current;
    if (!node || overview) return;
    const io = new IntersectionObserver((entries) => entries.some((x) => x.isIntersecting) && void useSearch.getState().loadMore(), { rootMargin: '400px' });
    io.observe(node);
    return () => io.disconnect();
  }, [result, overview]);

  const sections: Array<{ group: keyof typeof TITLES; items: Array<{ h: SearchHit; i: number }>; all: number }> = [];
  hits.forEach((h, i) => {
    const group = groupOf(h);
    const s = sections.find((x) => x.group === group);
    if (s) s.items.push({ h, i });
    else sections.push({ group, items: [{ h, i }], all: 0 });
  });
  // Results of several kinds: the best of each first (the overview), each kind's whole list a chip away.
  for (const s of sections) {
    s.all = s.items.length;
    if (overview) s.items = s.items.slice(0, OVERVIEW[s.group]);
  }
  const visible = sections.flatMap((s) => s.items.map((x) => x.i));
  const total = result?.pagination.total ?? 0;
  const kindCount = (g: keyof typeof TITLES) => {
    const kinds = result?.facets.kinds ?? [];
    const n = (k: string) => kinds.find((x) => x.value === k)?.count ?? 0;
    return g === 'documents' ? n('document') : g === 'videos' ? null : n('image');
  };

  return (
    <section className="search" data-testid="search">
      <header className="section-head">
        <h2>
          Results for “{query}” {result ? <small data-testid="result-count">{total} found</small> : null}
        </h2>
        {result ? (
          <details className="recipe">
            <summary title="How it searched">How</summary>
            <HowItSearched r={result} />
          </details>
        ) : null}
        <label>
          Order{' '}
          <select aria-label="order" value={order} onChange={(e) => go(hashOf(chipQuery, e.target.value as 'relevance' | 'taken_at'))}>
            <option value="relevance">best match</option>
            <option value="taken_at">newest taken</option>
          </select>
        </label>
      </header>
      {result ? (
        <Understood r={result} query={query} go={(q) => go(q ? hashOf(chipQuery, order, range, q) : `#/library${chipQuery ? `?${chipQuery}` : ''}`)} />
      ) : null}
      <div className="filter-row">
        <Chips filters={filters} hashOf={(q) => hashOf(q)} counts={result?.facets} />
        <fieldset className="date-range">
          <legend>Taken</legend>
          <label>
            from{' '}
            <input
              type="date"
              aria-label="taken from"
              value={range.from ?? ''}
              onChange={(e) => go(hashOf(chipQuery, order, { ...range, from: e.target.value || undefined }))}
            />
          </label>
          <label>
            to{' '}
            <input
              type="date"
              aria-label="taken to"
              value={range.to ?? ''}
              onChange={(e) => go(hashOf(chipQuery, order, { ...range, to: e.target.value || undefined }))}
            />
          </label>
          {range.from || range.to ? (
            <button className="chip-clear" aria-label="clear the dates" onClick={() => go(hashOf(chipQuery, order, {}))}>
              ×
            </button>
          ) : null}
        </fieldset>
      </div>
      {loading ? <p className="empty">Searching…</p> : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {result && result.hits.length === 0 ? (
        <p className="empty" data-testid="nothing-found">
          Nothing in the library matches “{query}”.
          {/* Not searched by meaning: its models are not installed (the service says so by leaving dense out of the recipe). */}
          {result.recipe !== 'filters' && !result.recipe.includes('dense(') ? (
            <>
              {' '}
              Only its words were looked for. To find photos and passages by what they show or mean, without the words, install the models for search by meaning
              in <a href="#/settings">Settings</a>.
            </>
          ) : null}
        </p>
      ) : null}
      <div className="search-results" aria-busy={loading || more}>
        {sections.map((s) => (
          <section key={s.group} className={`result-section result-${s.group}`} data-group={s.group} aria-label={TITLES[s.group]}>
            <h3>
              {TITLES[s.group]} <small className="muted">{kindCount(s.group) || s.all}</small>
              {overview && (s.all > s.items.length || (kindCount(s.group) ?? 0) > s.items.length) ? (
                <a className="see-all" href={hashOf(new URLSearchParams({ ...filters, kind: KIND_OF[s.group] }).toString())}>
                  All {kindCount(s.group) || s.all} {TITLES[s.group].toLowerCase()} →
                </a>
              ) : null}
            </h3>
            {s.group === 'photos' ? (
              <PhotoGrid items={s.items} cursor={cursor} open={open} />
            ) : (
              <ol className="result-rows">
                {s.items.map(({ h, i }) =>
                  s.group === 'documents' ? (
                    <DocumentRow key={h.video_id} h={h} i={i} active={i === cursor} open={open} />
                  ) : (
                    <VideoRow key={h.video_id} h={h} i={i} active={i === cursor} open={open} />
                  ),
                )}
              </ol>
            )}
          </section>
        ))}
      </div>
      <div ref={end} className="results-end">
        {result?.pagination.has_more && !overview ? (
          <button onClick={() => void loadMore()} disabled={more}>
            {more ? 'Loading…' : 'Load more'}
          </button>
        ) : null}
      </div>
    </section>
  );
}

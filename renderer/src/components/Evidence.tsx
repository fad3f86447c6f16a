// Evidence as it is read and watched. A document page fitted to the width and scrolled to the hit,
// zoomed with Ctrl +/− (or + and −), Ctrl+wheel (a trackpad's pinch) and a double-click, the query's
// words marked on the page picture (their boxes within the page's text lines, from the text layer or
// OCR) and a strip of the pages found. A video playing with the boxes of the moment on screen drawn
// over it, its moments for the query marked on a bar under it, and its transcript following
// playback: the line being spoken marked and kept in view, any line a click away, a search inside it.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { create } from 'zustand';
import type { Box, PageView, RegionsView, TranscriptView } from '../api/videos.ts';
import type { SearchMoment } from '../api/search.ts';
import { BoxView, withHit, type Overlay } from './Boxes.tsx';
import { clockOf } from './SearchView.tsx';
import { getRegions } from '../api/videos.ts';
import { counted } from '../plural.ts';

/** Where the query's words sit in a text: [start, end) ranges, whole words only, any case. */
export function wordRanges(text: string, words: readonly string[]): Array<[number, number]> {
  if (words.length === 0) return [];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).sort((a, b) => b.length - a.length);
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return [...text.matchAll(re)].map((m) => [m.index, m.index + m[0].length]);
}

/** The words the search marked in these snippets (the forms it matched, related words included). */
export function markedWords(found: ReadonlyArray<Pick<SearchMoment, 'snippet'>>): string[] {
  const out = new Set<string>();
  for (const { snippet } of found) for (const [s, e] of snippet.highlights) out.add(snippet.text.slice(s, e).toLowerCase());
  return [...out].filter((w) => w.trim().length > 0);
}

/** A text with the words marked. */
export function Marked({ text, words }: { text: string; words: readonly string[] }) {
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [s, e] of wordRanges(text, words)) {
    if (s > at) parts.push(text.slice(at, s));
    parts.push(<mark key={s}>{text.slice(s, e)}</mark>);
    at = e;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

/** A character's width in a proportional font, in ems, roughly: narrow punctuation and i, l, t; wide m, w; capitals. */
function advance(ch: string): number {
  if (/[\s.,;:'’‘!|iljI]/.test(ch)) return 0.27;
  if (/[ftr()[\]-]/.test(ch)) return 0.35;
  if (/[mwMW]/.test(ch)) return 0.8;
  if (/\p{Lu}/u.test(ch)) return 0.68;
  return 0.5;
}

/**
 * Boxes of the words in a page's text lines (text layer or OCR; no word boxes are stored): a word
 * sits at its share of its line's width, counting each character by its rough width in a
 * proportional font (by character count alone, a word after "illicit" drifts to the right).
 */
export function wordBoxes(lines: PageView['regions']['text'], words: readonly string[]): Overlay[] {
  const out: Overlay[] = [];
  for (const l of lines) {
    const until: number[] = [0];
    for (let i = 0; i < l.text.length; i++) until.push(until[i] + advance(l.text[i])); // by UTF-16 unit, as the ranges
    const total = until[until.length - 1] || 1;
    for (const [s, e] of wordRanges(l.text, words))
      out.push({
        key: `w${l.region_id}:${s}`,
        kind: 'word',
        label: l.text.slice(s, e),
        x: l.x + (l.w * until[s]) / total,
        y: l.y,
        w: (l.w * (until[e] - until[s])) / total,
        h: l.h,
      });
  }
  return out;
}

const ZOOMS = [1, 1.25, 1.5, 2, 3, 4];

/** A document page: fitted to the width, scrolled to the hit, zoomed in steps. */
export function DocumentPane({ page, boxes, words, sheet }: { page: PageView; boxes: Overlay[]; words: readonly string[]; sheet: ReactNode }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState(1);
  const marks = useMemo(() => wordBoxes(page.regions.text, words), [page, words]);
  const hit = boxes.find((b) => b.kind === 'hit') ?? marks[0];
  const zoomBy = (step: number) => setZoom((z) => ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, ZOOMS.indexOf(z) + step))]);
  // The hit (else the first marked word) a third of the way down, once the page is laid out.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const content = el.firstElementChild as HTMLElement;
    if (hit) {
      el.scrollTop = Math.max(0, hit.y * content.offsetHeight - el.clientHeight / 3);
      el.scrollLeft = Math.max(0, (hit.x + hit.w / 2) * content.offsetWidth - el.clientWidth / 2);
    } else el.scrollTop = 0;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [page.video_id, page.page, hit?.x, hit?.y, zoom]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || e.altKey) return;
      if (e.key === '+' || e.key === '=') zoomBy(1);
      else if (e.key === '-' || e.key === '_') zoomBy(-1);
      else if (e.key === '0' && (e.ctrlKey || e.metaKey)) setZoom(1);
      else return;
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      zoomBy(e.deltaY < 0 ? 1 : -1);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);
  const all = [...boxes, ...marks];
  return (
    <div className="doc-pane">
      <div
        ref={scroller}
        className="doc-scroll"
        data-testid="doc-scroll"
        tabIndex={0}
        aria-label={`page ${page.page}, ${Math.round(zoom * 100)}% of the width`}
        onDoubleClick={() => setZoom((z) => (z === 1 ? 2 : 1))}
      >
        <div className="doc-page" style={{ width: `${zoom * 100}%`, aspectRatio: `${page.width} / ${page.height}` }} data-zoom={zoom}>
          {page.frame_url ? <img src={page.frame_url} alt={`page ${page.page}`} draggable={false} /> : sheet}
          {all.map((b) => (
            <BoxView key={b.key} b={b} labelled={false} />
          ))}
        </div>
      </div>
      <div className="zoom-level" data-testid="zoom-level">
        <button className="icon" aria-label="zoom out (−)" onClick={() => zoomBy(-1)} disabled={zoom === ZOOMS[0]}>
          −
        </button>
        {zoom === 1 ? 'Fit width' : `${Math.round(zoom * 100)}%`}
        <button className="icon" aria-label="zoom in (+)" onClick={() => zoomBy(1)} disabled={zoom === ZOOMS.at(-1)}>
          +
        </button>
      </div>
    </div>
  );
}

/** The pages a search found in a document, with their pictures; the one shown marked. */
export function PageStrip({ moments, current, go }: { moments: readonly SearchMoment[]; current: number; go(m: SearchMoment): void }) {
  const pages = [...moments].sort((a, b) => (a.page ?? 0) - (b.page ?? 0));
  const strip = useRef<HTMLOListElement>(null);
  useEffect(() => {
    strip.current?.querySelector('[aria-current=page]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  return (
    <ol className="page-strip" ref={strip} aria-label="pages with hits">
      {pages.map((m) => (
        <li key={m.page}>
          <button aria-current={m.page === current ? 'page' : undefined} onClick={() => go(m)} title={m.snippet.text.slice(0, 120)}>
            {m.frame_url ? <img src={m.frame_url} alt="" loading="lazy" /> : <span className="page-blank" />}
            <span className="page-no">p. {m.page}</span>
            <span className="hit-dot" aria-hidden="true" />
          </button>
        </li>
      ))}
    </ol>
  );
}

/** The playing video's time, shared by its player, boxes, bar and transcript. */
export const usePlayhead = create<{ t: number; video: string | null; set(video: string, t: number): void }>((set) => ({
  t: 0,
  video: null,
  set: (video, t) => set({ video, t }),
}));

export function seekTo(t: number, play = true) {
  const v = document.querySelector<HTMLVideoElement>('video.player');
  if (!v) return;
  v.currentTime = t;
  usePlayhead.getState().set(usePlayhead.getState().video ?? '', t);
  if (play) void v.play().catch(() => undefined);
}

/** How long after the frame it was seen on a box stays drawn over the playing video. */
const BOX_SECONDS = 2.5;

/** A video playing from `start`, with the boxes of the moment on screen and its moments for the query on a bar. */
export function VideoPane({
  id,
  src,
  name,
  start,
  duration,
  aspect,
  moments,
  names,
  hit,
  shown,
}: {
  id: string;
  src: string;
  name: string;
  start: number;
  duration: number;
  aspect: number | null;
  moments: readonly SearchMoment[];
  names: Map<string, string>;
  hit: Box | null;
  /** The kinds of boxes to draw (the viewer's layers). */
  shown: ReadonlySet<string>;
}) {
  const player = useRef<HTMLVideoElement>(null);
  const [regions, setRegions] = useState<RegionsView | null>(null);
  // Where the browser cannot play the original, the service makes a copy on this first request:
  // said while it takes a while, and said if it fails.
  const [loading, setLoading] = useState<'waiting' | 'slow' | 'ready' | 'failed'>('waiting');
  useEffect(() => {
    setLoading('waiting');
    const timer = setTimeout(() => setLoading((l) => (l === 'waiting' ? 'slow' : l)), 800);
    return () => clearTimeout(timer);
  }, [src]);
  useEffect(() => {
    setRegions(null);
    let live = true;
    void getRegions(id)
      .then((r) => live && setRegions(r))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id]);
  useEffect(() => {
    usePlayhead.getState().set(id, start);
    const v = player.current;
    if (v && v.readyState >= 1) v.currentTime = start;
  }, [id, start]);
  // Follows playback every frame (timeupdate alone comes four times a second).
  useEffect(() => {
    const v = player.current;
    if (!v) return;
    let frame = 0;
    const tick = () => {
      usePlayhead.getState().set(id, v.currentTime);
      if (!v.paused) frame = requestAnimationFrame(tick);
    };
    const onPlay = () => (frame = requestAnimationFrame(tick));
    const onTime = () => usePlayhead.getState().set(id, v.currentTime);
    v.addEventListener('play', onPlay);
    v.addEventListener('timeupdate', onTime);
    v.addEventListener('seeked', onTime);
    return () => {
      cancelAnimationFrame(frame);
      v.removeEventListener('play', onPlay);
      v.removeEventListener('timeupdate', onTime);
      v.removeEventListener('seeked', onTime);
    };
  }, [id]);
  // The boxes of the latest frame looked at, for a while after it.
  const frames = useMemo(() => {
    if (!regions?.at) return [];
    const at = new Map(regions.at.map((a) => [a.region_id, a.timestamp]));
    const boxes: Array<Overlay & { t: number }> = [];
    for (const o of regions.objects)
      boxes.push({ key: o.region_id, kind: 'object', label: o.label, x: o.x, y: o.y, w: o.w, h: o.h, t: at.get(o.region_id) ?? -1 });
    for (const f of regions.faces)
      boxes.push({
        key: f.face_id,
        kind: 'face',
        label: (f.person_id && names.get(f.person_id)) || 'face',
        x: f.x,
        y: f.y,
        w: f.w,
        h: f.h,
        t: at.get(f.face_id) ?? -1,
      });
    for (const tx of regions.text)
      boxes.push({ key: tx.region_id, kind: 'text', label: tx.text, x: tx.x, y: tx.y, w: tx.w, h: tx.h, t: at.get(tx.region_id) ?? -1 });
    return boxes.filter((b) => b.t >= 0).sort((a, b) => a.t - b.t);
  }, [regions, names]);
  const shownAt = usePlayhead((s) => {
    if (s.video !== id) return null;
    let best: number | null = null;
    for (const b of frames) if (b.t <= s.t + 0.1 && s.t - b.t <= BOX_SECONDS) best = b.t;
    return best;
  });
  // (A yes or no from the playhead, not its time: the pane is not drawn again every frame.)
  const near = usePlayhead((s) => Math.abs((s.video === id ? s.t : start) - start) < 1);
  const inFrame = frames.filter((b) => b.t === shownAt && shown.has(b.kind));
  const boxes = hit && near ? withHit(inFrame, hit) : inFrame;
  const length = Math.max(duration, ...moments.map((m) => m.timestamp + 1), 1);
  return (
    <div className="video-pane">
      <div className="player-wrap" style={aspect ? { aspectRatio: String(aspect), width: `min(100%, calc(62vh * ${aspect}))` } : undefined}>
        <video
          ref={player}
          className="player"
          controls
          preload="metadata"
          src={src}
          aria-label={`play ${name}`}
          onLoadedMetadata={(e) => {
            e.currentTarget.currentTime = start;
            setLoading('ready');
          }}
          onError={() => setLoading('failed')}
        />
        {loading === 'slow' || loading === 'failed' ? (
          <p className="player-status" role="status">
            {loading === 'slow'
              ? 'Preparing a copy of this video that the browser can play (the first time only)…'
              : 'This video could not be played here. Its pictures and what was found in it are still shown.'}
          </p>
        ) : null}
        <div className="player-boxes" aria-hidden="true">
          {boxes.map((b) => (
            <BoxView key={b.key} b={b} labelled={b.kind !== 'text' && !b.quiet} />
          ))}
        </div>
      </div>
      {moments.length ? (
        <div className="moment-bar seek-marks" role="group" aria-label="moments found (n, N)">
          {[...moments]
            .sort((a, b) => a.timestamp - b.timestamp)
            .map((m) => (
              <button
                key={m.timestamp}
                className="moment-mark"
                style={{ left: `${(m.timestamp / length) * 100}%` }}
                title={`${clockOf(m.timestamp)} — ${m.snippet.text.slice(0, 80)}`}
                aria-label={`play from ${clockOf(m.timestamp)}`}
                onClick={() => seekTo(m.timestamp)}
              />
            ))}
        </div>
      ) : null}
    </div>
  );
}

/** The time being played, for the header. */
export function PlayingAt({ id, duration }: { id: string; duration: number }) {
  const t = usePlayhead((s) => (s.video === id ? Math.floor(s.t) : 0));
  return (
    <span data-testid="playing-at">
      at {clockOf(t)} of {clockOf(duration)}
    </span>
  );
}

/** The voices of a video, how long each speaks, and the owner's names for them (Enter saves, Esc leaves; empty takes the name away). */
export function Voices({ transcript, onName }: { transcript: TranscriptView; onName?: (speaker: number, name: string | null) => Promise<void> }) {
  const [editing, setEditing] = useState<number | null>(null);
  const [draft, setDraft] = useState('');
  const list = useRef<HTMLUListElement>(null);
  // Leaving the name field (saved or not) puts the keyboard back on that voice's Name button.
  const stop = (n: number) => {
    setEditing(null);
    requestAnimationFrame(() => list.current?.querySelector<HTMLButtonElement>(`button[data-voice="${n}"]`)?.focus());
  };
  const voices = new Map<number, { label: string; seconds: number; first: number }>();
  for (const t of transcript.turns) {
    const v = voices.get(t.number) ?? { label: t.speaker, seconds: 0, first: t.start_s };
    v.seconds += t.end_s - t.start_s;
    voices.set(t.number, v);
  }
  if (voices.size === 0) return null;
  const save = async (n: number) => {
    const name = draft.trim();
    stop(n);
    await onName?.(n, name || null);
  };
  return (
    <ul className="plain voices" aria-label="voices" ref={list}>
      {[...voices].map(([n, v]) => (
        <li key={n}>
          {editing === n ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void save(n);
              }}
            >
              <input
                autoFocus
                aria-label={`name of speaker ${n}`}
                placeholder={`Speaker ${n}`}
                value={draft}
                maxLength={200}
                onChange={(e) => setDraft(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') {
                    e.stopPropagation();
                    stop(n);
                  }
                }}
              />{' '}
              <button type="submit">Save</button>
            </form>
          ) : (
            <>
              <button className="link" onClick={() => seekTo(v.first)} title={`play from ${clockOf(v.first)}`}>
                {v.label}
              </button>{' '}
              <span className="muted" title="how long this voice speaks">
                {v.seconds >= 60 ? clockOf(Math.round(v.seconds)) : `${Math.max(1, Math.round(v.seconds))} s`}
              </span>
              {onName ? (
                <>
                  {' '}
                  <button
                    className="link"
                    data-voice={n}
                    aria-label={`name ${v.label}`}
                    onClick={() => {
                      setDraft(v.label === `Speaker ${n}` ? '' : v.label);
                      setEditing(n);
                    }}
                  >
                    {v.label === `Speaker ${n}` ? 'Name' : 'Rename'}
                  </button>
                </>
              ) : null}
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A video's transcript following playback, searchable, any line a click away. */
export function Transcript({ id, transcript, words }: { id: string; transcript: TranscriptView; words: readonly string[] }) {
  const [filter, setFilter] = useState('');
  const list = useRef<HTMLOListElement>(null);
  const segments = transcript.segments;
  const current = usePlayhead((s) => (s.video === id ? segments.findIndex((seg) => s.t >= seg.start_s && s.t < seg.end_s) : -1));
  const asked = filter.trim().toLowerCase();
  const shown = segments.map((seg, i) => ({ seg, i })).filter(({ seg }) => !asked || seg.text.toLowerCase().includes(asked));
  // The line being spoken kept in view inside the list (the page itself does not move).
  useEffect(() => {
    const ol = list.current;
    const li = ol?.querySelector<HTMLElement>('li.current');
    if (!ol || !li) return;
    if (li.offsetTop < ol.scrollTop || li.offsetTop + li.offsetHeight > ol.scrollTop + ol.clientHeight) ol.scrollTop = li.offsetTop - ol.clientHeight / 3;
  }, [current]);
  const marks = asked ? [...words, asked] : words;
  return (
    <>
      <input
        type="search"
        className="transcript-search"
        aria-label="find in the transcript"
        placeholder="Find in the transcript"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      {asked ? (
        <p className="muted" role="status">
          {counted(shown.length, 'line')}
        </p>
      ) : null}
      <ol className="transcript" ref={list} tabIndex={0} aria-label="transcript lines">
        {shown.map(({ seg, i }) => (
          <li key={seg.start_s} className={i === current ? 'current' : ''} aria-current={i === current ? 'true' : undefined}>
            <button className="link" onClick={() => seekTo(seg.start_s)}>
              {clockOf(seg.start_s)}
            </button>{' '}
            {seg.speaker ? <strong>{seg.speaker}: </strong> : null}
            <Marked text={seg.text} words={marks} />
          </li>
        ))}
      </ol>
    </>
  );
}

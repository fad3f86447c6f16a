// The viewer: a document page (its render, or a sheet with its passages laid out where the page has
// none) with passages and regions over it, a photo with its boxes, or a video playing from its moment
// with the boxes of the frame on screen. The box a search hit pointed at is drawn strongest. ← and → step through
// the list it was opened from (the timeline, a collection, search results; pages turn with PageUp and
// PageDown, or ←/→ when there is no list), Esc goes back to it; wheel, pinch, double-click and `z`
// zoom. `i` shows or hides the info panel (Info.tsx: when, where, with what and who), `f` favourite,
// 0–5 the rating, Delete deletes (with undo). Opened from a search, a document page and a video are
// shown as evidence (Evidence.tsx): `n`/`N` go through the pages or moments it found, Shift+↑/↓ to
// the previous/next result.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { parseBox, useViewer } from '../stores/viewer.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import { usePeople } from '../stores/people.ts';
import { BoxedPicture, withHit, type Overlay } from './Boxes.tsx';
import { AssetInfo } from './Info.tsx';
import { NameField } from './people/NameField.tsx';
import type { PageView, RegionsView } from '../api/videos.ts';
import { getTranscript, nameSpeaker } from '../api/videos.ts';
import { ZoomPane } from './Zoom.tsx';
import { stepHash, stepIndex, useBrowse, type Step } from '../stores/browse.ts';
import { useLibrary } from '../stores/library.ts';
import { useActivity } from '../stores/activity.ts';
import { shownOrder, useSearch } from '../stores/search.ts';
import { filtersOf } from './Chips.tsx';
import { hitHash } from './SearchView.tsx';
import { markAssets, turnPhoto } from '../api/collections.ts';
import { attempt } from '../stores/toasts.ts';
import { typing } from '../keys.ts';
import { DocumentPane, Marked, PageStrip, PlayingAt, Transcript, VideoPane, Voices, markedWords, seekTo, usePlayhead } from './Evidence.tsx';
import type { SearchMoment } from '../api/search.ts';
import { counted } from '../plural.ts';
import { why } from '../failures.ts';

const INFO_KEY = 'media-index.viewer.info';
/** How often the detail of an asset being indexed is asked again while it is shown. */
const REFRESH_MS = 2000;
/** Where a page's text came from, in words (a page of an office file or e-book goes without saying). */
const TEXT_SOURCE: Record<PageView['text_source'], string> = { text_layer: 'text from the file', ocr: 'text read by OCR', text: '', none: 'no text' };

/**
 * The list the viewer steps through: the one it was opened from, or — after a reload or from a link —
 * the list its `from` address names, loaded again (the timeline with its filters, a search).
 */
function useSteps(from: string | null): Step[] {
  const { steps, from: known } = useBrowse();
  const layout = useLibrary((s) => s.layout);
  const libraryKey = useLibrary((s) => s.key);
  const result = useSearch((s) => s.result);
  useEffect(() => {
    if (!from || known === from) return;
    const [path, query = ''] = from.replace(/^#\/?/, '').split('?');
    const p = new URLSearchParams(query);
    if (path === 'library') void useLibrary.getState().show(filtersOf(p), p.toString());
    else if (path === 'search' && p.get('q'))
      void useSearch.getState().run(p.get('q')!, filtersOf(p), p.get('order') === 'taken_at' ? 'taken_at' : 'relevance', {
        from: p.get('from') ?? undefined,
        to: p.get('to') ?? undefined,
      });
  }, [from, known]);
  useEffect(() => {
    if (!from || known === from) return;
    const [path, query = ''] = from.replace(/^#\/?/, '').split('?');
    if (path === 'library' && layout && libraryKey === new URLSearchParams(query).toString())
      useBrowse.getState().restore(
        from,
        layout.ids.map((id) => ({ id, hash: `#/view/${encodeURIComponent(id)}` })),
      );
    if (path === 'search' && result)
      useBrowse.getState().restore(
        from,
        shownOrder(result.hits).map((h) => ({ id: h.video_id, hash: hitHash(h) })),
      );
  }, [from, known, layout, libraryKey, result]);
  return known === from ? steps : [];
}

/**
 * Opened from search results: → goes on through every result found, not only the page of them
 * loaded. The next page loads as the viewer comes within a few results of the end of those loaded,
 * and joins the list stepped through; the position counts all that were found ("40 of 55").
 */
function useFound(from: string | null, steps: Step[], here: number): number {
  const result = useSearch((s) => (from?.startsWith('#/search') ? s.result : null));
  const ordered = useMemo(() => (result ? shownOrder(result.hits) : null), [result]);
  // The search's results are the list stepped through (not those of another search).
  const ids = useMemo(() => new Set(ordered?.map((h) => h.video_id)), [ordered]);
  const ours = ordered !== null && steps.length > 0 && steps.every((s) => ids.has(s.id));
  const more = ours && ordered.length === steps.length && result!.pagination.has_more;
  useEffect(() => {
    if (more && here >= steps.length - 3) void useSearch.getState().loadMore();
  }, [more, here, steps.length]);
  useEffect(() => {
    if (ours && ordered.length > steps.length) useBrowse.setState({ steps: ordered.map((h) => ({ id: h.video_id, hash: hitHash(h) })) });
  }, [ours, ordered, steps.length]);
  return ours ? Math.max(steps.length, result!.pagination.total ?? 0) : steps.length;
}

type Layers = Record<'passage' | 'object' | 'face' | 'text', boolean>;

function overlays(
  regions: Pick<RegionsView, 'objects' | 'faces' | 'text'>,
  passages: PageView['passages'],
  layers: Layers,
  names: Map<string, string>,
): Overlay[] {
  const out: Overlay[] = [];
  if (layers.passage) passages.forEach((p) => out.push({ key: `p${p.idx}`, kind: 'passage', label: p.text.slice(0, 80), ...p.bbox }));
  if (layers.object)
    regions.objects.forEach((o) =>
      out.push({
        key: o.region_id,
        kind: 'object',
        label: `${o.label}${o.confidence !== null ? ` ${Math.round(o.confidence * 100)}%` : ''}`,
        x: o.x,
        y: o.y,
        w: o.w,
        h: o.h,
      }),
    );
  if (layers.face)
    regions.faces.forEach((f) =>
      out.push({ key: f.face_id, kind: 'face', label: (f.person_id && names.get(f.person_id)) || 'face', x: f.x, y: f.y, w: f.w, h: f.h }),
    );
  if (layers.text) regions.text.forEach((t) => out.push({ key: t.region_id, kind: 'text', label: t.text, x: t.x, y: t.y, w: t.w, h: t.h }));
  return out;
}

/** A page without a render: its passages on a sheet of the page's proportions. */
function Sheet({ page, words = [] }: { page: PageView; words?: readonly string[] }) {
  return (
    <div className="sheet" style={{ aspectRatio: `${page.width} / ${page.height}` }}>
      {page.passages.map((p) => (
        <p key={p.idx} className="sheet-passage" style={{ left: `${p.bbox.x * 100}%`, top: `${p.bbox.y * 100}%`, width: `${p.bbox.w * 100}%` }}>
          <Marked text={p.text} words={words} />
        </p>
      ))}
    </div>
  );
}

/** The owner says a face is none (an animal, a drawing, a pattern); a person who held it no longer does. */
function NotAFace({ face, n, onDone }: { face: string; n: number; onDone(): void }) {
  const notAFace = usePeople((s) => s.notAFace);
  return (
    <button
      className="link"
      aria-label={`not a face (face ${n})`}
      title="an animal, a drawing, a pattern: no longer shown here or found as a person"
      onClick={() => void notAFace(face).then((done) => done && onDone())}
    >
      not a face
    </button>
  );
}

export function Viewer({ id, params }: { id: string; params: URLSearchParams }) {
  const { asset, page, moment, transcript, highlight, loading, error } = useViewer(
    useShallow((s) => ({
      asset: s.asset,
      page: s.page,
      moment: s.moment,
      transcript: s.transcript,
      highlight: s.highlight,
      loading: s.loading,
      error: s.error,
    })),
  );
  const open = useViewer((s) => s.open);
  const refresh = useViewer((s) => s.refresh);
  // Paused, a photo not read yet will not be: the empty place says so.
  const paused = useActivity((s) => Boolean(s.activity?.paused));
  const go = useNav((s) => s.go);
  const people = usePeople((s) => s.people);
  const loadPeople = usePeople((s) => s.load);
  const sayWho = usePeople((s) => s.sayWho);
  const notThem = usePeople((s) => s.notThem);
  const [layers, setLayers] = useState<Layers>({ passage: true, object: true, face: true, text: false });
  const [info, setInfo] = useState(() => localStorage.getItem(INFO_KEY) !== 'off');
  const [detail, setDetail] = useState(false);
  const [original, setOriginal] = useState<string | null>(null);
  const pageNo = params.get('page') ? Number(params.get('page')) : null;
  const t = Number(params.get('t') ?? 0);
  const box = params.get('box');
  const from = params.get('from');
  const steps = useSteps(from);
  const here = steps.length ? stepIndex(steps, id, window.location.hash) : -1;
  const found = useFound(from, steps, here);
  const pushed = useBrowse((s) => s.pushed);
  // Opened from a search: this asset's moments for it (n / N step through them) and the words it marked.
  const searched = useSearch((s) => (from?.startsWith('#/search') ? s.result?.hits.find((h) => h.video_id === id) : undefined));
  const moments = useMemo(() => searched?.moments ?? [], [searched]);
  const words = useMemo(() => (searched ? markedWords([...moments, searched]) : []), [searched, moments]);

  useEffect(() => void open(id, { page: pageNo, timestamp: t, box: parseBox(box) }), [id, pageNo, t, box, open]);
  // While the asset is being indexed, what the viewer says of it (its phase, its picture) follows.
  const indexing = asset?.video_id === id && asset.status === 'processing';
  useEffect(() => {
    if (!indexing) return;
    const timer = setInterval(() => void refresh(t), REFRESH_MS);
    return () => clearInterval(timer);
  }, [indexing, refresh, t]);
  useEffect(() => void loadPeople(), [loadPeople]);
  // The passage of the hit in view in the side list, as the page is scrolled to it.
  const passageList = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const ol = passageList.current;
    const li = ol?.querySelector<HTMLElement>('li.current');
    if (ol && li) ol.scrollTop = li.offsetTop - ol.offsetTop;
  }, [page, highlight]);
  // The neighbours load ahead; the library will show this one when we go back.
  useEffect(() => {
    if (here < 0) return;
    for (const n of [steps[here + 1], steps[here - 1]]) if (n && n.id !== id) useViewer.getState().prefetch(n.id);
    useLibrary.getState().viewed(id);
    // Back at the results, the cursor is on the one seen last.
    if (from?.startsWith('#/search')) useSearch.getState().setCursor(here);
  }, [here, steps, id, from]);
  // A zoomed-in photo shows its original's pixels once they have arrived.
  useEffect(() => {
    setOriginal(null);
    if (!detail || !asset || asset.video_id !== id || asset.kind !== 'image' || !asset.media_url) return;
    const img = new Image();
    img.onload = () => setOriginal(asset.media_url);
    img.src = asset.media_url;
  }, [detail, asset, id]);
  const onDetail = useCallback((zoomed: boolean) => setDetail(zoomed), []);
  // After an answer about this asset (who a face is): read again, unless the owner has stepped on meanwhile.
  const reopen = () => {
    if (useNav.getState().route.id === id) void open(id, { page: pageNo, timestamp: t, box: parseBox(box) });
  };
  const withFrom = (hash: string) => (from ? stepHash({ id, hash }, from) : hash);
  const turn = (n: number) => asset && go(withFrom(viewHash(asset.video_id, { page: n })));
  const step = (delta: number) => {
    const next = steps[here + delta];
    // Replaced, not pushed: Back goes to the list, not through every picture seen.
    if (next && from) window.location.replace(stepHash(next, from));
  };
  const back = () => {
    if (pushed && window.history.length > 1) window.history.back();
    else go(from ?? '#/library');
  };
  /** The next (or previous) moment the search found in this asset: another page, or another time of the video. */
  const atMoment = (m: SearchMoment) => {
    if (!asset) return;
    if (asset.kind === 'video') return seekTo(m.timestamp);
    window.location.replace(withFrom(viewHash(asset.video_id, { page: m.page, timestamp: m.timestamp, box: m.region })));
  };
  const nextMoment = (dir: 1 | -1) => {
    if (!asset || moments.length === 0) return;
    const at = asset.kind === 'document' ? (page?.page ?? 1) : usePlayhead.getState().t;
    const pos = (m: SearchMoment) => (asset.kind === 'document' ? (m.page ?? 1) : m.timestamp);
    const sorted = [...moments].sort((a, b) => pos(a) - pos(b));
    const next =
      dir > 0
        ? sorted.find((m) => pos(m) > at + (asset.kind === 'video' ? 0.5 : 0))
        : sorted.filter((m) => pos(m) < at - (asset.kind === 'video' ? 0.5 : 0)).at(-1);
    if (next) atMoment(next);
  };
  const mark = async (m: { favorite?: boolean; rating?: number | null }) => {
    if (!asset?.video_id) return;
    const before = { favorite: asset.favorite, rating: asset.rating };
    useViewer.getState().patch(m);
    const item = useLibrary.getState().items.get(asset.video_id);
    if (item) useLibrary.getState().putItems([{ ...item, ...m }]);
    if (!(await attempt('Saving', () => markAssets([asset.video_id], m)))) useViewer.getState().patch(before);
  };
  /** The owner names a voice of the video: the transcript is read again with the name on every line of it. */
  const nameVoice = async (id: string, n: number, name: string | null) => {
    if (await attempt('Naming', () => nameSpeaker(id, n, name))) {
      const again = await attempt('Loading the transcript', () => getTranscript(id));
      if (again) useViewer.getState().setTranscript(again);
    }
  };
  /** The owner turns a photo a quarter (clockwise, or back with `by` −90): kept in the index, not the file. */
  const rotate = async (by: 90 | -90) => {
    // Not a picture that could not be read: there is nothing shown to turn.
    if (!asset?.owned || asset.kind !== 'image' || asset.index.report.stages.extract?.state === 'failed') return;
    const before = asset.orientation_set;
    const turn = (((((asset.orientation_set ?? asset.orientation_detected ?? 0) + by) % 360) + 360) % 360) as 0 | 90 | 180 | 270;
    const put = (orientation_set: typeof before) => {
      useViewer.getState().patch({ orientation_set });
      const item = useLibrary.getState().items.get(asset.video_id);
      if (item) useLibrary.getState().putItems([{ ...item, orientation_set }]);
    };
    put(turn);
    if (!(await attempt('Turning', () => turnPhoto(asset.video_id, turn)))) put(before);
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (typing(target) || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const list = steps.length > 0;
      if (e.shiftKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
        // The next or previous result, whatever the list's other keys do.
        e.preventDefault();
        if (list) step(e.key === 'ArrowDown' ? 1 : -1);
        return;
      }
      const keys: Record<string, () => void> = {
        n: () => nextMoment(1),
        N: () => nextMoment(-1),
        ArrowRight: () => (list ? step(1) : page && page.page < page.page_count && turn(page.page + 1)),
        ArrowLeft: () => (list ? step(-1) : page && page.page > 1 && turn(page.page - 1)),
        PageDown: () => page && page.page < page.page_count && turn(page.page + 1),
        PageUp: () => page && page.page > 1 && turn(page.page - 1),
        Escape: back,
        i: () =>
          setInfo((v) => {
            localStorage.setItem(INFO_KEY, v ? 'off' : 'on');
            return !v;
          }),
        f: () => asset?.owned !== undefined && void mark({ favorite: !asset.favorite }),
        r: () => void rotate(90),
        R: () => void rotate(-90),
        Delete: () => {
          if (!asset?.owned) return;
          useLibrary.getState().remove([asset.video_id]);
          if (steps[here + 1]) step(1);
          else if (steps[here - 1]) step(-1);
          else back();
        },
      };
      for (const n of [0, 1, 2, 3, 4, 5]) keys[String(n)] = () => void mark({ rating: n === 0 ? null : n });
      const fn = keys[e.key];
      if (!fn || (target.tagName === 'VIDEO' && (e.key === 'ArrowLeft' || e.key === 'ArrowRight'))) return;
      e.preventDefault();
      fn();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!asset || (loading && !page && !moment)) return <p className="empty">Opening…</p>;
  const stale = asset.video_id !== id;
  const names = new Map(people.map((p) => [p.person_id, p.name]));
  const regions = page?.regions ?? moment ?? { objects: [], faces: [], text: [] };
  const shownBoxes = overlays(regions, page?.passages ?? [], layers, names);
  const boxes = highlight ? withHit(shownBoxes, highlight) : shownBoxes;
  const inPicture = [...new Set(regions.faces.map((f) => f.person_id).filter((p): p is string => Boolean(p)))].map((p) => ({
    id: p,
    name: names.get(p) ?? '',
  }));
  const src = page ? page.frame_url : (original ?? moment?.frame_url ?? null);
  // A picture whose file could not be read (damaged, say): why, where it would be.
  const unread = asset.index.report.stages.extract?.state === 'failed' ? why({ reason: asset.index.report.stages.extract.reason }) : null;
  // Only the layers this kind of asset has, and only those with something on this picture.
  const offered = (Object.keys(layers) as Array<keyof Layers>).filter((k) =>
    k === 'passage'
      ? Boolean(page?.passages.length)
      : k === 'object'
        ? regions.objects.length > 0
        : k === 'face'
          ? regions.faces.length > 0
          : regions.text.length > 0,
  );
  const pixels = page ? { width: page.width, height: page.height } : asset.width && asset.height ? { width: asset.width, height: asset.height } : null;
  const aspect = page ? page.width / page.height : asset.width && asset.height ? asset.width / asset.height : null;

  return (
    <section className={`viewer ${info ? '' : 'no-info'}`} data-testid="viewer" data-kind={asset.kind} aria-busy={stale || loading}>
      <header className="section-head">
        <button className="icon" aria-label="back to the list (Esc)" title="Back (Esc)" onClick={back}>
          ←
        </button>
        <h2>
          {asset.file_name}{' '}
          <small>
            {asset.kind}
            {page ? ` · page ${page.page} of ${page.page_count}${TEXT_SOURCE[page.text_source] ? ` · ${TEXT_SOURCE[page.text_source]}` : ''}` : ''}
            {asset.kind === 'video' ? (
              <>
                {' · '}
                <PlayingAt id={asset.video_id} duration={asset.duration_s ?? 0} />
              </>
            ) : null}
            {moments.length > 1 ? (
              <span title="n: the next one, N: the one before">
                {' · '}
                {moments.length} {asset.kind === 'document' ? 'pages' : 'moments'} found
              </span>
            ) : null}
          </small>
        </h2>
        {steps.length ? (
          <nav className="stepper" aria-label="previous and next">
            <button className="icon" aria-label="previous (←)" disabled={here <= 0} onClick={() => step(-1)}>
              ‹
            </button>
            <span data-testid="step-position">
              {here + 1} of {found}
            </span>
            <button className="icon" aria-label="next (→)" disabled={here < 0 || here >= steps.length - 1} onClick={() => step(1)}>
              ›
            </button>
          </nav>
        ) : null}
        {asset.kind === 'image' && asset.owned && !unread ? (
          <button className="icon" aria-label="turn clockwise (r; Shift+R the other way)" title="Turn clockwise (r)" onClick={() => void rotate(90)}>
            ⟳
          </button>
        ) : null}
        <button
          className="icon"
          aria-pressed={asset.favorite}
          aria-label={asset.favorite ? 'unfavourite (f)' : 'favourite (f)'}
          onClick={() => void mark({ favorite: !asset.favorite })}
        >
          {asset.favorite ? '♥' : '♡'}
        </button>
        <span className="stars" role="group" aria-label="rating">
          {[1, 2, 3, 4, 5].map((n) => (
            <button
              key={n}
              className={`star ${(asset.rating ?? 0) >= n ? 'on' : ''}`}
              aria-label={`${counted(n, 'star')} (${n})`}
              aria-pressed={(asset.rating ?? 0) === n}
              onClick={() => void mark({ rating: asset.rating === n ? null : n })}
            >
              ★
            </button>
          ))}
        </span>
        <button className="icon" aria-pressed={info} aria-label="info panel (i)" onClick={() => setInfo(!info)}>
          i
        </button>
        {window.mediaIndex && asset.owned ? <button onClick={() => void window.mediaIndex?.reveal(asset.video_id)}>Show in folder</button> : null}
        <div className="layers">
          {offered.map((k) => (
            <label key={k}>
              <input type="checkbox" checked={layers[k]} onChange={(e) => setLayers({ ...layers, [k]: e.target.checked })} />{' '}
              {k === 'text' ? 'text lines' : `${k}s`}
            </label>
          ))}
        </div>
      </header>
      {page ? (
        <nav className="pager" aria-label="pages">
          <button onClick={() => turn(page.page - 1)} disabled={page.page <= 1} aria-label="previous page">
            ‹
          </button>
          <input
            aria-label="page number"
            type="number"
            min={1}
            max={page.page_count}
            defaultValue={page.page}
            key={page.page}
            onKeyDown={(e) => e.key === 'Enter' && turn(Math.max(1, Math.min(page.page_count, Number((e.target as HTMLInputElement).value))))}
          />
          <span>/ {page.page_count}</span>
          <button onClick={() => turn(page.page + 1)} disabled={page.page >= page.page_count} aria-label="next page">
            ›
          </button>
        </nav>
      ) : null}
      <div className="viewer-body">
        <div className="stage">
          {page ? (
            <>
              <DocumentPane page={page} boxes={boxes} words={words} sheet={<Sheet page={page} words={words} />} />
              {moments.length ? <PageStrip moments={moments} current={page.page} go={atMoment} /> : null}
            </>
          ) : asset.kind === 'video' && asset.media_url ? (
            <VideoPane
              id={asset.video_id}
              src={asset.media_url}
              name={asset.file_name}
              start={t}
              duration={asset.duration_s ?? 0}
              aspect={aspect}
              moments={moments}
              names={names}
              hit={highlight}
              shown={new Set((Object.keys(layers) as Array<keyof Layers>).filter((k) => layers[k]))}
            />
          ) : !src ? (
            // Nothing to zoom: the picture's place, in its shape where it is known, with why it is empty.
            <div
              className="picture-pending"
              role="status"
              style={aspect ? { aspectRatio: String(aspect), width: `min(100%, calc(78vh * ${aspect}))` } : undefined}
            >
              {asset.index_phase !== 'reading'
                ? unread
                  ? `This ${asset.kind === 'document' ? 'document' : 'picture'} could not be read: ${unread}.`
                  : 'No picture for this moment.'
                : paused
                  ? 'The picture is shown once it has been read. Indexing is paused: resume it from the top bar.'
                  : 'The picture is shown once it has been read (indexing).'}
            </div>
          ) : (
            <ZoomPane pixels={pixels} resetKey={`${id}/${moment?.timestamp ?? ''}`} onDetail={onDetail}>
              <BoxedPicture
                src={src}
                alt={asset.file_name}
                boxes={boxes}
                aspect={aspect}
                turn={asset.orientation_set ?? asset.orientation_detected ?? 0}
                onBox={(b) => {
                  // A face box: its "This is…" field (or the person's link) in the side panel.
                  const el = document.getElementById(`who-${b.key}`) ?? document.querySelector<HTMLElement>(`.faces-here [data-face="${b.key}"] a`);
                  el?.focus();
                }}
              />
            </ZoomPane>
          )}
        </div>
        {info ? (
          <aside className="side">
            <AssetInfo asset={asset} people={inPicture} />
            {page ? (
              <>
                <h3>Passages</h3>
                <ol className="passages" tabIndex={0} aria-label="passages of the page" ref={passageList}>
                  {page.passages.map((p) => (
                    <li key={p.idx} className={highlight && Math.abs(highlight.y - p.bbox.y) < 1e-3 ? 'current' : ''}>
                      {p.text}
                    </li>
                  ))}
                </ol>
                {page.passages.length === 0 ? <p className="empty">{page.needs_ocr ? 'This page needs OCR.' : 'No text on this page.'}</p> : null}
              </>
            ) : null}
            {asset.kind === 'video' ? (
              <>
                {transcript && transcript.turns.length ? (
                  <>
                    <h3>Voices</h3>
                    <Voices transcript={transcript} onName={asset.owned ? (n, name) => nameVoice(asset.video_id, n, name) : undefined} />
                  </>
                ) : null}
                <h3>Transcript{transcript?.language ? ` (${transcript.language})` : ''}</h3>
                {transcript && transcript.segments.length ? (
                  <Transcript id={asset.video_id} transcript={transcript} words={words} />
                ) : (
                  <p className="empty">
                    {asset.index.report.stages.transcript?.reason?.startsWith('model_not_installed') ? (
                      <>
                        No transcript: the speech model is not installed (<a href="#/settings">Settings</a>).
                      </>
                    ) : asset.index.report.stages.transcript?.state === 'failed' ? (
                      `No transcript: ${why({ reason: asset.index.report.stages.transcript.reason })}.`
                    ) : ['pending', 'running'].includes(asset.index.report.stages.transcript?.state ?? '') ? (
                      'The transcript is being made.'
                    ) : (
                      'No transcript.'
                    )}
                  </p>
                )}
              </>
            ) : null}
            {regions.faces.length ? (
              <>
                <h3>Faces</h3>
                <ul className="plain faces-here">
                  {regions.faces.map((f, i) => (
                    <li key={f.face_id} data-face={f.face_id}>
                      {f.person_id ? (
                        <>
                          <a href={`#/people/${encodeURIComponent(f.person_id)}`}>{names.get(f.person_id) || 'Unnamed person'}</a>{' '}
                          {asset.owned ? (
                            <>
                              <button
                                className="link"
                                aria-label={`not ${names.get(f.person_id) || 'this person'} (face ${i + 1})`}
                                onClick={() => void notThem(f.person_id!, f.face_id).then((done) => done && reopen())}
                              >
                                not them
                              </button>{' '}
                              <NotAFace face={f.face_id} n={i + 1} onDone={reopen} />
                            </>
                          ) : null}
                        </>
                      ) : asset.owned ? (
                        <>
                          <NameField
                            id={`who-${f.face_id}`}
                            label={`this is (face ${i + 1})`}
                            placeholder="This is…"
                            people={people}
                            onPick={(c) => void sayWho(f.face_id, c).then((done) => done && reopen())}
                          />{' '}
                          <NotAFace face={f.face_id} n={i + 1} onDone={reopen} />
                        </>
                      ) : (
                        'not grouped yet'
                      )}{' '}
                      <small>quality {(f.quality ?? 0).toFixed(2)}</small>
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            {regions.objects.length ? (
              <>
                <h3>Objects</h3>
                <p>{regions.objects.map((o) => o.label).join(', ')}</p>
              </>
            ) : null}
          </aside>
        ) : null}
      </div>
    </section>
  );
}

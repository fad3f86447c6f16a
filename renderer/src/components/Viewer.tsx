// The viewer: a document page (its render, or a sheet with its passages laid out where the page has
// none) with passages and regions over it, a photo with its boxes, or a video moment's keyframe with
// the boxes of that moment. The box a search hit pointed at is drawn strongest. ←/→ turn pages.
// Beside it, the info panel (Info.tsx): when, where, with what and who.
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { parseBox, useViewer } from '../stores/viewer.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import { usePeople } from '../stores/people.ts';
import { BoxedPicture, type Overlay } from './Boxes.tsx';
import { AssetInfo } from './Info.tsx';
import { NameField } from './people/NameField.tsx';
import type { PageView, RegionsView } from '../api/videos.ts';

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

/** m:ss of a time in seconds. */
const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

/** A page without a render: its passages on a sheet of the page's proportions. */
function Sheet({ page }: { page: PageView }) {
  return (
    <div className="sheet" style={{ aspectRatio: `${page.width} / ${page.height}` }}>
      {page.passages.map((p) => (
        <p key={p.idx} className="sheet-passage" style={{ left: `${p.bbox.x * 100}%`, top: `${p.bbox.y * 100}%`, width: `${p.bbox.w * 100}%` }}>
          {p.text}
        </p>
      ))}
    </div>
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
  const player = useRef<HTMLVideoElement>(null);
  const open = useViewer((s) => s.open);
  const go = useNav((s) => s.go);
  const people = usePeople((s) => s.people);
  const loadPeople = usePeople((s) => s.load);
  const sayWho = usePeople((s) => s.sayWho);
  const notThem = usePeople((s) => s.notThem);
  const [layers, setLayers] = useState<Layers>({ passage: true, object: true, face: true, text: false });
  const pageNo = params.get('page') ? Number(params.get('page')) : null;
  const t = Number(params.get('t') ?? 0);
  const box = params.get('box');

  useEffect(() => void open(id, { page: pageNo, timestamp: t, box: parseBox(box) }), [id, pageNo, t, box, open]);
  useEffect(() => void loadPeople(), [loadPeople]);
  const reopen = () => void open(id, { page: pageNo, timestamp: t, box: parseBox(box) });
  const turn = (n: number) => asset && go(viewHash(asset.video_id, { page: n }));
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!page || (e.target as HTMLElement).tagName === 'INPUT') return;
      if (e.key === 'ArrowRight' && page.page < page.page_count) turn(page.page + 1);
      if (e.key === 'ArrowLeft' && page.page > 1) turn(page.page - 1);
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
  const names = new Map(people.map((p) => [p.person_id, p.name]));
  const regions = page?.regions ?? moment ?? { objects: [], faces: [], text: [] };
  const boxes = overlays(regions, page?.passages ?? [], layers, names);
  if (highlight) boxes.push({ key: 'hit', kind: 'hit', label: 'search hit', ...highlight });
  const inPicture = [...new Set(regions.faces.map((f) => f.person_id).filter((p): p is string => Boolean(p)))].map((p) => ({
    id: p,
    name: names.get(p) ?? '',
  }));
  const src = page ? page.frame_url : (moment?.frame_url ?? null);
  const aspect = page ? page.width / page.height : asset.width && asset.height ? asset.width / asset.height : null;

  return (
    <section className="viewer" data-testid="viewer" data-kind={asset.kind}>
      <header className="section-head">
        <h2>
          {asset.file_name}{' '}
          <small>
            {asset.kind}
            {page ? ` · page ${page.page} of ${page.page_count} · ${page.text_source}` : ''}
            {asset.kind === 'video' && moment ? ` · at ${(moment.timestamp ?? 0).toFixed(1)} s of ${(asset.duration_s ?? 0).toFixed(1)} s` : ''}
          </small>
        </h2>
        {window.mediaIndex && asset.owned ? <button onClick={() => void window.mediaIndex?.reveal(asset.video_id)}>Show in folder</button> : null}
        <div className="layers">
          {(Object.keys(layers) as Array<keyof Layers>).map((k) => (
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
          {asset.kind === 'video' && asset.media_url ? (
            <video
              ref={player}
              className="player"
              controls
              preload="metadata"
              src={asset.media_url}
              aria-label={`play ${asset.file_name}`}
              onLoadedMetadata={(e) => {
                e.currentTarget.currentTime = t;
              }}
            />
          ) : null}
          <BoxedPicture
            src={src}
            alt={asset.file_name}
            boxes={boxes}
            aspect={aspect}
            turn={asset.orientation_detected ?? 0}
            onBox={(b) => {
              // A face box: its "This is…" field (or the person's link) in the side panel.
              const el = document.getElementById(`who-${b.key}`) ?? document.querySelector<HTMLElement>(`.faces-here [data-face="${b.key}"] a`);
              el?.focus();
            }}
          >
            {page ? <Sheet page={page} /> : <div className="empty">No picture for this moment.</div>}
          </BoxedPicture>
        </div>
        <aside className="side">
          <AssetInfo asset={asset} people={inPicture} />
          {page ? (
            <>
              <h3>Passages</h3>
              <ol className="passages">
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
              <h3>Transcript{transcript?.language ? ` (${transcript.language})` : ''}</h3>
              {transcript && transcript.segments.length ? (
                <ol className="transcript">
                  {transcript.segments.map((seg) => (
                    <li key={seg.start_s} className={t >= seg.start_s && t < seg.end_s ? 'current' : ''}>
                      <button
                        className="link"
                        onClick={() => {
                          if (player.current) {
                            player.current.currentTime = seg.start_s;
                            void player.current.play().catch(() => undefined);
                          }
                        }}
                      >
                        {clock(seg.start_s)}
                      </button>{' '}
                      {seg.speaker ? <strong>{seg.speaker}: </strong> : null}
                      {seg.text}
                    </li>
                  ))}
                </ol>
              ) : (
                <p className="empty">
                  {asset.index.report.stages.transcript?.state === 'failed'
                    ? `No transcript: ${asset.index.report.stages.transcript.reason}`
                    : 'No transcript.'}
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
                        <a href={`#/people/${encodeURIComponent(f.person_id)}`}>{names.get(f.person_id) || 'Unnamed person'}</a>
                        {asset.owned ? (
                          <button
                            className="link"
                            aria-label={`not ${names.get(f.person_id) || 'this person'} (face ${i + 1})`}
                            onClick={() => void notThem(f.person_id!, f.face_id).then((done) => done && reopen())}
                          >
                            not them
                          </button>
                        ) : null}
                      </>
                    ) : asset.owned ? (
                      <NameField
                        id={`who-${f.face_id}`}
                        label={`this is (face ${i + 1})`}
                        placeholder="This is…"
                        people={people}
                        onPick={(c) => void sayWho(f.face_id, c).then((done) => done && reopen())}
                      />
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
      </div>
    </section>
  );
}

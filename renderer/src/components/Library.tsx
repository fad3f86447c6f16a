// The library: every asset as a timeline (newest taken first, a heading per month, a scrubber of
// months), narrowed by filter chips kept in the address; virtualized, so 50,000 assets scroll as
// smoothly as 50. Drop files or folders anywhere on it (or pick them) and see each upload's
// progress or refusal.
import { useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useShallow } from 'zustand/react/shallow';
import { PAGE, useLibrary, type Upload } from '../stores/library.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import type { AssetListItem, Months } from '../api/videos.ts';
import { Chips, filtersOf } from './Chips.tsx';
import { useSession } from '../stores/session.ts';

/** A path with a hidden part (.DS_Store, .git/…): left out of folders added. */
const isHidden = (relativePath: string) => relativePath.split('/').some((part) => part.startsWith('.'));

/** Every file of a drop, folders walked recursively; hidden files (.DS_Store…) left out. */
export async function filesOfDrop(items: DataTransferItemList | null, files: FileList | null): Promise<File[]> {
  const entries = items ? [...items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => Boolean(e)) : [];
  if (entries.length === 0) return [...(files ?? [])].filter((f) => !f.name.startsWith('.'));
  const out: File[] = [];
  const walk = async (entry: FileSystemEntry): Promise<void> => {
    if (entry.name.startsWith('.')) return;
    if (entry.isFile) {
      out.push(await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej)));
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const e of batch) await walk(e);
      }
    }
  };
  for (const e of entries) await walk(e);
  return out;
}

const size = (n: number) => (n > 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n > 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1e3))} kB`);

function UploadRow({ u }: { u: Upload }) {
  return (
    <li className={`upload upload-${u.state}`} data-state={u.state}>
      <span className="upload-name">{u.name}</span>
      <span className="upload-size">{size(u.size)}</span>
      {u.state === 'failed' ? <span className="error">{u.error}</span> : <progress max={1} value={u.progress} aria-label={`upload of ${u.name}`} />}
    </li>
  );
}

function AssetCard({ a, progress }: { a: AssetListItem; progress?: { done: number; total: number } }) {
  const go = useNav((s) => s.go);
  const remove = useLibrary((s) => s.remove);
  const open = () => go(viewHash(a.video_id, a.kind === 'document' ? { page: 1 } : { timestamp: 0 }));
  return (
    <article className="card" data-asset={a.video_id} data-status={a.status} tabIndex={0} onKeyDown={(e) => e.key === 'Enter' && open()}>
      <button className="card-open" onClick={open} aria-label={`open ${a.file_name}`}>
        {a.thumbnail_url ? (
          <img src={a.thumbnail_url} alt="" loading="lazy" style={a.orientation_detected ? { transform: `rotate(${a.orientation_detected}deg)` } : undefined} />
        ) : (
          <div className={`kind-icon kind-${a.kind}`}>{a.kind}</div>
        )}
      </button>
      <div className="card-body">
        <div className="card-name" title={a.file_name}>
          {a.file_name}
        </div>
        <div className="card-meta">
          <span className={`badge badge-${a.kind}`}>{a.kind}</span>
          {a.page_count ? <span>{a.page_count} p.</span> : null}
          <span>{size(a.size_bytes)}</span>
        </div>
        {a.status === 'processing' ? (
          <div className="card-status">
            indexing {progress ? `${progress.done}/${progress.total}` : '…'}
            <progress max={progress?.total ?? 1} value={progress?.done ?? 0} />
          </div>
        ) : (
          <div className="card-status done">indexed</div>
        )}
      </div>
      {a.owned ? (
        <button
          className="card-delete"
          aria-label={`delete ${a.file_name}`}
          onClick={() => {
            if (window.confirm(`Delete ${a.file_name} from the index? The file on disk is not touched when it was indexed in place.`)) void remove(a.video_id);
          }}
        >
          ×
        </button>
      ) : null}
    </article>
  );
}

/** A row of the timeline: a month's heading, or a row of cards (offsets into the list). */
type Row = { kind: 'month'; label: string; count: number; month: string } | { kind: 'cards'; from: number; to: number };

const monthName = (m: string) =>
  m === 'undated'
    ? 'Just added (not dated yet)'
    : new Date(`${m}-01T00:00:00Z`).toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

function rowsOf(months: Months | null, columns: number): Row[] {
  if (!months) return [];
  const rows: Row[] = [];
  let offset = 0;
  // The list puts assets without a date first (just added), then months newest first.
  const groups = [...(months.undated ? [{ month: 'undated', count: months.undated }] : []), ...months.months];
  for (const g of groups) {
    rows.push({ kind: 'month', label: monthName(g.month), count: g.count, month: g.month });
    for (let i = 0; i < g.count; i += columns) rows.push({ kind: 'cards', from: offset + i, to: Math.min(offset + g.count, offset + i + columns) });
    offset += g.count;
  }
  return rows;
}

const CARD_W = 200;
const CARD_ROW_H = 220;
const MONTH_ROW_H = 44;

function Timeline({ columns }: { columns: number }) {
  const { months, pages, progress } = useLibrary(useShallow((s) => ({ months: s.months, pages: s.pages, progress: s.progress })));
  const want = useLibrary((s) => s.want);
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => rowsOf(months, columns), [months, columns]);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (rows[i]?.kind === 'month' ? MONTH_ROW_H : CARD_ROW_H),
    overscan: 4,
  });
  const items = virtual.getVirtualItems();
  const first = items.find((i) => rows[i.index]?.kind === 'cards');
  const last = [...items].reverse().find((i) => rows[i.index]?.kind === 'cards');
  const from = first ? (rows[first.index] as Extract<Row, { kind: 'cards' }>).from : 0;
  const to = last ? (rows[last.index] as Extract<Row, { kind: 'cards' }>).to : 0;
  useEffect(() => want(from, to), [from, to, want]);
  const at = (offset: number) => pages[Math.floor(offset / PAGE)]?.[offset % PAGE];
  const monthRows = rows.map((r, i) => [r, i] as const).filter(([r]) => r.kind === 'month') as Array<readonly [Extract<Row, { kind: 'month' }>, number]>;
  return (
    <div className="timeline">
      <div className="timeline-scroll" ref={scroller} data-testid="timeline">
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {items.map((v) => {
            const row = rows[v.index];
            return (
              <div key={v.key} className="timeline-row" style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}>
                {row.kind === 'month' ? (
                  <h3 className="month" data-month={row.month}>
                    {row.label} <small>{row.count}</small>
                  </h3>
                ) : (
                  <div className="grid" style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
                    {Array.from({ length: row.to - row.from }, (_, k) => {
                      const a = at(row.from + k);
                      return a ? (
                        <AssetCard key={a.video_id} a={a} progress={progress[a.video_id]} />
                      ) : (
                        <div key={k} className="card card-loading" aria-hidden />
                      );
                    })}
                  </div>
                )}
              </div>
            );
          })}
        </div>
      </div>
      <nav className="scrubber" aria-label="months">
        {monthRows.map(([m, index]) => (
          <button key={m.month} data-month={m.month} onClick={() => virtual.scrollToIndex(index, { align: 'start' })} title={`${m.label}: ${m.count}`}>
            {m.month === 'undated' ? 'new' : m.month.endsWith('-01') || monthRows[0][0] === m ? m.month.slice(0, 4) : '·'}
          </button>
        ))}
      </nav>
    </div>
  );
}

export function Library({ params }: { params: URLSearchParams }) {
  const { total, loaded, uploads } = useLibrary(useShallow((s) => ({ total: s.total, loaded: s.loaded, uploads: s.uploads })));
  const { show, upload, pick, clearFinishedUploads } = useLibrary(
    useShallow((s) => ({ show: s.show, upload: s.upload, pick: s.pick, clearFinishedUploads: s.clearFinishedUploads })),
  );
  const desktop = useSession((s) => s.desktop);
  const [over, setOver] = useState(false);
  const key = params.toString();
  const filters = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  useEffect(() => void show(filters), [filters, show]);
  const box = useRef<HTMLElement>(null);
  const [columns, setColumns] = useState(5);
  useEffect(() => {
    const measure = () => setColumns(Math.max(1, Math.floor(((box.current?.clientWidth ?? 1000) - 60) / CARD_W)));
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, []);

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const files = await filesOfDrop(e.dataTransfer.items, e.dataTransfer.files);
    if (files.length) await upload(files);
  };

  return (
    <section
      ref={box}
      className={`library ${over ? 'drop-over' : ''}`}
      data-testid="library"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => void onDrop(e)}
    >
      <header className="section-head">
        <h2>
          Library{' '}
          <small>
            {total} item{total === 1 ? '' : 's'}
          </small>
        </h2>
        {desktop ? (
          <>
            <button onClick={() => void pick('files')}>Add files…</button>
            <button onClick={() => void pick('folder')}>Add a folder…</button>
          </>
        ) : (
          <>
            <label className="button">
              Add files…
              <input
                type="file"
                multiple
                hidden
                data-testid="files-input"
                onChange={(e) => {
                  const files = [...(e.target.files ?? [])];
                  e.target.value = '';
                  if (files.length) void upload(files);
                }}
              />
            </label>
            <label className="button">
              Add a folder…
              {/* webkitdirectory: the browser's folder chooser (every file of the folder, subfolders too). */}
              <input
                type="file"
                hidden
                data-testid="folder-input"
                ref={(el) => el?.setAttribute('webkitdirectory', '')}
                onChange={(e) => {
                  const files = [...(e.target.files ?? [])].filter((f) => !isHidden(f.webkitRelativePath || f.name));
                  e.target.value = '';
                  if (files.length) void upload(files);
                }}
              />
            </label>
          </>
        )}
      </header>
      <Chips filters={filters} hashOf={(q) => `#/library${q ? `?${q}` : ''}`} />
      <div className="dropzone" aria-label="drop files or folders here">
        Drop videos, photos, documents or whole folders here
      </div>
      {uploads.length ? (
        <div className="uploads">
          <ul>
            {uploads.map((u) => (
              <UploadRow key={u.key} u={u} />
            ))}
          </ul>
          <button className="link" onClick={clearFinishedUploads}>
            Clear finished
          </button>
        </div>
      ) : null}
      {loaded && total === 0 ? (
        <p className="empty">{Object.keys(filters).length ? 'Nothing matches these filters.' : 'Nothing indexed yet. Drop files here to start.'}</p>
      ) : null}
      <Timeline columns={columns} />
    </section>
  );
}

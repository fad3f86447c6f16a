// The library: drop files or folders anywhere on it (or pick them), see each upload's progress or
// refusal, and every asset with its thumbnail, kind and indexing progress.
import { useEffect, useState, type DragEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useLibrary, type Upload } from '../stores/library.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import type { AssetListItem } from '../api/videos.ts';
import { useSession } from '../stores/session.ts';

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
        {a.thumbnail_url ? <img src={a.thumbnail_url} alt="" loading="lazy" /> : <div className={`kind-icon kind-${a.kind}`}>{a.kind}</div>}
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

export function Library() {
  const { assets, total, loaded, progress, uploads } = useLibrary(
    useShallow((s) => ({ assets: s.assets, total: s.total, loaded: s.loaded, progress: s.progress, uploads: s.uploads })),
  );
  const { load, upload, pick, clearFinishedUploads } = useLibrary(
    useShallow((s) => ({ load: s.load, upload: s.upload, pick: s.pick, clearFinishedUploads: s.clearFinishedUploads })),
  );
  const desktop = useSession((s) => s.desktop);
  const [over, setOver] = useState(false);
  useEffect(() => void load(), [load]);

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const files = await filesOfDrop(e.dataTransfer.items, e.dataTransfer.files);
    if (files.length) await upload(files);
  };

  return (
    <section
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
          <label className="button">
            Add files…
            <input
              type="file"
              multiple
              hidden
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                e.target.value = '';
                if (files.length) void upload(files);
              }}
            />
          </label>
        )}
      </header>
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
      {loaded && assets.length === 0 ? <p className="empty">Nothing indexed yet. Drop files here to start.</p> : null}
      <div className="grid">
        {assets.map((a) => (
          <AssetCard key={a.video_id} a={a} progress={progress[a.video_id]} />
        ))}
      </div>
    </section>
  );
}

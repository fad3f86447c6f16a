// The selection bar: what can be done to the pictures selected in the library — favourite, rate,
// put in or take out of a collection, index again, save their face regions as XMP, delete (with an
// undo window). It replaces the library's header while anything is selected; Esc clears.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useDismiss } from '../keys.ts';
import { useShallow } from 'zustand/react/shallow';
import { useLibrary } from '../stores/library.ts';
import { useCollections } from '../stores/collections.ts';
import { attempt, useToasts } from '../stores/toasts.ts';
import { reindexAsset, xmpOf } from '../api/collections.ts';
import type { ListFilters } from '../api/videos.ts';

/** Stages that can be run again from the bar (all of them, or one). */
const REINDEX = ['all', 'ocr', 'faces', 'objects', 'captions', 'labels', 'transcript', 'speakers', 'people'] as const;

/**
 * A button that opens a small menu under it (Tab goes through its items); Esc or a click elsewhere
 * closes it, and focus within it goes back to the button (else it would be left on the page's body).
 */
function Menu({ label, children, testid }: { label: string; children: (close: () => void) => React.ReactNode; testid?: string }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => {
    if (box.current?.contains(document.activeElement)) button.current?.focus();
    setOpen(false);
  }, []);
  useDismiss(open, box, close);
  return (
    <div className="menu" ref={box}>
      <button ref={button} aria-expanded={open} aria-haspopup="true" onClick={() => setOpen(!open)} data-testid={testid}>
        {label} ▾
      </button>
      {open ? (
        <div className="menu-list" role="group" aria-label={label}>
          {children(() => setOpen(false))}
        </div>
      ) : null}
    </div>
  );
}

function save(blob: Blob, name: string) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/**
 * Clears the selection from the bar, which then goes: focus within it (or already lost to the
 * page's body, as a menu's field goes) goes back to the grid's tile that holds its Tab stop.
 */
function clearedFrom(bar: HTMLElement | null, clearSelection: () => void): void {
  const at = document.activeElement;
  const lost = !at || at === document.body || Boolean(bar?.contains(at));
  clearSelection();
  if (lost) requestAnimationFrame(() => document.querySelector<HTMLElement>('[role=gridcell][tabindex="0"]')?.focus());
}

export function SelectionBar({ filters }: { filters: ListFilters }) {
  const { selected, items, clearSelection, remove, mark } = useLibrary(
    useShallow((s) => ({ selected: s.selected, items: s.items, version: s.itemsVersion, clearSelection: s.clearSelection, remove: s.remove, mark: s.mark })),
  );
  const { list, load, add, removeFrom } = useCollections(useShallow((s) => ({ list: s.list, load: s.load, add: s.add, removeFrom: s.removeFrom })));
  const [naming, setNaming] = useState(false);
  useEffect(() => void (list ?? load()), [list, load]);
  const ids = [...selected];
  const chosen = ids.map((id) => items.get(id)).filter((a) => a !== undefined);
  const allFavourite = chosen.length > 0 && chosen.every((a) => a.favorite);
  const owned = chosen.filter((a) => a.owned).map((a) => a.video_id);
  const photos = chosen.filter((a) => a.kind === 'image' && a.owned);
  const inCollection = filters.collection_id;
  const bar = useRef<HTMLElement>(null);
  const done = () => clearedFrom(bar.current, clearSelection);

  return (
    <header ref={bar} className="section-head selection-bar" role="toolbar" aria-label="selection" data-testid="selection-bar">
      <button className="icon" aria-label="clear selection (Esc)" onClick={done}>
        ×
      </button>
      <strong data-testid="selection-count">{ids.length} selected</strong>
      <span className="spacer" />
      <button aria-pressed={allFavourite} onClick={() => void mark(ids, { favorite: !allFavourite })}>
        {allFavourite ? '♥ Unfavourite' : '♡ Favourite'}
      </button>
      <label className="chip">
        Rating
        <select
          aria-label="set rating"
          value=""
          onChange={(e) => e.target.value && void mark(ids, { rating: e.target.value === 'none' ? null : Number(e.target.value) })}
        >
          <option value="">…</option>
          <option value="none">none</option>
          {[1, 2, 3, 4, 5].map((n) => (
            <option key={n} value={n}>
              {'★'.repeat(n)}
            </option>
          ))}
        </select>
      </label>
      <Menu label="Add to collection" testid="add-to-collection">
        {(close) => (
          <>
            {(list ?? []).map((c) => (
              <button
                key={c.collection_id}
                className="menu-item"
                onClick={() => {
                  close();
                  void add({ id: c.collection_id }, ids).then((ok) => ok && done());
                }}
              >
                {c.name} <small>{c.asset_count}</small>
              </button>
            ))}
            {naming ? (
              <form
                className="menu-item"
                onSubmit={(e) => {
                  e.preventDefault();
                  const name = new FormData(e.currentTarget).get('name')?.toString().trim();
                  if (!name) return;
                  setNaming(false);
                  close();
                  void add({ name }, ids).then((ok) => ok && done());
                }}
              >
                <input name="name" aria-label="new collection name" placeholder="Name" autoFocus />
              </form>
            ) : (
              <button className="menu-item" onClick={() => setNaming(true)}>
                New collection…
              </button>
            )}
          </>
        )}
      </Menu>
      {inCollection ? (
        <button onClick={() => void removeFrom(inCollection, ids).then((ok) => ok && (done(), void useLibrary.getState().load()))}>
          Remove from collection
        </button>
      ) : null}
      <Menu label="Re-index">
        {(close) =>
          REINDEX.map((stage) => (
            <button
              key={stage}
              className="menu-item"
              disabled={!owned.length}
              onClick={() => {
                close();
                void (async () => {
                  let n = 0;
                  for (const id of owned) if (await attempt('Re-indexing', () => reindexAsset(id, stage === 'all' ? undefined : [stage]))) n++;
                  useToasts.getState().push('info', `Indexing ${n} item(s) again${stage === 'all' ? '' : ` (${stage})`}.`);
                  void useLibrary.getState().load();
                })();
              }}
            >
              {stage === 'all' ? 'Every stage' : stage}
            </button>
          ))
        }
      </Menu>
      <button
        disabled={!photos.length}
        title="Save the named faces of the selected photos as XMP sidecars (MWG regions)"
        onClick={() =>
          void (async () => {
            for (const a of photos) {
              const blob = await attempt(`XMP of ${a.file_name}`, () => xmpOf(a.video_id));
              if (blob) save(blob, `${a.file_name}.xmp`);
            }
          })()
        }
      >
        Export XMP
      </button>
      <button
        className="danger"
        disabled={!owned.length}
        onClick={() => {
          const others = ids.length - owned.length;
          const text = `Delete ${owned.length === 1 ? '1 item' : `${owned.length} items`} from the index?${others ? ` (${others} shared into this workspace stay.)` : ''} Files indexed in place stay on disk.`;
          if (window.confirm(text)) remove(owned);
        }}
      >
        Delete
      </button>
    </header>
  );
}

// A grid of face crops to review many at once: one tab stop (a listbox, the active face followed by
// the arrow keys), click toggles a face, Shift-click or Shift+arrows a range, Ctrl/Cmd-A all, Esc
// none, Enter or double-click opens the picture. Virtualized by rows: 20,000 faces scroll smoothly,
// and the next page is asked for as its end comes into view.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { all, pick, NONE, type Selection } from '../../stores/selection.ts';

export interface GridFace {
  face_id: string;
  thumbnail_url: string;
  /** What the face is, for screen readers and the tooltip. */
  label: string;
  /** Small marks on the tile (small, blurred, cover). */
  marks?: string[];
}

const GAP = 8;

export function FaceGrid({
  faces,
  total,
  selection,
  onSelection,
  onOpen,
  onMore,
  label,
  tile = 112,
}: {
  faces: GridFace[];
  total: number;
  selection: Selection;
  onSelection(s: Selection): void;
  onOpen(face: GridFace): void;
  onMore(): void;
  label: string;
  tile?: number;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [active, setActive] = useState(0);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  const columns = Math.max(1, Math.floor((width - 16 + GAP) / (tile + GAP)));
  const rows = Math.ceil(faces.length / columns);
  const virtual = useVirtualizer({ count: rows, getScrollElement: () => scroller.current, estimateSize: () => tile + GAP, overscan: 4 });
  const items = virtual.getVirtualItems();
  const lastRow = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (faces.length < total && lastRow >= rows - 3) onMore();
  }, [lastRow, rows, faces.length, total, onMore]);
  const order = useMemo(() => faces.map((f) => f.face_id), [faces]);
  const selected = useMemo(() => new Set(selection.ids), [selection.ids]);
  const at = Math.min(active, Math.max(0, faces.length - 1));

  // Stable across scrolling, so that rows already drawn are not drawn again.
  const latest = useRef({ order, selection, onSelection });
  latest.current = { order, selection, onSelection };
  const onTile = useCallback((i: number, range: boolean) => {
    const { order: ids, selection: sel, onSelection: choose } = latest.current;
    setActive(i);
    choose(pick(ids, sel, ids[i], range));
  }, []);

  const moveTo = (i: number, extend: boolean) => {
    const next = Math.max(0, Math.min(faces.length - 1, i));
    setActive(next);
    virtual.scrollToIndex(Math.floor(next / columns));
    if (extend && faces[next]) onSelection(pick(order, selection.anchor ? selection : { ids: selection.ids, anchor: order[at] }, order[next], true));
  };

  return (
    <div
      ref={scroller}
      className="face-grid"
      role="listbox"
      aria-label={label}
      aria-multiselectable="true"
      tabIndex={0}
      aria-activedescendant={faces[at] ? `face-${faces[at].face_id}` : undefined}
      onKeyDown={(e) => {
        const k = e.key;
        if (k === 'ArrowRight') moveTo(at + 1, e.shiftKey);
        else if (k === 'ArrowLeft') moveTo(at - 1, e.shiftKey);
        else if (k === 'ArrowDown') moveTo(at + columns, e.shiftKey);
        else if (k === 'ArrowUp') moveTo(at - columns, e.shiftKey);
        else if (k === 'Home') moveTo(0, e.shiftKey);
        else if (k === 'End') moveTo(faces.length - 1, e.shiftKey);
        else if (k === ' ' && faces[at]) onSelection(pick(order, selection, order[at], e.shiftKey));
        else if (k === 'Enter' && faces[at]) onOpen(faces[at]);
        else if ((k === 'a' || k === 'A') && (e.ctrlKey || e.metaKey)) onSelection(all(order));
        else if (k === 'Escape' && selection.ids.length) onSelection(NONE);
        else return;
        e.preventDefault();
        e.stopPropagation();
      }}
    >
      <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
        {items.map((v) => (
          <FaceRow
            key={v.key}
            faces={faces}
            from={v.index * columns}
            columns={columns}
            top={v.start}
            tile={tile}
            selected={selected}
            active={at >= v.index * columns && at < (v.index + 1) * columns ? at : -1}
            onTile={onTile}
            onOpen={onOpen}
          />
        ))}
      </div>
    </div>
  );
}

type RowProps = {
  faces: GridFace[];
  from: number;
  columns: number;
  top: number;
  tile: number;
  selected: Set<string>;
  active: number;
  onTile(i: number, range: boolean): void;
  onOpen(face: GridFace): void;
};

/** The same row: its place, its faces (the same objects) and their state; a page added elsewhere leaves it as it is. */
function sameRow(a: RowProps, b: RowProps): boolean {
  if (a.from !== b.from || a.columns !== b.columns || a.top !== b.top || a.tile !== b.tile || a.active !== b.active) return false;
  if (a.selected !== b.selected || a.onTile !== b.onTile || a.onOpen !== b.onOpen) return false;
  for (let i = a.from; i < a.from + a.columns; i++) if (a.faces[i] !== b.faces[i]) return false;
  return true;
}

/** One row of tiles; drawn again only when its faces, the selection or the active face in it change. */
const FaceRow = memo(function FaceRow({ faces, from, columns, top, tile, selected, active, onTile, onOpen }: RowProps) {
  const size = tile > 128 ? 256 : 128;
  return (
    <div className="face-row" role="presentation" style={{ transform: `translateY(${top}px)`, gridTemplateColumns: `repeat(${columns}, ${tile}px)`, gap: GAP }}>
      {faces.slice(from, from + columns).map((f, k) => {
        const i = from + k;
        const on = selected.has(f.face_id);
        return (
          <div
            key={f.face_id}
            id={`face-${f.face_id}`}
            role="option"
            aria-selected={on}
            title={f.label}
            data-face={f.face_id}
            className={`face-tile ${on ? 'selected' : ''} ${i === active ? 'active' : ''}`}
            style={{ width: tile, height: tile }}
            onClick={(e) => onTile(i, e.shiftKey)}
            onDoubleClick={() => onOpen(f)}
          >
            <img
              src={f.thumbnail_url.replace(/size=\d+/, `size=${size}`)}
              alt=""
              width={tile}
              height={tile}
              loading="lazy"
              decoding="async"
              draggable={false}
            />
            <span className="face-check" aria-hidden>
              ✓
            </span>
            {f.marks?.length ? (
              <span className="face-marks" aria-hidden>
                {f.marks.join(' · ')}
              </span>
            ) : null}
            <span className="sr-only">{f.label}</span>
          </div>
        );
      })}
    </div>
  );
}, sameRow);

/** A face crop as a picture (the service cuts it once and keeps it). */
export function FaceThumb({ url, size = 128, title }: { url: string | null | undefined; size?: number; title?: string }) {
  if (!url) return <div className="crop crop-empty" style={{ width: size, height: size }} title={title} />;
  return (
    <img
      className="crop"
      src={url.replace(/size=\d+/, `size=${size > 128 ? 256 : 128}`)}
      width={size}
      height={size}
      alt={title ?? ''}
      title={title}
      draggable={false}
    />
  );
}

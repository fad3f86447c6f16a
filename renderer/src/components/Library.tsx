// The library: every asset as a justified photo timeline (newest taken first, a heading per month,
// a scrubber spanning the library's dates), narrowed by filter chips kept in the address;
// virtualized, so 50,000 pictures scroll as smoothly as 50. Pictures are selected by hover
// checkbox, Shift-range, a month's heading or Ctrl/Cmd-A, and acted on from the selection bar.
// The grid is one tab stop: arrows move, Enter opens, Space selects. Drop files or folders anywhere.
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type DragEvent,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useShallow } from 'zustand/react/shallow';
import { PAGE, useLibrary } from '../stores/library.ts';
import { useNav } from '../stores/nav.ts';
import { useBrowse, stepHash } from '../stores/browse.ts';
import { whenIndexed } from '../stores/activity.ts';
import type { AssetListItem, Months } from '../api/videos.ts';
import type { Layout } from '../api/collections.ts';
import { DENSITIES, justify } from '../layout/justify.ts';
import { Chips, filtersOf } from './Chips.tsx';
import { SelectionBar } from './SelectionBar.tsx';
import { useSession } from '../stores/session.ts';
import { typing } from '../keys.ts';
import { counted, fileSize } from '../plural.ts';
import { stagesInWords } from '../failures.ts';

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

const duration = (s: number) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;

/** A row of the timeline: a month's heading, or a justified row of pictures (offsets into the list). */
export type Row =
  | { kind: 'month'; label: string; count: number; month: string; from: number; to: number }
  | { kind: 'pictures'; from: number; to: number; height: number; widths: number[] };

const GAP = 4;
const MONTH_ROW_H = 48;

export const monthName = (m: string) =>
  m === 'undated'
    ? 'Just added (not dated yet)'
    : new Date(`${m}-01T00:00:00Z`).toLocaleDateString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

export function rowsOf(months: Months | null, layout: Layout | null, width: number, target: number): Row[] {
  if (!months || !layout || width <= 0) return [];
  const rows: Row[] = [];
  let offset = 0;
  // The list puts assets without a date first (just added), then months newest first.
  const groups = [...(months.undated ? [{ month: 'undated', count: months.undated }] : []), ...months.months];
  for (const g of groups) {
    const to = Math.min(layout.ids.length, offset + g.count);
    rows.push({ kind: 'month', label: monthName(g.month), count: g.count, month: g.month, from: offset, to });
    for (const r of justify(layout.ratios, offset, to, width, target, GAP)) rows.push({ kind: 'pictures', ...r });
    offset = to;
  }
  return rows;
}

/** A picture of the grid (memoized: scrolling re-renders only the rows that appear). */
const Tile = memo(function Tile({
  a,
  id,
  offset,
  width,
  height,
  selected,
  selecting,
  focused,
  last,
  onOpen,
  onSelect,
  onFocused,
}: {
  a: AssetListItem | undefined;
  id: string;
  offset: number;
  width: number;
  height: number;
  selected: boolean;
  selecting: boolean;
  focused: boolean;
  last: boolean;
  onOpen(id: string): void;
  onSelect(id: string, e: { shiftKey: boolean }): void;
  /** The tile took the focus (a click, a shift-click that selects it): the keys go on from it. */
  onFocused(offset: number): void;
}) {
  // The tile's name says all its badges show: their text is drawn by the style sheet (data-text),
  // hidden from assistive technology, so that the tile's content is its name ("label in name").
  const name = a
    ? [
        a.file_name,
        a.taken_at?.slice(0, 10),
        a.kind === 'video' && a.duration_s ? `video ${duration(a.duration_s)}` : null,
        a.kind === 'document' ? (a.page_count ? `${a.page_count} pages` : 'document') : null,
        a.status === 'processing' ? 'indexing' : null,
        a.failed_stages.includes('extract') ? "can't be read" : a.failed_stages.length ? 'not fully indexed' : null,
        a.offline ? 'offline' : null,
        a.favorite ? 'favourite' : null,
        (a.rating ?? 0) > 0 ? `${a.rating} stars` : null,
      ]
        .filter(Boolean)
        .join(', ')
    : 'loading';
  const turn = a?.orientation_set ?? a?.orientation_detected ?? 0;
  const click = (e: MouseEvent) => {
    if (e.shiftKey || e.ctrlKey || e.metaKey || selecting) onSelect(id, e);
    else onOpen(id);
  };
  const tip = a ? `${a.file_name} · ${a.taken_at?.slice(0, 10) ?? 'no date yet'} · ${fileSize(a.size_bytes)}` : undefined;
  return (
    <div
      role="gridcell"
      aria-selected={selected}
      aria-label={name}
      tabIndex={focused ? 0 : -1}
      className={`tile ${selected ? 'selected' : ''} ${last ? 'last-viewed' : ''}`}
      style={{ width, height }}
      data-asset={id}
      data-name={a?.file_name}
      data-offset={offset}
      data-status={a?.status}
      title={tip}
      onClick={click}
      onFocus={() => onFocused(offset)}
    >
      {a?.thumbnail_url ? (
        <img
          src={a.thumbnail_url}
          alt=""
          decoding="async"
          draggable={false}
          // A page is taller than its tile: its top shows (a title, the first lines), not its middle.
          className={turn ? `turn-${turn}` : a.kind === 'document' ? 'page-top' : undefined}
          style={turn % 180 ? { width: height, height: width } : undefined}
        />
      ) : a?.failed_stages.includes('extract') ? (
        // Nothing to show of a file that could not be read: what it is, and that it cannot be read.
        <div className="tile-blank tile-unreadable" aria-hidden>
          <span className="unreadable-mark" />
          <span className="unreadable-name" data-text={a.file_name} />
          <span data-text="can't be read" />
        </div>
      ) : (
        <div
          className={`tile-blank kind-${a?.kind ?? 'loading'}`}
          aria-hidden
          data-text={a ? (a.kind === 'document' ? (a.file_name.split('.').pop() ?? 'doc') : a.kind) : ''}
        />
      )}
      <button
        className="tile-check"
        tabIndex={-1}
        aria-label={`${selected ? 'unselect' : 'select'} ${a?.file_name ?? 'item'}`}
        aria-pressed={selected}
        onClick={(e) => {
          e.stopPropagation();
          onSelect(id, e);
        }}
      >
        ✓
      </button>
      {a ? (
        <span className="tile-badges" aria-hidden>
          {a.kind === 'video' ? <span className="badge-video" data-text={`▶ ${a.duration_s ? duration(a.duration_s) : ''}`} /> : null}
          {a.kind === 'document' ? <span className="badge-doc" data-text={a.page_count ? `${a.page_count} p.` : 'doc'} /> : null}
          {a.status === 'processing' ? (
            <span
              className="badge-busy"
              title={a.index_phase === 'reading' ? 'indexing: reading its text and metadata' : 'searchable; still indexing its pictures and sound'}
            />
          ) : null}
          {a.offline ? <span className="badge-offline" title="offline: its folder's drive is not connected; it stays searchable" data-text="offline" /> : null}
          {a.failed_stages.length ? (
            <span
              className="badge-failed"
              title={
                a.failed_stages.includes('extract')
                  ? "can't be read (the info panel says why)"
                  : `not indexed: ${stagesInWords(a.failed_stages)} (the info panel says why)`
              }
              data-text="!"
            />
          ) : null}
        </span>
      ) : null}
      {a && (a.favorite || (a.rating ?? 0) > 0) ? (
        <span className="tile-marks" aria-hidden>
          {a.favorite ? <span>♥</span> : null}
          {(a.rating ?? 0) > 0 ? <span>{'★'.repeat(a.rating ?? 0)}</span> : null}
        </span>
      ) : null}
    </div>
  );
});

/** The month under a fraction of the timeline's height. */
function monthAt(marks: Array<{ month: string; label: string; at: number; row: number }>, fraction: number) {
  let best = marks[0];
  for (const m of marks) if (m.at <= fraction) best = m;
  return best;
}

/**
 * The scrubber: the library's whole date range down the side, each month where its pictures are
 * in the timeline, every year labelled. Hovering shows the month under the pointer; dragging moves
 * the timeline there (only the pages in view load). Up/Down, PageUp/PageDown step a month or a year.
 */
function Scrubber({
  marks,
  scroller,
  total,
  onJump,
}: {
  marks: Array<{ month: string; label: string; at: number; row: number }>;
  scroller: React.RefObject<HTMLDivElement | null>;
  total: number;
  onJump(row: number): void;
}) {
  const bar = useRef<HTMLDivElement>(null);
  // Where the timeline is, followed here (once a frame) so that scrolling re-renders the scrubber alone.
  const [position, setPosition] = useState(0);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let frame = 0;
    const on = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setPosition(total ? el.scrollTop / total : 0));
    };
    on();
    el.addEventListener('scroll', on, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      el.removeEventListener('scroll', on);
    };
  }, [scroller, total]);
  const [hover, setHover] = useState<{ y: number; label: string } | null>(null);
  const [dragging, setDragging] = useState(false);
  const height = bar.current?.clientHeight ?? 600;
  const fractionOf = (clientY: number) => {
    const r = bar.current!.getBoundingClientRect();
    return Math.max(0, Math.min(1, (clientY - r.top) / r.height));
  };
  const at = (clientY: number) => {
    const f = fractionOf(clientY);
    const m = monthAt(marks, f);
    setHover({ y: f * (bar.current?.clientHeight ?? 0), label: m.label });
    return m;
  };
  const current = marks.length ? monthAt(marks, position) : null;
  const step = (delta: number, byYear: boolean) => {
    if (!current) return;
    let i = marks.indexOf(current);
    if (byYear) {
      const year = current.month.slice(0, 4);
      do i += delta;
      while (i > 0 && i < marks.length - 1 && marks[i].month.slice(0, 4) === year);
    } else i += delta;
    onJump(marks[Math.max(0, Math.min(marks.length - 1, i))].row);
  };
  // Year labels: at each year's first (newest) month, left out where they would overlap the one above.
  const years: Array<{ year: string; at: number }> = [];
  for (const m of marks) {
    const year = m.month === 'undated' ? 'new' : m.month.slice(0, 4);
    if (years.at(-1)?.year === year) continue;
    if (years.length && (m.at - years.at(-1)!.at) * height < 16) continue;
    years.push({ year, at: m.at });
  }
  return (
    <div
      ref={bar}
      className={`scrubber ${dragging ? 'dragging' : ''}`}
      role="slider"
      tabIndex={0}
      aria-label="timeline scrubber"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(position * 100)}
      aria-valuetext={current?.label ?? ''}
      data-testid="scrubber"
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        setDragging(true);
        onJump(at(e.clientY).row);
      }}
      onPointerMove={(e) => {
        const m = at(e.clientY);
        if (dragging) onJump(m.row);
      }}
      onPointerUp={() => setDragging(false)}
      onPointerLeave={() => !dragging && setHover(null)}
      onKeyDown={(e) => {
        const moves: Record<string, [number, boolean]> = { ArrowDown: [1, false], ArrowUp: [-1, false], PageDown: [1, true], PageUp: [-1, true] };
        const m = moves[e.key];
        if (m) {
          e.preventDefault();
          step(...m);
        }
      }}
    >
      {years.map((y) => (
        <span key={y.year} className="scrubber-year" style={{ top: `${y.at * 100}%` }}>
          {y.year}
        </span>
      ))}
      {marks.map((m) => (
        <span key={m.month} className="scrubber-tick" style={{ top: `${m.at * 100}%` }} />
      ))}
      <span className="scrubber-thumb" style={{ top: `${position * 100}%` }} />
      {hover ? (
        <span className="scrubber-bubble" style={{ top: hover.y }} data-testid="scrubber-bubble">
          {hover.label}
        </span>
      ) : null}
    </div>
  );
}

function Timeline({ hash, empty, active }: { hash: string; empty: ReactNode; active: boolean }) {
  const { months, layout, items, density, selected, lastViewed, key } = useLibrary(
    useShallow((s) => ({
      months: s.months,
      layout: s.layout,
      items: s.items,
      version: s.itemsVersion,
      density: s.density,
      selected: s.selected,
      lastViewed: s.lastViewed,
      key: s.key,
    })),
  );
  const { want, select, selectRange, clearSelection, remember, viewed } = useLibrary(
    useShallow((s) => ({
      want: s.want,
      select: s.select,
      selectRange: s.selectRange,
      clearSelection: s.clearSelection,
      remember: s.remember,
      viewed: s.viewed,
    })),
  );
  const go = useNav((s) => s.go);
  const scroller = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setWidth(el.clientWidth - 8);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const rows = useMemo(() => rowsOf(months, layout, width, DENSITIES[density]), [months, layout, width, density]);
  const rowOf = useMemo(() => {
    const out = new Int32Array(layout?.ids.length ?? 0);
    rows.forEach((r, i) => {
      if (r.kind === 'pictures') for (let k = r.from; k < r.to; k++) out[k] = i;
    });
    return out;
  }, [rows, layout]);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (rows[i]?.kind === 'month' ? MONTH_ROW_H : (rows[i] as { height: number }).height + GAP),
    overscan: 3,
    // Scrolling renders with the next frame, not synchronously inside each scroll event.
    useFlushSync: false,
  });
  useEffect(() => virtual.measure(), [rows, virtual]);

  const [cursor, setCursorState] = useState(0);
  // Keys read the cursor from here: a second arrow pressed before React re-renders moves on from the first.
  const cursorRef = useRef(0);
  const setCursor = useCallback((i: number) => {
    cursorRef.current = i;
    setCursorState(i);
  }, []);

  // Back to where this address was scrolled, the picture last opened in view.
  const restored = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (!rows.length || restored.current === key) return;
    restored.current = key;
    const top = useLibrary.getState().scroll[key];
    const at = lastViewed && layout ? layout.ids.indexOf(lastViewed) : -1;
    if (top !== undefined) virtual.scrollToOffset(top);
    if (at >= 0) {
      setCursor(at);
      if (top === undefined) virtual.scrollToIndex(rowOf[at], { align: 'center' });
    }
  }, [rows, key, lastViewed, layout, rowOf, virtual, setCursor]);

  // Back from the viewer (kept mounted behind it): the picture last seen in view, the keyboard on it.
  const wasActive = useRef(active);
  useLayoutEffect(() => {
    if (active && !wasActive.current && lastViewed && layout) {
      const at = layout.ids.indexOf(lastViewed);
      const el = scroller.current;
      if (at >= 0 && el) {
        setCursor(at);
        const row = rowOf[at];
        // The place is kept; only a picture wholly out of view (stepped far away) is scrolled to.
        const shown = virtual.getVirtualItems().some((v) => v.index === row && v.end > el.scrollTop && v.start < el.scrollTop + el.clientHeight);
        if (!shown) virtual.scrollToIndex(row, { align: 'center' });
        // The keyboard goes on from the picture last seen.
        requestAnimationFrame(() => el.querySelector<HTMLElement>(`[data-offset="${at}"]`)?.focus({ preventScroll: true }));
      }
    }
    wasActive.current = active;
  }, [active, lastViewed, layout, rowOf, virtual, setCursor]);

  const items_ = virtual.getVirtualItems();
  const firstRow = items_.find((i) => rows[i.index]?.kind === 'pictures');
  const lastRow = [...items_].reverse().find((i) => rows[i.index]?.kind === 'pictures');
  const from = firstRow ? rows[firstRow.index].from : 0;
  const to = lastRow ? rows[lastRow.index].to : 0;
  useEffect(() => want(from, to), [from, to, want]);

  const selecting = selected.size > 0;
  const jump = useCallback((row: number) => virtual.scrollToIndex(row, { align: 'start' }), [virtual]);
  const ids = useMemo(() => layout?.ids ?? [], [layout]);

  const open = useCallback(
    (id: string) => {
      remember(key, scroller.current?.scrollTop ?? 0);
      viewed(id);
      useBrowse.getState().begin(
        hash,
        ids.map((x) => ({ id: x, hash: `#/view/${encodeURIComponent(x)}` })),
      );
      go(stepHash({ id, hash: `#/view/${encodeURIComponent(id)}` }, hash));
    },
    [go, hash, ids, key, remember, viewed],
  );
  const onSelect = useCallback(
    (id: string, e: { shiftKey: boolean }) => {
      setCursor(ids.indexOf(id));
      if (e.shiftKey) selectRange(id);
      else select([id], !useLibrary.getState().selected.has(id), id);
    },
    [ids, select, selectRange, setCursor],
  );

  // Keeps the place scrolled to for this address, for the way back.
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let frame = 0;
    const onScroll = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => remember(key, el.scrollTop));
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, [key, remember]);

  const moveTo = (i: number) => {
    const next = Math.max(0, Math.min(ids.length - 1, i));
    setCursor(next);
    virtual.scrollToIndex(rowOf[next], { align: 'auto' });
    const tile = () => scroller.current?.querySelector<HTMLElement>(`[data-offset="${next}"]`);
    const now = tile();
    if (now) now.focus();
    else requestAnimationFrame(() => tile()?.focus());
  };
  /** The picture above or below, nearest in x. */
  const vertical = (delta: number) => {
    const cursor = cursorRef.current;
    let r = rowOf[cursor] + delta;
    while (rows[r] && rows[r].kind !== 'pictures') r += delta;
    const here = rows[rowOf[cursor]] as Extract<Row, { kind: 'pictures' }>;
    const there = rows[r] as Extract<Row, { kind: 'pictures' }> | undefined;
    if (!here || !there) return;
    const x = here.widths.slice(0, cursor - here.from).reduce((a, b) => a + b + GAP, 0) + here.widths[cursor - here.from] / 2;
    let acc = 0;
    for (let k = 0; k < there.widths.length; k++) {
      acc += there.widths[k] + GAP;
      if (acc >= x || k === there.widths.length - 1) return moveTo(there.from + k);
    }
  };
  const onKey = (e: KeyboardEvent) => {
    if ((e.target as HTMLElement).getAttribute('role') !== 'gridcell') return;
    const cursor = cursorRef.current;
    const keys: Record<string, () => void> = {
      ArrowRight: () => moveTo(cursor + 1),
      ArrowLeft: () => moveTo(cursor - 1),
      ArrowDown: () => vertical(1),
      ArrowUp: () => vertical(-1),
      Home: () => moveTo(0),
      End: () => moveTo(ids.length - 1),
      Enter: () => ids[cursor] && open(ids[cursor]),
      ' ': () => ids[cursor] && onSelect(ids[cursor], e),
    };
    const fn = keys[e.key];
    if (fn) {
      e.preventDefault();
      fn();
    }
  };

  // The scrubber's months, each at the fraction of the timeline's height where its heading is.
  const total = virtual.getTotalSize();
  const marks = useMemo(() => {
    const out: Array<{ month: string; label: string; at: number; row: number }> = [];
    let y = 0;
    rows.forEach((r, i) => {
      if (r.kind === 'month') out.push({ month: r.month, label: r.label, at: total ? y / total : 0, row: i });
      y += r.kind === 'month' ? MONTH_ROW_H : r.height + GAP;
    });
    return out;
  }, [rows, total]);

  return (
    <div className={`timeline ${selecting ? 'selecting' : ''}`}>
      <div
        className="timeline-scroll"
        ref={scroller}
        data-testid="timeline"
        role="grid"
        aria-label="library"
        aria-multiselectable
        aria-rowcount={rows.length}
        onKeyDown={onKey}
      >
        {empty ? <p className="empty">{empty}</p> : null}
        <div style={{ height: total, position: 'relative' }}>
          {items_.map((v) => {
            const row = rows[v.index];
            return (
              <div
                key={v.key}
                role="row"
                aria-rowindex={v.index + 1}
                className="timeline-row"
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}
              >
                {row.kind === 'month' ? (
                  <div role="gridcell" className="month-cell">
                    <h3 className="month" data-month={row.month}>
                      {row.label} <small>{row.count}</small>
                      <button
                        className="link month-select"
                        aria-label={`select all of ${row.label}`}
                        onClick={() => {
                          const span = ids.slice(row.from, row.to);
                          const all = span.every((x) => selected.has(x));
                          select(span, !all, span.at(-1) ?? null);
                        }}
                      >
                        {ids.slice(row.from, row.to).every((x) => selected.has(x)) ? 'unselect' : 'select'}
                      </button>
                    </h3>
                  </div>
                ) : (
                  <div className="justified" style={{ height: row.height }}>
                    {row.widths.map((w, k) => {
                      const offset = row.from + k;
                      const id = ids[offset];
                      return (
                        <Tile
                          key={id}
                          id={id}
                          a={items.get(id)}
                          offset={offset}
                          width={w}
                          height={row.height}
                          selected={selected.has(id)}
                          selecting={selecting}
                          focused={offset === cursor}
                          last={id === lastViewed}
                          onOpen={open}
                          onSelect={onSelect}
                          onFocused={setCursor}
                        />
                      );
                    })}
                  </div>
                )}
              </div>
            );
          })}
        </div>
      </div>
      {marks.length ? <Scrubber marks={marks} scroller={scroller} total={total} onJump={jump} /> : null}
      {active ? <SelectAllKeys ids={ids} onAll={() => select(ids, true, ids.at(-1) ?? null)} onNone={clearSelection} /> : null}
    </div>
  );
}

/** Ctrl/Cmd-A selects every picture of the timeline, Esc none (not while typing). */
function SelectAllKeys({ ids, onAll, onNone }: { ids: string[]; onAll(): void; onNone(): void }) {
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (typing(e.target)) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        onAll();
      } else if (e.key === 'Escape' && useLibrary.getState().selected.size) {
        e.preventDefault();
        onNone();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids, onAll, onNone]);
  return null;
}

/** The size of the pictures: a slider of DENSITIES, Ctrl + and Ctrl − (remembered). */
function SizeControl({ active }: { active: boolean }) {
  const { density, setDensity } = useLibrary(useShallow((s) => ({ density: s.density, setDensity: s.setDensity })));
  useEffect(() => {
    if (!active) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      if (e.key === '+' || e.key === '=') setDensity(useLibrary.getState().density + 1);
      else if (e.key === '-') setDensity(useLibrary.getState().density - 1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setDensity, active]);
  return (
    <label className="size-control" title="Picture size (Ctrl + / Ctrl −)">
      <span aria-hidden>▦</span>
      <input
        type="range"
        min={0}
        max={DENSITIES.length - 1}
        step={1}
        value={density}
        aria-label="picture size"
        onChange={(e) => setDensity(Number(e.target.value))}
      />
    </label>
  );
}

/** `active`: false while a viewer opened from it is shown over it (its keys are the viewer's then). */
export function Library({ params, active = true }: { params: URLSearchParams; active?: boolean }) {
  const { total, loaded, selected } = useLibrary(useShallow((s) => ({ total: s.total, loaded: s.loaded, selected: s.selected })));
  const { show, upload, pick, load } = useLibrary(useShallow((s) => ({ show: s.show, upload: s.upload, pick: s.pick, load: s.load })));
  const desktop = useSession((s) => s.desktop);
  const [over, setOver] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement | null>(null);
  const key = params.toString();
  const filters = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  const hash = `#/library${key ? `?${key}` : ''}`;
  useEffect(() => void show(filters, key), [filters, key, show]);
  useEffect(() => {
    whenIndexed(() => void load());
    return () => void whenIndexed(() => undefined);
  }, [load]);

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const files = await filesOfDrop(e.dataTransfer.items, e.dataTransfer.files);
    if (files.length) await upload(files);
  };
  const empty =
    loaded && total === 0 ? (
      Object.keys(filters).length ? (
        'Nothing matches these filters.'
      ) : (
        <>
          Nothing indexed yet.{' '}
          {desktop
            ? 'Add files or a folder with the buttons above (indexed where they are), or drop them here (copied into the app).'
            : 'Drop files or folders here, or add them with the buttons above: the browser sends copies of them to the app.'}{' '}
          To index a folder where it is and follow its changes, add it under <a href="#/settings">Settings › Libraries</a>.
        </>
      )
    ) : null;

  return (
    <section
      className={`library ${over ? 'drop-over' : ''}`}
      data-testid="library"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={(e) => e.currentTarget === e.target && setOver(false)}
      onDrop={(e) => void onDrop(e)}
    >
      {selected.size ? (
        <SelectionBar filters={filters} />
      ) : (
        <header className="section-head library-head">
          <h2>
            Library <small>{counted(total, 'item')}</small>
          </h2>
          <Chips filters={filters} hashOf={(q) => `#/library${q ? `?${q}` : ''}`} />
          <span className="spacer" />
          <SizeControl active={active} />
          {desktop ? (
            <>
              <button onClick={() => void pick('files')}>Add files…</button>
              <button onClick={() => void pick('folder')}>Add a folder…</button>
            </>
          ) : (
            <>
              {/* Buttons (reachable by Tab) opening the browser's choosers, which stay hidden. */}
              <button onClick={() => filesInput.current?.click()}>Add files…</button>
              <input
                ref={filesInput}
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
              <button onClick={() => folderInput.current?.click()}>Add a folder…</button>
              {/* webkitdirectory: the browser's folder chooser (every file of the folder, subfolders too). */}
              <input
                type="file"
                hidden
                data-testid="folder-input"
                ref={(el) => {
                  folderInput.current = el;
                  el?.setAttribute('webkitdirectory', '');
                }}
                onChange={(e) => {
                  const files = [...(e.target.files ?? [])].filter((f) => !isHidden(f.webkitRelativePath || f.name));
                  e.target.value = '';
                  if (files.length) void upload(files);
                }}
              />
            </>
          )}
        </header>
      )}
      {over ? (
        <div className="drop-overlay" aria-hidden>
          Drop videos, photos, documents or whole folders to add them
        </div>
      ) : null}
      <Timeline hash={hash} empty={empty} active={active} />
    </section>
  );
}

export { PAGE };

// Zoom and pan over a picture, as photo viewers do: the wheel (and a trackpad's pinch) zooms about
// the pointer, a double-click or `z` goes to 1:1 (one picture pixel per screen pixel) and back to
// fit, dragging pans while zoomed. At 1:1 the level shows the picture's size in pixels.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { typing } from '../keys.ts';

export interface ZoomState {
  scale: number;
  x: number;
  y: number;
}

const FIT: ZoomState = { scale: 1, x: 0, y: 0 };

export function ZoomPane({
  pixels,
  resetKey,
  onDetail,
  children,
}: {
  /** The picture's size in pixels (its original), or null when not known. */
  pixels: { width: number; height: number } | null;
  /** Changes when another picture is shown: the zoom goes back to fit. */
  resetKey: string;
  /** Called with true once zoomed in past the fitted size (time for the original's pixels). */
  onDetail?: (zoomed: boolean) => void;
  children: ReactNode;
}) {
  const pane = useRef<HTMLDivElement>(null);
  const [z, setZ] = useState<ZoomState>(FIT);
  const drag = useRef<{ x: number; y: number; ox: number; oy: number } | null>(null);
  useEffect(() => setZ(FIT), [resetKey]);
  /** The scale at which one picture pixel is one screen pixel. */
  const oneToOne = useCallback(() => {
    const content = pane.current?.querySelector<HTMLElement>('.boxed');
    const shown = content?.offsetWidth ?? 0;
    return pixels && shown ? Math.max(1, pixels.width / shown / (window.devicePixelRatio || 1)) : 2;
  }, [pixels]);
  const zoomAt = useCallback(
    (scale: number, cx: number, cy: number) => {
      setZ((prev) => {
        const max = Math.max(4, oneToOne() * 2);
        const next = Math.max(1, Math.min(max, scale));
        if (next === 1) return FIT;
        // Keeps the point under the pointer where it is.
        const k = next / prev.scale;
        return { scale: next, x: cx - (cx - prev.x) * k, y: cy - (cy - prev.y) * k };
      });
    },
    [oneToOne],
  );
  const centre = () => {
    const r = pane.current!.getBoundingClientRect();
    return [r.width / 2, r.height / 2] as const;
  };
  const toggle = useCallback(
    (cx?: number, cy?: number) => {
      const [mx, my] = cx === undefined ? centre() : [cx, cy!];
      if (z.scale > 1) setZ(FIT);
      else zoomAt(oneToOne(), mx, my);
    },
    [z.scale, zoomAt, oneToOne],
  );
  useEffect(() => onDetail?.(z.scale > 1.05), [z.scale, onDetail]);
  useEffect(() => {
    const el = pane.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      zoomAt(z.scale * Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.002)), e.clientX - r.left, e.clientY - r.top);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [z.scale, zoomAt]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const [cx, cy] = centre();
      if (e.key === 'z' || e.key === 'Z') toggle();
      else if (e.key === '+' || e.key === '=') zoomAt(z.scale * 1.5, cx, cy);
      else if (e.key === '-') zoomAt(z.scale / 1.5, cx, cy);
      else if (e.key === 'Escape' && z.scale > 1) setZ(FIT);
      else return;
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [toggle, zoomAt, z.scale]);

  const level = z.scale <= 1 ? 'Fit' : `${Math.round((z.scale / oneToOne()) * 100)}%`;
  const atOne = z.scale > 1 && Math.abs(z.scale / oneToOne() - 1) < 0.02;
  return (
    <div
      ref={pane}
      className={`zoom-pane ${z.scale > 1 ? 'zoomed' : ''}`}
      data-testid="zoom-pane"
      onDoubleClick={(e) => {
        const r = e.currentTarget.getBoundingClientRect();
        toggle(e.clientX - r.left, e.clientY - r.top);
      }}
      onPointerDown={(e) => {
        if (z.scale <= 1 || e.button !== 0) return;
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, y: e.clientY, ox: z.x, oy: z.y };
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (d) setZ({ ...z, x: d.ox + e.clientX - d.x, y: d.oy + e.clientY - d.y });
      }}
      onPointerUp={() => (drag.current = null)}
    >
      <div className="zoom-content" style={{ transform: `translate(${z.x}px, ${z.y}px) scale(${z.scale})` }}>
        {children}
      </div>
      <div className="zoom-level" data-testid="zoom-level" aria-live="polite">
        {atOne ? `1:1 · ${pixels ? `${pixels.width} × ${pixels.height} px` : ''}` : level}
        {z.scale > 1 ? (
          <button className="link" onClick={() => setZ(FIT)}>
            fit
          </button>
        ) : (
          <button className="link" onClick={() => toggle()} aria-label="zoom to 1:1 (z)">
            1:1
          </button>
        )}
      </div>
    </div>
  );
}

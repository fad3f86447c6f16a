// The window opens where it was left, at the size it was left: its bounds are kept in a small file
// in the app's data folder, and used again only where a display still shows them.

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface SavedWindow {
  bounds: Bounds;
  maximized: boolean;
}

const MIN_VISIBLE = 100;

/** The saved window, if it is whole and at least 100 px of it is on one of these displays' work areas. */
export function placeable(saved: unknown, workAreas: Bounds[]): SavedWindow | null {
  const s = saved as Partial<SavedWindow> | null;
  const b = s?.bounds;
  if (!b || ![b.x, b.y, b.width, b.height].every((v) => Number.isFinite(v)) || b.width < 200 || b.height < 200) return null;
  const seen = workAreas.some((a) => {
    const w = Math.min(b.x + b.width, a.x + a.width) - Math.max(b.x, a.x);
    const h = Math.min(b.y + b.height, a.y + a.height) - Math.max(b.y, a.y);
    return w >= MIN_VISIBLE && h >= MIN_VISIBLE;
  });
  return seen ? { bounds: { x: b.x, y: b.y, width: b.width, height: b.height }, maximized: s?.maximized === true } : null;
}

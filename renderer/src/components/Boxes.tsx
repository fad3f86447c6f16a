// A picture with boxes over it (normalized 0..1, origin top-left).
import type { ReactNode } from 'react';
import type { Box } from '../api/videos.ts';

export interface Overlay extends Box {
  key: string;
  kind: 'object' | 'face' | 'text' | 'passage' | 'hit' | 'word';
  label: string;
  /** Its label is said by the search hit drawn on it (withHit). */
  quiet?: boolean;
}

/** Whether two boxes are one region: they overlap by nine tenths of their union or more. */
function same(a: Box, b: Box): boolean {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return false;
  const inter = w * h;
  return inter / (a.w * a.h + b.w * b.h - inter) >= 0.9;
}

/**
 * The boxes with the search hit drawn over them. Where the hit is the region of a box drawn already
 * (the object or face the search found), the two labels would lie one over the other: the hit says
 * both ("search hit · person 97%").
 */
export function withHit(boxes: Overlay[], hit: Box): Overlay[] {
  const under = boxes.find((b) => (b.kind === 'object' || b.kind === 'face') && b.label && same(b, hit));
  const label = under ? `search hit · ${under.label}` : 'search hit';
  return [...boxes.map((b) => (b === under ? { ...b, quiet: true } : b)), { key: 'hit', kind: 'hit', label, x: hit.x, y: hit.y, w: hit.w, h: hit.h }];
}

/**
 * `aspect` (width / height of the picture) sizes the frame before the picture arrives, so boxes sit
 * right. `turn` (degrees clockwise: a photo stored sideways) shows it upright, its boxes turned with it.
 */
export function BoxedPicture({
  src,
  alt,
  boxes,
  aspect,
  turn = 0,
  children,
  onBox,
}: {
  src: string | null;
  alt: string;
  boxes: Overlay[];
  aspect: number | null;
  turn?: number;
  children?: ReactNode;
  /** A box clicked (a face box: say who it is). */
  onBox?: (b: Overlay) => void;
}) {
  if (turn && src && aspect) {
    // The frame takes the upright shape; the picture and its boxes inside it are turned about its centre.
    const shown = turn % 180 ? 1 / aspect : aspect;
    const inner = turn % 180 ? { width: `${100 / shown}%`, height: `${100 * shown}%` } : { width: '100%', height: '100%' };
    return (
      <div className="boxed sized turned" style={{ aspectRatio: String(shown), width: `min(100%, calc(78vh * ${shown}))` }} data-turn={turn}>
        <div className="boxed-turn" style={{ ...inner, transform: `translate(-50%, -50%) rotate(${turn}deg)` }}>
          <BoxedPicture src={src} alt={alt} boxes={boxes} aspect={null} onBox={onBox} />
        </div>
      </div>
    );
  }
  const frame = src && aspect ? { aspectRatio: String(aspect), width: `min(100%, calc(78vh * ${aspect}))` } : undefined;
  return (
    <div className={`boxed ${frame ? 'sized' : ''}`} style={frame}>
      {src ? <img key={src} src={src} alt={alt} draggable={false} /> : children}
      {boxes.map((b) => (
        <BoxView
          key={b.key}
          b={b}
          labelled={b.kind !== 'passage' && b.kind !== 'text' && !b.quiet}
          onClick={onBox && b.kind === 'face' ? () => onBox(b) : undefined}
        />
      ))}
    </div>
  );
}

/** One box over a picture, at its place (shares of the picture's size), its label as its title and, when `labelled`, shown. */
export function BoxView({ b, labelled, onClick }: { b: Overlay; labelled: boolean; onClick?: () => void }) {
  return (
    <div
      // A box at the top of the picture has its label inside it: above, the frame would cut it off.
      className={`box box-${b.kind} ${onClick ? 'clickable' : ''} ${b.y < 0.06 ? 'label-in' : ''}`}
      data-kind={b.kind}
      onClick={onClick}
      title={b.label}
      style={{ left: `${b.x * 100}%`, top: `${b.y * 100}%`, width: `${b.w * 100}%`, height: `${b.h * 100}%` }}
    >
      {labelled && b.label ? <span className="box-label">{b.label}</span> : null}
    </div>
  );
}

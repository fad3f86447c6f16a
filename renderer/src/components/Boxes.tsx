// A picture with boxes over it (normalized 0..1, origin top-left), and a face cut out of its picture.
import { useEffect, useState, type ReactNode } from 'react';
import type { Box } from '../api/videos.ts';

export interface Overlay extends Box {
  key: string;
  kind: 'object' | 'face' | 'text' | 'passage' | 'hit';
  label: string;
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
        <div
          key={b.key}
          className={`box box-${b.kind} ${onBox && b.kind === 'face' ? 'clickable' : ''}`}
          data-kind={b.kind}
          onClick={onBox && b.kind === 'face' ? () => onBox(b) : undefined}
          title={b.label}
          style={{ left: `${b.x * 100}%`, top: `${b.y * 100}%`, width: `${b.w * 100}%`, height: `${b.h * 100}%` }}
        >
          {b.label && b.kind !== 'passage' && b.kind !== 'text' ? <span className="box-label">{b.label}</span> : null}
        </div>
      ))}
    </div>
  );
}

/** A square cut of a picture around a box, with a margin, keeping the picture's proportions. */
export function FaceCrop({ src, box, size = 112, title }: { src: string | null; box: Box; size?: number; title?: string }) {
  const [dims, setDims] = useState<{ w: number; h: number } | null>(null);
  useEffect(() => {
    if (!src) return;
    const img = new Image();
    img.onload = () => setDims({ w: img.naturalWidth, h: img.naturalHeight });
    img.src = src;
  }, [src]);
  if (!src || !dims) return <div className="crop crop-empty" style={{ width: size, height: size }} title={title} />;
  const side = Math.max(box.w * dims.w, box.h * dims.h) * 1.3;
  const scale = size / side;
  const cx = (box.x + box.w / 2) * dims.w;
  const cy = (box.y + box.h / 2) * dims.h;
  return (
    <div
      className="crop"
      title={title}
      role="img"
      aria-label={title}
      style={{
        width: size,
        height: size,
        backgroundImage: `url("${src}")`,
        backgroundSize: `${dims.w * scale}px ${dims.h * scale}px`,
        backgroundPosition: `${size / 2 - cx * scale}px ${size / 2 - cy * scale}px`,
      }}
    />
  );
}

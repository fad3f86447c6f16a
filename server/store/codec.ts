// How values the database holds as BLOB or JSON text are read back, once for every repository.
import type { EffectiveOptions } from '../contract/stages.ts';

/** A vector stored as a BLOB of float32 (its own copy: the driver's buffer is reused). */
export function floats(blob: Buffer): Float32Array {
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** The index options an asset was admitted with (`assets.index_options`), or null for none recorded. */
export function effectiveOptions(row: { index_options: string | null }): EffectiveOptions | null {
  return row.index_options ? (JSON.parse(row.index_options) as EffectiveOptions) : null;
}

// metadata (internal): what the file says about itself — when and where it was taken (with the
// place looked up offline), camera, lens, exposure, title, description, keywords, rating, author —
// and the faces other tools named in XMP (run: metadata.run.ts). Without a capture time, the
// file's time (files indexed in place) or the upload's stands in, and `taken_at_source` says so.
// Writes the metadata row, named regions (People makes named people of them) and search entries:
// `place` (city, region, country, other spellings) and `metadata` (title, description, keywords,
// camera, author).
import type { NewEntry } from '../../store/search.repo.ts';
import type { StoredMetadata } from '../../store/metadata.repo.ts';
import type { NamedRegion } from '../../media/metadata.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

export interface MetadataOutput {
  metadata: StoredMetadata;
  /** For ordering and filters (UTC ms; local time taken as UTC when the offset is unknown). */
  takenMs: number | null;
  regions: NamedRegion[];
  /** Other spellings of the place (ASCII names), searchable. */
  placeNames: string[];
}

/** When the asset was added: the stand-in for a capture time an upload does not say. */
export const metadataStage = defineStage<{ createdAt: number }, MetadataOutput, 'metadata'>({
  name: 'metadata',
  version: 1,
  kinds: ['video', 'image', 'document'],
  dependsOn: [],
  model: 'exifr, ffprobe tags, document properties; places: GeoNames cities (bundled)',
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId) => ({ createdAt: store.assets.brief(assetId)?.created_at ?? Date.now() }),
  save(store, assetId, { metadata: m, takenMs, regions, placeNames }) {
    store.metadata.replace(assetId, m, takenMs, regions);
    const entries: NewEntry[] = [];
    const add = (modality: 'place' | 'metadata', text: string | null | undefined) => {
      if (text && text.trim()) entries.push({ modality, timestamp: 0, page: null, ref: null, region_id: null, text });
    };
    if (m.place) {
      const p = m.place;
      add('place', [p.city, p.region, p.country, p.country_code, ...placeNames].filter(Boolean).join(' · '));
    }
    add('metadata', m.title);
    add('metadata', m.description);
    if (m.keywords.length) add('metadata', m.keywords.join(', '));
    if (m.camera) add('metadata', [m.camera.make, m.camera.model, lensWords(m.lens, m.camera)].filter(Boolean).join(' '));
    add('metadata', m.author);
    store.search.replaceForStage(assetId, 'metadata', entries);
  },
});

/** Words a phone's lens name says of which of its cameras took the picture, not of the picture. */
const WHICH_CAMERA = new Set(['camera', 'back', 'front', 'rear', 'dual', 'triple', 'quad']);

/**
 * A lens's name as searched: a phone names its built-in lenses after itself ("iPhone 6 back camera
 * 4.15mm f/2.2"), and those words would make every phone picture an answer to "camera" or "back";
 * the words of the camera's own name and those saying which of its cameras are left out ("4.15mm
 * f/2.2", "ultra wide 1.54mm f/2.4"). A lens of its own ("EF24-105mm f/4L") is kept whole.
 */
export function lensWords(lens: string | null, camera: { make: string | null; model: string | null }): string | null {
  if (!lens) return null;
  const named = new Set(`${camera.make ?? ''} ${camera.model ?? ''}`.toLowerCase().split(/\s+/).filter(Boolean));
  const words = lens.split(/\s+/).filter((w) => w && !WHICH_CAMERA.has(w.toLowerCase()) && !named.has(w.toLowerCase()));
  return words.join(' ') || null;
}

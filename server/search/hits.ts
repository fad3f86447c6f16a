// Ranked moments as search hits: the passage of a document hit with the words marked, the box of
// the best boxed evidence (a person's face carries their name), the picture of the moment.
import type { Store } from '../store/index.ts';
import type { EntryHit } from '../store/search.repo.ts';
import type { FileRef } from '../contract/common.ts';
import type { SearchHit } from '../contract/search.ts';
import type { Moment } from './moments.ts';
import { highlights } from './tokenizer.ts';

/** A hit as search finds it: the picture of the moment is a stored file, given a URL by the API. */
export type FoundMoment = Omit<NonNullable<SearchHit['moments']>[number], 'frame_url'> & { frame: FileRef | null };
export type FoundHit = Omit<SearchHit, 'frame_url' | 'moments'> & { frame: FileRef | null; moments?: FoundMoment[] };

function regionOf(store: Store, id: string | null | undefined, personName?: string): SearchHit['region'] {
  const r = id ? store.regions.byId(id) : undefined;
  if (!r) return null;
  return { x: r.x, y: r.y, w: r.w, h: r.h, label: personName ?? r.label ?? r.text ?? '', source: personName ? 'people' : r.source };
}

/** Hits of ranked moments; `top` is the best score of the whole ranking (a page's scores are shares of it). */
/** A moment's box: its own evidence's, else the best boxed evidence's. */
function boxOf(store: Store, e: Moment['entry'], name: string | undefined, boxed: Moment['boxed']): SearchHit['region'] {
  return e.region_id ? regionOf(store, e.region_id, name) : boxed ? regionOf(store, boxed.id, boxed.name) : null;
}

export function toHits(store: Store, ranked: Moment[], marked: string[], federated: boolean, top = ranked[0]?.score ?? 1): FoundHit[] {
  const ids = [...new Set(ranked.map((m) => m.entry.asset_id))];
  const taken = store.metadata.takenOf(ids);
  const shapes = store.assets.shapesOf(ids);
  return ranked.map(({ entry: e, score, name, boxed, evidence }) => {
    const page = e.kind === 'document' ? (e.page ?? 1) : null;
    const timestamp = page !== null ? page - 1 : e.timestamp;
    let passage: SearchHit['passage'] = null;
    if (e.modality === 'passage' && e.page !== null && e.ref !== null) {
      const p = store.media.passages(e.asset_id, e.page).find((x) => x.idx === e.ref);
      if (p) passage = { idx: p.idx, text: p.text, bbox: { x: p.x, y: p.y, w: p.w, h: p.h }, highlights: highlights(p.text, marked) };
    }
    return {
      video_id: e.asset_id,
      asset_kind: e.kind,
      file_name: e.file_name,
      timestamp,
      page,
      frame: store.media.pictureAt({ id: e.asset_id, kind: e.kind }, timestamp),
      score: Math.round((score / top) * 1e4) / 1e4,
      modality: e.modality,
      snippet: snippetOf(e, marked),
      passage,
      region: boxOf(store, e, name, boxed),
      evidence,
      ...(federated ? { workspace_id: e.workspace_id } : {}),
      taken_at: taken.get(e.asset_id)?.taken_at ?? null,
      ratio: shapes.get(e.asset_id)?.ratio ?? 0,
      duration_s: shapes.get(e.asset_id)?.duration_s ?? null,
    };
  });
}

/** The moments of a grouped hit: where each is, its score, what found it, its words and box. */
export function momentsOf(store: Store, moments: Moment[], marked: string[], top: number): FoundMoment[] {
  const first = moments[0]?.entry;
  const pictures =
    first?.kind === 'document'
      ? store.media.pageRenders(
          first.asset_id,
          moments.map((m) => m.entry.page ?? 1),
        )
      : new Map<number, FileRef | null>();
  return moments.map(({ entry: e, score, name, boxed }) => {
    const page = e.kind === 'document' ? (e.page ?? 1) : null;
    return {
      frame: page !== null ? (pictures.get(page) ?? null) : null,
      timestamp: page !== null ? page - 1 : e.timestamp,
      page,
      score: Math.round((score / (top || 1)) * 1e4) / 1e4,
      modality: e.modality,
      snippet: snippetOf(e, marked),
      region: boxOf(store, e, name, boxed),
    };
  });
}

/**
 * The text shown for a hit, its query words marked. A file-name hit shows the name: the entry also
 * holds the name's words apart ("holiday_2024-beach.jpg holiday 2024 beach"), for the search alone.
 */
function snippetOf(e: EntryHit, marked: string[]): { text: string; highlights: Array<[number, number]> } {
  const text = e.modality === 'name' ? e.file_name : e.text;
  return { text, highlights: highlights(text, marked) };
}

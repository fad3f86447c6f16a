// Search (SPEC 4.5): one ranked list of moments across videos, photos and documents.
// This build ranks lexically: BM25 over every indexed text (file names, passages, and what later
// stages add), grouped into moments (one per page or second of an asset), with an optional
// second pass that rewards exact phrases and query coverage. Reads the search index; writes nothing.
import type { Store } from '../store/index.ts';
import type { EntryHit } from '../store/search.repo.ts';
import { AppError, Errors } from '../errors.ts';
import type { Modality, SearchHit, SearchRequest, SearchResponse } from '../contract/search.ts';
import type { AuthContext } from './auth.service.ts';
import type { ReadsService } from './reads.service.ts';

const MAX_TERMS = 32;

export function queryTerms(query: string): string[] {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).filter((w) => w.length > 0);
  return [...new Set(words)].slice(0, MAX_TERMS);
}

/** Character ranges of the query's words in a text (whole words, case-insensitive). */
export function highlights(text: string, terms: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    if (terms.includes(m[0])) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

export class SearchService {
  constructor(
    private readonly store: Store,
    private readonly reads: ReadsService,
  ) {}

  private regionOf(id: string | null): SearchHit['region'] {
    const r = id ? this.store.regions.byId(id) : undefined;
    return r ? { x: r.x, y: r.y, w: r.w, h: r.h, label: r.label ?? r.text ?? '', source: r.source } : null;
  }

  search(auth: AuthContext, req: SearchRequest, origin: string): SearchResponse {
    const federated = req.workspace_ids !== undefined;
    const workspaceIds = req.workspace_ids ?? [auth.workspaceId];
    for (const w of workspaceIds) {
      if (w !== auth.workspaceId && !auth.access.includes(w)) {
        throw Errors.forbidden(`This key may not search workspace ${w}.`);
      }
    }
    if (req.video_id !== undefined && !workspaceIds.some((w) => this.store.assets.findVisible(req.video_id as string, w))) {
      throw Errors.notFound('Video');
    }
    const terms = queryTerms(req.query);
    if (terms.length === 0) throw new AppError('invalid_request', 422, 'The query has no words to search for.');

    const requested = req.engine ?? this.store.workspaces.defaultEngine(auth.workspaceId);
    let engine = requested;
    let fallback: string | undefined;
    const expr = terms.map((t) => `"${t}"`).join(' OR ');
    const opts = { workspaceIds, assetId: req.video_id, limit: Math.min(2000, req.limit * 20) };
    let entries = this.store.search.match(expr, { ...opts, engine });
    if (entries.length === 0 && requested === 'classic') {
      const other = this.store.search.match(expr, { ...opts, engine: 'arrow' });
      if (other.length > 0) {
        engine = 'arrow';
        entries = other;
        fallback = 'classic holds nothing that matches: it searches only assets indexed by the deprecated tiers; arrow answered';
      }
    }

    const allowed = req.search_options?.modalities;
    const weights = req.search_options?.weights ?? {};
    const phrase = req.query.trim().toLowerCase();
    const moments = new Map<string, { entry: EntryHit; score: number }>();
    for (const e of entries) {
      const modality = e.modality as Modality;
      if (allowed && !allowed.includes(modality)) continue;
      let score = -e.rank * (weights[modality] ?? 1);
      if (req.rerank) {
        const text = e.text.toLowerCase();
        const covered = terms.filter((t) => highlights(text, [t]).length > 0).length / terms.length;
        score *= 1 + covered + (terms.length > 1 && text.includes(phrase) ? 1 : 0);
      }
      const key = `${e.asset_id}:${e.page ?? Math.floor(e.timestamp)}`;
      const best = moments.get(key);
      if (!best || score > best.score) moments.set(key, { entry: e, score });
    }
    const ranked = [...moments.values()].sort((a, b) => b.score - a.score).slice(0, req.limit);
    const top = ranked[0]?.score ?? 1;

    const hits: SearchHit[] = ranked.map(({ entry: e, score }) => {
      const page = e.kind === 'document' ? (e.page ?? 1) : null;
      const timestamp = page !== null ? page - 1 : e.timestamp;
      let passage: SearchHit['passage'] = null;
      if (e.modality === 'passage' && e.page !== null && e.ref !== null) {
        const p = this.store.media.passages(e.asset_id, e.page).find((x) => x.idx === e.ref);
        if (p) passage = { idx: p.idx, text: p.text, bbox: { x: p.x, y: p.y, w: p.w, h: p.h }, highlights: highlights(p.text, terms) };
      }
      return {
        video_id: e.asset_id,
        asset_kind: e.kind,
        file_name: e.file_name,
        timestamp,
        page,
        frame_url: this.reads.frameUrlAt(origin, { id: e.asset_id, kind: e.kind }, timestamp),
        score: Math.round((score / top) * 1e4) / 1e4,
        modality: e.modality as Modality,
        snippet: { text: e.text, highlights: highlights(e.text, terms) },
        passage,
        region: this.regionOf(e.region_id),
        ...(federated ? { workspace_id: e.workspace_id } : {}),
      };
    });
    return {
      query: req.query,
      engine,
      recipe: req.rerank ? 'lexical-bm25+rerank(phrase,coverage)' : 'lexical-bm25',
      ...(fallback ? { engine_fallback: fallback } : {}),
      hits,
    };
  }
}

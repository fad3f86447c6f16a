// Search (SPEC 4.5, 2.10).
import { z } from 'zod';
import { Box } from './common.ts';

export const MODALITIES = ['name', 'passage', 'ocr', 'transcript', 'caption', 'label', 'object', 'person', 'sound', 'picture', 'place', 'metadata'] as const;
export type Modality = (typeof MODALITIES)[number];
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;
/** How deep paging goes: the ranked list a search keeps is at most this long. */
export const MAX_SEARCH_OFFSET = 1000;
/** The moments a grouped hit lists at most (best first); `moment_count` says how many there were. */
export const MAX_GROUP_MOMENTS = 50;

const isoDate = z
  .string()
  .max(40)
  .refine((s) => Number.isFinite(Date.parse(s)), 'an ISO 8601 date or date-time');

/** Not in the spec: what to keep (docs/decisions/0017-search-filters.md); every filter given must hold. */
export const SearchFilters = z
  .object({
    /** Taken at or after (ISO 8601; a date alone is its midnight UTC). */
    taken_after: isoDate.optional(),
    /** Taken before (exclusive). */
    taken_before: isoDate.optional(),
    /** A city, region or country name, or a two-letter country code, of where it was taken. */
    place: z.string().trim().min(1).max(200).optional(),
    /** Part of the camera's make or model. */
    camera: z.string().trim().min(1).max(100).optional(),
    kinds: z
      .array(z.enum(['video', 'image', 'document']))
      .min(1)
      .max(3)
      .optional(),
    /** People who must all appear (person ids). */
    people: z.array(z.string().min(1).max(100)).min(1).max(10).optional(),
    library_id: z.string().min(1).max(100).optional(),
    /** The workspace's own rating where it set one (in the app), else the file's (XMP). */
    rating_min: z.number().int().min(-1).max(5).optional(),
    /** Only assets in this collection (one of the key's workspace). */
    collection_id: z.string().min(1).max(100).optional(),
    /** true: only assets the key's workspace marked as favourite. */
    favorite: z.boolean().optional(),
  })
  .strict();
export type SearchFilters = z.infer<typeof SearchFilters>;

export const SearchOptions = z
  .object({
    /** Only these kinds of evidence. */
    modalities: z.array(z.enum(MODALITIES)).min(1).optional(),
    /** Multiplies the score of each kind of evidence (default 1). */
    weights: z.partialRecord(z.enum(MODALITIES), z.number().min(0).max(10)).optional(),
    filters: SearchFilters.optional(),
    /** `relevance` (the default) or `taken_at` (newest first). */
    order: z.enum(['relevance', 'taken_at']).optional(),
    /** Read dates, places, people and kinds out of the query's words (default true). */
    interpret: z.boolean().optional(),
  })
  .strict();

export const SearchRequest = z
  .object({
    query: z.string().trim().min(1).max(1000),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
    /** Not in the spec: hits to skip (paging; the order is the same for every page of one search). */
    offset: z.number().int().min(0).max(MAX_SEARCH_OFFSET).default(0),
    /**
     * Not in the spec: `moment` (the default: one hit per moment, as before) or `asset` (one hit per
     * asset, its best moment, with all of its moments in `moments`).
     */
    group_by: z.enum(['moment', 'asset']).default('moment'),
    video_id: z.string().min(1).max(100).optional(),
    search_options: SearchOptions.optional(),
    rerank: z.boolean().default(false),
    engine: z.enum(['arrow', 'classic']).optional(),
    workspace_ids: z.array(z.string().min(1).max(100)).min(1).max(20).optional(),
  })
  .strict();
export type SearchRequest = z.infer<typeof SearchRequest>;

const Highlighted = z.object({ text: z.string(), highlights: z.array(z.tuple([z.number().int(), z.number().int()])) });

export const SearchHit = z.object({
  video_id: z.string(),
  asset_kind: z.enum(['video', 'image', 'document']),
  file_name: z.string(),
  timestamp: z.number(),
  page: z.number().int().nullable(),
  frame_url: z.string().nullable(),
  score: z.number(),
  modality: z.enum(MODALITIES),
  snippet: Highlighted,
  passage: Highlighted.extend({ idx: z.number().int(), bbox: Box }).nullable(),
  region: Box.extend({ label: z.string(), source: z.string() }).nullable(),
  /**
   * What found the moment: `lexical` (words, best lexical evidence = 1), `people` (a person named in
   * the query) and `dense` (meaning; `score` is the cosine similarity), each with its kind of evidence.
   */
  evidence: z.array(z.object({ retriever: z.enum(['lexical', 'people', 'dense', 'filters']), modality: z.enum(MODALITIES), score: z.number() })),
  workspace_id: z.string().optional(),
  /** Not in the spec: when the asset was taken (its metadata), or null. */
  taken_at: z.string().nullable(),
  /** Not in the spec: the asset's width / height as shown (its orientation applied), 0 when not known: results lay out before their pictures arrive. */
  ratio: z.number(),
  /** Not in the spec: a video's length in seconds (its moments are marked on a bar of it); null for other kinds. */
  duration_s: z.number().nullable(),
  /** Not in the spec, with `group_by: asset`: the asset's moments, best first (at most MAX_GROUP_MOMENTS). */
  moments: z
    .array(
      z.object({
        timestamp: z.number(),
        page: z.number().int().nullable(),
        score: z.number(),
        modality: z.enum(MODALITIES),
        snippet: Highlighted,
        region: Box.extend({ label: z.string(), source: z.string() }).nullable(),
        /** A document page's picture (drawn on first request); null for other moments. */
        frame_url: z.string().nullable(),
      }),
    )
    .optional(),
  /** With `group_by: asset`: how many moments of the asset were found. */
  moment_count: z.number().int().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;

/** Not in the spec: what the query was understood as (the words searched for, and the filters applied). */
export const Interpreted = z.object({
  words: z.string(),
  /** The filters applied: those given in search_options.filters and those read from the words. */
  filters: SearchFilters,
  /** The phrases of the query that became filters. */
  phrases: z.array(z.string()),
  order: z.enum(['relevance', 'taken_at']),
  /**
   * The related words (WordNet) searched besides the query's, ranked below them: each with the
   * query's words it stands for. Only words the index holds, at most 16.
   */
  related: z.array(z.object({ word: z.string(), for: z.array(z.string()) })),
  /**
   * Set when the words matched nothing taken in the date they named: they were set aside and the
   * hits are everything the filters hold, newest first.
   */
  set_aside: z.string().optional(),
});

const Count = <T extends z.ZodTypeAny>(value: T) => z.object({ value, count: z.number().int() });

/** Not in the spec: what the whole result (every page) holds, counted in assets. */
export const SearchFacets = z.object({
  kinds: z.array(Count(z.enum(['video', 'image', 'document']))),
  years: z.array(Count(z.number().int())),
  places: z.array(Count(z.string()).extend({ country_code: z.string().nullable() })),
  people: z.array(Count(z.string()).extend({ name: z.string() })),
  cameras: z.array(Count(z.string())),
  collections: z.array(Count(z.string()).extend({ name: z.string() })),
});
export type SearchFacets = z.infer<typeof SearchFacets>;

export const SearchResponse = z.object({
  query: z.string(),
  engine: z.enum(['arrow', 'classic']),
  recipe: z.string(),
  engine_fallback: z.string().optional(),
  interpreted: Interpreted,
  hits: z.array(SearchHit),
  /** Not in the spec: where this page sits in the ranked list (`total` hits, at most MAX_SEARCH_OFFSET + limit). */
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int(), has_more: z.boolean() }),
  facets: SearchFacets,
});
export type SearchResponse = z.infer<typeof SearchResponse>;

export const SEARCH_TYPES = ['character', 'location', 'music', 'emotion'] as const;
export const TypedSearchParams = z.object({ type: z.enum(SEARCH_TYPES) });
export const TypedSearchRequest = SearchRequest.pick({ query: true, limit: true, offset: true, video_id: true, engine: true, workspace_ids: true });
export const TypedSearchResponse = SearchResponse.extend({
  type: z.enum(SEARCH_TYPES),
  /** Set when this deployment cannot answer the dimension (music). */
  unavailable: z.string().optional(),
});

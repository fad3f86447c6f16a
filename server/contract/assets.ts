// Assets (SPEC 2.2, 4.1, 4.2): every video, photo and document is a "video" in the API.
import { z } from 'zod';
import { EffectiveOptionsSchema, IndexOptionsInput } from './stages.ts';
import { ASSET_KINDS } from './extensions.ts';

export * from './extensions.ts';

export const CURRENT_PIPELINE = 'arrow';
/** Deprecated tiers (SPEC 9): accepted for videos only; their assets are searched by `classic`. */
export const LEGACY_PIPELINES = ['lite', 'pro', 'max', 'gen1_lite', 'gen1_pro', 'gen1_max', 'classic'] as const;
export const PIPELINES = [CURRENT_PIPELINE, ...LEGACY_PIPELINES] as const;

export const ASSET_STATUSES = ['processing', 'completed'] as const;
/**
 * Not in the spec: which phase of indexing an asset is in (docs/stages.md, "Two phases"): `reading`
 * (its text and metadata are being read: phase 1), `enriching` (searchable by its text and metadata;
 * pictures, OCR, faces, objects, speech or embeddings still under way: phase 2), `done` (no run
 * left; status `completed`).
 */
export const INDEX_PHASES = ['reading', 'enriching', 'done'] as const;
export type IndexPhase = (typeof INDEX_PHASES)[number];
/** The stages of phase 1: a file's own text and metadata (and a document's first page drawn). */
export const PHASE_ONE_STAGES = ['extract', 'metadata'] as const;

export const UploadFields = z
  .object({
    pipeline: z.enum(PIPELINES).default(CURRENT_PIPELINE),
    options: z
      .string()
      .max(64 * 1024)
      .optional()
      .describe('index options for this file (SPEC 2.7), as a JSON object in a text part'),
  })
  .strict();

export const REPORT_STATES = ['pending', 'running', 'ok', 'off', 'not_applicable', 'failed'] as const;

export const StageReport = z.object({
  state: z.enum(REPORT_STATES),
  reason: z.string().nullable(),
  version: z.number().int(),
  counts: z.record(z.string(), z.number()),
  details: z.record(z.string(), z.unknown()).nullable(),
  attempts: z.number().int(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
});
export type StageReport = z.infer<typeof StageReport>;

export const IndexReport = z.object({
  stages: z.record(z.string(), StageReport),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
});

export const UploadAck = z.object({
  video_id: z.string(),
  kind: z.enum(ASSET_KINDS),
  status: z.enum(ASSET_STATUSES),
  pipeline: z.string(),
  file_name: z.string(),
  size_bytes: z.number().int(),
  index_options: EffectiveOptionsSchema.nullable(),
});
export type UploadAck = z.infer<typeof UploadAck>;

/** Where and when, read from the file (EXIF, XMP, IPTC, QuickTime tags, document properties; docs/guide.md, "When, where, who"). */
export const TAKEN_AT_SOURCES = ['exif', 'xmp', 'iptc', 'quicktime', 'document', 'file', 'upload'] as const;
const nullableString = z.string().nullable();
export const AssetMetadata = z.object({
  /** ISO 8601; with its offset when the file says it, else local time as the camera wrote it. */
  taken_at: nullableString,
  /** Where taken_at came from: `file` (the file's time) and `upload` when nothing says when it was taken. */
  taken_at_source: z.enum(TAKEN_AT_SOURCES).nullable(),
  /**
   * Not in the spec: the tag that said when, as exiftool names it (`EXIF:DateTimeOriginal`,
   * `XMP:photoshop:DateCreated`, `IPTC:DateCreated+TimeCreated`, `EXIF:GPSDateTime`…; docs/guide.md,
   * "When"), or null.
   */
  taken_at_tag: nullableString.default(null),
  /** Not in the spec: how the offset of taken_at was known (`offset_tag`, `gps_time`, `gps_position`), or null (local time). */
  taken_at_zone: z.enum(['offset_tag', 'gps_time', 'gps_position']).nullable().default(null),
  camera: z.object({ make: nullableString, model: nullableString }).nullable(),
  lens: nullableString,
  exposure: z
    .object({ iso: z.number().nullable(), aperture: z.number().nullable(), shutter_s: z.number().nullable(), focal_mm: z.number().nullable() })
    .nullable(),
  gps: z.object({ lat: z.number(), lon: z.number(), alt: z.number().nullable() }).nullable(),
  place: z.object({ city: nullableString, region: nullableString, country: nullableString, country_code: nullableString }).nullable(),
  title: nullableString,
  description: nullableString,
  keywords: z.array(z.string()),
  /** 0..5 (XMP rating; -1 "rejected" is kept as -1). */
  rating: z.number().nullable(),
  author: nullableString,
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration_s: z.number().nullable(),
});
export type AssetMetadata = z.infer<typeof AssetMetadata>;

export const AssetListItem = z.object({
  video_id: z.string(),
  kind: z.enum(ASSET_KINDS),
  status: z.enum(ASSET_STATUSES),
  file_name: z.string(),
  size_bytes: z.number().int(),
  page_count: z.number().int().nullable(),
  pipeline: z.string(),
  owned: z.boolean(),
  thumbnail_url: z.string().nullable(),
  created_at: z.string(),
  /** Not in the spec: the library the file is in (indexed in place and kept in sync), or null. */
  library_id: z.string().nullable(),
  /** Not in the spec: the library's folder is away (a drive unplugged); the asset stays listed and searchable. */
  offline: z.boolean(),
  /** Not in the spec: when it was taken (its metadata), or null before the metadata stage has run. */
  taken_at: z.string().nullable(),
  /**
   * Not in the spec: photos stored sideways or upside down — the clockwise turn, in degrees, that the
   * faces stage found shows the picture upright (0: it is upright); null before it looked, and for
   * videos and documents. Boxes stay in the stored picture's coordinates.
   */
  orientation_detected: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]).nullable(),
  /**
   * Not in the spec: the owner's own turn of a photo (PUT /videos/{id}/orientation; kept in the
   * index, the file is not written), shown instead of orientation_detected; null when not set.
   */
  orientation_set: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]).nullable(),
  /** Not in the spec: pixels as shown (the file's orientation applied; not orientation_detected); null before extraction and for documents. */
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration_s: z.number().nullable(),
  /** Not in the spec: the workspace's own favourite mark (set in the app, stored in the index; the file is not written). */
  favorite: z.boolean(),
  /** Not in the spec: 0..5, the workspace's own rating where it set one, else the file's (XMP, -1 rejected); null when neither says. */
  rating: z.number().int().min(-1).max(5).nullable(),
  /** Not in the spec: the stages that failed for this asset (the detail's report says why; not those waiting for an optional model); [] when none. */
  failed_stages: z.array(z.string()),
  /** Not in the spec: the phase of indexing it is in (`reading`, `enriching`: searchable, `done`). */
  index_phase: z.enum(INDEX_PHASES),
});
export type AssetListItem = z.infer<typeof AssetListItem>;

export const AssetDetail = AssetListItem.extend({
  mime_type: z.string().nullable(),
  sha256: z.string(),
  engine: z.string(),
  gen1_tier: z.string().nullable(),
  workspace_id: z.string(),
  completed_at: z.string().nullable(),
  index: z.object({ options: EffectiveOptionsSchema.nullable(), report: IndexReport }),
  /** Not in the spec: a signed URL of the original, for a video's player (byte ranges served) and a photo's 1:1 zoom (JPEG, PNG, WebP, GIF, AVIF); null for other kinds. */
  media_url: z.string().nullable(),
  /**
   * Not in the spec: where the original is on this machine, for files indexed in place (libraries,
   * `index`, the desktop pickers), and every path that answers for it: copies of the same content,
   * and a stack's RAW beside its JPEG (the JPEG is `path`); null and [] for uploads and for a
   * workspace the asset is shared into.
   */
  path: z.string().nullable(),
  paths: z.array(z.string()),
  /** Not in the spec: the XMP sidecar read beside the file (`IMG_1.xmp`, `IMG_1.jpg.xmp`), or null; owner only, as `path`. */
  sidecar_path: z.string().nullable(),
  /** Not in the spec: what the file says about itself (docs/guide.md, "When, where, who"); absent values are null. */
  metadata: AssetMetadata,
});
export type AssetDetail = z.infer<typeof AssetDetail>;

/** Not in the spec: the library list's order and filters (docs/decisions/0009-the-library-list.md). */
export const AssetListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).default(0),
    /** `created` (newest added first, the default) or `taken_at` (newest taken first). */
    order: z.enum(['created', 'taken_at']).default('created'),
    kind: z.enum(ASSET_KINDS).optional(),
    /** A person id: assets where they appear. */
    person: z.string().min(1).max(100).optional(),
    /** A city, region or country name, or a country code. */
    place: z.string().trim().min(1).max(200).optional(),
    year: z.coerce.number().int().min(1800).max(2200).optional(),
    camera: z.string().trim().min(1).max(100).optional(),
    library_id: z.string().min(1).max(100).optional(),
    /** A collection of the key's workspace: its assets. */
    collection_id: z.string().min(1).max(100).optional(),
    /** `true`: only the workspace's favourites. */
    favorite: z.enum(['true', 'false']).optional(),
    /**
     * Up to 200 asset ids, comma-separated: these assets (those the workspace sees, under the other
     * filters), in the order given; `limit`, `offset` and `order` do not apply. A page of a laid-out
     * timeline (GET /videos/layout) is asked for by its ids.
     */
    ids: z
      .string()
      .max(200 * 41)
      .regex(/^[\w-]+(,[\w-]+){0,199}$/, 'up to 200 ids, comma-separated')
      .optional(),
  })
  .strict();
export type AssetListQuery = z.infer<typeof AssetListQuery>;

/** Months of the list (by when taken, UTC), newest first, with how many assets each holds: a timeline's scrubber. */
export const AssetMonths = z.object({
  months: z.array(z.object({ month: z.string(), count: z.number().int() })),
  /** Assets with no date yet (their metadata stage has not run). */
  undated: z.number().int(),
  total: z.number().int(),
});

/** What the list can be narrowed by, with counts: filter chips. */
export const AssetFacets = z.object({
  kinds: z.array(z.object({ value: z.enum(ASSET_KINDS), count: z.number().int() })),
  years: z.array(z.object({ value: z.number().int(), count: z.number().int() })),
  places: z.array(z.object({ value: z.string(), country_code: z.string().nullable(), count: z.number().int() })),
  cameras: z.array(z.object({ value: z.string(), count: z.number().int() })),
  people: z.array(z.object({ value: z.string(), name: z.string(), count: z.number().int() })),
  libraries: z.array(z.object({ value: z.string(), path: z.string(), count: z.number().int() })),
});

/** Not in the spec: the shape of every asset of the list, in its `taken_at` order: a justified grid lays out rows before their pages load. */
export const AssetLayout = z.object({
  ids: z.array(z.string()),
  /** Width / height as shown (orientation_detected applied), 3 decimals; 0 where not known yet. */
  ratios: z.array(z.number()),
  total: z.number().int(),
});

/** Not in the spec: the workspace's own favourite and rating (null clears it) of assets; the files are not written. */
export const MarksBody = z
  .object({
    favorite: z.boolean().optional(),
    rating: z.number().int().min(0).max(5).nullable().optional(),
  })
  .strict()
  .refine((b) => b.favorite !== undefined || b.rating !== undefined, 'give favorite, rating or both');
export const BulkMarksBody = z
  .object({
    video_ids: z.array(z.string().min(1).max(100)).min(1).max(500),
    favorite: z.boolean().optional(),
    rating: z.number().int().min(0).max(5).nullable().optional(),
  })
  .strict()
  .refine((b) => b.favorite !== undefined || b.rating !== undefined, 'give favorite, rating or both');
export const MarksResult = z.object({
  video_ids: z.array(z.string()),
  favorite: z.boolean().optional(),
  rating: z.number().int().nullable().optional(),
});

const Turn = z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)]);
/** Not in the spec: the owner's turn of a photo, clockwise degrees; null gives it back to what was detected. */
export const OrientationBody = z.object({ turn: Turn.nullable() }).strict();
export const OrientationResult = z.object({ video_id: z.string(), orientation_set: Turn.nullable(), orientation_detected: Turn.nullable() });

export const ReindexBody = z.object({ stages: z.array(z.string().min(1).max(40)).min(1).max(20).optional() }).strict();
export const ReindexAck = z.object({ video_id: z.string(), status: z.literal('processing'), stages: z.array(z.string()) });

export const DeleteAck = z.object({ video_id: z.string(), deleted: z.literal(true), purging: z.literal(true) });

export { IndexOptionsInput };

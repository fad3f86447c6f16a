// Libraries (not in the spec): folders on the owner's drives, indexed in place and kept in sync.
import { z } from 'zod';

export const LIBRARY_STATUSES = ['scanning', 'watching', 'offline', 'error'] as const;

export const LibraryCreate = z
  .object({
    /** An absolute path to a folder on this machine. */
    path: z.string().trim().min(1).max(4096),
    /** Glob patterns relative to the folder (a pattern without "/" matches a name at any depth). */
    exclude: z.array(z.string().trim().min(1).max(500)).max(100).default([]),
    /** A camera RAW file and the JPEG of the same name in its folder are one asset, the JPEG shown (`paths` lists both). */
    stack_raw: z.boolean().default(true),
  })
  .strict();

export const Library = z.object({
  library_id: z.string(),
  path: z.string(),
  exclude: z.array(z.string()),
  stack_raw: z.boolean(),
  status: z.enum(LIBRARY_STATUSES),
  /** Why the library is offline or in error; null otherwise. */
  error: z.string().nullable(),
  /** Files the library knows: indexed, refused or unreadable. */
  files_seen: z.number().int(),
  assets: z.number().int(),
  /** Files waiting to settle plus assets still being indexed. */
  pending: z.number().int(),
  /**
   * Not in the spec: files waiting to settle plus assets whose text and metadata are not read yet;
   * 0 when every file of the library is searchable (phase 1 of indexing; docs/stages.md, "Two phases").
   */
  reading: z.number().int(),
  /** Assets listed and searchable while their folder is away. */
  offline_assets: z.number().int(),
  refused: z.number().int(),
  unreadable: z.number().int(),
  last_scan_at: z.string().nullable(),
  created_at: z.string(),
  scan: z.object({
    running: z.boolean(),
    queued: z.boolean(),
    started_at: z.string().nullable(),
    files_walked: z.number().int(),
  }),
});
export type Library = z.infer<typeof Library>;

export const LibraryParams = z.object({ id: z.string().min(1).max(100) });

export const ScanAck = z.object({ library_id: z.string(), status: z.enum(LIBRARY_STATUSES), scan: Library.shape.scan });

export const LibraryRemoved = z.object({ library_id: z.string(), removed: z.literal(true), assets_removed: z.number().int() });

/** A path of a library that is not indexed, with why. */
export const LibraryProblem = z.object({
  path: z.string(),
  state: z.enum(['refused', 'unreadable']),
  reason: z.string(),
});

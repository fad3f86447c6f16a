// Shapes shared by every resource: the response envelope, pagination and the box convention.
import { z } from 'zod';

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export const Meta = z.object({
  request_id: z.string(),
  timing_ms: z.number(),
});

export const PaginationQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();
export type PaginationQuery = z.infer<typeof PaginationQuery>;

export const Pagination = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
});
export type Pagination = z.infer<typeof Pagination>;

export const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    status: z.number().int(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, meta: Meta });
}

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), data: z.array(item), pagination: Pagination, meta: Meta });
}

/** Normalized box, origin top-left of the frame or page (SPEC 2.3). */
export const Box = z.object({
  x: z.number().min(0).max(1),
  y: z.number().min(0).max(1),
  w: z.number().min(0).max(1),
  h: z.number().min(0).max(1),
});
export type Box = z.infer<typeof Box>;

/**
 * A stored file of an asset (a page render, a frame, the thumbnail, a video's original) as services
 * return it; the API layer turns it into a URL signed for the request (`frame_url`, `thumbnail_url`).
 */
export interface FileRef {
  asset_id: string;
  /** The file's name under /videos/{id}/frames/: p00001.jpg, k00012.jpg, frame.jpg, thumb.jpg, original. */
  name: string;
}

export const IdParam = z.object({ id: z.string().min(1).max(100) });

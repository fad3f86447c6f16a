// Collections (albums): named sets of the assets a workspace sees (not in the spec; README, "Collections").
import { z } from 'zod';

const name = z.string().trim().min(1).max(200);
const description = z.string().trim().max(2000).nullable();
const assetIds = z.array(z.string().min(1).max(100)).max(500);

export const Collection = z.object({
  collection_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  /** Live assets in it (deleted ones leave it). */
  asset_count: z.number().int(),
  /** The last asset added: a signed URL of its thumbnail, or null (empty, or no picture yet). */
  cover_url: z.string().nullable(),
  cover_video_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Collection = z.infer<typeof Collection>;

export const CreateCollectionBody = z
  .object({
    name,
    description: description.optional(),
    /** Assets to put in it at once (ids the workspace sees). */
    video_ids: assetIds.optional(),
  })
  .strict();

export const CollectionPatch = z
  .object({ name: name.optional(), description: description.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.description !== undefined, 'give name, description or both');

export const CollectionAssetsBody = z
  .object({ add: assetIds.optional(), remove: assetIds.optional() })
  .strict()
  .refine((b) => (b.add?.length ?? 0) + (b.remove?.length ?? 0) > 0, 'give ids to add or to remove');

export const CollectionAssetsResult = z.object({
  collection_id: z.string(),
  /** How many were put in (not in it before) and taken out. */
  added: z.number().int(),
  removed: z.number().int(),
  asset_count: z.number().int(),
});

export const CollectionDeleted = z.object({ collection_id: z.string(), deleted: z.literal(true) });

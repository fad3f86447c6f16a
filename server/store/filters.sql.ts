// The search filters (docs/decisions/0017-search-filters.md), resolved to values by search/resolve.ts,
// as one SQL condition on an asset row `a`: every repository that lists or retrieves assets adds it
// to what the workspaces may see. The table aliases it relies on are the store's own.

export interface ResolvedFilters {
  takenAfterMs?: number;
  takenBeforeMs?: number;
  /** The place values the workspace holds that the place filter names, by field. */
  places?: { city: string[]; region: string[]; country: string[]; country_code: string[] };
  camera?: string;
  kinds?: string[];
  people?: string[];
  libraryId?: string;
  /** The file's rating, or the workspace's own where it set one (marksOf). */
  ratingMin?: number;
  /** Only assets this workspace marked as favourite. */
  favoriteOf?: string;
  /** The workspace whose own ratings count (ratingMin). */
  marksOf?: string;
  collectionId?: string;
}

interface SqlCondition {
  sql: string;
  params: Record<string, unknown>;
}

const NO_CONDITION: SqlCondition = { sql: '1', params: {} };

export function filterCondition(f: ResolvedFilters): SqlCondition {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  const meta: string[] = [];
  if (f.takenAfterMs !== undefined) {
    meta.push('m.taken_ms >= @f_after');
    params.f_after = f.takenAfterMs;
  }
  if (f.takenBeforeMs !== undefined) {
    meta.push('m.taken_ms < @f_before');
    params.f_before = f.takenBeforeMs;
  }
  if (f.places) {
    const any: string[] = [];
    for (const field of ['city', 'region', 'country', 'country_code'] as const) {
      const values = f.places[field];
      if (values.length === 0) continue;
      any.push(`m.${field} IN (SELECT value FROM json_each(@f_${field}))`);
      params[`f_${field}`] = JSON.stringify(values);
    }
    meta.push(any.length ? `(${any.join(' OR ')})` : '0');
  }
  if (f.camera !== undefined) {
    meta.push("m.camera LIKE '%' || @f_camera || '%'");
    params.f_camera = f.camera;
  }
  if (meta.length) parts.push(`EXISTS (SELECT 1 FROM asset_metadata m WHERE m.asset_id = a.id AND ${meta.join(' AND ')})`);
  if (f.kinds?.length) {
    parts.push('a.kind IN (SELECT value FROM json_each(@f_kinds))');
    params.f_kinds = JSON.stringify(f.kinds);
  }
  f.people?.forEach((p, i) => {
    parts.push(`EXISTS (SELECT 1 FROM faces fc JOIN face_people fpp ON fpp.face_id = fc.id WHERE fc.asset_id = a.id AND fpp.person_id = @f_person${i})`);
    params[`f_person${i}`] = p;
  });
  if (f.ratingMin !== undefined) {
    // The workspace's own rating where it set one, else the file's (XMP) rating.
    parts.push(
      `coalesce((SELECT k.rating FROM asset_marks k WHERE k.asset_id = a.id AND k.workspace_id = @f_marks),
        (SELECT m.rating FROM asset_metadata m WHERE m.asset_id = a.id)) >= @f_rating`,
    );
    params.f_rating = f.ratingMin;
    params.f_marks = f.marksOf ?? '';
  }
  if (f.favoriteOf !== undefined) {
    parts.push('EXISTS (SELECT 1 FROM asset_marks k WHERE k.asset_id = a.id AND k.workspace_id = @f_favorite_of AND k.favorite = 1)');
    params.f_favorite_of = f.favoriteOf;
  }
  if (f.collectionId !== undefined) {
    parts.push('EXISTS (SELECT 1 FROM collection_assets ca WHERE ca.collection_id = @f_collection AND ca.asset_id = a.id)');
    params.f_collection = f.collectionId;
  }
  if (f.libraryId !== undefined) {
    parts.push('a.library_id = @f_library');
    params.f_library = f.libraryId;
  }
  return parts.length ? { sql: parts.join(' AND '), params } : NO_CONDITION;
}

// Filters given by name resolved to conditions: a place to the values the workspaces hold (no
// case, no accents), people to who they are now (following merges) and visible to the search, a
// library to one of the key's workspace. Shared by search and the library list.
import type { Store } from '../store/index.ts';
import type { SearchFilters } from '../contract/search.ts';
import type { AuthContext } from '../contract/auth.ts';
import { Errors } from '../errors.ts';
import type { ResolvedFilters } from '../store/filters.sql.ts';
import { fold } from './interpret.ts';

/** How long the workspace's place names are kept between queries. */
const PLACES_TTL_MS = 5000;

type PlaceField = 'city' | 'region' | 'country' | 'country_code';

export class FilterResolver {
  private readonly places = new Map<string, { at: number; names: Map<string, Array<{ field: PlaceField; value: string }>> }>();

  constructor(private readonly store: Store) {}

  /** Place names the workspaces hold, folded (no case, no accents), with what they are. */
  placeNames(workspaceIds: string[]) {
    const key = [...workspaceIds].sort().join(',');
    const hit = this.places.get(key);
    if (hit && Date.now() - hit.at < PLACES_TTL_MS) return hit.names;
    const names = new Map<string, Array<{ field: 'city' | 'region' | 'country' | 'country_code'; value: string }>>();
    for (const row of this.store.metadata.placeValues(workspaceIds)) {
      for (const field of ['city', 'region', 'country', 'country_code'] as const) {
        const value = row[field];
        if (!value) continue;
        const list = names.get(fold(value)) ?? [];
        if (!list.some((x) => x.field === field && x.value === value)) list.push({ field, value });
        names.set(fold(value), list);
      }
    }
    this.places.set(key, { at: Date.now(), names });
    return names;
  }

  /** Filters as conditions: names to the values held, people to who they are now, a library the key's own. */
  resolve(auth: AuthContext, workspaceIds: string[], f: SearchFilters): ResolvedFilters {
    const out: ResolvedFilters = {};
    if (f.taken_after) out.takenAfterMs = Date.parse(f.taken_after);
    if (f.taken_before) out.takenBeforeMs = Date.parse(f.taken_before);
    if (f.place) {
      const matches = this.placeNames(workspaceIds).get(fold(f.place)) ?? [];
      out.places = { city: [], region: [], country: [], country_code: [] };
      for (const m of matches) out.places[m.field].push(m.value);
      if (/^[a-z]{2}$/i.test(f.place)) out.places.country_code.push(f.place.toUpperCase());
    }
    if (f.camera) out.camera = f.camera;
    if (f.kinds) out.kinds = f.kinds;
    if (f.rating_min !== undefined) {
      out.ratingMin = f.rating_min;
      out.marksOf = auth.workspaceId;
    }
    if (f.favorite) out.favoriteOf = auth.workspaceId;
    if (f.collection_id) {
      const c = this.store.collections.get(f.collection_id);
      if (!c || c.workspace_id !== auth.workspaceId) throw Errors.notFound('Collection');
      out.collectionId = c.id;
    }
    if (f.people) {
      out.people = f.people.map((id) => {
        let p = this.store.people.get(id);
        for (let hops = 0; p?.merged_into && hops < 100; hops++) p = this.store.people.get(p.merged_into);
        if (!p || !workspaceIds.includes(p.workspace_id)) throw Errors.notFound(`Person ${id}`);
        return p.id;
      });
    }
    if (f.library_id) {
      const lib = this.store.libraries.byId(f.library_id);
      if (!lib || lib.workspace_id !== auth.workspaceId) throw Errors.notFound('Library');
      out.libraryId = lib.id;
    }
    return out;
  }
}

// Search filters (docs/decisions/0017-search-filters.md): when (taken_after, taken_before), where
// (place), with what (camera), what kind, who (people: every one must appear), which library, how
// rated. resolve.ts turns names into values (ResolvedFilters); the store turns those into SQL.
import type { ResolvedFilters } from '../store/filters.sql.ts';

/** Whether any filter is set. */
export function hasFilters(f: ResolvedFilters): boolean {
  return Object.values(f).some((v) => v !== undefined);
}

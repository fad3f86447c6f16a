// People retrieval: a query naming a person finds that person's faces, above text that merely
// mentions the words.
import type { Store } from '../store/index.ts';
import type { Engine } from './lexical.ts';
import type { Moments } from './moments.ts';

export function offerNamedPeople(
  store: Store,
  moments: Moments,
  terms: string[],
  scope: { workspaceIds: string[]; assetId?: string; engine: Engine; weight: number },
): void {
  const top = moments.top || 1;
  for (const e of store.search.facesOfPeopleNamed(terms, scope.workspaceIds, scope.assetId, scope.engine)) {
    // A person is found only where the name holds every word of the query: the face holds them all.
    moments.offer(e, top * 1.5 * scope.weight * (0.5 + 0.5 * (e.timestamp === 0 ? 1 : 0.9)), 'people', e.name, terms);
  }
}

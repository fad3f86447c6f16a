// The owner's edits and the upkeep rules of People (SPEC 3.2). Each runs inside one transaction:
//   - merge: every face and exclusion of one person moves to another; the target takes the name
//     when it has none; the old id keeps resolving (merged_into);
//   - take faces off: `reject` = not them, ever (a re-cluster never puts them back); otherwise
//     split out, to be re-grouped elsewhere;
//   - people left with no live face (after a delete, or faces taken off) go, unless named.
import type { Store } from '../store/index.ts';
import type { PersonRow } from '../store/people.repo.ts';
import { clock } from '../store/ids.ts';

export function mergePeople(store: Store, source: PersonRow, target: PersonRow): void {
  const now = clock.now();
  store.transaction(() => {
    store.people.moveAll(source.id, target.id);
    if (!target.name && source.name) store.people.update(target.id, { name: source.name }, now);
    store.people.update(source.id, { merged_into: target.id }, now);
  });
}

export class NotTheirFace extends Error {
  constructor(readonly faceId: string) {
    super(`Face ${faceId} is not one of this person's faces.`);
  }
}

/** Takes faces off a person; throws NotTheirFace (nothing changed) when one is not theirs. */
export function takeFacesOff(store: Store, person: PersonRow, faceIds: string[], reject: boolean): string[] {
  const removed: string[] = [];
  const now = clock.now();
  store.transaction(() => {
    for (const faceId of new Set(faceIds)) {
      if (store.people.personOfFace(faceId) !== person.id) throw new NotTheirFace(faceId);
      store.people.unassign(faceId);
      store.people.exclude(faceId, person.id, reject ? 'rejected' : 'split', now);
      removed.push(faceId);
    }
    if (!person.name) removeEmptyUnnamed(store, person.workspace_id, person.id);
  });
  return removed;
}

/** People of the workspace (or just `only`) left with no live face are removed, unless named. */
export function removeEmptyUnnamed(store: Store, workspaceId: string, only?: string): void {
  store.transaction(() => {
    for (const id of store.people.emptyUnnamed(workspaceId)) if (!only || id === only) store.people.remove(id);
  });
}

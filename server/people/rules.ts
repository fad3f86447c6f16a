// The owner's edits and the upkeep rules of People (SPEC 3.2). Each runs inside one transaction:
//   - merge: every face and exclusion of one person moves to another; the target takes the name
//     when it has none; the old id keeps resolving (merged_into);
//   - take faces off: `reject` = not them, ever (a re-cluster never puts them back); otherwise
//     split out, to be re-grouped elsewhere;
//   - people left with no live face (after a delete, or faces taken off) go, unless named;
//   - a person made by the owner from faces they know (any count, even one);
//   - faces ignored: out of every grouping and suggestion until un-ignored; "not a face": ignored,
//     and no longer found by search as a person.
import type { Store } from '../store/index.ts';
import type { PersonRow } from '../store/people.repo.ts';
import { clock, newId } from '../store/ids.ts';

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

export class CannotAddFace extends Error {}

/**
 * The owner says these faces are this person (`notThem`: are not, ever). Adding moves a face off
 * the person it was on (split from them) and keeps the rules: a face of another workspace, or of a
 * picture where the person already is, is refused (CannotAddFace, nothing changed). Returns the faces.
 */
export function ownerSays(store: Store, person: PersonRow, faceIds: string[], notThem: boolean): string[] {
  const done: string[] = [];
  const now = clock.now();
  store.transaction(() => {
    for (const faceId of new Set(faceIds)) {
      const at = store.people.faceFrame(faceId);
      if (!at || at.workspace_id !== person.workspace_id) throw new CannotAddFace(`Face ${faceId} not found in this workspace.`);
      const current = store.people.personOfFace(faceId);
      if (notThem) {
        if (current === person.id) throw new CannotAddFace(`Face ${faceId} is this person's; take it off with /remove and reject=true.`);
        store.people.exclude(faceId, person.id, 'rejected', now);
      } else if (current !== person.id) {
        if (store.people.holdsFrame(person.id, at.frame, faceId)) {
          throw new CannotAddFace(`Face ${faceId} is in a picture where this person already is: two faces of one picture are two people.`);
        }
        if (current) {
          store.people.unassign(faceId);
          store.people.exclude(faceId, current, 'split', now);
        }
        store.people.unexclude(faceId, person.id);
        store.people.unignore(faceId);
        store.people.assign(faceId, person.id, 'owner', now);
      }
      done.push(faceId);
    }
    removeEmptyUnnamed(store, person.workspace_id);
  });
  return done;
}

/**
 * A named person made of faces the owner knows (any count, even one), by the rules of `ownerSays`:
 * the faces leave whoever held them, and two faces of one picture are refused (CannotAddFace,
 * nothing stored). A name another person has is refused too (add the faces to that person instead).
 */
export function createPerson(store: Store, workspaceId: string, name: string, faceIds: string[]): PersonRow {
  const now = clock.now();
  return store.transaction(() => {
    const same = store.people.namedInWorkspace(workspaceId, name);
    if (same) throw new CannotAddFace(`${same.name} is already a person (${same.id}); add the faces to them with POST /people/${same.id}/faces.`);
    const id = newId('per');
    store.people.insert({ id, workspace_id: workspaceId, name, hidden: 0, cover_face_id: null, merged_into: null, created_at: now, updated_at: now });
    ownerSays(store, store.people.get(id)!, faceIds, false);
    return store.people.get(id)!;
  });
}

/**
 * The owner says to leave these waiting faces out of every grouping and suggestion (`ignore`), or
 * takes that back. With `notAFace`, each is no face at all: no longer found by search as a person
 * (its entry removed here; the caller writes it again for the faces in `restored`, as search words
 * it); a face a person holds is taken off them first, as not them ever. A face of another
 * workspace, or one a person holds otherwise, is refused (CannotAddFace). Also returns the assets
 * whose faces changed what they are (their labels counted people among them).
 */
export function ignoreFaces(
  store: Store,
  workspaceId: string,
  faceIds: string[],
  ignore: boolean,
  notAFace = false,
): { faces: string[]; restored: string[]; changedAssets: string[] } {
  const now = clock.now();
  const done: string[] = [];
  const restored: string[] = [];
  const changed = new Set<string>();
  const heldBy = new Set<string>();
  store.transaction(() => {
    for (const faceId of new Set(faceIds)) {
      const at = store.people.faceFrame(faceId);
      if (!at || at.workspace_id !== workspaceId) throw new CannotAddFace(`Face ${faceId} not found in this workspace.`);
      const holder = store.people.personOfFace(faceId);
      if (holder && !(ignore && notAFace)) throw new CannotAddFace(`Face ${faceId} is a person's (${holder}); take it off them first.`);
      if (holder) {
        // No face is anyone's: off the person, and not them whatever a grouping says later.
        store.people.unassign(faceId);
        store.people.exclude(faceId, holder, 'rejected', now);
        heldBy.add(holder);
      }
      const wasNotAFace = store.people.isNotAFace(faceId);
      if (ignore) store.people.ignore(faceId, now, notAFace);
      else store.people.unignore(faceId);
      if (ignore && notAFace && !wasNotAFace) {
        store.search.deleteForRegion(at.asset_id, 'faces', faceId);
        changed.add(at.asset_id);
      } else if (!ignore && wasNotAFace) {
        restored.push(faceId);
        changed.add(at.asset_id);
      }
      done.push(faceId);
    }
    // A person without a name left with no face goes, as when faces are taken off them.
    for (const id of heldBy) if (!store.people.get(id)?.name) removeEmptyUnnamed(store, workspaceId, id);
  });
  return { faces: done, restored, changedAssets: [...changed] };
}

/** People of the workspace (or just `only`) left with no live face are removed, unless named. */
export function removeEmptyUnnamed(store: Store, workspaceId: string, only?: string): void {
  store.transaction(() => {
    for (const id of store.people.emptyUnnamed(workspaceId)) if (!only || id === only) store.people.remove(id);
  });
}

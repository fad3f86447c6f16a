// The owner's decisions survive a re-detection (SPEC 3.2: "merged people and rejected faces stay
// so through every re-cluster and re-index"). Re-detecting faces makes new face records; what was
// decided about an old face (its person, "not them", "split out", a pinned cover, "ignore", "not a face") carries over to
// the new face at the same moment and place (boxes overlapping by half or more).
import type { Box } from '../contract/common.ts';
import { cornersOf, iou } from '../geometry.ts';
import type { Store } from '../store/index.ts';
import { clock } from '../store/ids.ts';

/** Boxes overlapping at least this much are the same face. */
export const SAME_FACE_IOU = 0.5;

/**
 * Replaces an asset's faces (`replace` writes them and returns them with their new ids) and
 * carries the decisions about the old faces over to the new ones. Call inside a transaction.
 */
export function replaceFacesKeepingDecisions(store: Store, assetId: string, replace: () => Array<{ id: string; timestamp: number; box: Box }>): void {
  const before = store.people.decisionsOf(assetId);
  const now = clock.now();
  for (const face of replace()) {
    const old = before.find((o) => o.timestamp === face.timestamp && iou(cornersOf(o.box), cornersOf(face.box)) >= SAME_FACE_IOU);
    if (!old) continue;
    if (old.person_id && store.people.get(old.person_id)) store.people.assign(face.id, old.person_id, old.assigned_by ?? 'owner', now);
    for (const e of old.exclusions) if (store.people.get(e.person_id)) store.people.exclude(face.id, e.person_id, e.kind, now);
    for (const p of old.covers) store.people.update(p, { cover_face_id: face.id }, now);
    if (old.ignored) store.people.ignore(face.id, now, old.not_a_face);
  }
}

// Faces other tools already named: MWG regions (Lightroom, digiKam, Picasa) and Windows Photo
// Gallery regions, read from a photo's XMP by the metadata stage. Each named region is matched to
// the detected face it covers (overlap), and that face goes to the person of that name — joined if
// the workspace has one, else created — as the owner's decision: a re-cluster never moves it.
import type { Box } from '../contract/common.ts';
import type { Store } from '../store/index.ts';
import { clock, newId } from '../store/ids.ts';
import { cornersOf, iou } from '../geometry.ts';

/** A named region and a detected face are one face when they overlap at least this much. */
export const NAMED_REGION_IOU = 0.3;

export interface NamedFace {
  face_id: string;
  name: string;
}

/** Pairs each named region with the detected face it overlaps most (one face per name, one name per face). */
export function matchNamedRegions(regions: Array<{ name: string; box: Box }>, faces: Array<{ id: string; box: Box }>): NamedFace[] {
  const pairs = regions.flatMap((r) => faces.map((f) => ({ name: r.name, face: f.id, overlap: iou(cornersOf(r.box), cornersOf(f.box)) })));
  pairs.sort((a, b) => b.overlap - a.overlap);
  const usedFaces = new Set<string>();
  const usedNames = new Set<string>();
  const out: NamedFace[] = [];
  for (const p of pairs) {
    if (p.overlap < NAMED_REGION_IOU || usedFaces.has(p.face) || usedNames.has(p.name)) continue;
    usedFaces.add(p.face);
    usedNames.add(p.name);
    out.push({ face_id: p.face, name: p.name });
  }
  return out;
}

/** Puts each face with the person of its name (call inside a transaction). Faces rejected from that person stay out. */
export function applyNamedFaces(store: Store, workspaceId: string, named: NamedFace[]): number {
  const now = clock.now();
  let applied = 0;
  for (const { face_id, name } of named) {
    let person = store.people.namedInWorkspace(workspaceId, name);
    if (person && store.people.isExcluded(face_id, person.id)) continue;
    if (!person) {
      const id = newId('per');
      store.people.insert({ id, workspace_id: workspaceId, name, hidden: 0, cover_face_id: null, merged_into: null, created_at: now, updated_at: now });
      person = store.people.get(id);
    }
    if (!person) continue;
    store.people.assign(face_id, person.id, 'owner', now);
    applied++;
  }
  return applied;
}

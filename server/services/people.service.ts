// People (SPEC 2.6, 3.2, 4.3): who may edit, when (409 busy while a re-cluster runs), and what a
// person looks like to the API. The rules (merges, faces taken off, upkeep after deletes,
// re-grouping) live in people/. Reads faces; writes through people/.
import type { Store } from '../store/index.ts';
import type { PersonRow } from '../store/people.repo.ts';
import { clock } from '../store/ids.ts';
import { AppError, Errors } from '../errors.ts';
import type { FileRef, Pagination } from '../contract/common.ts';
import type { z } from 'zod';
import type { LooseFace, Person, PersonDetail } from '../contract/people.ts';
import { GOOD_MIN_SIDE_PX } from '../ml/face-quality.ts';
import { AutoGroup, type AutoGroupTiming } from '../people/auto-group.ts';
import { PlanStopped, type ClusterPlan } from '../people/cluster.ts';
import { CannotAddFace, NotTheirFace, createPerson, ignoreFaces, mergePeople, ownerSays, removeEmptyUnnamed, takeFacesOff } from '../people/rules.ts';
import { newStopFlag, planRegrouping, regroup } from '../people/regroup.ts';
import { mwgRegionsXmp } from '../people/xmp.ts';
import { personEntry } from '../search/face-words.ts';

/** The page of a document a face was found on (its picture page's timestamp is the page less one); null for photos and videos. */
const pageAt = (kind: string, timestamp: number): number | null => (kind === 'document' ? Math.floor(timestamp) + 1 : null);

/** A face's picture is a stored file, given a URL by the API. */
type WithFrame<T> = Omit<T, 'frame_url' | 'thumbnail_url'> & { frame: FileRef | null };
export type PersonValue = Omit<Person, 'cover'> & { cover: WithFrame<NonNullable<Person['cover']>> | null };
export type PersonDetailValue = PersonValue & Omit<PersonDetail, keyof Person | 'faces'> & { faces: Array<WithFrame<PersonDetail['faces'][number]>> };
export type LooseFaceValue = WithFrame<z.infer<typeof LooseFace>>;

/** Sharpness (0–1, see ml/face-quality.ts) under which a face is marked blurred on screen. */
const BLURRED_BELOW = 1 / 3;

export class PeopleService {
  private readonly busy = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  /** Changes of each workspace's faces and people, and the suggestion plan last computed. */
  private readonly versions = new Map<string, number>();
  private readonly planned = new Map<string, { version: number; computing: boolean; plan: Promise<ClusterPlan> }>();

  /** Set when the service stops: every plan under way stops at its next step. */
  private readonly stop = newStopFlag();
  /** Re-groups by itself after indexing leaves faces waiting (null: only when asked). */
  private readonly auto: AutoGroup | null;

  constructor(
    private readonly store: Store,
    private readonly log: (msg: string) => void = () => {},
    autoGroup: AutoGroupTiming | null = null,
    /** Runs stages of an asset again (the index queue): its labels, once its faces changed what they are. */
    private readonly rerun: (assetId: string, stages: string[]) => void = () => {},
  ) {
    this.auto = autoGroup ? new AutoGroup(autoGroup, (ws) => this.regroupBySelf(ws)) : null;
  }

  /**
   * The people stage of an asset ended: its faces joined people or wait. Suggestions are computed
   * again; with faces waiting, a re-group of the workspace is due after a quiet period.
   */
  peopleIndexed(assetId: string): void {
    const workspaceId = this.store.people.workspaceOfAsset(assetId);
    if (!workspaceId) return;
    this.touched(workspaceId);
    if (this.auto && this.store.people.hasWaiting(assetId)) this.auto.facesWaiting(workspaceId);
  }

  private async regroupBySelf(workspaceId: string): Promise<boolean> {
    if (this.busy.has(workspaceId)) return false;
    await this.recluster(workspaceId, false, 'by itself');
    await this.settled(workspaceId);
    return true;
  }

  /**
   * The service stops: no re-group starts; plans being computed stop (a re-group still planning
   * changes nothing); one being written is let finish for up to `capMs` (its slices each whole).
   */
  async close(capMs: number): Promise<void> {
    this.auto?.stop();
    Atomics.store(this.stop, 0, 1);
    await Promise.allSettled([...this.planned.values()].map((p) => p.plan));
    await this.settledAll(capMs);
  }

  /** Before an edit: 409 busy while a re-group runs; the edit changes what suggestions are. */
  private guard(workspaceId: string): void {
    if (this.busy.has(workspaceId)) throw Errors.busy();
    this.touched(workspaceId);
  }

  /** Where a face sits: its asset, moment, box and the picture it is on. */
  private faceView(faceId: string): PersonValue['cover'] {
    const r = this.store.regions.byId(faceId);
    const a = r ? this.store.assets.byId(r.asset_id) : undefined;
    if (!r || !a) return null;
    return {
      face_id: faceId,
      video_id: a.id,
      timestamp: r.timestamp,
      box: { x: r.x, y: r.y, w: r.w, h: r.h },
      frame: this.store.media.pictureAt(a, r.timestamp),
    };
  }

  /** A person as the API shows them; `cover` when it is known already (the list finds it with the people). */
  private value(p: PersonRow & { cover?: string | null }): PersonValue {
    const cover =
      p.cover !== undefined
        ? p.cover
        : p.cover_face_id && this.store.people.holdsLiveFace(p.id, p.cover_face_id)
          ? p.cover_face_id
          : this.store.people.bestFace(p.id);
    return {
      person_id: p.id,
      name: p.name,
      status: p.hidden ? 'hidden' : p.name ? 'named' : 'unverified',
      face_count: p.face_count,
      cover_face_id: cover,
      merged_into: p.merged_into,
      cover: cover ? this.faceView(cover) : null,
    };
  }

  list(workspaceId: string, includeHidden: boolean): { people: PersonValue[]; total: number; regrouping: boolean } {
    const people = this.store.people.list(workspaceId, includeHidden).map((p) => this.value(p));
    return { people, total: people.length, regrouping: this.busy.has(workspaceId) };
  }

  /** The person, following merges; another workspace's id is not found. */
  private resolve(workspaceId: string, id: string): PersonRow {
    let p = this.store.people.get(id);
    for (let hops = 0; p && p.merged_into && hops < 100; hops++) p = this.store.people.get(p.merged_into);
    if (!p || p.workspace_id !== workspaceId) throw Errors.notFound('Person');
    return p;
  }

  private current(id: string): PersonValue {
    const p = this.store.people.get(id);
    if (!p) throw Errors.notFound('Person');
    return this.value(p);
  }

  detail(workspaceId: string, id: string, limit: number, offset: number, order: 'best' | 'weakest' = 'best'): PersonDetailValue {
    const p = this.resolve(workspaceId, id);
    const { rows, total } = this.store.people.faces(p.id, limit, offset, order === 'weakest');
    return {
      ...this.value(p),
      ...(p.id !== id ? { requested_id: id } : {}),
      faces: rows.map((f) => ({
        face_id: f.face_id,
        video_id: f.video_id,
        asset_kind: f.kind,
        timestamp: f.timestamp,
        page: pageAt(f.kind, f.timestamp),
        box: { x: f.x, y: f.y, w: f.w, h: f.h },
        quality: f.quality,
        good: f.good === 1,
        assigned_by: f.assigned_by,
        frame: this.store.media.pictureAt({ id: f.video_id, kind: f.kind }, f.timestamp),
      })),
      faces_pagination: { limit, offset, total, has_more: offset + rows.length < total },
      appearances: this.store.people.appearances(p.id).map((a) => ({
        video_id: a.video_id,
        asset_kind: a.kind,
        file_name: a.file_name,
        face_count: a.face_count,
        first_timestamp: a.first_timestamp,
        first_page: pageAt(a.kind, a.first_timestamp),
      })),
    };
  }

  patch(workspaceId: string, id: string, body: { name?: string; hidden?: boolean; cover_face_id?: string }): PersonValue {
    this.guard(workspaceId);
    const p = this.resolve(workspaceId, id);
    if (body.cover_face_id !== undefined && !this.store.people.holdsLiveFace(p.id, body.cover_face_id)) {
      throw new AppError('invalid_request', 422, "cover_face_id must be one of the person's faces.");
    }
    const fields: Partial<Pick<PersonRow, 'name' | 'hidden' | 'cover_face_id'>> = {};
    if (body.name !== undefined) fields.name = body.name;
    if (body.hidden !== undefined) fields.hidden = body.hidden ? 1 : 0;
    if (body.cover_face_id !== undefined) fields.cover_face_id = body.cover_face_id;
    this.store.people.update(p.id, fields, clock.now());
    return this.current(p.id);
  }

  /** Merges a person into another: all faces move; the old id keeps resolving to the target. */
  merge(workspaceId: string, id: string, into: string): { person: PersonValue; merged: string[] } {
    this.guard(workspaceId);
    const source = this.resolve(workspaceId, id);
    const target = this.resolve(workspaceId, into);
    if (source.id === target.id) throw new AppError('invalid_request', 422, 'A person cannot be merged into itself.');
    mergePeople(this.store, source, target);
    return { person: this.current(target.id), merged: [source.id] };
  }

  /**
   * Waiting faces that probably are someone already known (not hidden), likeliest first: the
   * suggestions of a re-grouping plan, which never moves them by itself.
   */
  async suggestions(
    workspaceId: string,
    personId?: string,
  ): Promise<Array<{ face: NonNullable<PersonValue['cover']>; person: PersonValue; similarity: number }>> {
    const only = personId ? this.resolve(workspaceId, personId).id : null;
    const plan = await this.suggestionPlan(workspaceId);
    return plan.suggestions.flatMap((s) => {
      if (only && s.person_id !== only) return [];
      const p = this.store.people.get(s.person_id);
      const face = this.faceView(s.face_id);
      // A face taken or ignored meanwhile is no longer a question.
      const waiting = this.store.people.waitingState(s.face_id, workspaceId) !== undefined;
      return p && face && waiting && !p.hidden && !p.merged_into ? [{ face, person: this.value(p), similarity: s.similarity }] : [];
    });
  }

  /**
   * The plan behind suggestions, computed once per change of the workspace's faces or people, and
   * one at a time per workspace: a request while one is computed gets that one, even if a change
   * came meanwhile (the next request after it computes again).
   */
  private suggestionPlan(workspaceId: string): Promise<ClusterPlan> {
    const version = this.versions.get(workspaceId) ?? 0;
    const known = this.planned.get(workspaceId);
    if (known && (known.version === version || known.computing)) return known.plan;
    const entry = { version, computing: true, plan: planRegrouping(this.store, workspaceId, { form: false, stop: this.stop }) };
    entry.plan.then(
      () => (entry.computing = false),
      () => this.planned.delete(workspaceId),
    );
    this.planned.set(workspaceId, entry);
    return entry.plan;
  }

  /** The workspace's faces or people changed: suggestions are computed again when next asked for. */
  touched(workspaceId: string): void {
    this.versions.set(workspaceId, (this.versions.get(workspaceId) ?? 0) + 1);
  }

  /** The owner says these faces are this person (or, `notThem`, are not, ever). */
  ownerSays(workspaceId: string, id: string, faceIds: string[], notThem: boolean): { person: PersonValue; faces: string[]; not_them: boolean } {
    this.guard(workspaceId);
    const p = this.resolve(workspaceId, id);
    let faces: string[];
    try {
      faces = ownerSays(this.store, p, faceIds, notThem);
    } catch (err) {
      if (err instanceof CannotAddFace) throw new AppError('invalid_request', 422, err.message);
      throw err;
    }
    return { person: this.current(p.id), faces, not_them: notThem };
  }

  /** A named person made of faces the owner knows (any count, even one). */
  create(workspaceId: string, name: string, faceIds: string[]): PersonValue {
    this.guard(workspaceId);
    try {
      return this.value(createPerson(this.store, workspaceId, name, faceIds));
    } catch (err) {
      if (err instanceof CannotAddFace) throw new AppError('invalid_request', 422, err.message);
      throw err;
    }
  }

  /** Faces no person holds, best first: waiting to be grouped, or (`ignored`) left out by the owner. */
  looseFaces(workspaceId: string, ignored: boolean, limit: number, offset: number): { faces: LooseFaceValue[]; pagination: Pagination } {
    const { rows, total } = this.store.people.looseFaces(workspaceId, ignored, limit, offset);
    return {
      faces: rows.map((f) => ({
        face_id: f.face_id,
        video_id: f.video_id,
        asset_kind: f.kind,
        timestamp: f.timestamp,
        page: pageAt(f.kind, f.timestamp),
        box: { x: f.x, y: f.y, w: f.w, h: f.h },
        quality: f.quality,
        good: f.good === 1,
        small: f.size_px < GOOD_MIN_SIDE_PX,
        blurred: f.sharpness < BLURRED_BELOW,
        ignored: f.ignored === 1,
        not_a_face: f.not_a_face === 1,
        frame: this.store.media.pictureAt({ id: f.video_id, kind: f.kind }, f.timestamp),
      })),
      pagination: { limit, offset, total, has_more: offset + rows.length < total },
    };
  }

  /**
   * Leave faces out of every grouping and suggestion, or take that back; `notAFace`: they are no
   * faces (their pictures' labels are worked out again without them).
   */
  ignore(workspaceId: string, faceIds: string[], ignored: boolean, notAFace = false): { faces: string[]; ignored: boolean; not_a_face: boolean } {
    this.guard(workspaceId);
    try {
      const { faces, changedAssets } = this.store.transaction(() => {
        const r = ignoreFaces(this.store, workspaceId, faceIds, ignored, notAFace);
        // A face again: found by search as a person, as the faces stage wrote it.
        for (const faceId of r.restored) {
          const face = this.store.faces.attributesOf(faceId);
          if (!face) continue;
          const page = pageAt(this.store.assets.byId(face.asset_id)?.kind ?? 'image', face.timestamp);
          this.store.search.add(face.asset_id, 'faces', personEntry({ ...face, page }, faceId));
        }
        return r;
      });
      for (const id of changedAssets) this.rerun(id, ['labels']);
      // As the faces stand now: an ignore again without not_a_face leaves faces that were no faces so.
      return { faces, ignored, not_a_face: ignored && faces.every((id) => this.store.people.isNotAFace(id)) };
    } catch (err) {
      if (err instanceof CannotAddFace) throw new AppError('invalid_request', 422, err.message);
      throw err;
    }
  }

  /** Takes faces off a person: `reject` = not them, ever; otherwise split out to be re-grouped elsewhere. */
  remove(workspaceId: string, id: string, faceIds: string[], reject: boolean): { person: PersonValue; removed: string[]; rejected: boolean } {
    this.guard(workspaceId);
    const p = this.resolve(workspaceId, id);
    let removed: string[];
    try {
      removed = takeFacesOff(this.store, p, faceIds, reject);
    } catch (err) {
      if (err instanceof NotTheirFace) throw new AppError('invalid_request', 422, err.message);
      throw err;
    }
    const after = this.store.people.get(p.id);
    return { person: after ? this.value(after) : { ...this.value(p), face_count: 0, cover: null }, removed, rejected: reject };
  }

  /** dry run: the plan, nothing changed. Otherwise starts in the background; edits answer 409 until done. */
  async recluster(
    workspaceId: string,
    dryRun: boolean,
    why = 'asked',
  ): Promise<{ status: 'started' | 'completed'; dry_run: boolean; plan?: ClusterPlan & { merges: never[] } }> {
    if (dryRun)
      return { status: 'completed', dry_run: true, plan: { ...(await planRegrouping(this.store, workspaceId, { form: true, stop: this.stop })), merges: [] } };
    this.guard(workspaceId);
    this.busy.add(workspaceId);
    const job = (async () => {
      try {
        const t0 = Date.now();
        const r = await regroup(this.store, workspaceId, this.stop);
        this.log(`people: re-group of ${workspaceId} (${why}): ${r.joined} joined, ${r.created} new people in ${Date.now() - t0} ms`);
      } catch (err) {
        if (err instanceof PlanStopped) this.log(`people: re-group of ${workspaceId} stopped with the service; nothing changed`);
        else this.log(`people: recluster of ${workspaceId} failed: ${(err as Error).stack ?? err}`);
      } finally {
        this.touched(workspaceId);
        this.busy.delete(workspaceId);
        this.running.delete(workspaceId);
      }
    })();
    this.running.set(workspaceId, job);
    return { status: 'started', dry_run: false };
  }

  /** Resolves when no recluster is running (at most `capMs`: one still running is left unapplied). */
  async settledAll(capMs: number): Promise<void> {
    await Promise.race([Promise.all(this.running.values()), new Promise((r) => setTimeout(r, capMs).unref())]);
  }

  /** Resolves when no recluster of the workspace is running. */
  async settled(workspaceId: string): Promise<void> {
    await this.running.get(workspaceId);
  }

  /** XMP sidecar of a photo with its named people as MWG face regions. */
  xmp(asset: { id: string; kind: string; width: number | null; height: number | null }): string {
    if (asset.kind !== 'image') throw new AppError('not_found', 404, 'XMP face regions are written for photos only.');
    return mwgRegionsXmp(asset.width ?? 0, asset.height ?? 0, this.store.people.namedFacesOf(asset.id));
  }

  /** After a delete: people left without a live face go, unless named. */
  refresh(workspaceId: string): void {
    this.touched(workspaceId);
    removeEmptyUnnamed(this.store, workspaceId);
  }
}

// Collections (albums): a workspace's named sets of the assets it sees. Names need not be unique
// (two trips may both be "Summer"); every id given must be an asset the workspace sees, or nothing
// is changed (404 naming it).
import type { Store } from '../store/index.ts';
import type { CollectionRow } from '../store/collections.repo.ts';
import type { FileRef } from '../contract/common.ts';
import { Errors } from '../errors.ts';
import { iso, newId } from '../store/ids.ts';

export interface CollectionValue {
  collection_id: string;
  name: string;
  description: string | null;
  asset_count: number;
  cover: FileRef | null;
  cover_video_id: string | null;
  created_at: string;
  updated_at: string;
}

export class CollectionsService {
  constructor(private readonly store: Store) {}

  list(workspaceId: string): CollectionValue[] {
    return this.store.collections.list(workspaceId).map((c) => this.value(c));
  }

  get(workspaceId: string, id: string): CollectionValue {
    return this.value(this.own(workspaceId, id));
  }

  create(workspaceId: string, body: { name: string; description?: string | null; video_ids?: string[] }): CollectionValue {
    const ids = this.seen(workspaceId, body.video_ids ?? []);
    const id = newId('col');
    this.store.transaction(() => {
      this.store.collections.create({ id, workspace_id: workspaceId, name: body.name, description: body.description ?? null });
      if (ids.length) this.store.collections.change(id, ids, []);
    });
    return this.get(workspaceId, id);
  }

  update(workspaceId: string, id: string, patch: { name?: string; description?: string | null }): CollectionValue {
    this.own(workspaceId, id);
    this.store.collections.update(id, patch);
    return this.get(workspaceId, id);
  }

  delete(workspaceId: string, id: string): { collection_id: string; deleted: true } {
    this.own(workspaceId, id);
    this.store.collections.delete(id);
    return { collection_id: id, deleted: true };
  }

  /** Puts assets in and takes assets out, in one transaction. Ids taken out need not be visible any more. */
  change(workspaceId: string, id: string, add: string[] = [], remove: string[] = []) {
    this.own(workspaceId, id);
    const added = this.seen(workspaceId, add);
    const r = this.store.collections.change(id, added, [...new Set(remove)]);
    return { collection_id: id, ...r, asset_count: this.own(workspaceId, id).asset_count };
  }

  private own(workspaceId: string, id: string): CollectionRow {
    const c = this.store.collections.get(id);
    if (!c || c.workspace_id !== workspaceId) throw Errors.notFound('Collection');
    return c;
  }

  /** The ids, each once, in order; 404 on the first the workspace does not see. */
  private seen(workspaceId: string, ids: string[]): string[] {
    const unique = [...new Set(ids)];
    for (const a of unique) if (!this.store.assets.findVisible(a, workspaceId)) throw Errors.notFound(`Video ${a}`);
    return unique;
  }

  private value(c: CollectionRow): CollectionValue {
    return {
      collection_id: c.id,
      name: c.name,
      description: c.description,
      asset_count: c.asset_count,
      cover: c.cover_asset_id ? this.store.media.thumbnailOf(c.cover_asset_id) : null,
      cover_video_id: c.cover_asset_id,
      created_at: iso(c.created_at) as string,
      updated_at: iso(c.updated_at) as string,
    };
  }
}

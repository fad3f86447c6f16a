// Collections (albums): the list, and putting the library's selection in one or taking it out.
import { create } from 'zustand';
import { changeCollection, createCollection, deleteCollection, listCollections, renameCollection, type Collection } from '../api/collections.ts';
import { attempt, useToasts } from './toasts.ts';

interface CollectionsState {
  list: Collection[] | null;
  load(): Promise<void>;
  /** Puts the assets in a collection (a new one when `name` is given); returns its id. */
  add(target: { id: string } | { name: string }, ids: string[]): Promise<string | null>;
  removeFrom(id: string, ids: string[]): Promise<boolean>;
  rename(id: string, name: string): Promise<void>;
  remove(id: string): Promise<boolean>;
}

const plural = (n: number) => (n === 1 ? '1 item' : `${n} items`);

export const useCollections = create<CollectionsState>((set, get) => ({
  list: null,
  async load() {
    const list = await attempt('Loading collections', () => listCollections());
    if (list) set({ list });
  },
  async add(target, ids) {
    if ('name' in target) {
      const made = await attempt('Making the collection', () => createCollection(target.name, ids));
      if (!made) return null;
      await get().load();
      useToasts.getState().push('info', `${plural(ids.length)} put in the new collection ${made.name}.`);
      return made.collection_id;
    }
    const r = await attempt('Adding to the collection', () => changeCollection(target.id, { add: ids }));
    if (!r) return null;
    const name = get().list?.find((c) => c.collection_id === target.id)?.name ?? 'the collection';
    await get().load();
    useToasts.getState().push('info', r.added ? `${plural(r.added)} added to ${name}.` : `Already in ${name}.`);
    return target.id;
  },
  async removeFrom(id, ids) {
    const r = await attempt('Taking out of the collection', () => changeCollection(id, { remove: ids }));
    if (r) {
      useToasts.getState().push('info', `${plural(r.removed)} taken out of the collection (still in the library).`);
      await get().load();
    }
    return Boolean(r);
  },
  async rename(id, name) {
    if (await attempt('Renaming', () => renameCollection(id, name))) await get().load();
  },
  async remove(id) {
    const r = await attempt('Deleting the collection', () => deleteCollection(id));
    if (r) await get().load();
    return Boolean(r);
  },
}));

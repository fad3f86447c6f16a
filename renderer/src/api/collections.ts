// Collections, the workspace's own favourites and ratings, the timeline's layout, and what indexing is doing.
import { api, data, type Data } from './client.ts';
import type { ListFilters } from './videos.ts';
import { narrowing } from './videos.ts';

export type Collection = Data<'/api/v1/collections/{id}', 'get'>;
export type Layout = Data<'/api/v1/videos/layout', 'get'>;
export type Activity = Data<'/api/v1/index/activity', 'get'>;

const path = (id: string) => ({ params: { path: { id } } });

export const listCollections = () => data(api().GET('/api/v1/collections'));
export const createCollection = (name: string, videoIds: string[] = []) => data(api().POST('/api/v1/collections', { body: { name, video_ids: videoIds } }));
export const renameCollection = (id: string, name: string) => data(api().PATCH('/api/v1/collections/{id}', { ...path(id), body: { name } }));
export const deleteCollection = (id: string) => data(api().DELETE('/api/v1/collections/{id}', path(id)));
export const changeCollection = (id: string, change: { add?: string[]; remove?: string[] }) =>
  data(api().POST('/api/v1/collections/{id}/assets', { ...path(id), body: change }));

export const markAssets = (ids: string[], m: { favorite?: boolean; rating?: number | null }) =>
  data(api().POST('/api/v1/videos/marks', { body: { video_ids: ids, ...m } }));
/** The owner's turn of a photo (clockwise degrees; null: the detected one again). */
export const turnPhoto = (id: string, turn: 0 | 90 | 180 | 270 | null) => data(api().PUT('/api/v1/videos/{id}/orientation', { ...path(id), body: { turn } }));
export const getLayout = (filters: ListFilters) => data(api().GET('/api/v1/videos/layout', { params: { query: narrowing(filters) } }));
export const reindexAsset = (id: string, stages?: string[]) =>
  data(api().POST('/api/v1/videos/{id}/reindex', { ...path(id), body: stages?.length ? { stages } : {} }));

export const getActivity = () => data(api().GET('/api/v1/index/activity'));
export const pauseIndexing = (paused: boolean) => data(paused ? api().POST('/api/v1/index/pause') : api().POST('/api/v1/index/resume'));
export const retryFailed = () => data(api().POST('/api/v1/index/retry'));

/** A photo's named faces as an XMP sidecar (MWG regions), as a file to save. */
export async function xmpOf(id: string): Promise<Blob> {
  const r = await api().GET('/api/v1/videos/{id}/xmp', { ...path(id), parseAs: 'blob' });
  if (!r.data) throw new Error(`no XMP for ${id}`);
  return r.data as Blob;
}

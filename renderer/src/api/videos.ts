// Assets: list, detail, upload, delete, pages and regions.
import { api, data, list, uploadFile, type Data, type Query } from './client.ts';

export type AssetListItem = Data<'/api/v1/videos', 'get'>[number];
export type AssetDetail = Data<'/api/v1/videos/{id}', 'get'>;
export type UploadAck = Data<'/api/v1/videos', 'post'>;
export type Months = Data<'/api/v1/videos/months', 'get'>;
export type Facets = Data<'/api/v1/videos/facets', 'get'>;
export type PageView = Data<'/api/v1/videos/{id}/pages/{page}', 'get'>;
export type RegionsView = Data<'/api/v1/videos/{id}/regions', 'get'>;
export type TranscriptView = Data<'/api/v1/videos/{id}/transcript', 'get'>;
/** A box on a frame or a page: normalized 0..1, origin top-left. */
export type Box = PageView['passages'][number]['bbox'];

/** The narrowing of the library list and of its months: kind, person, place, year, camera, library_id. */
type Narrowing = Query<'/api/v1/videos/months', 'get'>;
/** That narrowing as the address carries it (#/library?kind=image&year=2019): each one optional, as its text. */
export type ListFilters = { [K in keyof Narrowing]?: string };

/** The filters that are set, in their order, as query parameters (the service reads the year from its text as a number). */
export const narrowing = (f: ListFilters): Narrowing =>
  Object.fromEntries(
    Object.entries(f)
      .filter(([, v]) => v)
      .map(([k, v]) => [k, k === 'year' ? Number(v) : v]),
  ) as Narrowing;

const path = (id: string) => ({ params: { path: { id } } });

export const listAssets = (limit = 200, offset = 0) => list(api().GET('/api/v1/videos', { params: { query: { limit, offset } } }));
export const listTimeline = (filters: ListFilters, limit: number, offset: number) =>
  list(api().GET('/api/v1/videos', { params: { query: { order: 'taken_at', limit, offset, ...narrowing(filters) } } }));
/** These assets (a page of the laid-out timeline), in this order. */
export const listByIds = (filters: ListFilters, ids: string[]) =>
  list(api().GET('/api/v1/videos', { params: { query: { ids: ids.join(','), ...narrowing(filters) } } }));
export const getMonths = (filters: ListFilters) => data(api().GET('/api/v1/videos/months', { params: { query: narrowing(filters) } }));
export const getFacets = () => data(api().GET('/api/v1/videos/facets'));
export const getAsset = (id: string) => data(api().GET('/api/v1/videos/{id}', path(id)));
export const deleteAsset = (id: string) => data(api().DELETE('/api/v1/videos/{id}', path(id)));
export const uploadAsset = (file: File, onProgress: (fraction: number) => void) => uploadFile(file, { pipeline: 'arrow' }, onProgress);
export const getPage = (id: string, page: number) => data(api().GET('/api/v1/videos/{id}/pages/{page}', { params: { path: { id, page } } }));
export const getRegionsAt = (id: string, timestamp: number) =>
  data(api().GET('/api/v1/videos/{id}/regions', { params: { path: { id }, query: { timestamp } } }));
export const getRegions = (id: string) => data(api().GET('/api/v1/videos/{id}/regions', path(id)));
export const getTranscript = (id: string) => data(api().GET('/api/v1/videos/{id}/transcript', path(id)));
/** The owner's name for voice `speaker` of a video (null: none). */
export const nameSpeaker = (id: string, speaker: number, name: string | null) =>
  data(api().PUT('/api/v1/videos/{id}/speakers/{speaker}', { params: { path: { id, speaker } }, body: { name } }));

// Assets: list, detail, upload, delete, pages and regions.
import type { z } from 'zod';
import type { AssetDetail, AssetFacets, AssetListItem, AssetMonths, UploadAck } from '../../../server/contract/assets.ts';
import type { PageView, RegionsView, TranscriptView } from '../../../server/contract/pages.ts';
import { api, apiList, uploadFile } from './client.ts';

export type { AssetDetail, AssetListItem, UploadAck, PageView, RegionsView, TranscriptView };

export const listAssets = (limit = 200, offset = 0) => apiList<AssetListItem>(`/videos?limit=${limit}&offset=${offset}`);

/** The library list's narrowing (all optional): kind, person, place, year, camera, library_id. */
export type ListFilters = Partial<Record<'kind' | 'person' | 'place' | 'year' | 'camera' | 'library_id', string>>;
export type Months = z.infer<typeof AssetMonths>;
export type Facets = z.infer<typeof AssetFacets>;

const qs = (f: ListFilters) =>
  Object.entries(f)
    .filter(([, v]) => v)
    .map(([k, v]) => `&${k}=${encodeURIComponent(v as string)}`)
    .join('');
export const listTimeline = (filters: ListFilters, limit: number, offset: number) =>
  apiList<AssetListItem>(`/videos?order=taken_at&limit=${limit}&offset=${offset}${qs(filters)}`);
export const getMonths = (filters: ListFilters) => api<Months>('GET', `/videos/months?${qs(filters).slice(1)}`);
export const getFacets = () => api<Facets>('GET', '/videos/facets');
export const getAsset = (id: string) => api<AssetDetail>('GET', `/videos/${encodeURIComponent(id)}`);
export const deleteAsset = (id: string) => api<{ video_id: string; deleted: boolean }>('DELETE', `/videos/${encodeURIComponent(id)}`);
export const uploadAsset = (file: File, onProgress: (fraction: number) => void) => uploadFile<UploadAck>(file, { pipeline: 'arrow' }, onProgress);
export const getPage = (id: string, page: number) => api<PageView>('GET', `/videos/${encodeURIComponent(id)}/pages/${page}`);
export const getRegionsAt = (id: string, timestamp: number) => api<RegionsView>('GET', `/videos/${encodeURIComponent(id)}/regions?timestamp=${timestamp}`);
export const getTranscript = (id: string) => api<TranscriptView>('GET', `/videos/${encodeURIComponent(id)}/transcript`);

// Assets: list, detail, upload, delete, pages and regions.
import type { AssetDetail, AssetListItem, UploadAck } from '../../../server/contract/assets.ts';
import type { PageView, RegionsView, TranscriptView } from '../../../server/contract/pages.ts';
import { api, apiList, uploadFile } from './client.ts';

export type { AssetDetail, AssetListItem, UploadAck, PageView, RegionsView, TranscriptView };

export const listAssets = (limit = 200, offset = 0) => apiList<AssetListItem>(`/videos?limit=${limit}&offset=${offset}`);
export const getAsset = (id: string) => api<AssetDetail>('GET', `/videos/${encodeURIComponent(id)}`);
export const deleteAsset = (id: string) => api<{ video_id: string; deleted: boolean }>('DELETE', `/videos/${encodeURIComponent(id)}`);
export const uploadAsset = (file: File, onProgress: (fraction: number) => void) => uploadFile<UploadAck>(file, { pipeline: 'arrow' }, onProgress);
export const getPage = (id: string, page: number) => api<PageView>('GET', `/videos/${encodeURIComponent(id)}/pages/${page}`);
export const getRegionsAt = (id: string, timestamp: number) => api<RegionsView>('GET', `/videos/${encodeURIComponent(id)}/regions?timestamp=${timestamp}`);
export const getTranscript = (id: string) => api<TranscriptView>('GET', `/videos/${encodeURIComponent(id)}/transcript`);

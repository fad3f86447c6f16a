// Libraries: folders indexed in place and kept in sync.
import type { z } from 'zod';
import type { Library as LibrarySchema, LibraryProblem } from '../../../server/contract/libraries.ts';
import { api, apiList } from './client.ts';

export type Library = z.infer<typeof LibrarySchema>;
export type Problem = z.infer<typeof LibraryProblem>;

export const listLibraries = () => apiList<Library>('/libraries?limit=200');
export const addLibrary = (path: string, exclude: string[]) => api<Library>('POST', '/libraries', { path, exclude });
export const scanLibrary = (id: string) => api<{ library_id: string }>('POST', `/libraries/${encodeURIComponent(id)}/scan`);
export const removeLibrary = (id: string) => api<{ library_id: string; assets_removed: number }>('DELETE', `/libraries/${encodeURIComponent(id)}`);
export const libraryProblems = (id: string) => apiList<Problem>(`/libraries/${encodeURIComponent(id)}/problems?limit=200`);

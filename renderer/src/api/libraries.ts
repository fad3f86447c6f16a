// Libraries: folders indexed in place and kept in sync.
import { api, data, list, type Data } from './client.ts';

export type Library = Data<'/api/v1/libraries/{id}', 'get'>;
export type Problem = Data<'/api/v1/libraries/{id}/problems', 'get'>[number];

export const listLibraries = () => list(api().GET('/api/v1/libraries', { params: { query: { limit: 200 } } }));
export const addLibrary = (path: string, exclude: string[], stackRaw = true) =>
  data(api().POST('/api/v1/libraries', { body: { path, exclude, stack_raw: stackRaw } }));
export const scanLibrary = (id: string) => data(api().POST('/api/v1/libraries/{id}/scan', { params: { path: { id } } }));
export const removeLibrary = (id: string) => data(api().DELETE('/api/v1/libraries/{id}', { params: { path: { id } } }));
export const libraryProblems = (id: string) => list(api().GET('/api/v1/libraries/{id}/problems', { params: { path: { id }, query: { limit: 200 } } }));

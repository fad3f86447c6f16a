// Workspace settings: index options, engines and optional models.
import { api, data, type Body, type Data } from './client.ts';

export type IndexOptionsView = Data<'/api/v1/index-options', 'get'>;
/** The workspace's index options as they are set (PUT /index-options): each stage on, off or with its values. */
export type IndexOptionsInput = Body<'/api/v1/index-options', 'put'>;
export type Engines = Data<'/api/v1/engines', 'get'>;
export type Models = Data<'/api/v1/models', 'get'>;
export type Keys = Data<'/api/v1/keys', 'get'>;
export type CreatedKey = Data<'/api/v1/keys', 'post'>;

export const getIndexOptions = () => data(api().GET('/api/v1/index-options'));
export const putIndexOptions = (options: IndexOptionsInput) => data(api().PUT('/api/v1/index-options', { body: options }));
export const getEngines = () => data(api().GET('/api/v1/engines'));
export const getModels = () => data(api().GET('/api/v1/models'));
export const getKeys = () => data(api().GET('/api/v1/keys'));
export const createKey = (body: Body<'/api/v1/keys', 'post'>) => data(api().POST('/api/v1/keys', { body }));
export const revokeKey = (id: string) => data(api().DELETE('/api/v1/keys/{id}', { params: { path: { id } } }));
export const importModel = (name: string, from: string) => data(api().POST('/api/v1/models/{name}/import', { params: { path: { name } }, body: { from } }));
export const pullModel = (name: string) => data(api().POST('/api/v1/models/{name}/pull', { params: { path: { name } } }));

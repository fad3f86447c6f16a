// People: list, detail and the owner's corrections.
import { api, data, type Body, type Data } from './client.ts';

export type Person = Data<'/api/v1/people/{id}', 'patch'>;
export type PersonDetail = Data<'/api/v1/people/{id}', 'get'>;
export type FaceSuggestion = Data<'/api/v1/people/suggestions', 'get'>['suggestions'][number];
export type Recluster = Data<'/api/v1/people/recluster', 'post'>;

const yesNo = (b: boolean) => (b ? 'true' : 'false');
export const listPeople = (includeHidden: boolean) => data(api().GET('/api/v1/people', { params: { query: { include_hidden: yesNo(includeHidden) } } }));
export const getPerson = (id: string) => data(api().GET('/api/v1/people/{id}', { params: { path: { id }, query: { limit: 200 } } }));
export const patchPerson = (id: string, body: Body<'/api/v1/people/{id}', 'patch'>) =>
  data(api().PATCH('/api/v1/people/{id}', { params: { path: { id } }, body }));
export const mergePerson = (id: string, into: string) => data(api().POST('/api/v1/people/{id}/merge', { params: { path: { id } }, body: { into } }));
export const removeFaces = (id: string, faceIds: string[], reject: boolean) =>
  data(api().POST('/api/v1/people/{id}/remove', { params: { path: { id } }, body: { face_ids: faceIds, reject } }));
export const suggestions = () => data(api().GET('/api/v1/people/suggestions'));
export const ownerSays = (id: string, faceIds: string[], notThem: boolean) =>
  data(api().POST('/api/v1/people/{id}/faces', { params: { path: { id } }, body: { face_ids: faceIds, not_them: notThem } }));
export const recluster = (dryRun: boolean) => data(api().POST('/api/v1/people/recluster', { params: { query: { dry_run: yesNo(dryRun) } } }));

// People: list, detail and the owner's corrections; the faces no person holds.
import { api, data, type Body, type Data } from './client.ts';

export type Person = Data<'/api/v1/people/{id}', 'patch'>;
export type PersonDetail = Data<'/api/v1/people/{id}', 'get'>;
export type PersonFace = PersonDetail['faces'][number];
export type FaceSuggestion = Data<'/api/v1/people/suggestions', 'get'>['suggestions'][number];
export type Recluster = Data<'/api/v1/people/recluster', 'post'>;
export type LooseFace = Data<'/api/v1/faces', 'get'>['faces'][number];

const yesNo = (b: boolean) => (b ? 'true' : 'false');
export const listPeople = (includeHidden: boolean) => data(api().GET('/api/v1/people', { params: { query: { include_hidden: yesNo(includeHidden) } } }));
export const getPerson = (id: string, page: { limit?: number; offset?: number; order?: 'best' | 'weakest' } = {}) =>
  data(
    api().GET('/api/v1/people/{id}', { params: { path: { id }, query: { limit: page.limit ?? 200, offset: page.offset ?? 0, order: page.order ?? 'best' } } }),
  );
export const patchPerson = (id: string, body: Body<'/api/v1/people/{id}', 'patch'>) =>
  data(api().PATCH('/api/v1/people/{id}', { params: { path: { id } }, body }));
export const mergePerson = (id: string, into: string) => data(api().POST('/api/v1/people/{id}/merge', { params: { path: { id } }, body: { into } }));
export const removeFaces = (id: string, faceIds: string[], reject: boolean) =>
  data(api().POST('/api/v1/people/{id}/remove', { params: { path: { id } }, body: { face_ids: faceIds, reject } }));
export const suggestions = (personId?: string) => data(api().GET('/api/v1/people/suggestions', { params: { query: personId ? { person_id: personId } : {} } }));
export const ownerSays = (id: string, faceIds: string[], notThem: boolean) =>
  data(api().POST('/api/v1/people/{id}/faces', { params: { path: { id } }, body: { face_ids: faceIds, not_them: notThem } }));
export const recluster = (dryRun: boolean) => data(api().POST('/api/v1/people/recluster', { params: { query: { dry_run: yesNo(dryRun) } } }));
export const createPerson = (name: string, faceIds: string[]) => data(api().POST('/api/v1/people', { body: { name, face_ids: faceIds } }));
export const looseFaces = (ignored: boolean, offset: number, limit = 200) =>
  data(api().GET('/api/v1/faces', { params: { query: { ignored: yesNo(ignored), offset, limit } } }));
export const ignoreFaces = (faceIds: string[], ignored: boolean, notAFace = false) =>
  data(api().POST('/api/v1/faces/ignore', { body: { face_ids: faceIds, ignored, not_a_face: notAFace } }));

// People: list, detail and the owner's corrections.
import type { z } from 'zod';
import type { Person, PersonDetail, ReclusterAck, Suggestion } from '../../../server/contract/people.ts';
import { api } from './client.ts';

export type { Person, PersonDetail };
export type FaceSuggestion = z.infer<typeof Suggestion>;
export type Recluster = z.infer<typeof ReclusterAck>;

const id = (s: string) => encodeURIComponent(s);
export const listPeople = (includeHidden: boolean) =>
  api<{ people: Person[]; total: number; regrouping: boolean }>('GET', `/people?include_hidden=${includeHidden}`);
export const getPerson = (pid: string) => api<PersonDetail>('GET', `/people/${id(pid)}?limit=200`);
export const patchPerson = (pid: string, body: { name?: string; hidden?: boolean; cover_face_id?: string }) => api<Person>('PATCH', `/people/${id(pid)}`, body);
export const mergePerson = (pid: string, into: string) => api<{ person: Person; merged: string[] }>('POST', `/people/${id(pid)}/merge`, { into });
export const removeFaces = (pid: string, faceIds: string[], reject: boolean) =>
  api<{ person: Person; removed: string[] }>('POST', `/people/${id(pid)}/remove`, { face_ids: faceIds, reject });
export const suggestions = () => api<{ suggestions: FaceSuggestion[] }>('GET', '/people/suggestions');
export const ownerSays = (pid: string, faceIds: string[], notThem: boolean) =>
  api<{ person: Person; faces: string[] }>('POST', `/people/${id(pid)}/faces`, { face_ids: faceIds, not_them: notThem });
export const recluster = (dryRun: boolean) => api<Recluster>('POST', `/people/recluster?dry_run=${dryRun}`);

// /people (SPEC 4.3). Bodies follow the general envelope.
import { defineRawRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import { sendFile } from '../send-file.ts';
import { IdParam } from '../../contract/common.ts';
import {
  MergeBody,
  OwnerFacesBody,
  OwnerFacesResult,
  SuggestionsView,
  MergeResult,
  PeopleList,
  PeopleQuery,
  Person,
  PersonDetail,
  PersonPatch,
  PersonQuery,
  ReclusterAck,
  ReclusterQuery,
  RemoveBody,
  RemoveResult,
  CreatePersonBody,
  LooseFacesQuery,
  LooseFacesView,
  IgnoreFacesBody,
  IgnoreFacesResult,
  FaceThumbnailQuery,
  SuggestionsQuery,
} from '../../contract/people.ts';
import type { Services } from '../../services/index.ts';
import { presenterFor } from '../present.ts';

const yes = (v: string | undefined) => v === 'true' || v === '1';

export function peopleRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/people/recluster',
      operationId: 'reclusterPeople',
      summary: 'Re-group waiting faces in the background (202); dry_run=true returns the plan and changes nothing',
      errors: [409],
      access: 'write',
      query: ReclusterQuery,
      response: ReclusterAck,
      status: 202,
      alsoStatus: [200],
      handler: async ({ auth, query, ctx }) => {
        const r = await s.people.recluster(auth.workspaceId, yes(query.dry_run));
        ctx.status = r.dry_run ? 200 : 202;
        return r;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/people',
      operationId: 'listPeople',
      summary: 'People of the workspace (hidden ones only with include_hidden=true)',
      access: 'read',
      query: PeopleQuery,
      response: PeopleList,
      links: {
        GetPerson: { to: 'get /people/:id', parameters: { id: '$response.body#/data/people/0/person_id' } },
        EditPerson: { to: 'patch /people/:id', parameters: { id: '$response.body#/data/people/0/person_id' } },
        MergePerson: { to: 'post /people/:id/merge', parameters: { id: '$response.body#/data/people/0/person_id' } },
        RemoveFaces: { to: 'post /people/:id/remove', parameters: { id: '$response.body#/data/people/0/person_id' } },
      },
      handler: ({ auth, query, ctx }) => {
        const { people, ...rest } = s.people.list(auth.workspaceId, yes(query.include_hidden));
        const present = presenterFor(s.signer, ctx);
        return { ...rest, people: people.map((p) => present.person(p)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/people/suggestions',
      operationId: 'listFaceSuggestions',
      summary:
        'Waiting faces that probably are someone already known ("Is this Anna?"), likeliest first, of everyone or of person_id; nothing moves until the owner answers (POST /people/{id}/faces)',
      access: 'read',
      query: SuggestionsQuery,
      response: SuggestionsView,
      handler: async ({ auth, query, ctx }) => {
        const present = presenterFor(s.signer, ctx);
        const list = await s.people.suggestions(auth.workspaceId, query.person_id);
        return { suggestions: list.map((x) => ({ face: present.face(x.face), person: present.person(x.person), similarity: x.similarity })) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/people',
      operationId: 'createPerson',
      summary: 'A named person made of faces the owner knows (any count, even one); two faces of one picture, or a name taken, answer 422',
      errors: [409],
      access: 'write',
      body: CreatePersonBody,
      example: { name: 'Ada Lovelace', face_ids: ['face_01jd5b2x4k8w9q'] },
      status: 201,
      response: Person,
      handler: ({ auth, body, ctx }) => presenterFor(s.signer, ctx).person(s.people.create(auth.workspaceId, body.name, body.face_ids)),
    }),
    defineRoute({
      method: 'get',
      path: '/faces',
      operationId: 'listLooseFaces',
      summary: 'Faces no person holds, best first: waiting to be grouped, or with ignored=true the ones the owner left out',
      access: 'read',
      query: LooseFacesQuery,
      response: LooseFacesView,
      handler: ({ auth, query, ctx }) => {
        const { faces, pagination } = s.people.looseFaces(auth.workspaceId, yes(query.ignored), query.limit, query.offset);
        const present = presenterFor(s.signer, ctx);
        return { faces: faces.map((f) => present.face(f)), pagination };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/faces/ignore',
      operationId: 'ignoreFaces',
      summary:
        'Leave waiting faces out of every grouping and suggestion (ignored=true), or take that back (false); not_a_face=true: they are no faces (not shown, not found as people; a face a person holds is taken off them, as not them)',
      errors: [409],
      access: 'write',
      body: IgnoreFacesBody,
      example: { face_ids: ['face_01jd5b2x4k8w9q'], ignored: true, not_a_face: true },
      response: IgnoreFacesResult,
      handler: ({ auth, body }) => s.people.ignore(auth.workspaceId, body.face_ids, body.ignored, body.not_a_face),
    }),
    defineRawRoute({
      method: 'get',
      path: '/faces/:id/thumbnail',
      operationId: 'getFaceThumbnail',
      summary: 'The face cut out of its picture with a margin, size px square (JPEG; signed URL from thumbnail_url, or an API key)',
      access: 'public',
      params: IdParam,
      query: FaceThumbnailQuery,
      // application/octet-stream on request (Accept), for clients that read other types as bytes only.
      produces: ['image/jpeg', 'application/octet-stream'],
      errors: [401],
      handler: async ({ params, query, ctx }) => {
        const file = await s.reads.faceThumbnail(params.id, Number(query.size), query, ctx.state.auth);
        // A face's crop never changes (a re-detected face has a new id).
        ctx.set('Cache-Control', 'private, max-age=31536000, immutable');
        await sendFile(ctx, file, ctx.accepts('image/jpeg', 'application/octet-stream') || 'image/jpeg');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/people/:id',
      operationId: 'getPerson',
      summary: 'A person with faces (paginated) and appearances; a merged id answers the target with requested_id',
      access: 'read',
      params: IdParam,
      query: PersonQuery,
      response: PersonDetail,
      handler: ({ auth, params, query, ctx }) =>
        presenterFor(s.signer, ctx).personDetail(s.people.detail(auth.workspaceId, params.id, query.limit, query.offset, query.order)),
    }),
    defineRoute({
      method: 'patch',
      path: '/people/:id',
      operationId: 'updatePerson',
      summary: 'Name ("" clears), hide or unhide, or pin the cover face',
      errors: [409],
      access: 'write',
      params: IdParam,
      body: PersonPatch,
      example: { name: 'Ada Lovelace' },
      response: Person,
      handler: ({ auth, params, body, ctx }) => presenterFor(s.signer, ctx).person(s.people.patch(auth.workspaceId, params.id, body)),
    }),
    defineRoute({
      method: 'post',
      path: '/people/:id/merge',
      operationId: 'mergePerson',
      summary: 'Merge this person into another',
      errors: [409],
      access: 'write',
      params: IdParam,
      body: MergeBody,
      example: { into: 'person_01jd5b2x4k8w9q' },
      response: MergeResult,
      handler: ({ auth, params, body, ctx }) => {
        const { person, ...rest } = s.people.merge(auth.workspaceId, params.id, body.into);
        return { ...rest, person: presenterFor(s.signer, ctx).person(person) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/people/:id/faces',
      operationId: 'assignFaces',
      summary: 'The owner says these faces are this person (moved here from wherever they were), or with not_them=true that they are not, ever',
      access: 'write',
      errors: [409],
      params: IdParam,
      body: OwnerFacesBody,
      example: { face_ids: ['face_01jd5b2x4k8w9q'], not_them: false },
      response: OwnerFacesResult,
      handler: ({ auth, params, body, ctx }) => {
        const { person, ...rest } = s.people.ownerSays(auth.workspaceId, params.id, body.face_ids, body.not_them);
        return { ...rest, person: presenterFor(s.signer, ctx).person(person) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/people/:id/remove',
      operationId: 'removeFaces',
      summary: 'Take faces off a person: reject=true means not them, ever; false splits them out',
      errors: [409],
      access: 'write',
      params: IdParam,
      body: RemoveBody,
      example: { face_ids: ['face_01jd5b2x4k8w9q'], reject: true },
      response: RemoveResult,
      handler: ({ auth, params, body, ctx }) => {
        const { person, ...rest } = s.people.remove(auth.workspaceId, params.id, body.face_ids, body.reject);
        return { ...rest, person: presenterFor(s.signer, ctx).person(person) };
      },
    }),
  ];
}

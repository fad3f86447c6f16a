// People (SPEC 2.6, 3.2, 4.3).
import { z } from 'zod';
import { Box, Pagination } from './common.ts';

export const PERSON_STATUSES = ['unverified', 'named', 'hidden'] as const;

export const Person = z.object({
  person_id: z.string(),
  name: z.string(),
  status: z.enum(PERSON_STATUSES),
  face_count: z.number().int(),
  cover_face_id: z.string().nullable(),
  merged_into: z.string().nullable(),
  /** The cover face and the picture it is on (for a grid of people): not in the spec. */
  cover: z
    .object({
      face_id: z.string(),
      video_id: z.string(),
      timestamp: z.number(),
      box: Box,
      frame_url: z.string().nullable(),
      /** The face cut out of it (GET /faces/{id}/thumbnail, signed; `size` may be changed). */
      thumbnail_url: z.string(),
    })
    .nullable(),
});
export type Person = z.infer<typeof Person>;

export const PeopleList = z.object({
  people: z.array(Person),
  total: z.number().int(),
  /** A re-cluster is running (edits answer 409 busy until it ends): not in the spec. */
  regrouping: z.boolean(),
});

export const PersonFace = z.object({
  face_id: z.string(),
  video_id: z.string(),
  asset_kind: z.enum(['video', 'image', 'document']),
  timestamp: z.number(),
  page: z.number().int().nullable(),
  box: Box,
  quality: z.number(),
  good: z.boolean(),
  assigned_by: z.enum(['cluster', 'match', 'owner']),
  /** The picture the face is on (crop it with `box`): not in the spec. */
  frame_url: z.string().nullable(),
  /** The face cut out of it (GET /faces/{id}/thumbnail, signed; `size` may be changed): not in the spec. */
  thumbnail_url: z.string(),
});

export const Appearance = z.object({
  video_id: z.string(),
  asset_kind: z.enum(['video', 'image', 'document']),
  /** Not in the spec: the asset's file name, for display. */
  file_name: z.string(),
  face_count: z.number().int(),
  first_timestamp: z.number(),
  first_page: z.number().int().nullable(),
});

export const PersonDetail = Person.extend({
  requested_id: z.string().optional(),
  faces: z.array(PersonFace),
  faces_pagination: Pagination,
  appearances: z.array(Appearance),
});
export type PersonDetail = z.infer<typeof PersonDetail>;

export const PeopleQuery = z.object({ include_hidden: z.enum(['true', 'false', '1', '0']).optional() }).strict();
export const PersonQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).default(0),
    /** best: good and sharp faces first (default); weakest: the likeliest mistakes first, for review. */
    order: z.enum(['best', 'weakest']).default('best'),
  })
  .strict();

/** A person made by the owner from faces they know (any count, even one). */
export const CreatePersonBody = z.object({ name: z.string().trim().min(1).max(200), face_ids: z.array(z.string().min(1).max(100)).min(1).max(500) }).strict();

export const PersonPatch = z
  .object({ name: z.string().trim().max(200).optional(), hidden: z.boolean().optional(), cover_face_id: z.string().min(1).max(100).optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'give name, hidden or cover_face_id' });

export const MergeBody = z.object({ into: z.string().min(1).max(100) }).strict();
export const MergeResult = z.object({ person: Person, merged: z.array(z.string()) });

export const RemoveBody = z.object({ face_ids: z.array(z.string().min(1).max(100)).min(1).max(500), reject: z.boolean().default(false) }).strict();
export const RemoveResult = z.object({ person: Person, removed: z.array(z.string()), rejected: z.boolean() });

/** Where a face sits: its asset, moment, box and picture. */
export const FaceSpot = Person.shape.cover.unwrap();

/** A waiting face that probably is an existing person ("Is this Anna?"), for the owner to answer. */
export const Suggestion = z.object({ face: FaceSpot, person: Person, similarity: z.number() });
export const SuggestionsView = z.object({ suggestions: z.array(Suggestion) });
export const SuggestionsQuery = z.object({ person_id: z.string().min(1).max(100).optional() }).strict();

/** A face no person holds: waiting to be grouped, or left out by the owner (`ignored`). */
export const LooseFace = PersonFace.omit({ assigned_by: true }).extend({
  /** Smaller than a face that may decide who someone is (48 px). */
  small: z.boolean(),
  /** Blurred (sharpness under a third of a sharp face's). */
  blurred: z.boolean(),
  ignored: z.boolean(),
  /** The owner said it is no face (an ignored face): not shown on its picture, not found as a person. */
  not_a_face: z.boolean(),
});
export const LooseFacesQuery = z
  .object({
    /** true: the faces the owner ignored; false (default): the ones waiting to be grouped. */
    ignored: z.enum(['true', 'false', '1', '0']).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();
export const LooseFacesView = z.object({ faces: z.array(LooseFace), pagination: Pagination });

/**
 * Leave faces out of every grouping and suggestion (`ignored: true`), or take that back. With
 * `not_a_face: true` (and `ignored: true`) they are no faces: no longer shown on their pictures,
 * found by search as people, or counted as people in their labels; taken back with `ignored: false`.
 */
export const IgnoreFacesBody = z
  .object({
    face_ids: z.array(z.string().min(1).max(100)).min(1).max(500),
    ignored: z.boolean().default(true),
    not_a_face: z.boolean().default(false),
  })
  .strict()
  .refine((b) => b.ignored || !b.not_a_face, { message: 'not_a_face is said of faces ignored: send ignored true with it', path: ['not_a_face'] });
export const IgnoreFacesResult = z.object({ faces: z.array(z.string()), ignored: z.boolean(), not_a_face: z.boolean() });

export const FaceThumbnailQuery = z
  .object({ size: z.enum(['64', '128', '256']).default('128'), exp: z.string().max(20).optional(), sig: z.string().max(100).optional() })
  .strict();

/** The owner says these faces are this person, or (`not_them`) are not, ever. */
export const OwnerFacesBody = z.object({ face_ids: z.array(z.string().min(1).max(100)).min(1).max(500), not_them: z.boolean().default(false) }).strict();
export const OwnerFacesResult = z.object({ person: Person, faces: z.array(z.string()), not_them: z.boolean() });

export const ReclusterQuery = z.object({ dry_run: z.enum(['true', 'false', '1', '0']).optional() }).strict();
export const ReclusterPlan = z.object({
  joins: z.array(z.object({ face_id: z.string(), person_id: z.string(), similarity: z.number() })),
  new_people: z.array(z.object({ face_ids: z.array(z.string()), cohesion: z.number() })),
  /** Waiting faces that probably are an existing person: asked of the owner, never applied. */
  suggestions: z.array(z.object({ face_id: z.string(), person_id: z.string(), similarity: z.number() })),
  merges: z.array(z.never()),
  waiting: z.number().int(),
});
export const ReclusterAck = z.object({ status: z.enum(['started', 'completed']), dry_run: z.boolean(), plan: ReclusterPlan.optional() });

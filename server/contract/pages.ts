// Pages and regions (SPEC 2.4, 2.5, 4.2).
import { z } from 'zod';
import { Box } from './common.ts';

export const Passage = z.object({ idx: z.number().int(), text: z.string(), bbox: Box });

export const ObjectRegion = Box.extend({
  region_id: z.string(),
  label: z.string(),
  confidence: z.number().nullable(),
  source: z.string(),
});

export const FaceRegion = Box.extend({
  face_id: z.string(),
  quality: z.number().nullable(),
  confidence: z.number().nullable(),
  person_id: z.string().nullable(),
});

export const TextRegion = Box.extend({
  region_id: z.string(),
  text: z.string(),
  confidence: z.number().nullable(),
  source: z.string(),
});

export const Regions = z.object({
  objects: z.array(ObjectRegion),
  faces: z.array(FaceRegion),
  text: z.array(TextRegion),
});
export type Regions = z.infer<typeof Regions>;

export const PageView = z.object({
  video_id: z.string(),
  page: z.number().int(),
  page_count: z.number().int(),
  timestamp: z.number(),
  frame_url: z.string().nullable(),
  width: z.number(),
  height: z.number(),
  text: z.string(),
  text_source: z.enum(['text_layer', 'text', 'ocr', 'none']),
  needs_ocr: z.boolean(),
  passages: z.array(Passage),
  regions: Regions,
});
export type PageView = z.infer<typeof PageView>;

export const PageParams = z.object({ id: z.string().min(1).max(100), page: z.coerce.number().int().min(1).max(1_000_000) });

export const RegionsQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(1_000_000).optional(),
    timestamp: z.coerce.number().min(0).max(1e7).optional(),
  })
  .strict()
  .refine((q) => q.page === undefined || q.timestamp === undefined, { message: 'give page or timestamp, not both' });

export const RegionsView = Regions.extend({
  video_id: z.string(),
  kind: z.enum(['video', 'image', 'document']),
  page: z.number().int().nullable(),
  timestamp: z.number().nullable(),
  frame_url: z.string().nullable(),
  /** Present when neither page nor timestamp was given: where each region sits. */
  at: z.array(z.object({ region_id: z.string(), timestamp: z.number(), page: z.number().int().nullable() })).optional(),
});
export type RegionsView = z.infer<typeof RegionsView>;

export const FrameParams = z.object({
  id: z.string().min(1).max(100),
  name: z.string().regex(/^((p\d{5}|k\d{5}|thumb|frame)\.jpg|original|playable\.mp4)$/, 'not a frame name'),
});
export const FrameQuery = z.object({ exp: z.string().max(20).optional(), sig: z.string().max(100).optional() }).strict();

/** A video's timed transcript and who spoke when (not in the spec: `GET /videos/{id}/transcript`). */
export const TranscriptView = z.object({
  video_id: z.string(),
  /** The language transcribed (the stage's `language`, or the one heard with `auto`); null before a transcript. */
  language: z.string().nullable(),
  segments: z.array(z.object({ start_s: z.number(), end_s: z.number(), text: z.string(), speaker: z.string().nullable() })),
  /** Who spoke when: each turn's label (the owner's name for the voice, else "Speaker N") and the voice's number N (PUT /videos/{id}/speakers/{N}). */
  turns: z.array(z.object({ speaker: z.string(), number: z.number().int(), start_s: z.number(), end_s: z.number() })),
});
export type TranscriptView = z.infer<typeof TranscriptView>;

/** A speaker of a video, by the number the speakers stage gave the voice ("Speaker 2" is 2). */
export const SpeakerParams = z.object({ id: z.string().min(1).max(100), speaker: z.coerce.number().int().min(1).max(1000) });
/** The owner's name for the voice; null takes the name away. */
export const SpeakerNameBody = z.object({ name: z.string().trim().min(1).max(200).nullable() }).strict();
export const SpeakerNamed = z.object({
  video_id: z.string(),
  speaker: z.number().int(),
  name: z.string().nullable(),
  /** How the transcript now labels the voice: the name, else "Speaker N". */
  label: z.string(),
  /** The voice's turns, each now findable by the name (typed search `character`). */
  turns: z.number().int(),
});

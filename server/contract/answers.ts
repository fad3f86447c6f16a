// Recall (SPEC 4.6) and chat (SPEC 4.7).
import { z } from 'zod';
import { Box } from './common.ts';
import { MODALITIES } from './search.ts';

export const RecallRequest = z.object({ query: z.string().trim().min(1).max(1000) }).strict();
export const RecallParams = z.object({ video_id: z.string().min(1).max(100) });

export const Evidence = z.object({
  n: z.number().int(),
  video_id: z.string(),
  asset_kind: z.enum(['video', 'image', 'document']),
  file_name: z.string(),
  timestamp: z.number(),
  page: z.number().int().nullable(),
  snippet: z.string(),
  modality: z.enum(MODALITIES),
  score: z.number(),
  frame_url: z.string().nullable(),
  region: Box.extend({ label: z.string(), source: z.string() }).nullable(),
});
export type Evidence = z.infer<typeof Evidence>;

export const RecallResponse = z.object({
  video_id: z.string(),
  query: z.string(),
  answer: z.string(),
  /** `found` when the answer rests on evidence; `none` when the index holds none. */
  evidence: z.enum(['found', 'none']),
  question_type: z.enum(['who', 'when', 'where', 'how_many', 'what']),
  moments: z.array(Evidence),
  /** Who wrote the answer: `generative` when a local language model is installed (docs/answers.md), else `extractive`. */
  composer: z.enum(['extractive', 'generative']),
});

export const ChatRequest = z
  .object({
    query: z.string().trim().min(1).max(2000),
    video_ids: z.array(z.string().min(1).max(100)).min(1).max(50).optional(),
    max_tokens: z.number().int().min(8).max(4096).default(256),
  })
  .strict();

export const ChatResponse = RecallResponse.omit({ video_id: true, moments: true }).extend({
  citations: z.array(Evidence),
  /** The answer reached max_tokens. */
  truncated: z.boolean(),
  /** The client stopped a streamed answer (POST /chat/stream) before it was finished. */
  stopped: z.boolean(),
});

// GET/PUT /index-options (SPEC 2.8, 4.4) and GET /engines (SPEC 2.9).
import { z } from 'zod';
import { EffectiveOptionsSchema, IndexOptionsInput, STAGE_NAMES } from './stages.ts';

export const StageCatalogueEntry = z.object({
  name: z.enum(STAGE_NAMES),
  description: z.string(),
  default: z.boolean(),
  available: z.boolean(),
  availability_reason: z.string().nullable(),
  values: z.record(z.string(), z.unknown()),
});

export const IndexOptionsView = z.object({
  stages: z.array(StageCatalogueEntry),
  workspace: IndexOptionsInput,
  effective: EffectiveOptionsSchema,
});
export type IndexOptionsView = z.infer<typeof IndexOptionsView>;

export const ENGINE_NAMES = ['arrow', 'classic', 'lite', 'pro', 'max', 'gen1_lite', 'gen1_pro', 'gen1_max'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export const Engine = z.object({
  name: z.enum(ENGINE_NAMES),
  status: z.enum(['current', 'deprecated']),
  is_default: z.boolean(),
});

export const EnginesView = z.object({ engines: z.array(Engine), default: z.enum(['arrow', 'classic']) });

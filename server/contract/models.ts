// GET /models: the optional models of models/manifest.json and whether each is installed.
import { z } from 'zod';

export const ModelView = z.object({
  name: z.string(),
  stage: z.string(),
  task: z.string(),
  source: z.string(),
  licence: z.string(),
  description: z.string(),
  downloadable: z.boolean(),
  installed: z.boolean(),
  size_bytes: z.number().int(),
  missing: z.array(z.string()),
});

export const ModelsView = z.object({
  models: z.array(ModelView),
  provider: z.enum(['cuda', 'dml', 'coreml', 'cpu']),
  models_dir_set: z.boolean(),
});

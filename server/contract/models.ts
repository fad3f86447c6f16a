// GET /models: the optional models of models/manifest.json and whether each is installed.
import { z } from 'zod';

export const ModelView = z.object({
  name: z.string(),
  stage: z.string(),
  task: z.string(),
  source: z.string(),
  licence: z.string(),
  description: z.string(),
  /** The files can be fetched (from the hub repository, or a mirror of it). */
  downloadable: z.boolean(),
  /** Every file's sha256 is written in this build; otherwise each is checked against the hub's published checksum. */
  pinned: z.boolean(),
  installed: z.boolean(),
  /** The build installed: `pinned` (matches this build's checksums), `hub` (checked against the hub's), `imported` (from a folder); null when not installed. */
  build: z.enum(['pinned', 'hub', 'imported']).nullable(),
  /** The repository commit installed from, when known. */
  revision: z.string().nullable(),
  size_bytes: z.number().int(),
  missing: z.array(z.string()),
  /** A download or an import started from the app (POST /models/{name}/pull or /import), or null. */
  pull: z
    .object({ state: z.enum(['downloading', 'importing', 'installed', 'failed']), received: z.number(), total: z.number(), error: z.string().nullable() })
    .nullable(),
});

export const ModelParams = z.object({ name: z.string().min(1).max(100) });
export const ImportRequest = z.object({ from: z.string().min(1).max(4096) }).strict();
export const PullAck = z.object({
  name: z.string(),
  state: z.enum(['downloading', 'importing', 'installed', 'failed']),
  received: z.number(),
  total: z.number(),
  error: z.string().nullable(),
});

export const ModelsView = z.object({
  models: z.array(ModelView),
  provider: z.enum(['cuda', 'dml', 'coreml', 'cpu']),
  models_dir_set: z.boolean(),
});

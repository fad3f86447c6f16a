// The index stages of SPEC 2.7, written once: names, defaults, value schemas and descriptions.
// Upload validation, PUT /index-options, GET /index-options and the indexer all read this file.
import { z } from 'zod';

export const STAGE_NAMES = ['transcript', 'captions', 'speakers', 'sounds', 'labels', 'ocr', 'faces', 'objects', 'people', 'music'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export const OCR_LANGUAGES = ['en', 'hi'] as const;
export const MAX_VOCABULARY = 40;

const fps = z.number().positive().max(30);
const confidence = z.number().min(0).max(1);

interface StageSpec<V extends z.ZodRawShape> {
  description: string;
  enabledByDefault: boolean;
  values: V;
  defaults: { [K in keyof V]?: z.infer<V[K]> };
  /** Checks across values, after layers are merged; returns problems as messages. */
  check?: (values: { [K in keyof V]?: z.infer<V[K]> }) => string[];
}

function spec<V extends z.ZodRawShape>(s: StageSpec<V>): StageSpec<V> {
  return s;
}

export const STAGE_SPECS = {
  transcript: spec({
    description: 'Timed transcript of the speech in a video.',
    enabledByDefault: true,
    values: { language: z.string().regex(/^(auto|[a-z]{2})$/, 'use "auto" or a two-letter ISO 639-1 code') },
    defaults: { language: 'auto' },
  }),
  captions: spec({
    description: 'A description per shot (and per picture page) and a summary.',
    enabledByDefault: true,
    values: {},
    defaults: {},
  }),
  speakers: spec({
    description: 'Who spoke when; the speaker on each transcript segment.',
    enabledByDefault: true,
    values: {
      min_speakers: z.number().int().min(1).max(32),
      max_speakers: z.number().int().min(1).max(32),
    },
    defaults: {},
    check: (v) =>
      v.min_speakers !== undefined && v.max_speakers !== undefined && v.min_speakers > v.max_speakers ? ['min_speakers must not exceed max_speakers'] : [],
  }),
  sounds: spec({
    description: 'Sound events (AudioSet labels).',
    enabledByDefault: true,
    values: { min_confidence: confidence },
    defaults: { min_confidence: 0.25 },
  }),
  labels: spec({
    description: 'Scene labels per frame.',
    enabledByDefault: true,
    values: { min_confidence: confidence, top_k: z.number().int().min(1).max(50) },
    defaults: { min_confidence: 0.5, top_k: 5 },
  }),
  ocr: spec({
    description: 'On-screen and on-page text with boxes; fills the text of scanned pages.',
    enabledByDefault: true,
    values: {
      fps,
      languages: z.array(z.enum(OCR_LANGUAGES)).min(1).max(OCR_LANGUAGES.length),
    },
    defaults: { fps: 0.5, languages: ['en'] },
  }),
  faces: spec({
    description: 'Faces with boxes, a 1024-d embedding and a quality score.',
    enabledByDefault: true,
    values: { fps, min_face_px: z.number().int().min(8).max(4096) },
    defaults: { fps: 1, min_face_px: 32 },
  }),
  objects: spec({
    description: 'Object boxes on photos and picture pages: a closed-set detector plus open-vocabulary phrases.',
    enabledByDefault: true,
    values: {
      min_confidence: confidence,
      max_regions: z.number().int().min(1).max(500),
      vocabulary: z.array(z.string().trim().min(1).max(100)).max(MAX_VOCABULARY),
    },
    defaults: { min_confidence: 0.45, max_regions: 50, vocabulary: [] },
  }),
  people: spec({
    description: 'Faces grouped into workspace People; needs faces.',
    enabledByDefault: true,
    values: {},
    defaults: {},
  }),
  music: spec({
    description: 'Music recognition; unavailable on this deployment.',
    enabledByDefault: false,
    values: {},
    defaults: {},
  }),
} satisfies Record<StageName, StageSpec<z.ZodRawShape>>;

/** The values of one stage as a run receives them (each may be absent). */
export type StageValues<K extends StageName> = {
  [V in keyof (typeof STAGE_SPECS)[K]['values']]?: z.infer<(typeof STAGE_SPECS)[K]['values'][V]>;
};

/** What one layer (upload or workspace) may say about one stage: on/off, or values (which turn it on). */
function stageSettingSchema(name: StageName) {
  const values = z
    .object({ enabled: z.boolean().optional(), ...STAGE_SPECS[name].values })
    .partial()
    .strict();
  return z.union([z.boolean(), values]);
}

const layerShape = Object.fromEntries(STAGE_NAMES.map((n) => [n, stageSettingSchema(n).optional()])) as {
  [K in StageName]: z.ZodOptional<ReturnType<typeof stageSettingSchema>>;
};

/** Index options as a caller gives them: any subset of stages, each `true`, `false` or an object. */
export const IndexOptionsInput = z.object(layerShape).strict();
export type IndexOptionsInput = z.infer<typeof IndexOptionsInput>;

export type EffectiveStage = { enabled: boolean } & Record<string, unknown>;
/** The options a run uses: every stage with `enabled` and all its values filled in. */
export type EffectiveOptions = Record<StageName, EffectiveStage>;

// Object.fromEntries loses the keys: the object has exactly one schema per stage name.
export const EffectiveOptionsSchema = z.object(
  Object.fromEntries(
    STAGE_NAMES.map((n) => [
      n,
      z
        .object({ enabled: z.boolean(), ...STAGE_SPECS[n].values })
        .partial()
        .required({ enabled: true }),
    ]),
  ) as unknown as Record<StageName, z.ZodType>,
);

export function deploymentDefaults(): EffectiveOptions {
  return Object.fromEntries(
    STAGE_NAMES.map((n) => [n, { enabled: STAGE_SPECS[n].enabledByDefault, ...structuredClone(STAGE_SPECS[n].defaults) }]),
  ) as EffectiveOptions;
}

/** Applies a layer of settings to options of the caller's own (changed in place, and returned). */
function applyLayer(out: EffectiveOptions, layer: IndexOptionsInput): EffectiveOptions {
  for (const name of STAGE_NAMES) {
    const setting = layer[name];
    if (setting === undefined) continue;
    if (typeof setting === 'boolean') {
      out[name].enabled = setting;
    } else {
      const { enabled, ...values } = setting as { enabled?: boolean } & Record<string, unknown>;
      // Giving values means "run with these", unless the object says enabled: false.
      out[name] = { ...out[name], ...values, enabled: enabled ?? true };
    }
  }
  return out;
}

export interface OptionProblem {
  path: string;
  message: string;
}

/** Merges layers (deployment < workspace < upload) and checks rules that span values or stages. */
export function resolveOptions(workspace: IndexOptionsInput, upload: IndexOptionsInput = {}): { effective: EffectiveOptions; problems: OptionProblem[] } {
  const effective = applyLayer(applyLayer(deploymentDefaults(), workspace), upload);
  const problems: OptionProblem[] = [];
  for (const name of STAGE_NAMES) {
    const s = STAGE_SPECS[name] as StageSpec<z.ZodRawShape>;
    for (const message of s.check?.(effective[name] as never) ?? []) problems.push({ path: name, message });
  }
  if (effective.people.enabled && !effective.faces.enabled) {
    problems.push({ path: 'people', message: 'people needs faces; turn people off too, or keep faces on' });
  }
  return { effective, problems };
}

/** Catalogue entry values, described as JSON Schema with their defaults. */
export function describeValues(name: StageName): Record<string, unknown> {
  const s = STAGE_SPECS[name] as StageSpec<z.ZodRawShape>;
  return Object.fromEntries(
    Object.entries(s.values).map(([key, schema]) => {
      const json = z.toJSONSchema(schema as z.ZodType) as Record<string, unknown>;
      delete json.$schema;
      const def = (s.defaults as Record<string, unknown>)[key];
      return [key, def === undefined ? json : { ...json, default: def }];
    }),
  );
}

/**
 * Failures another try ends the same way: the file itself stops the stage (damaged, locked by a
 * password, past a limit, of a kind or without the stream the stage reads) or this deployment has
 * no such stage. A file that changes is read again by itself; a limit raised in the settings needs
 * `POST /index/retry` with `all`.
 */
export const LASTING_FAILURE_CODES = [
  'corrupt',
  'encrypted',
  'too_large',
  'too_long',
  'too_many_pages',
  'unsupported',
  'no_video_stream',
  'no_page',
  'no_preview',
  'unavailable',
] as const;

/**
 * Why a stage run failed, stored with it (`stage_runs.code`) and written first in its reason
 * (`code: message`, shown in `index.report`). Work that waits for a model is `model_not_installed`.
 * Besides the lasting failures, those another try may clear: the disk was full, the file was
 * offline or changed, a process crashed, a run took too long, a decoder was missing.
 */
export const STAGE_FAILURE_CODES = [
  ...LASTING_FAILURE_CODES,
  'decoder_missing',
  'no_space',
  'file_missing',
  'file_changed',
  'model_not_installed',
  'timeout',
  'indexer_crashed',
  'dependency_failed',
  'save_failed',
  'unknown_stage',
  'error',
] as const;
export type StageFailureCode = (typeof STAGE_FAILURE_CODES)[number];

/** A failed run's reason without the code it starts with ("encrypted: the PDF needs a password to open" reads "the PDF needs a password to open"). */
export const reasonWithoutCode = (code: string | null, reason: string | null): string | null =>
  reason && code && reason.startsWith(`${code}: `) ? reason.slice(code.length + 2) : reason;

/** Whether a failed run may end otherwise when tried again (a run failed without a code may). */
export const mayClearOnRetry = (code: string | null): boolean => !(LASTING_FAILURE_CODES as readonly string[]).includes(code ?? '');

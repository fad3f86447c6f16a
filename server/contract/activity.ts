// What indexing is doing for a workspace: one indicator in the app's top bar (not in the spec).
import { z } from 'zod';

export const IndexActivity = z.object({
  /** The owner paused this workspace's indexing (POST /index/pause); kept across restarts. */
  paused: z.boolean(),
  /** Assets the workspace owns, and those finished (every stage ended, failed ones included). */
  assets: z.object({ total: z.number().int(), done: z.number().int(), processing: z.number().int() }),
  /** Stage runs waiting or running, by stage. */
  stages: z.array(z.object({ stage: z.string(), pending: z.number().int(), running: z.number().int() })),
  /**
   * The workspace's runs going now in an indexer process (not the short ones a process takes
   * several at a time), with how far each has got where its stage tells: a document's pages read,
   * a video's seconds looked at; `progress` is null until the run first says.
   */
  running: z.array(
    z.object({
      video_id: z.string(),
      file_name: z.string(),
      stage: z.string(),
      progress: z.object({ done: z.number(), total: z.number(), unit: z.enum(['pages', 'seconds', 'passages', 'shots']) }).nullable(),
    }),
  ),
  /** Assets with a stage that waits for an optional model (`media-index models pull`); not failures. */
  waiting_for_models: z.number().int(),
  /** Runs that failed (not those waiting for a model): how many, and the newest 50 with why. */
  failed: z.object({
    count: z.number().int(),
    items: z.array(
      z.object({ video_id: z.string(), file_name: z.string(), stage: z.string(), reason: z.string().nullable(), finished_at: z.string().nullable() }),
    ),
    /** Assets with a failed run: what the owner has to look at (one encrypted PDF is one, whatever its later stages). */
    assets: z.number().int(),
    /** Of those, the assets with a failure another try may clear: what `POST /index/retry` runs again. */
    retryable: z.number().int(),
    /**
     * The newest 50 of those assets: the runs that failed of themselves (`causes`, with why) and the
     * stages that did not run because an earlier one failed (`not_run`, code `dependency_failed`).
     */
    files: z.array(
      z.object({
        video_id: z.string(),
        file_name: z.string(),
        finished_at: z.string().nullable(),
        /** `retryable`: another try may end otherwise (contract/stages.ts, LASTING_FAILURE_CODES). */
        causes: z.array(z.object({ stage: z.string(), code: z.string().nullable(), reason: z.string().nullable(), retryable: z.boolean() })),
        not_run: z.array(z.string()),
      }),
    ),
  }),
});
export type IndexActivity = z.infer<typeof IndexActivity>;

export const PauseAck = z.object({ paused: z.boolean() });
/** `all`: also the runs whose failure another try ends the same way (a limit raised since, say). */
export const RetryRequest = z.object({ all: z.boolean().default(false) }).strict();
/** `left`: assets with a failure left as it is (not retried: the file itself stops the stage). */
export const RetryAck = z.object({ requeued: z.number().int(), video_ids: z.array(z.string()), left: z.number().int() });

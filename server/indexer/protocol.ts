// Messages between the indexer host (the one writer) and an indexer process.
import type { IndexStageName, RunProgress, StageAsset, StageOptions, StageOutcome } from './stage.ts';

export interface RunRequest {
  type: 'run';
  jobId: number;
  stage: IndexStageName;
  asset: StageAsset;
  options: StageOptions<IndexStageName>;
  dataDir: string;
  assetDir: string;
  input: unknown;
}

/** Several runs in one message (light runs handed out together); each answered on its own. */
export interface RunsRequest {
  type: 'runs';
  runs: RunRequest[];
}

/** Loads these stages' runs ahead of the work the host knows is coming (the command line's `index`). */
export interface WarmRequest {
  type: 'warm';
  stages: IndexStageName[];
}

/**
 * `rss`: the process's resident memory in bytes as it answers (the host places runs by it: memory.ts).
 * `progress`: how far a run still going has got.
 */
export type WorkerMessage =
  { type: 'ready' } | { type: 'done'; jobId: number; outcome: StageOutcome; rss?: number } | ({ type: 'progress'; jobId: number } & RunProgress);

/** One indexer process, whatever starts it (child_process.fork headless, utilityProcess in the shell). */
export interface WorkerChannel {
  readonly pid: number | undefined;
  send(msg: RunRequest | RunsRequest | WarmRequest): void;
  onMessage(fn: (msg: WorkerMessage) => void): void;
  onExit(fn: (code: number | null) => void): void;
  kill(): void;
}

export type WorkerLauncher = () => WorkerChannel;

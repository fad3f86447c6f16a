// Installing an optional model from the app: `POST /models/{name}/pull` starts the same verified,
// resumable download as `media-index models pull` (from the manifest's repository or a mirror),
// in the background; `GET /models` shows its progress. When it is in place, stages that waited for
// it run again on the assets that missed it. Nothing is ever downloaded without this request.
import { ModelError, isDownloadable, modelEntry, modelsCatalogue } from '../ml/models.ts';
import { env } from '../config.ts';
import { pullModel, type PullProgress } from '../ml/model-download.ts';
import { importModel } from '../ml/model-import.ts';
import fs from 'node:fs';
import path from 'node:path';
import { AppError, Errors } from '../errors.ts';

export interface PullState {
  state: 'downloading' | 'importing' | 'installed' | 'failed';
  received: number;
  total: number;
  error: string | null;
}

export class ModelPulls {
  private readonly pulls = new Map<string, PullState>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly dataDir: string,
    private readonly installed: (name: string) => void,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  state(name: string): PullState | null {
    return this.pulls.get(name) ?? null;
  }

  /** Every optional model with its state (and the download or import under way), and the execution provider. */
  catalogue() {
    const { models, provider } = modelsCatalogue(this.dataDir);
    return { models: models.map((m) => ({ ...m, pull: this.state(m.name) })), provider, models_dir_set: env.modelsDir !== undefined };
  }

  start(name: string): { name: string } & PullState {
    const m = modelEntry(name);
    if (!m) throw Errors.notFound('Model');
    if (!isDownloadable(m)) throw new AppError('model_not_downloadable', 422, `${name} lists no files to download in this build.`);
    if (this.running.has(name)) return { name, ...(this.pulls.get(name) as PullState) };
    const total = m.files.reduce((n, f) => n + (f.size ?? 0), 0);
    const s: PullState = { state: 'downloading', received: 0, total, error: null };
    this.pulls.set(name, s);
    const job = pullModel(this.dataDir, m, {
      onProgress: (p: PullProgress) => {
        s.received = p.received;
        s.total = p.total;
      },
    })
      .then(() => {
        s.state = 'installed';
        s.received = s.total;
        this.log(`model ${name} installed`);
        this.installed(name);
      })
      .catch((err: unknown) => {
        s.state = 'failed';
        s.error = err instanceof ModelError || err instanceof Error ? err.message : String(err);
        this.log(`model ${name} failed to download: ${s.error}`);
      })
      .finally(() => this.running.delete(name));
    this.running.set(name, job);
    return { name, ...s };
  }

  /**
   * Installs from a folder or a file on this machine (`POST /models/{name}/import`), in the
   * background like a download; a refused import leaves the installed model as it was.
   */
  startImport(name: string, from: string): { name: string } & PullState {
    const m = modelEntry(name);
    if (!m) throw Errors.notFound('Model');
    if (!path.isAbsolute(from)) throw Errors.invalidRequest([{ path: 'from', message: 'an absolute path on this machine' }]);
    if (!fs.existsSync(from)) throw Errors.invalidRequest([{ path: 'from', message: `${from} does not exist` }]);
    if (this.running.has(name)) throw new AppError('busy', 409, `${name} is being installed; wait for it to finish.`);
    const s: PullState = { state: 'importing', received: 0, total: 0, error: null };
    this.pulls.set(name, s);
    const job = importModel(this.dataDir, m, from)
      .then(() => {
        s.state = 'installed';
        this.log(`model ${name} imported from ${from}`);
        this.installed(name);
      })
      .catch((err: unknown) => {
        s.state = 'failed';
        s.error = err instanceof Error ? err.message : String(err);
        this.log(`model ${name} not imported: ${s.error}`);
      })
      .finally(() => this.running.delete(name));
    this.running.set(name, job);
    return { name, ...s };
  }

  /** Resolves when no download is running (shutdown, tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }
}

// The service's side of the file-system thread (fs.worker.ts): numbers the jobs, hands each batch of
// reports to the caller one turn of the event loop at a time (a thread that walks faster than the
// database records must not keep requests waiting), in the order they came, and acknowledges it.
import type { Worker } from 'node:worker_threads';
import { startThread } from '../thread.ts';
import { entryModule } from '../paths.ts';
import type { FileReport, FsJob, FsMessage, FsThreadData, WorkRequest } from './protocol.ts';

type Done = Extract<FsMessage, { type: 'done' }>;

/** A job as asked for, before it gets its number. */
type Request<T extends WorkRequest['type']> = T extends WorkRequest['type'] ? Omit<Extract<WorkRequest, { type: T }>, 'job'> : never;

interface Pending {
  onFiles?(files: FileReport[]): void;
  onProgress?(walked: number): void;
  resolve(m: FsMessage): void;
  reject(err: Error): void;
}

export class FsClient {
  private thread: Worker | null = null;
  private nextJob = 1;
  private readonly jobs = new Map<number, Pending>();
  private readonly inbox: FsMessage[] = [];
  private draining = false;

  constructor(private readonly log: (msg: string) => void) {}

  start(data: FsThreadData): void {
    this.thread = startThread(entryModule('libraries/fs.worker'), data);
    this.thread.on('message', (m: FsMessage) => this.onMessage(m));
    this.thread.on('error', (err) => {
      this.log(`file-system thread failed: ${err.message}`);
      this.rejectAll(err);
    });
    this.thread.unref();
  }

  async stop(): Promise<void> {
    this.rejectAll(new Error('stopping'));
    await this.thread?.terminate();
    this.thread = null;
  }

  /** Walks (`scan`) or looks at (`check`) a library; each batch of reports goes to `onFiles` first. */
  walk(req: Request<'scan'> | Request<'check'>, on: Pick<Pending, 'onFiles' | 'onProgress'>): Promise<Done> {
    return this.send(req, on) as Promise<Done>;
  }

  /** Which of these folders are there. */
  async present(paths: string[]): Promise<boolean[]> {
    if (paths.length === 0) return [];
    return ((await this.send({ type: 'present', paths }, {})) as Extract<FsMessage, { type: 'present' }>).present;
  }

  private send(req: Request<WorkRequest['type']>, on: Pick<Pending, 'onFiles' | 'onProgress'>): Promise<FsMessage> {
    const job = this.nextJob++;
    return new Promise<FsMessage>((resolve, reject) => {
      if (!this.thread) return reject(new Error('the library sync is not running'));
      this.jobs.set(job, { ...on, resolve, reject });
      this.thread.postMessage({ ...req, job } as FsJob);
    });
  }

  private rejectAll(err: Error): void {
    for (const j of this.jobs.values()) j.reject(err);
    this.jobs.clear();
  }

  private onMessage(m: FsMessage): void {
    this.inbox.push(m);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    const m = this.inbox.shift();
    if (!m) {
      this.draining = false;
      return;
    }
    try {
      this.handle(m);
    } finally {
      setImmediate(() => this.drain());
    }
  }

  private handle(m: FsMessage): void {
    const pending = this.jobs.get(m.job);
    if (!pending) return;
    if (m.type === 'files') {
      try {
        pending.onFiles?.(m.files);
      } finally {
        this.thread?.postMessage({ type: 'ack', job: m.job } satisfies FsJob);
      }
    } else if (m.type === 'progress') {
      pending.onProgress?.(m.walked);
    } else {
      this.jobs.delete(m.job);
      if (m.type === 'failed') pending.reject(new Error(m.message));
      else pending.resolve(m);
    }
  }
}

// Answers written by a local language model (docs/answers.md): the installed model of the
// `answers` stage (the larger one when both are), run in a worker thread (llm.worker.ts) so that a
// long generation never holds up HTTP. Started on the first question, let go after some idle
// minutes so that its memory comes back.
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../thread.ts';
import { entryModule } from '../paths.ts';
import { fileOf, manifest, modelStatus, modelsDir } from './models.ts';
import type { FromWriter, ToWriter } from './llm.worker.ts';

const IDLE_MS = 10 * 60_000;

export interface Written {
  text: string;
  tokens: number;
  first_token_ms: number | null;
  ms: number;
  stopped: boolean;
  truncated: boolean;
}

export interface WriteRequest {
  prompt: string;
  maxTokens: number;
  /** The evidence numbers the answer may cite. */
  cites: number[];
  onChunk?: (text: string) => void;
  signal?: AbortSignal;
}

/** The installed answer model's weights file, the larger first; null when none is installed. */
export function answerModel(dataDir: string): { name: string; file: string } | null {
  const dir = modelsDir(dataDir);
  const installed = manifest()
    .models.filter((m) => m.stage === 'answers')
    .map((m) => ({ m, s: modelStatus(dir, m) }))
    .filter((x) => x.s.installed)
    .sort((a, b) => b.s.size_bytes - a.s.size_bytes);
  const best = installed[0];
  if (!best) return null;
  const weights = best.m.files.find((f) => f.path.endsWith('.gguf'));
  return weights ? { name: best.m.name, file: fileOf(dir, best.m, weights) } : null;
}

export class AnswerWriter {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, { req: WriteRequest; resolve: (w: Written) => void; reject: (e: Error) => void }>();
  private idle: NodeJS.Timeout | null = null;

  constructor(private readonly dataDir: string) {}

  /** The model that would write an answer now, or null (answers are then extractive). */
  model(): { name: string; file: string } | null {
    const m = answerModel(this.dataDir);
    return m && fs.existsSync(m.file) ? m : null;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = startThread(entryModule('ml/llm.worker'), {});
    w.on('message', (m: FromWriter) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'chunk') p.req.onChunk?.(m.text);
      else if (m.type === 'done') {
        this.pending.delete(m.id);
        p.resolve({ text: m.text, tokens: m.tokens, first_token_ms: m.first_token_ms, ms: m.ms, stopped: m.stopped, truncated: m.truncated });
      } else if (m.type === 'error') {
        this.pending.delete(m.id);
        p.reject(new Error(m.message));
      }
      if (this.pending.size === 0) w.unref();
      this.touch();
    });
    const fail = (err: Error) => {
      this.worker = null;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(err);
      }
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the language model stopped (exit ${code})`)));
    w.unref();
    this.worker = w;
    return w;
  }

  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.pending.size === 0) void this.close();
    }, IDLE_MS);
    this.idle.unref();
  }

  write(req: WriteRequest): Promise<Written> {
    const model = this.model();
    if (!model) return Promise.reject(new Error('no language model installed'));
    const w = this.start();
    const id = this.next++;
    return new Promise<Written>((resolve, reject) => {
      this.pending.set(id, { req, resolve, reject });
      w.ref(); // held while an answer is being written; let go when none is
      const msg: ToWriter = { type: 'generate', id, model: model.file, prompt: req.prompt, maxTokens: req.maxTokens, cites: req.cites };
      w.postMessage(msg);
      this.touch();
      req.signal?.addEventListener('abort', () => w.postMessage({ type: 'stop', id } satisfies ToWriter), { once: true });
    });
  }

  async close(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    // Asked to let its model go first; ended outright only if it does not within a few seconds.
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.ref(); // held until it has let the model go
    w.postMessage({ type: 'close' } satisfies ToWriter);
    const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 10_000).unref());
    if ((await Promise.race([exited, timer])) === 'late') await w.terminate();
  }
}

// The local language model, in a worker thread of its own: node-llama-cpp loads a GGUF model once
// (CUDA, Metal or Vulkan where its prebuilt binaries find a GPU, the CPU otherwise) and writes one
// answer at a time, each chunk of text posted as it is written. A grammar holds the output to
// sentences that each end with a citation of evidence it was given ("… [2]"), so an answer cannot
// cite a moment it was not given nor leave a claim uncited. `stop` ends a generation where it is.
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { Llama, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';

export type ToWriter =
  { type: 'generate'; id: number; model: string; prompt: string; maxTokens: number; cites: number[] } | { type: 'stop'; id: number } | { type: 'close' };

export type FromWriter =
  | { type: 'loaded'; id: number; model: string; gpu: string | false; load_ms: number }
  | { type: 'chunk'; id: number; text: string }
  | { type: 'done'; id: number; text: string; tokens: number; first_token_ms: number | null; ms: number; stopped: boolean; truncated: boolean }
  | { type: 'error'; id: number; message: string };

const CONTEXT_TOKENS = 4096;

/** Sentences, each ending with citations of the evidence given; nothing else. */
export function citationGrammar(cites: number[]): string {
  const n = cites.map((c) => `"${c}"`).join(' | ');
  // At most three sentences of a few hundred characters, each closed by its citations: a model
  // that would wander on is stopped by the grammar, not only by max_tokens.
  return ['root ::= claim (" " claim){0,2}', 'claim ::= [A-Z0-9"\'] [^\\[\\]\\n(]{4,200} " [" n "]" ("[" n "]"){0,2} "."', `n ::= ${n}`].join('\n');
}

let llama: Llama | null = null;
let loaded: { path: string; model: LlamaModel; context: LlamaContext } | null = null;
const stops = new Map<number, AbortController>();
let queue: Promise<void> = Promise.resolve();

async function load(id: number, modelPath: string): Promise<NonNullable<typeof loaded>> {
  if (loaded?.path === modelPath) return loaded;
  const started = Date.now();
  const { getLlama } = await import('node-llama-cpp');
  // Prebuilt binaries only: a missing GPU falls back to the CPU build, nothing is compiled here.
  llama ??= await getLlama({ build: 'never', gpu: 'auto', logLevel: 'error' as never });
  if (loaded) {
    await loaded.context.dispose();
    await loaded.model.dispose();
    loaded = null;
  }
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: CONTEXT_TOKENS, threads: Math.max(1, os.availableParallelism()) });
  loaded = { path: modelPath, model, context };
  post({ type: 'loaded', id, model: modelPath, gpu: llama.gpu, load_ms: Date.now() - started });
  return loaded;
}

function post(m: FromWriter): void {
  parentPort?.postMessage(m);
}

async function generate(m: Extract<ToWriter, { type: 'generate' }>, stop: AbortController): Promise<void> {
  try {
    if (stop.signal.aborted) {
      post({ type: 'done', id: m.id, text: '', tokens: 0, first_token_ms: null, ms: 0, stopped: true, truncated: false });
      return;
    }
    const { model, context } = await load(m.id, m.model);
    const { LlamaCompletion } = await import('node-llama-cpp');
    const grammar: LlamaGrammar = await llama!.createGrammar({ grammar: citationGrammar(m.cites) });
    const sequence = context.getSequence();
    // A completion of the prompt (instructions, an example, the evidence, the question): the same
    // for instruction-tuned and base models.
    const completion = new LlamaCompletion({ contextSequence: sequence });
    const started = Date.now();
    let first: number | null = null;
    let tokens = 0;
    let text = '';
    try {
      text = await completion.generateCompletion(m.prompt, {
        grammar,
        maxTokens: m.maxTokens,
        temperature: 0,
        repeatPenalty: { penalty: 1.15, lastTokens: 64 },
        signal: stop.signal,
        stopOnAbortSignal: true,
        onTextChunk: (chunk) => {
          first ??= Date.now() - started;
          post({ type: 'chunk', id: m.id, text: chunk });
        },
        onToken: (t) => {
          tokens += t.length;
        },
      });
    } finally {
      completion.dispose({ disposeSequence: false });
      sequence.dispose();
    }
    void model;
    post({
      type: 'done',
      id: m.id,
      text,
      tokens,
      first_token_ms: first,
      ms: Date.now() - started,
      stopped: stop.signal.aborted,
      truncated: !stop.signal.aborted && tokens >= m.maxTokens,
    });
  } catch (err) {
    post({ type: 'error', id: m.id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    stops.delete(m.id);
  }
}

/** Lets the model go before the thread ends (a thread ended under a loaded model aborts the process). */
async function close(): Promise<void> {
  for (const s of stops.values()) s.abort();
  await queue;
  if (loaded) {
    await loaded.context.dispose();
    await loaded.model.dispose();
    loaded = null;
  }
  await llama?.dispose();
  process.exit(0);
}

parentPort?.on('message', (m: ToWriter) => {
  if (m.type === 'close') {
    void close();
    return;
  }
  if (m.type === 'stop') {
    stops.get(m.id)?.abort();
    return;
  }
  // One answer at a time: the model's one context is shared. A stop may come while it waits.
  const stop = new AbortController();
  stops.set(m.id, stop);
  queue = queue.then(() => generate(m, stop));
});

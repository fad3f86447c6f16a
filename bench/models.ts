// The real models on this machine's CPU, as the app runs them. The sentence encoder
// (all-MiniLM-L6-v2 int8, from Maven Central): passages per second when indexing (the sentence
// windows of carroll-wonderland.pdf's text, in the stage's batches of 32) and the latency of one
// query. The language model (Gemma 3 270M Q4_K_M, from PyPI) through the app's worker thread: load
// time, time to the first token of an answer prompt (instructions, an example, four pieces of evidence and the question: about 370 tokens) and
// tokens per second while writing. Medians of several rounds. The models are fetched into the
// cache folder of scripts/real-models.ts and imported into a scratch data folder.
// Usage: npm run bench -- models [-- --rounds 5 --queries 50]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchGemma, fetchMiniLM } from '../scripts/real-models.ts';
import { embedTexts } from '../server/ml/embeddings.ts';
import { modelsDir } from '../server/ml/models.ts';
import { AnswerWriter } from '../server/ml/answer-writer.ts';
import { answerPrompt, type PromptEvidence } from '../server/answers/grounded.ts';
import { sentenceWindows } from '../server/indexer/stages/embeddings.stage.ts';
import { extractPdf } from '../server/media/pdf.ts';
import { arg, writeResults } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(HERE, '../../shared/corpus');
const CLI = path.resolve(HERE, '../bin/media-index.js');
const ROUNDS = arg('rounds', 5);
const QUERIES = arg('queries', 50);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[], digits = 1) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-models-'));
const env = { ...process.env, MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' };
execFileSync(process.execPath, [CLI, 'models', 'import', 'all-MiniLM-L6-v2', '--from', await fetchMiniLM(), '--data', data], { env, stdio: 'ignore' });
execFileSync(process.execPath, [CLI, 'models', 'import', 'gemma-3-270m-it', '--from', await fetchGemma(), '--data', data], { env, stdio: 'ignore' });
const root = modelsDir(data);

// The encoder: the book's passages as the embeddings stage cuts them.
const { pages } = await extractPdf(path.join(CORPUS, 'docs/carroll-wonderland.pdf'), { assetDir: data, renderAll: false, maxPages: 1000 });
const passages = pages.flatMap((p) => p.passages.flatMap((x) => sentenceWindows(x.text.replace(/\s+/g, ' ').trim()))).filter((p) => p.length > 20);
await embedTexts(root, 'all-MiniLM-L6-v2', passages.slice(0, 32)); // loaded once, as in the worker
const rates: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  for (let i = 0; i < passages.length; i += 32) await embedTexts(root, 'all-MiniLM-L6-v2', passages.slice(i, i + 32));
  rates.push(passages.length / ((performance.now() - t0) / 1000));
}
const queries = ['a tiny vial whose tag invites you to sip it', 'labourers daubing pale blossoms scarlet', 'who stole the tarts', 'the trial of the knave'];
const latencies: number[] = [];
for (let i = 0; i < QUERIES; i++) {
  const t0 = performance.now();
  await embedTexts(root, 'all-MiniLM-L6-v2', [`${queries[i % queries.length]} ${i}`]);
  latencies.push(performance.now() - t0);
}
latencies.sort((a, b) => a - b);

// The language model, through the worker the app uses.
const writer = new AnswerWriter(data);
const evidence: PromptEvidence[] = passages.slice(100, 104).map((text, i) => ({ n: i + 1, where: `carroll-wonderland.pdf, page ${i + 10}`, text }));
const prompt = answerPrompt('What happened to Alice?', evidence);
const t0 = performance.now();
const first = await writer.write({ prompt, maxTokens: 8, cites: [1, 2, 3, 4] });
const loadAndFirst = performance.now() - t0;
const firstToken: number[] = [];
const tokensPerS: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let firstAt = 0;
  let chunks = 0;
  const started = performance.now();
  const w = await writer.write({
    prompt: answerPrompt(`What happened to Alice on page ${r + 10}?`, evidence),
    maxTokens: 96,
    cites: [1, 2, 3, 4],
    onChunk: () => {
      chunks++;
      if (!firstAt) firstAt = performance.now();
    },
  });
  firstToken.push(firstAt - started);
  if (w.tokens > 1) tokensPerS.push((w.tokens - 1) / ((performance.now() - firstAt) / 1000));
  void chunks;
}
await writer.close();
fs.rmSync(data, { recursive: true, force: true });
void first;

writeResults('models', `Real models on this CPU (${os.cpus().length} cores, ${os.cpus()[0]?.model.trim()})`, {
  'encoder passages': passages.length,
  'encoder passages/s (median)': Math.round(median(rates)),
  'encoder passages/s (range)': range(rates, 0),
  'encoder query latency p50 (ms)': latencies[Math.floor(latencies.length / 2)].toFixed(1),
  'encoder query latency p95 (ms)': latencies[Math.floor(latencies.length * 0.95)].toFixed(1),
  'LM prompt tokens (about)': Math.round(prompt.length / 4),
  'LM load + first answer (ms)': loadAndFirst.toFixed(0),
  'LM first token (ms, median)': median(firstToken).toFixed(0),
  'LM first token (ms, range)': range(firstToken, 0),
  'LM tokens/s while writing (median)': median(tokensPerS).toFixed(1),
  'LM tokens/s (range)': range(tokensPerS),
  rounds: ROUNDS,
});

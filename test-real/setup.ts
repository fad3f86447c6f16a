// Fetches the real models once before the tests run (re-used from the cache on later runs).
import type { TestProject } from 'vitest/node';
import { fetchGemma, fetchMiniLM, fetchPpocr, fetchResemblyzer, fetchWhisper } from '../scripts/real-models.ts';
import { textPhotos } from '../test/helpers/text-photos.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    minilm: string;
    gemma: string;
    whisperBase: string;
    whisperTinyEn: string;
    ge2e: string;
    ppocr: string;
    textPhotos: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('minilm', await fetchMiniLM());
  project.provide('gemma', await fetchGemma());
  project.provide('whisperBase', await fetchWhisper('whisper-base'));
  project.provide('whisperTinyEn', await fetchWhisper('whisper-tiny.en'));
  project.provide('ge2e', await fetchResemblyzer());
  project.provide('ppocr', await fetchPpocr());
  project.provide('textPhotos', await textPhotos());
}

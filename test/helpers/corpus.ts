// Real media made by others, read in place from ../shared/corpus (never copied into the project).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/corpus');

export function corpus(rel: string): string {
  return path.join(CORPUS, rel);
}

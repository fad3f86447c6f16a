// The first search after a start should not pay for loading what search reads: WordNet, the date
// parser, the vector index file and the sentence encoder (where installed). Loaded in the background
// a few seconds after the service answers (server.ts, WARM_SEARCH_AFTER_MS), once the work a start
// brings has gone first; a query that comes before simply loads them itself.
import type { Store } from '../store/index.ts';
import { TEXT_EMBEDDING_MODEL } from '../ml/catalogue.ts';
import { isInstalled, modelsDir } from '../ml/models.ts';
import { wordnet } from './wordnet.ts';
import { findDates } from './dates.ts';

/** Each step lets requests that came meanwhile be answered first. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function warmSearch(store: Store): Promise<void> {
  await turn();
  wordnet.warm();
  wordnet.expand('library');
  await turn();
  findDates('last summer 2020', new Date());
  const dataDir = store.files.root;
  if (!isInstalled(dataDir, TEXT_EMBEDDING_MODEL)) return;
  await turn();
  store.vectorIndex.prepare(TEXT_EMBEDDING_MODEL);
  await turn();
  const { embedTexts } = await import('../ml/embeddings.ts');
  await embedTexts(modelsDir(dataDir), TEXT_EMBEDDING_MODEL, ['library']);
}

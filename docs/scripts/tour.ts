// Media Index from TypeScript, through a client generated from the service's own OpenAPI document:
//   npx openapi-typescript "$MEDIA_INDEX_URL/api/v1/openapi.json" -o schema.ts
//   npm install openapi-fetch
//   MEDIA_INDEX_URL=http://127.0.0.1:7717 MEDIA_INDEX_KEY=mi_... npx tsx tour.ts "query" book.pdf photo.jpg...
// Uploads a PDF and photos, waits for them to be indexed, reads page 1 and its regions, searches,
// asks the PDF a question, names a person and pages through every asset. Answers 429 (rate limited)
// and 409 `busy` (People being regrouped) are waited out and tried again.
import fs from 'node:fs';
import path from 'node:path';
import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

const api = createClient<paths>({
  baseUrl: process.env.MEDIA_INDEX_URL ?? 'http://127.0.0.1:7717',
  headers: { 'X-API-Key': process.env.MEDIA_INDEX_KEY },
});
const [query, pdf, ...photos] = process.argv.slice(2);
const waited = { rate_limited: 0, busy: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls until the answer is neither 429 nor 409 busy, then returns its data or throws its error. */
async function call<T>(request: () => Promise<{ data?: T; error?: { error: { code: string; message: string } }; response: Response }>): Promise<T> {
  for (;;) {
    const { data, error, response } = await request();
    if (response.status === 429) {
      waited.rate_limited++;
      await sleep(Number(response.headers.get('Retry-After') ?? '1') * 1000);
    } else if (response.status === 409 && error?.error.code === 'busy') {
      waited.busy++;
      await sleep(500);
    } else if (data !== undefined) {
      return data;
    } else {
      throw new Error(`${response.status} ${error?.error.code}: ${error?.error.message}`);
    }
  }
}

// 1. Upload: the file as a binary part, the pipeline as a text part.
const ids = new Map<string, string>();
for (const file of [pdf, ...photos]) {
  const blob = await fs.openAsBlob(file);
  const ack = await call(() =>
    api.POST('/api/v1/videos', {
      body: { file: blob, pipeline: 'arrow' },
      bodySerializer(body) {
        const form = new FormData();
        form.append('pipeline', body.pipeline ?? 'arrow');
        form.append('file', body.file, path.basename(file));
        return form;
      },
    }),
  );
  ids.set(file, ack.data.video_id);
  console.log(`uploaded ${path.basename(file)}: ${ack.data.status}`);
}

// 2. Poll each asset until every stage asked for has run.
for (const [file, id] of ids) {
  for (;;) {
    const asset = await call(() => api.GET('/api/v1/videos/{id}', { params: { path: { id } } }));
    if (asset.data.status === 'completed') {
      console.log(`completed ${path.basename(file)}: ${asset.data.kind}, ${asset.data.page_count} page(s)`);
      break;
    }
    await sleep(200);
  }
}

// 3. Page 1 of the PDF, and the boxes on it.
const book = ids.get(pdf)!;
const page = await call(() => api.GET('/api/v1/videos/{id}/pages/{page}', { params: { path: { id: book, page: 1 } } }));
const regions = await call(() => api.GET('/api/v1/videos/{id}/regions', { params: { path: { id: book }, query: { page: 1 } } }));
console.log(`page 1 of ${page.data.page_count}: ${page.data.passages.length} passages, ${regions.data.text.length} text regions`);

// 4. Search the workspace, then ask the PDF.
const found = await call(() => api.POST('/api/v1/search', { body: { query, limit: 5 } }));
const best = found.data.hits[0];
console.log(`search "${query}": ${found.data.hits.length} hits, best ${best ? `${best.file_name} page ${best.page}` : 'none'}`);
const answer = await call(() => api.POST('/api/v1/recall/{video_id}/ask', { params: { path: { video_id: book } }, body: { query } }));
console.log(`recall: evidence ${answer.data.evidence}, ${answer.data.moments.length} moment(s)`);

// 5. People: group the faces (in the background), then name the largest group. A second re-group
// asked for while one runs is 409 busy, and so is any change to People until it is done.
await call(() => api.POST('/api/v1/people/recluster', {}));
await call(() => api.POST('/api/v1/people/recluster', {}));
let people = await call(() => api.GET('/api/v1/people', {}));
while (people.data.regrouping) {
  await sleep(200);
  people = await call(() => api.GET('/api/v1/people', {}));
}
const first = people.data.people[0];
if (first) {
  const renamed = await call(() => api.PATCH('/api/v1/people/{id}', { params: { path: { id: first.person_id } }, body: { name: 'Ada' } }));
  console.log(`named a person of ${renamed.data.face_count} face(s): ${renamed.data.name}`);
}
people = await call(() => api.GET('/api/v1/people', {}));
console.log(`people: ${people.data.people.map((p) => p.name ?? '(unnamed)').join(', ')}`);

// 6. Page through every asset, two at a time, until has_more is false.
let offset = 0;
let pages = 0;
for (;;) {
  const list = await call(() => api.GET('/api/v1/videos', { params: { query: { limit: 2, offset } } }));
  pages++;
  offset += list.data.length;
  if (!list.pagination.has_more) break;
}
console.log(`listed ${offset} assets in ${pages} pages`);
console.log(`waited out: ${waited.rate_limited} rate limited, ${waited.busy} busy`);

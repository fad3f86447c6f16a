// The OpenAPI document as client generators read it: valid OpenAPI 3.1, operations named as methods,
// uploads as binary parts, a schema for every answer, a working example for every request body, and
// the checked-in TypeScript types (server/contract/openapi.gen.ts) generated from this very document.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { apiTypes, TYPES_FILE } from '../../scripts/api-types.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;
let doc: Json;
beforeAll(async () => {
  t = await startTestServer({ workers: 0 });
  doc = (await t.api('GET', '/openapi.json')).body;
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([p, ops]) => Object.entries(ops as Json).map(([method, op]) => ({ p, method, op: op as Json })));

describe('the OpenAPI document', () => {
  it('validates against the OpenAPI 3.1 schema', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('names every operation once, as a method name', () => {
    const ids = operations().map((o) => o.op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z]+$/);
    const byRoute = Object.fromEntries(operations().map((o) => [`${o.method} ${o.p}`, o.op.operationId]));
    expect(byRoute).toMatchObject({
      'post /api/v1/videos': 'uploadAsset',
      'get /api/v1/videos': 'listAssets',
      'get /api/v1/videos/{id}': 'getAsset',
      'post /api/v1/search': 'search',
      'get /api/v1/people': 'listPeople',
      'patch /api/v1/people/{id}': 'updatePerson',
      'post /api/v1/recall/{video_id}/ask': 'recall',
    });
  });

  it('describes the upload as a binary file part and a JSON options part', () => {
    const body = doc.paths['/api/v1/videos'].post.requestBody.content['multipart/form-data'];
    expect(body.schema.required).toContain('file');
    expect(body.schema.properties.file).toMatchObject({ type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' });
    expect(body.schema.properties.options).toMatchObject({ type: 'string', contentMediaType: 'application/json' });
    expect(Object.keys(body.schema.properties.options.contentSchema.properties)).toEqual(expect.arrayContaining(['ocr', 'faces', 'captions']));
    expect(body.encoding).toEqual({ file: { contentType: 'application/octet-stream' }, options: { contentType: 'application/json' } });
  });

  it('gives every request body an example that its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    let bodies = 0;
    for (const { p, method, op } of operations()) {
      if (!op.requestBody) continue;
      bodies++;
      const [type, media] = Object.entries(op.requestBody.content as Json)[0] as [string, Json];
      expect(media.example, `${method} ${p}`).toBeDefined();
      // A multipart example shows the text parts; the file part is the file itself.
      const schema = type === 'multipart/form-data' ? { ...media.schema, required: media.schema.required.filter((r: string) => r !== 'file') } : media.schema;
      const valid = ajv.validate(schema, media.example);
      expect(valid, `${method} ${p}: ${ajv.errorsText()}`).toBe(true);
      if (type === 'multipart/form-data') JSON.parse(media.example.options);
    }
    expect(bodies).toBeGreaterThanOrEqual(15);
  });

  it('gives every answer a schema: binary for pictures, media and XMP, any value for event streams', () => {
    for (const { p, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const [type, media] of Object.entries((response as Json).content ?? {})) {
          expect((media as Json).schema, `${method} ${p} ${status} ${type}`).toBeDefined();
        }
      }
    }
    const frame = doc.paths['/api/v1/videos/{id}/frames/{name}'].get.responses['200'].content;
    expect(frame['image/jpeg'].schema).toEqual({ type: 'string', format: 'binary', contentMediaType: 'image/jpeg' });
    const xmp = doc.paths['/api/v1/videos/{id}/xmp'].get.responses['200'].content;
    expect(Object.keys(xmp)).toEqual(['application/rdf+xml', 'application/octet-stream']);
    expect(doc.paths['/api/v1/chat/stream'].post.responses['200'].content['text/event-stream'].schema).toEqual({
      description: expect.stringMatching(/^server-sent events/),
    });
    // A body that may be left out (a re-index of every stage) is not required; the others are.
    expect(doc.paths['/api/v1/videos/{id}/reindex'].post.requestBody.required).toBe(false);
    expect(doc.paths['/api/v1/search'].post.requestBody.required).toBe(true);
    expect(doc.paths['/api/v1/index-options'].put.requestBody.required).toBe(true);
  });

  it('is described for script writers in docs/scripts.md with the scripts npm run test:clients runs, as they are', () => {
    const page = fs.readFileSync(new URL('../../docs/scripts.md', import.meta.url), 'utf8');
    for (const f of ['tour.py', 'generate.ts', 'tour.ts']) {
      expect(page, f).toContain(fs.readFileSync(new URL(`../../docs/scripts/${f}`, import.meta.url), 'utf8').trimEnd());
    }
  });

  it('is what the checked-in TypeScript types were generated from (npm run api:types)', async () => {
    expect(fs.readFileSync(TYPES_FILE, 'utf8')).toBe(await apiTypes(doc));
  });
});

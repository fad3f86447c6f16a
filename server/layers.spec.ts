import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAYERS, layerViolation, markdownTable } from '../layers.js';

describe('the layer table (layers.js)', () => {
  it('is the table docs/ARCHITECTURE.md shows', () => {
    const doc = fs.readFileSync(new URL('../docs/ARCHITECTURE.md', import.meta.url), 'utf8');
    expect(doc).toContain(markdownTable());
  });

  it('has a row for every folder of server/', () => {
    const folders = fs
      .readdirSync(new URL('.', import.meta.url), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(LAYERS.map((l) => l.folder).sort()).toEqual(folders);
  });

  it('allows a row, its single modules and the shared modules; refuses the rest', () => {
    expect(layerViolation('store/assets.repo.ts', 'search/tokenizer.ts')).toBeNull();
    expect(layerViolation('store/assets.repo.ts', 'search/resolve.ts')).toMatch(/may not import server\/search\//);
    expect(layerViolation('api/videos/routes.ts', 'services/assets.service.ts')).toBeNull();
    expect(layerViolation('api/videos/routes.ts', 'store/index.ts')).toMatch(/may not import server\/store\//);
    expect(layerViolation('media/zip.ts', 'config.ts')).toBeNull();
    expect(layerViolation('contract/auth.ts', 'errors.ts')).toMatch(/may not import errors.ts/);
    expect(layerViolation('libraries/sync.ts', 'services/assets.service.ts')).toMatch(/may not import server\/services\//);
  });
});

// extract: turns the original into what every other stage and the API read.
// Reads: the original file (run: extract.run.ts). Writes: pages + passages + text-line regions
// (documents), the normalized frame (photos), shots + keyframes + 16 kHz mono audio (videos), a
// thumbnail, the file name as words, and the asset's page_count / duration / size.
import path from 'node:path';
import type { ExtractOutput } from '../../media/types.ts';
import type { NewRegion } from '../../store/regions.repo.ts';
import { ALWAYS_AVAILABLE, NO_INPUT, defineStage } from '../stage.ts';
import { fileNameWords } from '../../search/tokenizer.ts';

export const extractStage = defineStage<undefined, ExtractOutput, 'extract'>({
  name: 'extract',
  version: 2,
  kinds: ['video', 'image', 'document'],
  dependsOn: [],
  model: null,
  availability: ALWAYS_AVAILABLE,
  prepare: NO_INPUT,
  save(store, assetId, out) {
    const dirRel = path.relative(store.files.root, store.files.assetDir(assetId));
    store.media.replaceExtraction(assetId, dirRel, out);
    const lines: NewRegion[] = out.pages.flatMap((p) =>
      p.lines.map((l) => ({
        timestamp: p.page - 1,
        kind: 'text' as const,
        ...l.bbox,
        label: null,
        text: l.text,
        confidence: null,
        quality: null,
        person_id: null,
        source: 'text_layer',
      })),
    );
    store.regions.replaceForStage(assetId, 'extract', lines);
    const asset = store.assets.brief(assetId);
    store.search.replaceForStage(assetId, 'extract', [
      { modality: 'name', timestamp: 0, page: null, ref: null, region_id: null, text: asset ? fileNameWords(asset.file_name) : '' },
      ...out.pages.flatMap((p) =>
        p.passages
          .filter((ps) => !ps.repeated)
          .map((ps) => ({ modality: 'passage' as const, timestamp: p.page - 1, page: p.page, ref: ps.idx, region_id: null, text: ps.text })),
      ),
    ]);
    store.assets.setFacts(assetId, {
      page_count: out.facts.page_count ?? null,
      duration_s: out.facts.duration_s ?? null,
      width: out.facts.width ?? null,
      height: out.facts.height ?? null,
    });
  },
});

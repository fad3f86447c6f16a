// extract: turns the stored original into what every other stage and the API read.
// Reads: the original file. Writes: pages + passages + text-line regions (documents), the
// normalized frame (photos), shots + keyframes + 16 kHz mono audio (videos), a thumbnail, and the
// asset's page_count / duration / size. First it checks the file still is what was indexed.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { hashFile } from '../../media/hash.ts';
import { extractPdf } from '../../media/pdf.ts';
import { extractTextDocument } from '../../media/office.ts';
import { extractImage } from '../../media/image.ts';
import { extractVideo } from '../../media/video.ts';
import { ExtractError, type ExtractOutput } from '../../media/types.ts';
import type { NewRegion } from '../../store/regions.repo.ts';
import { ALWAYS_AVAILABLE, failed, ok, type StageDefinition, type StageAsset } from '../stage.ts';

/** A file name as words: "holiday_2024-beach.jpg" is found by "holiday beach". */
function nameWords(fileName: string): string {
  return `${fileName} ${fileName.replace(/\.[^.]+$/, '').replace(/[_\-.]+/g, ' ')}`;
}

/** Everything extraction may write into the asset folder. */
const DERIVED = ['pages', 'frames', 'audio.wav', 'thumb.jpg', 'frame.jpg'];

export const MAX_PAGES = Number(process.env.MEDIA_INDEX_MAX_PAGES) || 5000;

async function extractDocument(asset: StageAsset, assetDir: string): Promise<ExtractOutput> {
  await fs.promises.mkdir(assetDir, { recursive: true });
  const { pages, details } =
    asset.ext === '.pdf'
      ? await extractPdf(asset.filePath, { assetDir, renderAll: false, maxPages: MAX_PAGES })
      : await extractTextDocument(asset.filePath, asset.ext);
  if (pages.length > MAX_PAGES) throw new ExtractError(`too_many_pages: ${pages.length} pages; the limit is ${MAX_PAGES}`);
  let thumbnail: string | null = null;
  const first = pages[0]?.render;
  if (first) {
    await sharp(path.join(assetDir, first)).resize({ width: 320, height: 320, fit: 'inside' }).jpeg({ quality: 80 }).toFile(path.join(assetDir, 'thumb.jpg'));
    thumbnail = 'thumb.jpg';
  }
  return { facts: { page_count: pages.length }, pages, shots: [], frames: [], audio: null, thumbnail, details };
}

function counts(out: ExtractOutput, bytes: number): Record<string, number> {
  const c: Record<string, number> = { bytes };
  if (out.pages.length) {
    c.pages = out.pages.length;
    c.passages = out.pages.reduce((n, p) => n + p.passages.length, 0);
    c.pages_needing_ocr = out.pages.filter((p) => p.needsOcr).length;
    // Drawn now; the other pages with a render path are drawn on first request.
    c.pages_rendered = typeof out.details.pages_rendered === 'number' ? out.details.pages_rendered : out.pages.filter((p) => p.render).length;
    if (typeof out.details.blank_pages === 'number') c.blank_pages = out.details.blank_pages;
  }
  if (out.shots.length) c.shots = out.shots.length;
  if (out.frames.length) c.frames = out.frames.length;
  if (out.audio) c.audio_s = out.audio.duration_s;
  if (out.facts.duration_s !== undefined) c.duration_s = out.facts.duration_s;
  return c;
}

export const extractStage: StageDefinition = {
  name: 'extract',
  version: 2,
  kinds: ['video', 'image', 'document'],
  dependsOn: [],
  model: null,
  availability: ALWAYS_AVAILABLE,
  async run({ asset, assetDir }) {
    let size: number;
    try {
      size = (await fs.promises.stat(asset.filePath)).size;
    } catch {
      return failed('file_missing: the stored original is gone');
    }
    if (size !== asset.sizeBytes) return failed(`file_changed: ${size} bytes now, ${asset.sizeBytes} when indexed`);
    // An upload was hashed as it arrived and is the server's own: its size suffices. A file indexed
    // in place is the user's and may have been rewritten at the same size.
    if (asset.linked && (await hashFile(asset.filePath)).sha256 !== asset.sha256) {
      return failed('file_changed: checksum differs from the indexed file');
    }
    try {
      const out =
        asset.kind === 'document'
          ? await extractDocument(asset, assetDir)
          : asset.kind === 'image'
            ? await extractImage(asset.filePath, asset.ext, assetDir)
            : await extractVideo(asset.filePath, assetDir);
      return ok(counts(out, size), out, Object.keys(out.details).length ? out.details : undefined);
    } catch (err) {
      // Nothing half-written: what this run derived goes; the original stays.
      await Promise.all(
        DERIVED.map((name) => fs.promises.rm(path.join(assetDir, name), { recursive: true, force: true })),
      );
      if (err instanceof ExtractError) return failed(err.reason);
      throw err;
    }
  },
  save(store, assetId, output) {
    const out = output as ExtractOutput;
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
    const asset = store.assets.byId(assetId);
    store.search.replaceForStage(assetId, 'extract', [
      { modality: 'name', timestamp: 0, page: null, ref: null, region_id: null, text: asset ? nameWords(asset.file_name) : '' },
      ...out.pages.flatMap((p) =>
        p.passages.map((ps) => ({ modality: 'passage', timestamp: p.page - 1, page: p.page, ref: ps.idx, region_id: null, text: ps.text })),
      ),
    ]);
    store.assets.setFacts(assetId, {
      page_count: out.facts.page_count ?? null,
      duration_s: out.facts.duration_s ?? null,
      width: out.facts.width ?? null,
      height: out.facts.height ?? null,
    });
  },
};

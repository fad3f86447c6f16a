// extract, the run: checks the file still is what was indexed, then extracts pages (documents),
// the frame (photos) or the poster frame (videos: their shots and audio are the `shots` stage's),
// and the thumbnail (a document without a layout of its own: its first
// page as laid out, drawn on its first request, media/render.worker.ts). Nothing half-written: on
// failure what this run derived goes; the original stays.
import fs from 'node:fs';
import path from 'node:path';
import { limits } from '../../config.ts';
import { hashFile } from '../../media/hash.ts';
import { ExtractError, type ExtractOutput } from '../../media/types.ts';
import { defineRunner, failed, failedBecause, fileMissing, ok, type StageAsset } from '../stage.ts';
import { extractStage } from './extract.stage.ts';
import { PLAYABLE } from '../../contract/files.ts';

/** Everything extraction may write into the asset folder. */
const DERIVED = ['pages', 'frames', 'audio.wav', 'thumb.jpg', 'frame.jpg', PLAYABLE];

// The readers of each kind (PDFium, the office formats' parsers; sharp for photos, ffmpeg's for
// videos) are loaded when a file of their kind comes: a process that reads only photos holds no
// document reader, one that reads only PDFs no photo library.
async function extractDocument(asset: StageAsset, assetDir: string): Promise<ExtractOutput> {
  // A PDF's first page is drawn into the asset folder now. Other documents write nothing there
  // (their thumbnail is drawn on its first request): a folder of notes indexed in place leaves no
  // folder per note in the data folder, and no time making them (2,000 notes: 1.87 → 1.53 s of the
  // indexer processes' CPU, docs/performance.md).
  if (asset.ext === '.pdf') await fs.promises.mkdir(assetDir, { recursive: true });
  const {
    pages,
    details,
    thumbnail: drawn,
  } = asset.ext === '.pdf'
    ? await (await import('../../media/pdf.ts')).extractPdf(asset.filePath, { assetDir, renderAll: false, maxPages: limits.maxPages })
    : { ...(await (await import('../../media/office.ts')).extractTextDocument(asset.filePath, asset.ext)), thumbnail: null };
  if (pages.length > limits.maxPages) throw new ExtractError('too_many_pages', `${pages.length} pages; the limit is ${limits.maxPages}`);
  let thumbnail = drawn;
  if (!thumbnail && pages[0]?.passages.length) {
    // No layout to render (text, Word, slides, sheets…): the first page as the layout lays it out,
    // drawn from its stored passages when first asked for (2–5 ms each: about half of an indexer
    // process's time on a folder of small text files). One drawn from an earlier reading goes.
    await fs.promises.rm(path.join(assetDir, 'thumb.jpg'), { force: true });
    thumbnail = 'thumb.jpg';
  }
  return { facts: { page_count: pages.length }, pages, shots: [], frames: [], audio: null, thumbnail, details };
}

/**
 * A video's phase 1: its container probed and a poster frame drawn (its shots, keyframes and sound
 * are the `shots` stage's). A video read again (its file changed) loses what was made of what it
 * was: its playable copy, keyframes and sound.
 */
async function extractVideo(file: string, assetDir: string): Promise<ExtractOutput> {
  await Promise.all([PLAYABLE, 'frames', 'audio.wav'].map((name) => fs.promises.rm(path.join(assetDir, name), { recursive: true, force: true })));
  return (await import('../../media/video.ts')).readVideoPoster(file, assetDir);
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
  if (out.frames.length) c.frames = out.frames.length;
  if (out.facts.duration_s !== undefined) c.duration_s = out.facts.duration_s;
  return c;
}

/**
 * Whether a file indexed in place is the one whose checksum was taken, told without reading it
 * through again: its modification time is as it was then, its size having been checked (what a
 * library's rescan trusts too; a file rewritten at the same size has a new time). Not where the
 * time is not known (admitted before it was kept, moved since): the file is read for its checksum.
 */
function asIndexed(asset: StageAsset, st: fs.Stats): boolean {
  return asset.fileMtimeMs !== null && Math.floor(st.mtimeMs) === asset.fileMtimeMs;
}

/** Loads ahead what reading a document's pages needs: its code and PDFium. */
export const warmExtract = async (): Promise<void> => (await import('../../media/pdf.ts')).warmPdfium();

export const runExtract = defineRunner(extractStage, async ({ asset, assetDir }) => {
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(asset.filePath);
  } catch {
    return fileMissing(asset);
  }
  const size = st.size;
  if (size !== asset.sizeBytes) return failed('file_changed', `${size} bytes now, ${asset.sizeBytes} when indexed`);
  // An upload was hashed as it arrived and is the server's own: its size suffices.
  if (asset.linked && !asIndexed(asset, st) && (await hashFile(asset.filePath)).sha256 !== asset.sha256) {
    return failed('file_changed', 'checksum differs from the indexed file');
  }
  try {
    const out =
      asset.kind === 'document'
        ? await extractDocument(asset, assetDir)
        : asset.kind === 'image'
          ? await (await import('../../media/image.ts')).extractImage(asset.filePath, asset.ext, assetDir)
          : await extractVideo(asset.filePath, assetDir);
    return ok(counts(out, size), out, Object.keys(out.details).length ? out.details : undefined);
  } catch (err) {
    await Promise.all(DERIVED.map((name) => fs.promises.rm(path.join(assetDir, name), { recursive: true, force: true })));
    if (err instanceof ExtractError) return failedBecause(err);
    throw err;
  }
});

// Page and region reads (SPEC 2.4, 2.5, 4.2) and the frame files behind frame_url.
// Reads pages, passages, frames, regions; never writes.
import fs from 'node:fs';
import path from 'node:path';
import { IdleThread } from '../thread.ts';
import type { Store } from '../store/index.ts';
import type { RegionRow } from '../store/regions.repo.ts';
import type { VisibleAsset } from '../store/assets.repo.ts';
import { AppError, Errors } from '../errors.ts';
import type { PageView, Regions, RegionsView, TranscriptView } from '../contract/pages.ts';
import { PLAYABLE } from '../contract/files.ts';
import type { FileRef } from '../contract/common.ts';
import { WEB_PICTURE_TYPES } from '../contract/assets.ts';
import { reasonWithoutCode } from '../contract/stages.ts';
import { fileRef } from '../store/media.repo.ts';
import type { AssetsService } from './assets.service.ts';
import type { UrlSigner } from './signing.service.ts';
import type { AuthContext } from '../contract/auth.ts';
import { entryModule } from '../paths.ts';
import { cropFace } from '../media/face-crop.ts';
import type { DrawRequest } from '../media/render.worker.ts';
import { makePlayable, playback, type Playback } from '../media/playable.ts';

/** How far from a requested video time a sampled frame's regions still count (seconds). */
export const REGION_WINDOW_S = 1;

function present(rows: RegionRow[], persons: Map<string, string> = new Map()): Regions {
  const box = (r: RegionRow) => ({ x: r.x, y: r.y, w: r.w, h: r.h });
  return {
    objects: rows
      .filter((r) => r.kind === 'object')
      .map((r) => ({ region_id: r.id, ...box(r), label: r.label ?? '', confidence: r.confidence, source: r.source })),
    faces: rows
      .filter((r) => r.kind === 'face')
      .map((r) => ({ face_id: r.id, ...box(r), quality: r.quality, confidence: r.confidence, person_id: persons.get(r.id) ?? null })),
    text: rows.filter((r) => r.kind === 'text').map((r) => ({ region_id: r.id, ...box(r), text: r.text ?? '', confidence: r.confidence, source: r.source })),
  };
}

/** A page as the service reads it: its render is a stored file, given a URL by the API. */
export type PageValue = Omit<PageView, 'frame_url'> & { frame: FileRef | null };
export type RegionsValue = Omit<RegionsView, 'frame_url'> & { frame: FileRef | null };

/** Makes `file` once however many ask for it at once: the askers share the job, forgotten once it has settled. */
function once(jobs: Map<string, Promise<void>>, file: string, make: () => Promise<void>): Promise<void> {
  let job = jobs.get(file);
  if (!job) {
    job = make();
    job.finally(() => jobs.delete(file)).catch(() => {});
    jobs.set(file, job);
  }
  return job;
}

export class ReadsService {
  constructor(
    private readonly store: Store,
    private readonly assets: AssetsService,
    private readonly signer: UrlSigner,
  ) {}

  private present(rows: RegionRow[]): Regions {
    return present(rows, this.store.people.personIdsOf(rows.filter((r) => r.kind === 'face').map((r) => r.id)));
  }

  private pageCount(a: VisibleAsset): number {
    if (a.kind !== 'document') {
      throw new AppError('not_found', 404, `${a.id} is ${a.kind === 'image' ? 'an image' : 'a video'}; only documents have pages. Use /regions?timestamp=.`);
    }
    if (a.page_count === null) {
      // Read and failed (a password, damage): it will have no pages until the file changes; polling would wait for ever.
      const run = this.store.runs.get(a.id, 'extract');
      if (run?.state === 'failed') {
        const why = reasonWithoutCode(run.code, run.reason) ?? 'it could not be read';
        throw new AppError('not_readable', 409, `${a.file_name} has no pages: ${why.replace(/\.$/, '')}.`);
      }
      throw new AppError('not_ready', 409, 'The pages of this document are not extracted yet; poll the asset until extract has finished.');
    }
    return a.page_count;
  }

  page(workspaceId: string, id: string, page: number): PageValue {
    const a = this.assets.visible(workspaceId, id);
    const pageCount = this.pageCount(a);
    if (page > pageCount) throw Errors.notFound(`Page ${page} (the document has ${pageCount})`);
    const row = this.store.media.page(a.id, page);
    if (!row) throw Errors.notFound(`Page ${page}`);
    return {
      video_id: a.id,
      page,
      page_count: pageCount,
      timestamp: page - 1,
      frame: fileRef(a.id, row.render_path),
      width: row.width,
      height: row.height,
      text: row.text,
      text_source: row.text_source,
      needs_ocr: row.needs_ocr === 1,
      passages: this.store.media.passages(a.id, page).map((p) => ({ idx: p.idx, text: p.text, bbox: { x: p.x, y: p.y, w: p.w, h: p.h } })),
      regions: this.present(this.store.regions.at(a.id, page - 1)),
    };
  }

  /** A video's transcript with speakers, and who spoke when; empty for other kinds and before the stages ran. */
  transcript(workspaceId: string, id: string): TranscriptView {
    const a = this.assets.visible(workspaceId, id);
    const details = this.store.runs.get(a.id, 'transcript')?.details;
    const language = details ? ((JSON.parse(details) as { language?: string | null }).language ?? null) : null;
    return { video_id: a.id, language, segments: this.store.media.transcript(a.id), turns: this.store.media.speakerTurns(a.id) };
  }

  regions(workspaceId: string, id: string, q: { page?: number; timestamp?: number }): RegionsValue {
    const a = this.assets.visible(workspaceId, id);
    if (q.page !== undefined) {
      const pageCount = this.pageCount(a);
      if (q.page > pageCount) throw Errors.notFound(`Page ${q.page} (the document has ${pageCount})`);
      return {
        video_id: a.id,
        kind: a.kind,
        page: q.page,
        timestamp: q.page - 1,
        frame: this.store.media.pictureAt(a, q.page - 1),
        ...this.present(this.store.regions.at(a.id, q.page - 1)),
      };
    }
    if (q.timestamp !== undefined) {
      const t = a.kind === 'document' ? Math.floor(q.timestamp) : a.kind === 'image' ? 0 : q.timestamp;
      if (a.kind === 'document' && a.page_count !== null && t + 1 > a.page_count) throw Errors.notFound(`Timestamp ${q.timestamp} (page ${t + 1})`);
      if (a.kind === 'video' && a.duration_s !== null && q.timestamp > a.duration_s + 0.5) {
        throw Errors.notFound(`Timestamp ${q.timestamp} (the video lasts ${a.duration_s} s)`);
      }
      const rows = a.kind === 'video' ? this.store.regions.near(a.id, t, REGION_WINDOW_S) : this.store.regions.at(a.id, t);
      return {
        video_id: a.id,
        kind: a.kind,
        page: a.kind === 'document' ? t + 1 : null,
        timestamp: t,
        frame: this.store.media.pictureAt(a, t),
        ...this.present(rows),
      };
    }
    const rows = this.store.regions.all(a.id);
    return {
      video_id: a.id,
      kind: a.kind,
      page: null,
      timestamp: null,
      frame: null,
      ...this.present(rows),
      at: rows.map((r) => ({ region_id: r.id, timestamp: r.timestamp, page: a.kind === 'document' ? r.timestamp + 1 : null })),
    };
  }

  /**
   * The file behind a frame URL. A valid signature suffices; without one, an API key that may read
   * the asset does. Anything else is 404, so URLs reveal nothing about other assets.
   */
  private readonly drawing = new Map<string, Promise<void>>();
  /** The thread that draws pages on first request, kept a minute after the last (a reader turns pages). */
  private readonly pages = new IdleThread<DrawRequest>(entryModule('media/render.worker'), 60_000);
  private readonly cropping = new Map<string, Promise<void>>();

  /**
   * The frame's file, drawing a PDF page render that was left for first request (off the thread
   * that answers HTTP; one drawing per page however many ask at once).
   */
  /** The type of an asset's original, to send it as (asked for after frameFileReady checked access). */
  originalType(id: string): string {
    return this.store.assets.byId(id)?.mime_type ?? 'application/octet-stream';
  }

  async frameFileReady(id: string, name: string, q: { exp?: string; sig?: string }, auth: AuthContext | undefined): Promise<string> {
    const file = this.frameFile(id, name, q, auth);
    return name === PLAYABLE ? this.playable(id, file) : this.drawn(id, name, file);
  }

  /** How each video asked to be played is played (read from its streams once), by its content. */
  private readonly playbacks = new Map<string, Playback>();
  /** Copies being made, by file; one made at a time (each takes both cores while it runs). */
  private readonly copying = new Map<string, Promise<void>>();
  private copies: Promise<unknown> = Promise.resolve();
  /** Stops the copy being made when the service stops (its ffmpeg killed, nothing half-written left). */
  private readonly stopping = new AbortController();

  /**
   * The file a browser plays for a video: its original where the browser plays that, else the
   * playable copy (media/playable.ts), made on this first request and kept. The original must be
   * reachable for the copy to be made.
   */
  private async playable(id: string, copy: string): Promise<string> {
    if (fs.existsSync(copy)) return copy;
    const asset = this.store.assets.byId(id)!;
    const original = this.store.files.abs(asset.stored_path);
    if (!fs.existsSync(original)) throw Errors.originalUnavailable();
    let plan = this.playbacks.get(asset.sha256);
    if (!plan) {
      plan = await playback(original, asset.mime_type).catch((err: Error) => {
        throw new AppError('render_failed', 500, `The video could not be read to be played: ${err.message}`);
      });
      this.playbacks.set(asset.sha256, plan);
    }
    if (plan.how === 'original') return original;
    const made = plan;
    await once(this.copying, copy, () => {
      const job = this.copies
        .then(() => makePlayable(original, copy, made, this.stopping.signal))
        .catch((err: Error) => {
          throw new AppError('render_failed', 500, `A copy of the video that a browser plays could not be made: ${err.message}`);
        });
      this.copies = job.catch(() => undefined);
      return job;
    });
    return copy;
  }

  /**
   * The stored picture `name` of an asset at `file`, drawn first when it is not yet: a PDF page from
   * the original, or the thumbnail of a document without a layout of its own from its first page's
   * passages (which needs no original: it is shown while the file's drive is away).
   */
  private async drawn(id: string, name: string, file: string): Promise<string> {
    if (fs.existsSync(file)) return file;
    const request = name === 'thumb.jpg' ? this.sheetToDraw(id, file) : /^p\d{5}\.jpg$/.test(name) ? this.pageToDraw(id, name, file) : null;
    if (!request) return file;
    await once(this.drawing, file, () =>
      this.pages.run(request).catch((err: Error) => {
        throw new AppError('render_failed', 500, `The page could not be drawn: ${err.message}`);
      }),
    );
    return file;
  }

  /** A PDF page's render left for its first request. */
  private pageToDraw(id: string, name: string, file: string): DrawRequest | null {
    const asset = this.store.assets.byId(id);
    const page = Number(name.slice(1, 6));
    if (!asset || asset.ext !== '.pdf' || !this.store.media.page(id, page)?.render_path) return null;
    const original = this.store.files.abs(asset.stored_path);
    if (!fs.existsSync(original)) throw Errors.originalUnavailable();
    return { file: original, page, out: file };
  }

  /** The thumbnail of a document without a layout of its own (extraction records it, undrawn): its first page's passages. */
  private sheetToDraw(id: string, file: string): DrawRequest | null {
    const asset = this.store.assets.byId(id);
    if (!asset || asset.kind !== 'document' || asset.ext === '.pdf' || this.store.media.thumbnailOf(id)?.name !== 'thumb.jpg') return null;
    const page = this.store.media.page(id, 1);
    const passages = this.store.media.passages(id, 1);
    if (!page || passages.length === 0) return null;
    return {
      sheet: { width: page.width, height: page.height, passages: passages.map((p) => ({ text: p.text, bbox: { x: p.x, y: p.y, w: p.w, h: p.h } })) },
      out: file,
    };
  }

  /** Resolves when no page is being drawn and no video copied (the service waits for it before it stops; a copy is stopped). */
  async settled(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.drawing.values(), ...this.cropping.values(), ...this.copying.values()]);
    await this.pages.stop();
  }

  /**
   * A face cut out of the picture it is on, with a margin, `size` px square: cut once, then kept in
   * the asset's folder by face and size (removed with the asset). Access as for frames: a URL signed
   * for the face, or a key whose workspace sees the asset.
   */
  async faceThumbnail(faceId: string, size: number, q: { exp?: string; sig?: string }, auth: AuthContext | undefined): Promise<string> {
    const region = this.store.regions.byId(faceId);
    const asset = region?.kind === 'face' ? this.store.assets.byId(region.asset_id) : undefined;
    if (q.sig !== undefined || q.exp !== undefined) {
      if (!this.signer.verify(faceId, 'thumbnail', q.exp, q.sig)) {
        throw Errors.forbidden('The thumbnail URL has expired or its signature is wrong; fetch a fresh one.');
      }
    } else if (!auth) {
      throw Errors.unauthorized('A signed thumbnail URL or an API key is required.');
    } else if (!asset || !this.store.assets.findVisible(asset.id, auth.workspaceId)) {
      throw Errors.notFound('Face');
    }
    if (!region || !asset || asset.deleted_at !== null) throw Errors.notFound('Face');
    const out = path.join(this.store.files.assetDir(asset.id), 'faces', `${faceId}-${size}.jpg`);
    if (fs.existsSync(out)) return out;
    await once(this.cropping, out, async () => {
      const picture = this.store.media.pictureAt(asset, region.timestamp);
      if (!picture) throw Errors.notFound('Face picture');
      const file = await this.drawn(asset.id, picture.name, this.pictureFile(asset.id, picture.name));
      await cropFace(file, region, size, out);
    });
    return out;
  }

  frameFile(id: string, name: string, q: { exp?: string; sig?: string }, auth: AuthContext | undefined): string {
    const asset = this.store.assets.byId(id);
    if (q.sig !== undefined || q.exp !== undefined) {
      if (!this.signer.verify(id, name, q.exp, q.sig)) {
        throw Errors.forbidden('The frame URL has expired or its signature is wrong; fetch a fresh one.');
      }
    } else if (!auth) {
      throw Errors.unauthorized('A signed frame URL or an API key is required.');
    } else if (!this.store.assets.findVisible(id, auth.workspaceId)) {
      throw Errors.notFound('Frame');
    }
    if (!asset || asset.deleted_at !== null) throw Errors.notFound('Frame');
    if (name === 'original') {
      if (asset.kind !== 'video' && !(asset.kind === 'image' && WEB_PICTURE_TYPES.includes(asset.mime_type ?? ''))) throw Errors.notFound('Frame');
      return this.store.files.abs(asset.stored_path);
    }
    if (name === PLAYABLE) {
      if (asset.kind !== 'video') throw Errors.notFound('Frame');
      return path.join(this.store.files.assetDir(id), PLAYABLE);
    }
    return this.pictureFile(id, name);
  }

  private pictureFile(id: string, name: string): string {
    const rel = name.startsWith('p') ? path.join('pages', name) : name.startsWith('k') ? path.join('frames', name) : name;
    return path.join(this.store.files.assetDir(id), rel);
  }
}

// Assets (SPEC 2.2, 3.1, 4.1, 4.2): upload ingest, list, detail, delete and sharing.
// Reads and writes assets, asset_shares and stage_runs; moves uploaded files into the data folder.
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../store/index.ts';
import type { AssetRow, AssetsRepo, ListedAsset, NewAssetRow, VisibleAsset } from '../store/assets.repo.ts';
import type { StoredMetadata } from '../store/metadata.repo.ts';
import { DEPENDENCY_FAILED, type StageRunRow } from '../store/stage-runs.repo.ts';
import { clock, iso, newId } from '../store/ids.ts';
import { AppError, Errors, detailsFromIssues } from '../errors.ts';
import {
  CURRENT_PIPELINE,
  EXTENSION_KINDS,
  LEGACY_EXTENSIONS,
  UploadFields,
  WEB_PICTURE_TYPES,
  type AssetDetail,
  type AssetListItem,
  type StageReport,
  type UploadAck,
} from '../contract/assets.ts';
import { mayClearOnRetry, type EffectiveOptions, type IndexOptionsInput } from '../contract/stages.ts';
import type { FileRef } from '../contract/common.ts';
import { PLAYABLE } from '../contract/files.ts';
import { HEAD_BYTES, confirmContent, confirmHead } from '../media/sniff.ts';
import { hashWithHead } from '../media/hash.ts';
import { planRuns, stagesByAsset } from '../indexer/plan.ts';
import { newAssetRow } from '../indexer/admission.ts';
import { displayName } from '../media/names.ts';
import type { StageQueue } from '../indexer/queue.ts';
import type { RunProgress } from '../indexer/stage.ts';
import { STAGES, STAGE_ORDER } from '../indexer/registry.ts';
import { isInstalled } from '../ml/models.ts';
import { speakerEntries } from '../indexer/stages/speakers.stage.ts';
import { speakerName } from '../store/media.repo.ts';
import type { SearchFilters } from '../contract/search.ts';
import type { AuthContext } from '../contract/auth.ts';
import { FilterResolver } from '../search/resolve.ts';
import { parseOptionsLayer, type IndexOptionsService } from './index-options.service.ts';

export interface UploadedFile {
  tmpPath: string;
  originalName: string;
  sizeBytes: number;
  sha256: string;
}

export interface AssetEvents {
  deleted(workspaceId: string): void;
}

function parseUploadOptions(text: string | undefined): IndexOptionsInput {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw Errors.invalidOptions([{ path: 'options', message: 'is not valid JSON' }]);
  }
  return parseOptionsLayer(raw, 'options');
}

/** Before the metadata stage has run (or for a legacy asset). */
const NO_METADATA: StoredMetadata = {
  taken_at: null,
  taken_at_source: null,
  taken_at_tag: null,
  taken_at_zone: null,
  camera: null,
  lens: null,
  exposure: null,
  gps: null,
  place: null,
  title: null,
  description: null,
  keywords: [],
  rating: null,
  author: null,
};

/** An asset as the service gives it: its thumbnail and a video's original are stored files, given URLs by the API. */
export type AssetListValue = Omit<AssetListItem, 'thumbnail_url'> & { thumbnail: FileRef | null };
export type AssetDetailValue = Omit<AssetDetail, 'thumbnail_url' | 'media_url'> & AssetListValue & { media: FileRef | null };

function stageReport(r: StageRunRow): StageReport {
  return {
    state: r.state,
    reason: r.reason,
    version: r.version,
    counts: JSON.parse(r.counts) as Record<string, number>,
    details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : null,
    attempts: r.attempts,
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    duration_ms: r.duration_ms,
  };
}

function listItem(a: ListedAsset, thumbnail: FileRef | null): AssetListValue {
  return {
    video_id: a.id,
    kind: a.kind,
    status: a.status,
    file_name: a.file_name,
    size_bytes: a.size_bytes,
    page_count: a.page_count,
    pipeline: a.pipeline,
    owned: a.owned === 1,
    thumbnail,
    created_at: iso(a.created_at) as string,
    library_id: a.library_id,
    offline: a.offline === 1,
    taken_at: a.taken_at ?? null,
    orientation_detected: a.orientation_detected ?? null,
    orientation_set: a.orientation_set ?? null,
    width: a.width,
    height: a.height,
    duration_s: a.duration_s,
    favorite: a.favorite === 1,
    rating: a.rating ?? null,
    failed_stages: JSON.parse(a.failed_stages ?? '[]') as string[],
    index_phase: a.index_phase,
  };
}

export class AssetsService {
  /** The runs going now in the indexer processes (the host tells, once it is made: server.ts). */
  runningNow: () => Array<{ assetId: string; stage: string; progress: RunProgress | null }> = () => [];
  private readonly filters: FilterResolver;
  private readonly facetsKept = new Map<string, { changes: number; value: ReturnType<AssetsRepo['facets']> }>();

  constructor(
    private readonly store: Store,
    private readonly indexOptions: IndexOptionsService,
    private readonly queue: StageQueue,
    private readonly events: AssetEvents,
  ) {
    this.filters = new FilterResolver(store);
  }

  /**
   * Validates and stores an upload. Every refusal happens before anything is stored: the temp file
   * is removed and no row is written.
   */
  async ingest(workspaceId: string, file: UploadedFile | undefined, fields: Record<string, unknown>): Promise<UploadAck> {
    try {
      if (!file) {
        this.parseFields(fields);
        throw Errors.invalidRequest([{ path: 'file', message: 'a file part named "file" is required' }]);
      }
      return await this.register(workspaceId, { ...file, path: file.tmpPath, linked: false }, fields);
    } finally {
      // After a successful register the temp file has been moved away; otherwise it must not stay.
      if (file) await fs.promises.rm(file.tmpPath, { force: true });
    }
  }

  /**
   * Indexes a file on this machine in place (CLI `index`): nothing is copied, and the purge of a
   * deleted asset never touches the user's file. A changed file fails `extract` on re-index.
   */
  async ingestLocal(workspaceId: string, absPath: string, fields: Record<string, unknown>): Promise<UploadAck> {
    const [result] = await this.ingestLocalMany(workspaceId, [absPath], fields);
    if ('error' in result) throw result.error;
    return result.ack;
  }

  /**
   * Indexes several files on this machine in place (as `ingestLocal`), read at the same time and
   * stored in one transaction: each file is accepted or refused on its own (a refusal is an
   * AppError; any other error, a drive gone, is thrown once every file has been read).
   */
  async ingestLocalMany(
    workspaceId: string,
    absPaths: readonly string[],
    fields: Record<string, unknown>,
  ): Promise<Array<{ ack: UploadAck } | { error: AppError }>> {
    // The same fields for every file: the options in effect are worked out once.
    let effective: EffectiveOptions | undefined;
    const effectiveFor = (layer: IndexOptionsInput) => (effective ??= this.indexOptions.effective(workspaceId, layer));
    const settled = await Promise.allSettled(
      absPaths.map(async (absPath) => {
        const { sha256, size, head, mtimeMs } = await hashWithHead(absPath, HEAD_BYTES);
        const src = { path: path.resolve(absPath), originalName: path.basename(absPath), sizeBytes: size, sha256, linked: true, head, mtimeMs };
        return this.prepare(workspaceId, src, fields, effectiveFor);
      }),
    );
    for (const s of settled) if (s.status === 'rejected' && !(s.reason instanceof AppError)) throw s.reason;
    const admitted = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    this.queue.admitMany(admitted);
    return settled.map((s) => (s.status === 'fulfilled' ? { ack: s.value.ack } : { error: s.reason as AppError }));
  }

  private parseFields(fields: Record<string, unknown>) {
    const parsed = UploadFields.safeParse(fields);
    if (!parsed.success) throw Errors.invalidRequest(detailsFromIssues(parsed.error.issues));
    return parsed.data;
  }

  private async register(
    workspaceId: string,
    src: { path: string; originalName: string; sizeBytes: number; sha256: string; linked: boolean; head?: Buffer },
    fields: Record<string, unknown>,
  ): Promise<UploadAck> {
    const prepared = await this.prepare(workspaceId, src, fields);
    try {
      this.queue.admit(prepared.asset, prepared.runs);
    } catch (err) {
      await this.store.files.removeAsset(prepared.asset.id);
      throw err;
    }
    return prepared.ack;
  }

  /**
   * Checks a file and makes its asset row and planned runs, not yet stored. An upload's file is
   * moved into the data folder here; a linked file stays where it is.
   */
  private async prepare(
    workspaceId: string,
    /** `head`: the file's first bytes where they were read already (its type is told from them); `mtimeMs`: a linked file's modification time when hashed. */
    src: { path: string; originalName: string; sizeBytes: number; sha256: string; linked: boolean; head?: Buffer; mtimeMs?: number },
    fields: Record<string, unknown>,
    /** The options in effect for these fields in this workspace (files taken in together share them). */
    effectiveFor: (uploadLayer: IndexOptionsInput) => EffectiveOptions = (layer) => this.indexOptions.effective(workspaceId, layer),
  ): Promise<{ asset: NewAssetRow; runs: StageRunRow[]; ack: UploadAck }> {
    const { pipeline: requested, options } = this.parseFields(fields);
    const fileName = displayName(src.originalName);
    const ext = path.extname(fileName).toLowerCase();
    if ((LEGACY_EXTENSIONS as readonly string[]).includes(ext)) throw Errors.legacyFormat(ext);
    const kind = EXTENSION_KINDS[ext];
    if (!kind) {
      throw Errors.unsupportedFileType(ext ? `Files of type ${ext} are not supported.` : 'The file name has no extension; the type cannot be told.');
    }

    // Deprecated tiers index videos only; images and documents always run on arrow (SPEC 4.1).
    const legacy = requested !== CURRENT_PIPELINE && kind === 'video';
    const uploadLayer = parseUploadOptions(options);
    if (legacy && Object.keys(uploadLayer).length > 0) {
      throw Errors.invalidOptions([{ path: 'options', message: `index options need pipeline=arrow; the deprecated ${requested} pipeline takes none` }]);
    }
    const effective: EffectiveOptions | null = legacy ? null : effectiveFor(uploadLayer);

    const mime = src.head ? await confirmHead(src.head, src.sizeBytes, ext, kind) : await confirmContent(src.path, ext, kind);

    const id = newId('vid');
    const now = clock.now();
    const storedPath = src.linked ? src.path : this.store.files.adopt(src.path, id, ext);
    const row = newAssetRow(id, workspaceId, { ...src, path: storedPath, fileName, ext, kind, mime }, effective, now, legacy ? requested : null);
    const ack: UploadAck = {
      video_id: id,
      kind,
      status: 'processing',
      pipeline: row.pipeline,
      file_name: fileName,
      size_bytes: src.sizeBytes,
      index_options: effective,
    };
    return { asset: row, runs: planRuns(id, kind, effective, now, ext), ack };
  }

  /** A page of what the key's workspace sees, narrowed by the filters (names resolved as search resolves them). */
  list(
    auth: AuthContext,
    limit: number,
    offset: number,
    opts: { order?: 'created' | 'taken_at'; filters?: SearchFilters; ids?: string[] } = {},
  ): { items: AssetListValue[]; total: number } {
    const filters = this.filters.resolve(auth, [auth.workspaceId], opts.filters ?? {});
    if (opts.ids) {
      const rows = this.store.assets.listByIds(auth.workspaceId, opts.ids, filters);
      return { items: rows.map((a) => listItem(a, this.store.media.thumbnailOf(a.id))), total: rows.length };
    }
    const { rows, total } = this.store.assets.listVisible(auth.workspaceId, limit, offset, { order: opts.order, filters });
    return { items: rows.map((a) => listItem(a, this.store.media.thumbnailOf(a.id))), total };
  }

  /** Every asset's id and shape under the filters, in the timeline's order (a justified grid's rows). */
  layout(auth: AuthContext, filters: SearchFilters) {
    const { ids, ratios } = this.store.assets.layout(auth.workspaceId, this.filters.resolve(auth, [auth.workspaceId], filters));
    return { ids, ratios, total: ids.length };
  }

  /** The workspace's own favourite and/or rating of assets it sees (the files are not written); 404 naming the first id it does not see, nothing changed. */
  mark(workspaceId: string, ids: string[], m: { favorite?: boolean; rating?: number | null }) {
    const unique = [...new Set(ids)];
    for (const id of unique) this.visible(workspaceId, id);
    this.store.collections.mark(workspaceId, unique, m);
    return { video_ids: unique, ...m };
  }

  /** The owner's turn of a photo (null: the detected one again); the file is not written, re-indexing keeps it. */
  turn(workspaceId: string, id: string, turn: 0 | 90 | 180 | 270 | null) {
    const a = this.owned(workspaceId, id, 'turn a photo');
    if (a.kind !== 'image')
      throw Errors.invalidRequest([{ path: 'turn', message: 'only photos are turned' }], `Only photos can be turned; this asset is a ${a.kind}.`);
    this.store.assets.setOrientationSet(a.id, turn);
    return { video_id: a.id, orientation_set: turn, orientation_detected: a.orientation_detected ?? null };
  }

  /** The owner's name for a voice of a video (null: none); its turns become findable by the name. 404 for a speaker the video does not have. */
  nameSpeaker(workspaceId: string, id: string, speaker: number, name: string | null) {
    const a = this.owned(workspaceId, id, 'name its speakers');
    const turns = this.store.media.speakerTurnNumbers(a.id);
    const own = turns.filter((t) => t.speaker === speaker);
    if (own.length === 0) throw Errors.notFound(`Speaker ${speaker} of this video`);
    this.store.transaction(() => {
      this.store.media.nameSpeaker(a.id, speaker, name);
      this.store.search.replaceForStage(a.id, 'speakers', speakerEntries(turns, this.store.media.speakerNames(a.id)));
    });
    return { video_id: a.id, speaker, name, label: name ?? speakerName(speaker), turns: own.length };
  }

  /** How many assets per month taken, newest first, under the filters (the timeline's scrubber). */
  months(auth: AuthContext, filters: SearchFilters) {
    const { months, undated } = this.store.assets.months(auth.workspaceId, this.filters.resolve(auth, [auth.workspaceId], filters));
    return { months, undated, total: months.reduce((n, m) => n + m.count, undated) };
  }

  /**
   * What the list can be narrowed by, with counts. Counting reads every asset's row (≈ 0.5 s at
   * 100,000, on the thread that answers HTTP), so the last answer is kept per workspace and given
   * again while nothing at all was written since (never a stale count; while indexing writes, it
   * is counted again).
   */
  facets(workspaceId: string) {
    const changes = this.store.changes();
    const kept = this.facetsKept.get(workspaceId);
    if (kept?.changes === changes) return kept.value;
    const value = this.store.assets.facets(workspaceId);
    this.facetsKept.set(workspaceId, { changes, value });
    return value;
  }

  /** Where uploads are streamed to before they are accepted. */
  get uploadDir(): string {
    return this.store.files.tmpDir;
  }

  /** The asset if this workspace may see it; another workspace's id is simply not found. */
  visible(workspaceId: string, id: string): VisibleAsset {
    const a = this.store.assets.findVisible(id, workspaceId);
    if (!a) throw Errors.notFound('Video');
    return a;
  }

  detail(workspaceId: string, id: string): AssetDetailValue {
    const a = this.store.assets.findListed(id, workspaceId);
    if (!a) throw Errors.notFound('Video');
    // Runs not written yet (a library file the queue has not reached) are all still to come.
    const runs = a.runs_planned ? this.store.runs.forAsset(a.id) : planRuns(a.id, a.kind, a.index_options, a.created_at, a.ext);
    const done = runs.filter((r) => r.state !== 'pending' && r.state !== 'running').length;
    const stages = Object.fromEntries(runs.map((r) => [r.stage, stageReport(r)]));
    const meta = this.store.metadata.get(a.id);
    return {
      ...listItem(a, this.store.media.thumbnailOf(a.id)),
      mime_type: a.mime_type,
      sha256: a.sha256,
      engine: a.engine,
      gen1_tier: a.gen1_tier,
      workspace_id: a.workspace_id,
      completed_at: iso(a.completed_at),
      index: {
        options: a.index_options,
        report: {
          stages,
          progress: { done, total: runs.length },
        },
      },
      // A video is played from what a browser plays: its original, or a copy made for it (media/playable.ts).
      media:
        a.kind === 'video'
          ? { asset_id: a.id, name: PLAYABLE }
          : a.kind === 'image' && WEB_PICTURE_TYPES.includes(a.mime_type ?? '')
            ? { asset_id: a.id, name: 'original' }
            : null,
      // The sidecar the metadata stage read, where it ran.
      ...this.pathsOf(a, stages.metadata?.state === 'ok' ? stages.metadata.details?.sidecars : undefined),
      metadata: { ...NO_METADATA, ...meta, width: a.width, height: a.height, duration_s: a.duration_s },
      taken_at: meta?.taken_at ?? null,
    };
  }

  /**
   * The asset if this workspace owns it (SPEC 5.6: delete is owner-only; so are re-index, the XMP
   * export and reveal in folder): 404 when it cannot see it, 403 when it is shared into it.
   */
  owned(workspaceId: string, id: string, action: string): VisibleAsset {
    const a = this.visible(workspaceId, id);
    if (a.owned !== 1) throw Errors.forbidden(`Only the owning workspace can ${action}; this asset is shared into yours.`);
    return a;
  }

  /** Where an asset indexed in place lives; paths are the owner's to see. */
  private pathsOf(a: VisibleAsset, sidecars: unknown): { path: string | null; paths: string[]; sidecar_path: string | null } {
    if (a.owned !== 1 || a.linked !== 1) return { path: null, paths: [], sidecar_path: null };
    const copies = this.store.libraries.filesOfAsset(a.id).map((f) => path.join(f.root, f.rel_path));
    // The sidecar the metadata stage read last (the last one wins where there are two).
    const read = Array.isArray(sidecars) ? sidecars.filter((x): x is string => typeof x === 'string') : [];
    return {
      path: a.stored_path,
      paths: copies.length ? [a.stored_path, ...copies.filter((p) => p !== a.stored_path)] : [a.stored_path],
      sidecar_path: read.length ? path.join(path.dirname(a.stored_path), read[read.length - 1]) : null,
    };
  }

  /** Owner-only (SPEC 5.6): hidden at once, purged in the background. */
  delete(workspaceId: string, id: string): { video_id: string; deleted: true; purging: true } {
    const a = this.owned(workspaceId, id, 'delete it');
    this.store.assets.markDeleted(a.id, clock.now());
    this.events.deleted(a.workspace_id);
    return { video_id: a.id, deleted: true, purging: true };
  }

  /**
   * Runs stages again (all by default) and every stage that depends on them; owner only. The
   * owner's decisions about faces carry over to the new face records.
   */
  reindex(workspaceId: string, id: string, stages: string[] | undefined): { video_id: string; status: 'processing'; stages: string[] } {
    const a = this.owned(workspaceId, id, 're-index it');
    const unknown = (stages ?? []).filter((s) => !(STAGE_ORDER as readonly string[]).includes(s));
    if (unknown.length) throw Errors.invalidRequest([{ path: 'stages', message: `unknown stages: ${unknown.join(', ')}` }]);
    return this.rerun(a, stages);
  }

  /**
   * Stages that failed with `model_not_installed` run again once their model is there (with what
   * depends on them), so a `models pull` followed by a restart fills the index in. Returns how many
   * assets were queued.
   */
  resumeWaitingForModels(dataDir: string): number {
    const ready = STAGE_ORDER.filter((n) => STAGES[n].model !== null && STAGES[n].availability({ dataDir }).available);
    const waiting = this.store.runs.waitingForModels(ready);
    // Stages that add several models' outputs together: runs done before one of them arrived.
    for (const name of STAGE_ORDER) {
      for (const model of STAGES[name].combines ?? []) {
        if (isInstalled(dataDir, model)) waiting.push(...this.store.runs.okWithout(name, model, STAGES[name].combinesKinds));
      }
    }
    return this.rerunAll(waiting);
  }

  /** Stages that failed because the disk was full run again (with what depends on them); returns how many assets were queued. */
  resumeAfterNoSpace(): number {
    return this.rerunAll(this.store.runs.failedWith('no_space'));
  }

  /**
   * Runs again the failed stages of the workspace's assets (with what depends on them) whose failure
   * another try may clear; with `all`, every failed stage (contract/stages.ts, LASTING_FAILURE_CODES).
   */
  retryFailed(workspaceId: string, opts: { all?: boolean } = {}): { requeued: number; video_ids: string[]; left: number } {
    const failedRuns = this.store.runs.failedOfWorkspace(workspaceId);
    const runs = opts.all ? failedRuns : failedRuns.filter((r) => r.code !== DEPENDENCY_FAILED && mayClearOnRetry(r.code));
    const ids = [...stagesByAsset(runs).keys()];
    const retried = new Set(ids);
    const left = new Set(failedRuns.map((r) => r.asset_id).filter((id) => !retried.has(id))).size;
    return { requeued: this.rerunAll(runs), video_ids: ids, left };
  }

  /** What indexing is doing for the workspace (the top bar's indicator). */
  activity(workspaceId: string) {
    const a = this.store.runs.activity(workspaceId, 50);
    // Another workspace's runs are not told: only the assets this one owns.
    const running = this.runningNow().flatMap(({ assetId, stage, progress }) => {
      const asset = this.store.assets.byId(assetId);
      return asset && asset.workspace_id === workspaceId && !asset.deleted_at ? [{ video_id: assetId, file_name: asset.file_name, stage, progress }] : [];
    });
    return {
      paused: this.store.runs.pausedWorkspaces().includes(workspaceId),
      ...a,
      running,
      failed: {
        count: a.failed.count,
        items: a.failed.items.map((f) => ({ ...f, finished_at: iso(f.finished_at) })),
        assets: a.failed.assets,
        retryable: a.failed.retryable,
        files: a.failed.files.map((f) => ({ ...f, finished_at: iso(f.finished_at) })),
      },
    };
  }

  /** Pauses (or resumes) the indexing of the workspace's assets; kept across restarts. */
  pause(workspaceId: string, paused: boolean): { paused: boolean } {
    this.store.runs.setPaused(workspaceId, paused);
    if (!paused) this.queue.emit('work');
    return { paused };
  }

  private rerunAll(runs: Array<{ asset_id: string; stage: string }>): number {
    const byAsset = stagesByAsset(runs);
    for (const [id, stages] of byAsset) {
      const a = this.store.assets.byId(id);
      if (a) this.rerun(a, stages);
    }
    return byAsset.size;
  }

  private rerun(a: AssetRow, stages: string[] | undefined): { video_id: string; status: 'processing'; stages: string[] } {
    return { video_id: a.id, status: 'processing', stages: this.queue.rerun(a, stages) };
  }

  /** Shares an asset read-only into another workspace (CLI `share`). */
  share(assetId: string, toWorkspace: string): { video_id: string; workspace: string } {
    const asset = this.store.assets.byId(assetId);
    if (!asset || asset.deleted_at !== null) throw Errors.notFound('Video');
    const target = this.store.workspaces.byName(toWorkspace);
    if (!target) throw new AppError('unknown_workspace', 422, `No workspace named "${toWorkspace}".`);
    if (target.id === asset.workspace_id) {
      throw new AppError('invalid_request', 422, 'The asset already belongs to that workspace.');
    }
    this.store.assets.share(asset.id, target.id, clock.now());
    return { video_id: asset.id, workspace: target.name };
  }
}

// The files under the data folder. Names are always chosen here, never taken from an upload.
import fs from 'node:fs';
import path from 'node:path';

/** The data folder's scratch/ (what the indexer processes use as their temporary folder). */
export const scratchDirOf = (dataDir: string): string => path.join(path.resolve(dataDir), 'scratch');

export class FileStore {
  readonly root: string;
  /** Uploads in flight. */
  readonly tmpDir: string;
  /** The indexer processes' scratch files (server/indexer/worker.ts). */
  readonly scratchDir: string;
  readonly assetsDir: string;

  constructor(dataDir: string) {
    this.root = path.resolve(dataDir);
    this.tmpDir = path.join(this.root, 'tmp');
    this.scratchDir = scratchDirOf(this.root);
    this.assetsDir = path.join(this.root, 'assets');
    fs.mkdirSync(this.tmpDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.scratchDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.assetsDir, { recursive: true, mode: 0o700 });
  }

  assetDir(assetId: string): string {
    if (!/^[a-z]+_[0-9a-z]+$/.test(assetId)) throw new Error(`bad asset id ${assetId}`);
    return path.join(this.assetsDir, assetId);
  }

  /** Path of the original, relative to the data folder (what the database stores). */
  originalRelPath(assetId: string, ext: string): string {
    return path.join('assets', assetId, `original${ext}`);
  }

  abs(storedPath: string): string {
    return path.isAbsolute(storedPath) ? storedPath : path.join(this.root, storedPath);
  }

  /** Moves an uploaded temp file into the asset's folder. */
  adopt(tmpPath: string, assetId: string, ext: string): string {
    fs.mkdirSync(this.assetDir(assetId), { recursive: true, mode: 0o700 });
    const rel = this.originalRelPath(assetId, ext);
    fs.renameSync(tmpPath, this.abs(rel));
    return rel;
  }

  async removeAsset(assetId: string): Promise<void> {
    await fs.promises.rm(this.assetDir(assetId), { recursive: true, force: true });
  }

  /** Removes `name` from the folders of these assets where it is (what a stop left behind). */
  async removeFromAssets(assetIds: readonly string[], name: string): Promise<void> {
    // A few at a time: most folders hold no such thing, and each look is one call.
    for (let i = 0; i < assetIds.length; i += 32) {
      await Promise.all(assetIds.slice(i, i + 32).map((id) => fs.promises.rm(path.join(this.assetDir(id), name), { recursive: true, force: true })));
    }
  }

  /** Clears temp and scratch files, and asset folders that no database row owns (left by a crash). */
  async sweep(knownAssetIds: Set<string>): Promise<number> {
    let removed = 0;
    for (const dir of [this.tmpDir, this.scratchDir]) {
      for (const name of await fs.promises.readdir(dir)) {
        await fs.promises.rm(path.join(dir, name), { recursive: true, force: true });
        removed++;
      }
    }
    for (const name of await fs.promises.readdir(this.assetsDir)) {
      if (!knownAssetIds.has(name)) {
        await fs.promises.rm(path.join(this.assetsDir, name), { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }
}

// A full disk: stage runs that failed with `no_space` wait, and run again by themselves once the disk
// of the data folder has `minFreeBytes` free again, looked at every `spaceCheckMs` while any wait
// (and once at start).
import fs from 'node:fs';
import type { AssetsService } from './assets.service.ts';

export class SpaceWatch {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly assets: AssetsService,
    private readonly opts: { minFreeBytes: number; checkMs: number; log: (msg: string) => void },
  ) {}

  /** Bytes free to this user on the disk of the data folder. */
  freeBytes(): number {
    const s = fs.statfsSync(this.dataDir);
    return s.bavail * s.bsize;
  }

  /** A run failed for want of space: look until there is room again. */
  arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.opts.checkMs);
    this.timer.unref();
  }

  /** Runs the waiting stages again when there is room; true when any were queued. */
  check(): boolean {
    if (this.freeBytes() < this.opts.minFreeBytes) return false;
    this.stop();
    const n = this.assets.resumeAfterNoSpace();
    if (n > 0) this.opts.log(`disk space is back: indexing ${n} asset(s) that stopped for want of it`);
    return n > 0;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

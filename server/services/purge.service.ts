// Background purge of deleted assets (SPEC 3.1): files first, then rows (stage runs and everything
// keyed to the asset go with it through ON DELETE CASCADE). A crash between the two leaves the row
// marked deleted, so the purge simply runs again.
import type { Store } from '../store/index.ts';

export class Purger {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly store: Store,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves when no purge is in progress. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    for (;;) {
      const batch = this.store.assets.purgeCandidates(50);
      if (batch.length === 0) return;
      for (const asset of batch) {
        try {
          await this.store.files.removeAsset(asset.id);
          this.store.vectorIndex.removeAsset(this.store.vectors.idsOfAsset(asset.id));
          this.store.assets.deleteRow(asset.id);
        } catch (err) {
          this.log(`purge of ${asset.id} failed: ${(err as Error).message}`);
          return;
        }
      }
    }
  }
}

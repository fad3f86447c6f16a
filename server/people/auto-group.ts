// Re-grouping by itself (SPEC 4.3: "recluster is run after adding a batch of uploads"): when faces
// are left waiting by indexing, a re-group of their workspace runs once no new face has waited for
// `quietMs`, and at the latest `maxWaitMs` after the first one under a steady stream. One that is due
// while a re-group of the workspace runs (the owner's, or the last one) waits for it, then runs.
export interface AutoGroupTiming {
  quietMs: number;
  maxWaitMs: number;
}

interface Pending {
  first: number;
  timer: NodeJS.Timeout;
}

export class AutoGroup {
  private readonly pending = new Map<string, Pending>();
  private stopped = false;

  constructor(
    private readonly timing: AutoGroupTiming,
    /** Runs the re-group of a workspace; resolves when it is applied. false: one is running, try later. */
    private readonly run: (workspaceId: string) => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Faces of the workspace were left waiting just now. */
  facesWaiting(workspaceId: string): void {
    if (this.stopped) return;
    const at = this.now();
    const p = this.pending.get(workspaceId);
    if (p) clearTimeout(p.timer);
    const first = p?.first ?? at;
    const delay = Math.max(0, Math.min(this.timing.quietMs, first + this.timing.maxWaitMs - at));
    this.pending.set(workspaceId, { first, timer: setTimeout(() => void this.fire(workspaceId), delay).unref() });
  }

  /** Whether a re-group of the workspace is waiting for its moment. */
  isPending(workspaceId: string): boolean {
    return this.pending.has(workspaceId);
  }

  private async fire(workspaceId: string): Promise<void> {
    const p = this.pending.get(workspaceId);
    this.pending.delete(workspaceId);
    if (this.stopped || !p) return;
    const started = await this.run(workspaceId);
    // Busy: faces that arrived meanwhile are still waiting; look again after a quiet period.
    if (!started && !this.stopped && !this.pending.has(workspaceId)) {
      this.pending.set(workspaceId, { first: p.first, timer: setTimeout(() => void this.fire(workspaceId), this.timing.quietMs).unref() });
    }
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
  }
}

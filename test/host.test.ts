// The indexer host's handling of processes that die or hang, with the process edge replaced by a
// scripted channel (everything else real: SQLite store, planner, registry).
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../server/store/index.ts';
import { IndexerHost, LIGHT_BYTES, LIGHT_IN_FLIGHT, LIGHT_METADATA_BYTES, MAX_ATTEMPTS, isLight } from '../server/indexer/host.ts';
import { STAGES } from '../server/indexer/registry.ts';
import type { RunRequest, RunsRequest, WarmRequest, WorkerChannel, WorkerMessage } from '../server/indexer/protocol.ts';
import { StageQueue } from '../server/indexer/queue.ts';
import { newAssetRow } from '../server/indexer/admission.ts';
import { planRuns } from '../server/indexer/plan.ts';
import { deploymentDefaults } from '../server/contract/stages.ts';
import { insertAsset } from './helpers/asset-row.ts';
import { tempDir } from './helpers/server.ts';

type Behaviour = (req: RunRequest, ch: ScriptedChannel) => void;

class ScriptedChannel implements WorkerChannel {
  readonly pid = Math.floor(Math.random() * 1e6);
  /** The stages each warm request named. */
  readonly warmed: string[][] = [];
  /** How many runs each message of several held. */
  readonly batches: number[] = [];
  private readonly ev = new EventEmitter();
  constructor(private readonly behave: Behaviour) {
    setImmediate(() => this.emit({ type: 'ready' }));
  }
  emit(msg: WorkerMessage) {
    this.ev.emit('message', msg);
  }
  send(msg: RunRequest | RunsRequest | WarmRequest) {
    if (msg.type === 'warm') this.warmed.push(msg.stages);
    else if (msg.type === 'runs') {
      this.batches.push(msg.runs.length);
      for (const run of msg.runs) this.behave(run, this);
    } else this.behave(msg, this);
  }
  onMessage(fn: (m: WorkerMessage) => void) {
    this.ev.on('message', fn);
  }
  onExit(fn: (code: number | null) => void) {
    this.ev.on('exit', fn);
  }
  kill() {
    setImmediate(() => this.ev.emit('exit', null));
  }
  die(code: number) {
    setImmediate(() => this.ev.emit('exit', code));
  }
  /** Exits within the current callback (the host hears it before the event loop moves on). */
  dieNow(code: number) {
    this.ev.emit('exit', code);
  }
}

/** A picture (a one-byte file: a picture's runs are never light, whatever its size): each run goes to a process alone. */
function seedAsset(store: Store, id = 'vid_aaaaaaaaaaaaaaaaaaaa') {
  insertAsset(store, { id, workspace: 'w', kind: 'image' });
  return id;
}

/** A small text document: its text and metadata are light runs. */
function seedSmall(store: Store, id: string, createdAt: number) {
  insertAsset(store, { id, workspace: 'w', kind: 'document', row: { created_at: createdAt } });
  return id;
}

async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A host of one indexer process at a time, each launch counted: an extract run goes to `onExtract`
 * (with the number of the process's launch), which says whether it took it; every other run, and
 * an extract it did not take, answers failed.
 */
function hostOfOne(store: Store, onExtract: (ch: ScriptedChannel, launch: number) => boolean): { host: IndexerHost; launches: () => number } {
  let launches = 0;
  const host = new IndexerHost(store, {
    workers: 1,
    stageTimeoutMs: 60_000,
    launch: () => {
      const launch = ++launches;
      return new ScriptedChannel((req, ch) => {
        if (req.stage === 'extract' && onExtract(ch, launch)) return;
        ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } });
      });
    },
  });
  return { host, launches: () => launches };
}

describe('IndexerHost with processes that die or hang', () => {
  let host: IndexerHost | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await host?.stop();
    store?.close();
  });

  it(`retries a run whose process died, and fails it after ${MAX_ATTEMPTS} deaths; the asset still completes`, async () => {
    store = openStore(tempDir());
    const id = seedAsset(store);
    const pool = hostOfOne(store, (ch) => {
      ch.die(139);
      return true;
    });
    host = pool.host;
    host.start();
    await until(() => store!.assets.byId(id)!.status === 'completed');
    const extract = store.runs.get(id, 'extract')!;
    expect(extract.state).toBe('failed');
    expect(extract.attempts).toBe(MAX_ATTEMPTS);
    expect(extract.reason).toMatch(/^indexer_crashed/);
    expect(pool.launches()).toBe(MAX_ATTEMPTS + 1);
    expect(store.runs.get(id, 'ocr')!.reason).toBe('dependency_failed: extract');
  });

  it('starts a new process after a death even when its timer fires before the clock says the wait is over', async () => {
    store = openStore(tempDir());
    const id = seedAsset(store);
    const pool = hostOfOne(store, (ch, launch) => {
      if (launch > 1) return false;
      // A timer counts on the event loop's clock, Date.now() on the system's: measured here,
      // 1 timer in 40 fires a millisecond before Date.now() says its delay is over. Made
      // certain by hearing the exit while Date.now() runs 5 ms ahead.
      setImmediate(() => {
        const now = Date.now;
        Date.now = () => now() + 5;
        try {
          ch.dieNow(139);
        } finally {
          Date.now = now;
        }
      });
      return true;
    });
    host = pool.host;
    host.start();
    await until(() => pool.launches() === 2, 3000);
    await until(() => store!.assets.byId(id)!.status === 'completed');
    expect(store.runs.get(id, 'extract')!.attempts).toBe(2);
  });

  it('kills a process that runs past the stage timeout and reports a timeout', async () => {
    store = openStore(tempDir());
    const id = seedAsset(store);
    host = new IndexerHost(store, {
      workers: 1,
      stageTimeoutMs: 100,
      launch: () => new ScriptedChannel(() => {}),
    });
    host.start();
    await until(() => store!.runs.get(id, 'extract')!.state === 'failed');
    expect(store.runs.get(id, 'extract')!.reason).toMatch(/^timeout/);
  });

  it('gives a run that keeps getting further the timeout again from each step, and stops one that does not', async () => {
    store = openStore(tempDir());
    const moving = seedAsset(store, 'vid_aaaaaaaaaaaaaaaaaaaa');
    const stuck = seedAsset(store, 'vid_bbbbbbbbbbbbbbbbbbbb');
    host = new IndexerHost(store, {
      workers: 2,
      stageTimeoutMs: 400,
      launch: () =>
        new ScriptedChannel((req, ch) => {
          if (req.stage !== 'extract') return ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'not_applicable', reason: 'test' } });
          // Both say how far they have got every 50 ms for 1.2 s, three times the timeout: one gets further each time, the other never does.
          let step = 0;
          const tick = setInterval(() => {
            step++;
            ch.emit({ type: 'progress', jobId: req.jobId, done: req.asset.id === moving ? step : 1, total: 30, unit: 'pages' });
            if (step === 24) {
              clearInterval(tick);
              ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'not_applicable', reason: 'test' } });
            }
          }, 50);
        }),
    });
    host.start();
    await until(() => store!.runs.get(moving, 'extract')!.state === 'not_applicable' && store!.runs.get(stuck, 'extract')!.state === 'failed', 5000);
    expect(store.runs.get(stuck, 'extract')!.reason).toMatch(/^timeout: the stage ran \d+ s without getting further$/);
  });

  it('puts runs in flight back in the queue when stopped', async () => {
    store = openStore(tempDir());
    const id = seedAsset(store);
    host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch: () => new ScriptedChannel(() => {}) });
    host.start();
    await until(() => store!.runs.get(id, 'extract')!.state === 'running');
    await host.stop();
    host = undefined;
    expect(store.runs.get(id, 'extract')!.state).toBe('pending');
  });
});

describe('IndexerHost and how far a run has got', () => {
  it("passes on a process's reports of a run going (an event, and the runs under way), and forgets them once the run ends", async () => {
    const store = openStore(tempDir());
    const id = seedAsset(store);
    let held: { req: RunRequest; ch: ScriptedChannel } | null = null;
    const host = new IndexerHost(store, {
      workers: 1,
      stageTimeoutMs: 60_000,
      launch: () =>
        new ScriptedChannel((req, ch) => {
          if (req.stage === 'extract') held = { req, ch };
          else ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'not_applicable', reason: 'test' } });
        }),
    });
    const events: unknown[] = [];
    host.on('run-progress', (e) => events.push(e));
    try {
      host.start();
      await until(() => held !== null);
      expect(host.running()).toEqual([{ assetId: id, stage: 'extract', progress: null }]);
      const { req, ch } = held!;
      ch.emit({ type: 'progress', jobId: req.jobId, done: 3, total: 24, unit: 'pages' });
      expect(events).toEqual([{ assetId: id, stage: 'extract', done: 3, total: 24, unit: 'pages' }]);
      expect(host.running()).toEqual([{ assetId: id, stage: 'extract', progress: { done: 3, total: 24, unit: 'pages' } }]);
      // A report of a run the process no longer holds is not passed on.
      ch.emit({ type: 'progress', jobId: req.jobId + 1000, done: 1, total: 2, unit: 'pages' });
      expect(events).toHaveLength(1);
      ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', code: 'error', reason: 'error: test' } });
      expect(host.running().filter((r) => r.stage === 'extract')).toEqual([]);
    } finally {
      await host.stop();
      store.close();
    }
  });
});

describe('IndexerHost and runs that have nothing to do', () => {
  it('records them itself, as their runners would answer, and hands a process only runs with work', async () => {
    const store = openStore(tempDir());
    const id = 'doc_aaaaaaaaaaaaaaaaaaaa';
    // A text document already extracted: no picture pages, no page to read by OCR.
    insertAsset(store, { id, workspace: 'w', kind: 'document', runs: (r) => (r.stage === 'extract' ? { ...r, state: 'ok' } : r) });
    const sent: string[] = [];
    const host = new IndexerHost(store, {
      workers: 1,
      stageTimeoutMs: 60_000,
      launch: () =>
        new ScriptedChannel((req, ch) => {
          sent.push(req.stage);
          ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'ok', counts: {}, output: {} } });
        }),
    });
    const looks = vi.spyOn(host.queue, 'next');
    // A stage without its model is settled before its input is read (a document's entries, a workspace's People).
    const readInput = vi.spyOn(STAGES.embeddings, 'prepare');
    try {
      host.start();
      await until(() => store.assets.byId(id)!.status === 'completed');
      expect(sent).toEqual(['metadata']);
      expect(readInput).not.toHaveBeenCalled();
      // The runs recorded here (faces, objects, ocr, captions, embeddings, then people) are taken
      // several from one look at the queue: five looks in all, where each had taken one of its own
      // (eight: a folder of small text files waited on those looks).
      expect(looks.mock.calls.length).toBeLessThanOrEqual(5);
      const run = (stage: string) => store.runs.get(id, stage)!;
      expect(run('faces')).toMatchObject({ state: 'not_applicable', reason: 'no picture pages to look at' });
      expect(run('objects')).toMatchObject({ state: 'not_applicable', reason: 'no picture pages to look at' });
      expect(run('ocr')).toMatchObject({ state: 'not_applicable', reason: 'every page has a usable text layer' });
      // No optional model is installed in this data folder: failed as `withModel` answers in a process.
      expect(run('captions')).toMatchObject({ state: 'failed', code: 'model_not_installed' });
      expect(run('captions').reason).toMatch(/^model_not_installed: vit-gpt2-image-captioning \(media-index models pull /);
      expect(run('embeddings')).toMatchObject({ state: 'failed', code: 'model_not_installed' });
      expect(run('people')).toMatchObject({ state: 'not_applicable' });
    } finally {
      await host.stop();
      store.close();
    }
  });
});

describe('StageQueue admitting a file', () => {
  it('settles at once the run of a stage none of whose optional models is installed, as a look at the queue would', () => {
    const store = openStore(tempDir());
    try {
      const queue = new StageQueue(store);
      const ws = store.workspaces.ensure('w').row;
      const effective = deploymentDefaults();
      const id = 'doc_bbbbbbbbbbbbbbbbbbbb';
      const src = {
        path: '/x/notes.txt',
        fileName: 'notes.txt',
        ext: '.txt',
        kind: 'document' as const,
        sizeBytes: 30,
        sha256: '0'.repeat(64),
        mime: 'text/plain',
        linked: true,
      };
      queue.admit(newAssetRow(id, ws.id, src, effective, 7), planRuns(id, 'document', effective, 7, '.txt'));
      // No optional model in this data folder: the sentence encoder's run is failed as it is written,
      // with the outcome and reason its runner would give (and `resumeWaitingForModels` looks for).
      const run = (stage: string) => store.runs.get(id, stage)!;
      expect(run('embeddings')).toMatchObject({ state: 'failed', code: 'model_not_installed', finished_at: 7, started_at: null, attempts: 0 });
      expect(run('embeddings').reason).toMatch(/^model_not_installed: \S+ \(media-index models pull /);
      expect(store.runs.waitingForModelsOf([id])).toBe(1);
      expect(run('extract')).toMatchObject({ state: 'pending' });
      expect(run('metadata')).toMatchObject({ state: 'pending' });
      // A look at the queue finds phase 1 only: nothing is left for phase 2 to settle.
      expect(
        queue
          .next(10)
          .map((r) => r.stage)
          .sort(),
      ).toEqual(['extract', 'metadata']);
    } finally {
      store.close();
    }
  });
});

/** A launcher of scripted processes that keeps each channel it starts. */
function recordedLaunch(behave: Behaviour): { launch: () => ScriptedChannel; channels: ScriptedChannel[] } {
  const channels: ScriptedChannel[] = [];
  return {
    channels,
    launch: () => {
      const ch = new ScriptedChannel(behave);
      channels.push(ch);
      return ch;
    },
  };
}

/** A process that answers each run on the next turn, counting the most runs it held at once. */
function holdingCount(): { behave: Behaviour; mostHeld: () => number } {
  let held = 0;
  let most = 0;
  return {
    mostHeld: () => most,
    behave: (req, ch) => {
      most = Math.max(most, ++held);
      setImmediate(() => {
        held--;
        ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } });
      });
    },
  };
}

describe('IndexerHost when work is coming', () => {
  it('starts every process before any run is queued when told to, and has each load those stages ahead', async () => {
    const store = openStore(tempDir());
    const { launch, channels } = recordedLaunch(() => {});
    const host = new IndexerHost(store, { workers: 2, stageTimeoutMs: 60_000, launch });
    try {
      host.start();
      // No work: no process (an idle service stays light).
      expect(channels).toHaveLength(0);
      host.prestart(['extract', 'metadata']);
      expect(channels).toHaveLength(2);
      await until(() => channels.every((c) => c.warmed.length > 0));
      expect(channels.map((c) => c.warmed)).toEqual([[['extract', 'metadata']], [['extract', 'metadata']]]);
    } finally {
      await host.stop();
      store.close();
    }
  });

  it("hands a process its next run before storing its last one's outcome", async () => {
    const store = openStore(tempDir());
    seedAsset(store, 'vid_aaaaaaaaaaaaaaaaaaaa');
    seedAsset(store, 'vid_bbbbbbbbbbbbbbbbbbbb');
    const handed: RunRequest[] = [];
    // The state of the first run, as the store holds it when the second is handed out.
    let firstWhenSecondHanded: string | undefined;
    const host = new IndexerHost(store, {
      workers: 1,
      stageTimeoutMs: 60_000,
      launch: () =>
        new ScriptedChannel((req, ch) => {
          handed.push(req);
          if (handed.length === 2) firstWhenSecondHanded = store.runs.get(handed[0].asset.id, handed[0].stage)!.state;
          setImmediate(() => ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } }));
        }),
    });
    try {
      host.start();
      await until(() => handed.length >= 2);
      expect(firstWhenSecondHanded).toBe('running');
      // And then stored.
      await until(() => store.runs.get(handed[0].asset.id, handed[0].stage)!.state === 'failed');
    } finally {
      await host.stop();
      store.close();
    }
  });
});

describe('IndexerHost when work is done', () => {
  it('ends a process left without work for idleEndMs, and starts one again for new work', async () => {
    const store = openStore(tempDir());
    const logs: string[] = [];
    const { launch, channels } = recordedLaunch((req, c) => c.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } }));
    const exits: Array<number | null> = [];
    const host = new IndexerHost(store, {
      workers: 1,
      stageTimeoutMs: 60_000,
      idleEndMs: 200,
      log: (m) => logs.push(m),
      launch: () => {
        const ch = launch();
        ch.onExit((code) => exits.push(code));
        return ch;
      },
    });
    try {
      const first = seedAsset(store, 'vid_aaaaaaaaaaaaaaaaaaaa');
      host.start();
      await until(() => store.assets.byId(first)!.status !== 'processing');
      expect(channels).toHaveLength(1);
      // Idle: it ends, as asked, and is not counted as a crash (no new process, no back-off).
      await until(() => exits.length === 1);
      expect(host.workerPids).toEqual([]);
      expect(logs.some((m) => /ended after 0 s without work/.test(m))).toBe(true);
      expect(logs.some((m) => /exited/.test(m))).toBe(false);
      // New work starts a process again at once.
      const second = seedAsset(store, 'vid_bbbbbbbbbbbbbbbbbbbb');
      host.kick();
      await until(() => store.assets.byId(second)!.status !== 'processing');
      expect(channels).toHaveLength(2);
    } finally {
      await host.stop();
      store.close();
    }
  });
});

describe("IndexerHost and light runs (a small file's text and metadata)", () => {
  it('hands a process several at once and records their outcomes together', async () => {
    const store = openStore(tempDir());
    // Two light runs each (text and metadata): more than a process may hold.
    const ids = Array.from({ length: LIGHT_IN_FLIGHT }, (_, i) => seedSmall(store, `doc_${String(i).padStart(20, '0')}`, i + 1));
    const holding = holdingCount();
    const { launch, channels } = recordedLaunch(holding.behave);
    const host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch });
    const recorded = vi.spyOn(host.queue, 'finishMany');
    try {
      host.start();
      await until(() => ids.every((id) => store.assets.byId(id)!.status === 'completed'));
      // Handed several in one message (a look's worth: the text and metadata of the eight oldest
      // files), and never more held than LIGHT_IN_FLIGHT.
      expect(channels[0].batches[0]).toBe(16);
      expect(holding.mostHeld()).toBeGreaterThanOrEqual(16);
      expect(holding.mostHeld()).toBeLessThanOrEqual(LIGHT_IN_FLIGHT);
      // The outcomes heard in one turn went into one transaction.
      expect(Math.max(...recorded.mock.calls.map(([o]) => o.length))).toBeGreaterThan(1);
      for (const id of ids) expect(store.runs.get(id, 'extract')).toMatchObject({ state: 'failed', attempts: 1 });
    } finally {
      await host.stop();
      store.close();
    }
  });

  it('settles the later stages of every file whose text failed, however many fail at once', async () => {
    // Each look at the queue reads a window of the oldest assets; the stages that can never run
    // (their text failed) are settled as it passes them. Those past its window wait for another
    // look, which no process's answer asks for once every process is idle: the last files stayed
    // "processing" for ever (from nine files on, with one process).
    const store = openStore(tempDir());
    const ids = Array.from({ length: 3 * LIGHT_IN_FLIGHT }, (_, i) => seedSmall(store, `doc_${String(i).padStart(20, '0')}`, i + 1));
    const host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch: recordedLaunch(holdingCount().behave).launch });
    try {
      host.start();
      await until(() => ids.every((id) => store.assets.byId(id)!.status === 'completed'));
      for (const id of ids) expect(store.runs.get(id, 'faces')).toMatchObject({ state: 'failed', code: 'dependency_failed' });
    } finally {
      await host.stop();
      store.close();
    }
  });

  it('sends a run again alone after its process died holding others', async () => {
    const store = openStore(tempDir());
    const bad = seedSmall(store, 'doc_bbbbbbbbbbbbbbbbbbbb', 1);
    const good = seedSmall(store, 'doc_gggggggggggggggggggg', 2);
    // How many other runs the process held when each run of the good file was handed to it.
    const goodHandedBeside: number[] = [];
    const { launch } = recordedLaunch((req, ch) => {
      if (req.asset.id === good) goodHandedBeside.push(heldBy.get(ch) ?? 0);
      heldBy.set(ch, (heldBy.get(ch) ?? 0) + 1);
      if (req.asset.id === bad && req.stage === 'extract') return ch.die(139);
      setImmediate(() => {
        heldBy.set(ch, heldBy.get(ch)! - 1);
        ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } });
      });
    });
    const heldBy = new Map<ScriptedChannel, number>();
    const host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch });
    try {
      host.start();
      await until(() => [bad, good].every((id) => store.assets.byId(id)!.status === 'completed'));
      // The file that took its process down is failed after MAX_ATTEMPTS deaths, the other is not.
      expect(store.runs.get(bad, 'extract')).toMatchObject({ state: 'failed', code: 'indexer_crashed', attempts: MAX_ATTEMPTS });
      expect(store.runs.get(good, 'extract')).toMatchObject({ state: 'failed', reason: 'scripted' });
      // First beside the bad file's runs; when sent again, alone.
      expect(goodHandedBeside[0]).toBeGreaterThan(0);
      const again = goodHandedBeside.slice(2);
      expect(again.length).toBeGreaterThan(0);
      expect(again.every((n) => n === 0)).toBe(true);
    } finally {
      await host.stop();
      store.close();
    }
  });

  it("are a document's only: a small picture's runs go one at a time", async () => {
    const store = openStore(tempDir());
    const ids = ['vid_1111111111111111111', 'vid_2222222222222222222', 'vid_3333333333333333333'].map((id) => seedAsset(store, id));
    const holding = holdingCount();
    const host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch: recordedLaunch(holding.behave).launch });
    try {
      host.start();
      await until(() => ids.every((id) => store.assets.byId(id)!.status === 'completed'));
      expect(holding.mostHeld()).toBe(1);
    } finally {
      await host.stop();
      store.close();
    }
  });

  it("runs a PDF's text beside the metadata run handed before it, but a run retried after a death alone", async () => {
    const store = openStore(tempDir());
    const pdf = (id: string, createdAt: number) =>
      insertAsset(store, {
        id,
        workspace: 'w',
        kind: 'document',
        row: { created_at: createdAt, ext: '.pdf', mime_type: 'application/pdf', file_name: 'x.pdf', size_bytes: 50 * LIGHT_BYTES },
      });
    const a = 'doc_aaaaaaaaaaaaaaaaaaaa';
    const b = 'doc_bbbbbbbbbbbbbbbbbbbb';
    pdf(a, 1);
    pdf(b, 2);
    // Each run handed, with how many others its process held then.
    const handed: Array<{ run: string; beside: number }> = [];
    const heldBy = new Map<ScriptedChannel, number>();
    let died = false;
    const { launch } = recordedLaunch((req, ch) => {
      handed.push({ run: `${req.asset.id === a ? 'a' : req.asset.id === b ? 'b' : 'small'} ${req.stage}`, beside: heldBy.get(ch) ?? 0 });
      heldBy.set(ch, (heldBy.get(ch) ?? 0) + 1);
      if (req.asset.id === a && req.stage === 'extract' && !died) {
        died = true;
        // Meanwhile a small file comes whose light runs go before the one retried.
        seedSmall(store, 'doc_0000000000000000000', 0);
        return ch.die(139);
      }
      setImmediate(() => {
        heldBy.set(ch, heldBy.get(ch)! - 1);
        ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } });
      });
    });
    const host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch });
    try {
      host.start();
      await until(() => [a, b, 'doc_0000000000000000000'].every((id) => store.assets.byId(id)!.status === 'completed'));
      const when = (run: string) => handed.filter((h) => h.run === run);
      // Retried after its process died: alone, once the small file's light runs handed before it were answered.
      const retried = handed.lastIndexOf(when('a extract')[1]);
      expect(handed.findIndex((h) => h.run === 'small extract')).toBeLessThan(retried);
      expect(when('a extract').map((h) => h.beside)).toEqual([0, 0]);
      // The next book's text went with the metadata run before it, not after its answer.
      expect(handed.findIndex((h) => h.run === 'a metadata')).toBeLessThan(handed.findIndex((h) => h.run === 'b extract'));
      expect(when('b extract')[0].beside).toBe(1);
      expect(store.runs.get(b, 'extract')).toMatchObject({ state: 'failed', reason: 'scripted', attempts: 1 });
    } finally {
      await host.stop();
      store.close();
    }
  });

  it("are a document's text when small, and its metadata up to LIGHT_METADATA_BYTES (a PDF is read whole for it)", () => {
    const doc = (ext: string, size_bytes: number) => ({ kind: 'document' as const, ext, size_bytes });
    const first = (stage: 'extract' | 'metadata' | 'ocr') => ({ stage, attempts: 0 });
    expect(isLight(first('extract'), doc('.txt', LIGHT_BYTES))).toBe(true);
    expect(isLight(first('extract'), doc('.txt', LIGHT_BYTES + 1))).toBe(false);
    expect(isLight(first('extract'), doc('.pdf', 1000))).toBe(false);
    expect(isLight(first('metadata'), doc('.pdf', LIGHT_METADATA_BYTES))).toBe(true);
    expect(isLight(first('metadata'), doc('.pdf', LIGHT_METADATA_BYTES + 1))).toBe(false);
    expect(isLight(first('ocr'), doc('.txt', 1000))).toBe(false);
    expect(isLight({ stage: 'metadata', attempts: 1 }, doc('.pdf', 1000))).toBe(false);
    expect(isLight(first('metadata'), { kind: 'image', ext: '.jpg', size_bytes: 1000 })).toBe(false);
  });

  it('hands a run of phase 2 to an empty process only, not beside the last light runs of phase 1', async () => {
    const store = openStore(tempDir());
    // A photo read already (its pictures' stages waiting) and a newer small file.
    insertAsset(store, {
      id: 'vid_1111111111111111111',
      workspace: 'w',
      kind: 'image',
      runs: (r) => (['extract', 'metadata'].includes(r.stage) ? { ...r, state: 'ok' } : r),
    });
    const small = seedSmall(store, 'doc_2222222222222222222', 2);
    const handed: Array<{ stage: string; beside: number }> = [];
    const heldBy = new Map<ScriptedChannel, number>();
    const { launch } = recordedLaunch((req, ch) => {
      handed.push({ stage: `${req.asset.id === small ? 'small' : 'photo'} ${req.stage}`, beside: heldBy.get(ch) ?? 0 });
      heldBy.set(ch, (heldBy.get(ch) ?? 0) + 1);
      // The small file's metadata answers later than its text: the process holds it while the queue is looked at again.
      setTimeout(
        () => {
          heldBy.set(ch, heldBy.get(ch)! - 1);
          ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } });
        },
        req.asset.id === small && req.stage === 'metadata' ? 100 : 0,
      );
    });
    const host = new IndexerHost(store, { workers: 1, stageTimeoutMs: 60_000, launch });
    try {
      host.start();
      await until(() => store.assets.byId(small)!.status === 'completed' && handed.some((h) => h.stage.startsWith('photo')));
      // The small file's text and metadata first (phase 1, though newer), then the photo's stages, each alone.
      expect(handed.slice(0, 2).map((h) => h.stage)).toEqual(['small extract', 'small metadata']);
      const photo = handed.filter((h) => h.stage.startsWith('photo'));
      expect(photo.length).toBeGreaterThan(0);
      expect(photo.every((h) => h.beside === 0)).toBe(true);
    } finally {
      await host.stop();
      store.close();
    }
  });

  it('leaves no larger file behind a stream of small ones', async () => {
    const store = openStore(tempDir());
    seedSmall(store, 'doc_1111111111111111111', 1);
    insertAsset(store, { id: 'doc_2bbbbbbbbbbbbbbbbbb', workspace: 'w', kind: 'document', row: { created_at: 2, size_bytes: LIGHT_BYTES + 1 } });
    for (let i = 3; i < 8; i++) seedSmall(store, `doc_${String(i).repeat(19)}`, i);
    const handed: string[] = [];
    const host = new IndexerHost(store, {
      workers: 1,
      stageTimeoutMs: 60_000,
      launch: () =>
        new ScriptedChannel((req, ch) => {
          if (!handed.includes(req.asset.id)) handed.push(req.asset.id);
          setImmediate(() => ch.emit({ type: 'done', jobId: req.jobId, outcome: { state: 'failed', reason: 'scripted' } }));
        }),
    });
    try {
      host.start();
      await until(() => handed.length === 7);
      // By age (ids are made from the time of admission): the large file's runs went before the
      // newer small files', though the process held light runs when its turn came.
      expect(handed.slice(0, 3)).toEqual(['doc_1111111111111111111', 'doc_2bbbbbbbbbbbbbbbbbb', 'doc_3333333333333333333']);
    } finally {
      await host.stop();
      store.close();
    }
  });
});

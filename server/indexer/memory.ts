// Where the host places a run that loads a large model: in a free process that holds that model
// already, and, under a budget too small for every model in every process (Config.indexerMemoryMiB),
// in a second process only while the indexer processes' memory as the host reckons it stays within
// the budget. Then, on a folder of photos, one process reads their text and the other looks for
// their faces and objects, instead of both holding both (docs/performance.md, "Each model in one
// process").
import type { IndexStageName } from './stage.ts';

/**
 * A model kept by the process that loaded it, and about how much its resident memory grows by, in
 * MiB: measured with only its stages on, through `media-index index` (bench:ab's 17 photos; the
 * scanned PDFs of bench:index read in English and Hindi), +250 for text reading and +175–190 for
 * faces or objects, rounded up.
 */
export interface ModelFamily {
  name: string;
  mib: number;
}

/** Text reading: tesseract's languages, the text detector and PP-OCR. */
const TEXT: ModelFamily = { name: 'text reading', mib: 260 };
/** Human's networks: faces, their meshes and descriptors, and the closed-set object detector. */
const VISION: ModelFamily = { name: 'faces and objects', mib: 200 };

/** The stages whose runs load a family (the others load little, or only a model a user installs and its size is theirs to know). */
export const STAGE_FAMILIES: Partial<Record<IndexStageName, ModelFamily>> = {
  ocr: TEXT,
  faces: VISION,
  objects: VISION,
};

const FAMILY_MIB = new Map(Object.values(STAGE_FAMILIES).map((f) => [f.name, f.mib]));

/** An indexer process's own resident memory before it loads a family (Node, sharp, PDFium, the stages' code), in MiB. */
export const PROCESS_BASE_MIB = 130;

/** What the host knows of a process when it places a run. */
export interface PlacedProcess {
  /** Holds no run now. */
  free: boolean;
  /** The families of the runs it was given since it started. */
  families: ReadonlySet<string>;
  /** Its resident memory as it last said (MiB), or null before its first answer. */
  rssMiB: number | null;
}

/** A process's memory as reckoned: what it said, or more where the families it was given since will load. */
export function reckonedMiB(p: PlacedProcess): number {
  let loaded = PROCESS_BASE_MIB;
  for (const name of p.families) loaded += FAMILY_MIB.get(name) ?? 0;
  return Math.max(p.rssMiB ?? 0, loaded);
}

/** Every family's memory, once. */
const ALL_FAMILIES_MIB = [...FAMILY_MIB.values()].reduce((a, b) => a + b, 0);

/**
 * The index of the free process to give a run of `stage`, or -1 to leave the run for later.
 * Where the budget holds every family in every process, the first free process (one that holds the
 * run's family first). Otherwise a run goes to a free process that holds its family; the first copy
 * of a family goes to a process that holds none yet (waiting for one that is busy, so that families
 * part rather than pile up in one process while another holds nothing), or to the lightest where
 * every process holds one; and a second copy is made only while the reckoned memory of all the
 * processes stays within `budgetMiB`. Runs that load no family go to the first free process.
 */
export function placeRun(stage: IndexStageName, processes: readonly PlacedProcess[], budgetMiB: number): number {
  const free = processes.flatMap((p, i) => (p.free ? [i] : []));
  if (free.length === 0) return -1;
  const family = STAGE_FAMILIES[stage];
  if (!family) return free[0];
  const holder = free.find((i) => processes[i].families.has(family.name));
  if (holder !== undefined) return holder;
  if (processes.length * (PROCESS_BASE_MIB + ALL_FAMILIES_MIB) <= budgetMiB) return free[0];
  const lightest = free.reduce((a, b) => (reckonedMiB(processes[b]) < reckonedMiB(processes[a]) ? b : a));
  if (!processes.some((p) => p.families.has(family.name))) {
    const bare = free.find((i) => processes[i].families.size === 0);
    if (bare !== undefined) return bare;
    return processes.some((p) => p.families.size === 0) ? -1 : lightest;
  }
  const total = processes.reduce((n, p) => n + reckonedMiB(p), 0);
  return total + family.mib <= budgetMiB ? lightest : -1;
}

// How `media-index index` takes in the files it is given: in their order, a few small ones at a
// time (each read for its checksum and type while the indexer processes read those before it: one
// by one, a folder of small files was taken in slower than it was indexed), and a large one alone,
// so that a drive reads one large file at a time.

/** Small files taken in at once. */
export const ADMIT_AT_ONCE = 4;
/** A file larger than this is taken in alone. */
export const ADMIT_ALONE_BYTES = 8 * 2 ** 20;

/** Runs `admit` for each file, in order, as described above; resolves when every one has ended. */
export async function admitInTurn(
  files: readonly string[],
  sizes: ReadonlyMap<string, number>,
  admit: (file: string) => Promise<void>,
  atOnce = ADMIT_AT_ONCE,
  aloneBytes = ADMIT_ALONE_BYTES,
): Promise<void> {
  const admitting = new Set<Promise<void>>();
  for (const file of files) {
    if ((sizes.get(file) ?? 0) > aloneBytes) {
      await Promise.all(admitting);
      await admit(file);
      continue;
    }
    while (admitting.size >= atOnce) await Promise.race(admitting);
    const p: Promise<void> = admit(file).finally(() => admitting.delete(p));
    admitting.add(p);
  }
  await Promise.all(admitting);
}

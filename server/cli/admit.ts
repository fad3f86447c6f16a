// How `media-index index` takes in the files it is given: in their order, small ones several at a
// time (each read for its checksum and type while the indexer processes read those before it: a few
// at a time, a folder of small files was taken in slower than it was indexed, and each look at the
// queue found one or two files to hand out), as many as make up a few megabytes, and a large one
// alone, so that a drive reads one large file at a time.

/** Small files taken in at once. */
export const ADMIT_AT_ONCE = 16;
/** At most this many bytes of files taken in at once (a file larger than it goes alone). */
export const ADMIT_BYTES_AT_ONCE = 8 * 2 ** 20;

/** Runs `admit` for each file, in order, as described above; resolves when every one has ended. */
export async function admitInTurn(
  files: readonly string[],
  sizes: ReadonlyMap<string, number>,
  admit: (file: string) => Promise<void>,
  atOnce = ADMIT_AT_ONCE,
  bytesAtOnce = ADMIT_BYTES_AT_ONCE,
): Promise<void> {
  const admitting = new Map<Promise<void>, number>();
  let bytes = 0;
  for (const file of files) {
    const size = sizes.get(file) ?? 0;
    while (admitting.size > 0 && (admitting.size >= atOnce || bytes + size > bytesAtOnce)) await Promise.race(admitting.keys());
    const p: Promise<void> = admit(file).finally(() => {
      admitting.delete(p);
      bytes -= size;
    });
    admitting.set(p, size);
    bytes += size;
  }
  await Promise.all(admitting.keys());
}

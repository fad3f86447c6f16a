// How `media-index index` takes in the files it is given: in their order, small ones several at a
// time (read together for their checksums and types while the indexer processes read those before
// them, then stored in one transaction: one at a time, a folder of small files was taken in slower
// than it was indexed, and a commit for each file took more of the command's thread than the
// files' own results did), as many as make up a few megabytes, and a large one alone, so that a
// drive reads one large file at a time.

/** Small files taken in at once. */
export const ADMIT_AT_ONCE = 16;
/** At most this many bytes of files taken in at once (a file larger than it goes alone). */
export const ADMIT_BYTES_AT_ONCE = 8 * 2 ** 20;

/**
 * Runs `admit` on the files in order, in groups of up to `atOnce` files and `bytesAtOnce` bytes (a
 * larger file alone), one group after the other; resolves when every group has ended.
 */
export async function admitInGroups(
  files: readonly string[],
  sizes: ReadonlyMap<string, number>,
  admit: (group: string[]) => Promise<void>,
  atOnce = ADMIT_AT_ONCE,
  bytesAtOnce = ADMIT_BYTES_AT_ONCE,
): Promise<void> {
  let group: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = sizes.get(file) ?? 0;
    if (group.length > 0 && (group.length >= atOnce || bytes + size > bytesAtOnce)) {
      await admit(group);
      group = [];
      bytes = 0;
    }
    group.push(file);
    bytes += size;
  }
  if (group.length > 0) await admit(group);
}

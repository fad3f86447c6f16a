// Names of the files an asset's URLs give (`/videos/{id}/files/{name}`) that the indexer processes
// also know. No schema here: an indexer process loads this module, and the schemas' library is
// ≈ 0.75 MB of code compiled at each start (docs/performance.md).

/** A video's copy that a browser plays, where it does not play the original (media/playable.ts). */
export const PLAYABLE = 'playable.mp4';

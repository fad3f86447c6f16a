// shots: a video read through once, in phase 2 (run: shots.run.ts): its shot boundaries, a keyframe
// of each shot, and its sound as 16 kHz mono audio for the audio stages. Internal. `extract` has
// read the container and drawn a poster frame in phase 1, so that a video is searchable by its name
// and metadata before this decoding of every frame. Writes shots, keyframes and the audio record.
import path from 'node:path';
import type { VideoShots } from '../../media/types.ts';
import { ALWAYS_AVAILABLE, NO_INPUT, defineStage } from '../stage.ts';

export const shotsStage = defineStage<undefined, VideoShots, 'shots'>({
  name: 'shots',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract'],
  model: null,
  availability: ALWAYS_AVAILABLE,
  prepare: NO_INPUT,
  save(store, assetId, out) {
    const dirRel = path.relative(store.files.root, store.files.assetDir(assetId));
    store.media.replaceShots(assetId, dirRel, out);
  },
});

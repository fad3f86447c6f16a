// music, the run: there is no music recognition on this deployment.
import { defineRunner, failed } from '../stage.ts';
import { musicStage } from './music.stage.ts';

export const runMusic = defineRunner(musicStage, async () => failed('unavailable', 'music recognition is not available on this deployment'));

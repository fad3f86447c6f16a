// sounds: sound events in a video's audio (AudioSet labels, `min_confidence` 0.25) from the Audio
// Spectrogram Transformer, downloaded with `media-index models pull ast-audioset` (run:
// sounds.run.ts). Writes search entries (modality `sound`) at the start of each event; the report
// lists the labels heard.
import type { SoundEvent } from '../../ml/audio-tags.ts';
import { SOUND_MODEL } from '../../ml/catalogue.ts';
import { defineStage, needsModels } from '../stage.ts';
import { audioFileOf } from './speech.stage.ts';

export const soundsStage = defineStage<string | null, SoundEvent[], 'sounds'>({
  name: 'sounds',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract', 'shots'],
  ...needsModels([SOUND_MODEL]),
  prepare: audioFileOf,
  save(store, assetId, events) {
    store.search.replaceForStage(
      assetId,
      'sounds',
      events.map((e) => ({ modality: 'sound', timestamp: e.start_s, page: null, ref: null, region_id: null, text: e.label })),
    );
  },
});

// sounds: sound events in a video's audio (AudioSet labels, `min_confidence` 0.25) from the Audio
// Spectrogram Transformer, downloaded with `media-index models pull ast-audioset`. Writes search
// entries (modality `sound`) at the start of each event; the report lists the labels heard.
import { readPcmWav } from '../../ml/vad.ts';
import { soundEvents, type SoundEvent } from '../../ml/audio-tags.ts';
import { modelsDir } from '../../ml/models.ts';
import { executionProvider } from '../../ml/providers.ts';
import { modelBackedStage, notApplicable, ok } from '../stage.ts';
import { audioFileOf } from './speech.stage.ts';

export const soundsStage = modelBackedStage(
  'sounds',
  ['video'],
  ['extract'],
  ['ast-audioset'],
  async ({ options, input, dataDir }, model) => {
    if (!input) return notApplicable('the video has no audio track');
    const audio = await readPcmWav(input as string);
    const { windows, events } = await soundEvents(modelsDir(dataDir), model, audio, Number(options.min_confidence ?? 0.25));
    const labels = [...new Set(events.map((e) => e.label))];
    return ok({ events: events.length, labels: labels.length, windows }, events, { model, provider: executionProvider(), labels });
  },
  {
    prepare: audioFileOf,
    save: (store, assetId, output) => {
      store.search.replaceForStage(
        assetId,
        'sounds',
        (output as SoundEvent[]).map((e) => ({ modality: 'sound', timestamp: e.start_s, page: null, ref: null, region_id: null, text: e.label })),
      );
    },
  },
);

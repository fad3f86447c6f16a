// speakers: who spoke when (`min_speakers`, `max_speakers`; run: speakers.run.ts). Windows of 1.5 s
// across the speech segments are embedded with a speaker model (WeSpeaker ResNet34, downloaded with
// `media-index models pull wespeaker-voxceleb-resnet34`, or resemblyzer's GE2E encoder, imported),
// grouped by agglomerative clustering, and joined into turns of "Speaker 1", "Speaker 2"…; each
// transcript segment gets the speaker who talks longest in it. Writes speaker turns, the
// transcript's speakers and search entries (modality `sound`, or `person` for a voice the owner
// named: PUT /videos/{id}/speakers/{n}).
import type { Span, Turn } from '../../ml/diarize.ts';
import { SPEAKER_MODELS } from '../../ml/catalogue.ts';
import { speakerName } from '../../store/media.repo.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import { defineStage, needsModels } from '../stage.ts';
import { audioFileOf } from './speech.stage.ts';

export interface SpeakersInput {
  audio: string | null;
  speech: Span[];
  transcript: Span[];
}

export interface SpeakersOutput {
  turns: Turn[];
  /** The speaker of each transcript segment, in order. */
  segments: Array<number | null>;
}

export const speakersStage = defineStage<SpeakersInput, SpeakersOutput, 'speakers'>({
  name: 'speakers',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract', 'shots', 'speech', 'transcript'],
  requires: ['extract', 'shots', 'speech'],
  ...needsModels(SPEAKER_MODELS),
  prepare: (store, assetId) => ({
    audio: audioFileOf(store, assetId),
    speech: store.media.speech(assetId),
    transcript: store.media.transcript(assetId).map(({ start_s, end_s }) => ({ start_s, end_s })),
  }),
  save(store, assetId, { turns, segments }) {
    store.media.replaceSpeakers(assetId, turns, segments);
    store.search.replaceForStage(assetId, 'speakers', speakerEntries(turns, store.media.speakerNames(assetId)));
  },
});

/**
 * What makes a video's voices findable: a turn of a speaker the owner named is a `person` entry
 * ("Ada Lovelace speaking", found by typed search `character`), any other turn a `sound` entry
 * ("speaker 2 speaking").
 */
export function speakerEntries(turns: Array<{ speaker: number; start_s: number }>, names: Map<number, string>): NewEntry[] {
  return turns.map((t) => {
    const name = names.get(t.speaker);
    return {
      modality: name ? 'person' : 'sound',
      timestamp: t.start_s,
      page: null,
      ref: null,
      region_id: null,
      text: name ? `${name} speaking` : `${speakerName(t.speaker).toLowerCase()} speaking`,
    };
  });
}

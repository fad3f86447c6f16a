// transcript: timed speech to text with Whisper (whisper-tiny or whisper-base, downloaded with
// `media-index models pull`; run: transcript.run.ts), over the speech segments found by the speech
// stage. `language` is `auto` or an ISO 639-1 code. Writes transcript segments and search entries
// (modality `transcript`).
import type { TranscriptSegment } from '../../ml/whisper.ts';
import { TRANSCRIPT_MODELS } from '../../ml/catalogue.ts';
import { defineStage, needsModels } from '../stage.ts';
import { audioFileOf } from './speech.stage.ts';

export interface TranscriptInput {
  audio: string | null;
  speech: Array<{ start_s: number; end_s: number }>;
}

export const transcriptStage = defineStage<TranscriptInput, TranscriptSegment[], 'transcript'>({
  name: 'transcript',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract', 'shots', 'speech'],
  requires: ['extract', 'shots'],
  ...needsModels(TRANSCRIPT_MODELS),
  prepare: (store, assetId) => ({ audio: audioFileOf(store, assetId), speech: store.media.speech(assetId) }),
  save(store, assetId, segments) {
    store.media.replaceTranscript(assetId, segments);
    store.search.replaceForStage(
      assetId,
      'transcript',
      segments.map((s) => ({ modality: 'transcript', timestamp: s.start_s, page: null, ref: null, region_id: null, text: s.text })),
    );
  },
});

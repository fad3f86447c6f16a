// speech: where people speak in a video's audio (Silero VAD, bundled; run: speech.run.ts).
// Internal: always on for videos with sound. The segments seed transcript and speakers and make
// "speech" searchable even without a transcript model. Writes speech segments and search entries
// (modality `sound`) holding what was detected, the label `speech`: the word "speech" finds them,
// and the words WordNet relates to it (docs/stages.md).
import path from 'node:path';
import type { Store } from '../../store/index.ts';
import type { SpeechSegment } from '../../ml/vad.ts';
import { BUNDLED_MODELS } from '../../ml/catalogue.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

/** The 16 kHz WAV extracted from a video (host side, for `prepare`), or null when it has no sound. */
export function audioFileOf(store: Store, assetId: string): string | null {
  const audio = store.media.media(assetId)?.audio_path;
  return audio ? path.join(store.files.root, audio) : null;
}

/** What voice activity detects, as a sound label. */
export const SPEECH_LABEL = 'speech';

export const speechStage = defineStage<string | null, SpeechSegment[], 'speech'>({
  name: 'speech',
  version: 2,
  kinds: ['video'],
  dependsOn: ['extract', 'shots'],
  model: BUNDLED_MODELS.vad,
  availability: ALWAYS_AVAILABLE,
  prepare: audioFileOf,
  save(store, assetId, segments) {
    store.media.replaceSpeech(assetId, segments);
    store.search.replaceForStage(
      assetId,
      'speech',
      segments.map((s) => ({ modality: 'sound', timestamp: s.start_s, page: null, ref: null, region_id: null, text: SPEECH_LABEL })),
    );
  },
});

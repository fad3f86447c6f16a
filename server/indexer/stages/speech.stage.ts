// speech: where people speak in a video's audio (Silero VAD, bundled). Internal: always on for
// videos with sound. The segments seed transcript and speakers and make "speech" searchable even
// without a transcript model. Writes speech segments and search entries (modality `sound`).
import path from 'node:path';
import { readPcmWav, speechSegments, type SpeechSegment } from '../../ml/vad.ts';
import type { Store } from '../../store/index.ts';
import { ALWAYS_AVAILABLE, notApplicable, ok, type StageDefinition } from '../stage.ts';

/** The 16 kHz WAV extracted from a video (host side, for `prepare`), or null when it has no sound. */
export function audioFileOf(store: Store, assetId: string): string | null {
  const audio = store.media.media(assetId)?.audio_path;
  return audio ? path.join(store.files.root, audio) : null;
}

export const speechStage: StageDefinition = {
  name: 'speech',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract'],
  model: 'Silero VAD (bundled)',
  availability: ALWAYS_AVAILABLE,
  prepare: audioFileOf,
  async run({ input }) {
    if (!input) return notApplicable('the video has no audio track');
    const audio = await readPcmWav(input as string);
    const segments = await speechSegments(audio);
    const speech = segments.reduce((s, x) => s + x.end_s - x.start_s, 0);
    return ok({ segments: segments.length, speech_s: Math.round(speech * 100) / 100, audio_s: Math.round((audio.length / 16000) * 100) / 100 }, segments);
  },
  save(store, assetId, output) {
    const segments = output as SpeechSegment[];
    store.media.replaceSpeech(assetId, segments);
    store.search.replaceForStage(
      assetId,
      'speech',
      segments.map((s) => ({ modality: 'sound', timestamp: s.start_s, page: null, ref: null, region_id: null, text: 'speech talking voice' })),
    );
  },
};

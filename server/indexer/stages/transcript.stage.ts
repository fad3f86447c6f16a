// transcript: timed speech to text with Whisper (whisper-tiny or whisper-base, downloaded with
// `media-index models pull`), over the speech segments found by the speech stage. `language` is
// `auto` or an ISO 639-1 code. Writes transcript segments and search entries (modality `transcript`).
import { readPcmWav } from '../../ml/vad.ts';
import { transcribe, type TranscriptSegment } from '../../ml/whisper.ts';
import { executionProvider } from '../../ml/providers.ts';
import { modelBackedStage, notApplicable, ok } from '../stage.ts';
import { audioFileOf } from './speech.stage.ts';

interface TranscriptInput {
  audio: string | null;
  speech: Array<{ start_s: number; end_s: number }>;
}

export const transcriptStage = modelBackedStage(
  'transcript',
  ['video'],
  ['extract', 'speech'],
  ['whisper-tiny', 'whisper-base'],
  async ({ options, input, dataDir }, model) => {
    const { audio, speech } = input as TranscriptInput;
    if (!audio) return notApplicable('the video has no audio track');
    if (speech.length === 0) return ok({ segments: 0, words: 0 }, [], { model, provider: executionProvider(), note: 'no speech found' });
    const { language, segments } = await transcribe(dataDir, model, await readPcmWav(audio), speech, String(options.language ?? 'auto'));
    const words = segments.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
    return ok({ segments: segments.length, words }, segments, { model, provider: executionProvider(), language });
  },
  {
    requires: ['extract'],
    prepare: (store, assetId): TranscriptInput => ({ audio: audioFileOf(store, assetId), speech: store.media.speech(assetId) }),
    save: (store, assetId, output) => {
      const segments = output as TranscriptSegment[];
      store.media.replaceTranscript(assetId, segments);
      store.search.replaceForStage(
        assetId,
        'transcript',
        segments.map((s) => ({ modality: 'transcript', timestamp: s.start_s, page: null, ref: null, region_id: null, text: s.text })),
      );
    },
  },
);

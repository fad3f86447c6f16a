// speakers: who spoke when (`min_speakers`, `max_speakers`). Windows of 1.5 s across the speech
// segments are embedded with a speaker model (WeSpeaker ResNet34, downloaded with `media-index
// models pull wespeaker-voxceleb-resnet34`), grouped by agglomerative clustering, and joined into
// turns of "Speaker 1", "Speaker 2"…; each transcript segment gets the speaker who talks longest in
// it. Writes speaker turns, the transcript's speakers and search entries (modality `sound`).
import { readPcmWav } from '../../ml/vad.ts';
import { clusterSpeakers, speakerOf, speechWindows, turnsOf, type Span, type Turn } from '../../ml/diarize.ts';
import { speakerEmbeddings } from '../../ml/speaker-embeddings.ts';
import { modelsDir } from '../../ml/models.ts';
import { executionProvider } from '../../ml/providers.ts';
import { speakerName } from '../../store/media.repo.ts';
import { modelBackedStage, notApplicable, ok } from '../stage.ts';
import { audioFileOf } from './speech.stage.ts';

interface SpeakersInput {
  audio: string | null;
  speech: Span[];
  transcript: Span[];
}

interface SpeakersOutput {
  turns: Turn[];
  segments: Array<number | null>;
}

export const speakersStage = modelBackedStage(
  'speakers',
  ['video'],
  ['extract', 'speech', 'transcript'],
  ['wespeaker-voxceleb-resnet34'],
  async ({ options, input, dataDir }, model) => {
    const { audio, speech, transcript } = input as SpeakersInput;
    if (!audio) return notApplicable('the video has no audio track');
    const windows = speechWindows(speech);
    if (windows.length === 0) return ok({ speakers: 0, turns: 0 }, { turns: [], segments: transcript.map(() => null) }, { model, provider: executionProvider(), note: 'no speech found' });
    const vectors = await speakerEmbeddings(modelsDir(dataDir), model, await readPcmWav(audio), windows);
    const labels = clusterSpeakers(vectors, { min: options.min_speakers as number | undefined, max: options.max_speakers as number | undefined });
    const turns = turnsOf(windows, labels, speech).map((t) => ({ ...t, speaker: t.speaker + 1 }));
    const segments = speakerOf(transcript, turns);
    const speakers = new Set(turns.map((t) => t.speaker)).size;
    const talk = new Map<string, number>();
    for (const t of turns) {
      const name = speakerName(t.speaker);
      talk.set(name, Math.round(((talk.get(name) ?? 0) + t.end_s - t.start_s) * 100) / 100);
    }
    const output: SpeakersOutput = { turns, segments };
    return ok({ speakers, turns: turns.length, windows: windows.length }, output, { model, provider: executionProvider(), speaking_s: Object.fromEntries(talk) });
  },
  {
    requires: ['extract', 'speech'],
    prepare: (store, assetId): SpeakersInput => ({
      audio: audioFileOf(store, assetId),
      speech: store.media.speech(assetId),
      transcript: store.media.transcript(assetId).map(({ start_s, end_s }) => ({ start_s, end_s })),
    }),
    save: (store, assetId, output) => {
      const { turns, segments } = output as SpeakersOutput;
      store.media.replaceSpeakers(assetId, turns, segments);
      store.search.replaceForStage(
        assetId,
        'speakers',
        turns.map((t) => ({ modality: 'sound', timestamp: t.start_s, page: null, ref: null, region_id: null, text: `${speakerName(t.speaker).toLowerCase()} speaking` })),
      );
    },
  },
);

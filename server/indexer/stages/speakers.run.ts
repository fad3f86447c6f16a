// speakers, the run: speaker embeddings of speech windows, clustered into speakers and turns
// (ml/speaker-embeddings.ts, ml/diarize.ts).
import { readPcmWav } from '../../ml/vad.ts';
import { absorbMinor, clusterSpeakers, groupingOf, speakerOf, speechWindows, turnsOf } from '../../ml/diarize.ts';
import { speakerEmbeddings } from '../../ml/speaker-embeddings.ts';
import { modelsDir } from '../../ml/models.ts';
import { providerOf } from '../../ml/providers.ts';
import { speakerName } from '../../store/media.repo.ts';
import { notApplicable, ok, withModel } from '../stage.ts';
import { speakersStage } from './speakers.stage.ts';

export const runSpeakers = withModel(speakersStage, async ({ options, input: { audio, speech, transcript }, dataDir, progress }, model) => {
  if (!audio) return notApplicable('the video has no audio track');
  const windows = speechWindows(speech);
  if (windows.length === 0)
    return ok({ speakers: 0, turns: 0 }, { turns: [], segments: transcript.map(() => null) }, { model, provider: providerOf(model), note: 'no speech found' });
  const vectors = await speakerEmbeddings(modelsDir(dataDir), model, await readPcmWav(audio), windows, speech, progress);
  const grouping = groupingOf(model);
  const grouped = clusterSpeakers(vectors, { min: options.min_speakers, max: options.max_speakers, threshold: grouping.sameSpeaker });
  // Stray windows join a larger group, never below the number of speakers asked for.
  const labels = absorbMinor(vectors, grouped, grouping.minorShare, options.min_speakers ?? 1);
  const turns = turnsOf(windows, labels, speech).map((t) => ({ ...t, speaker: t.speaker + 1 }));
  const segments = speakerOf(transcript, turns);
  const speakers = new Set(turns.map((t) => t.speaker)).size;
  const talk = new Map<string, number>();
  for (const t of turns) {
    const name = speakerName(t.speaker);
    talk.set(name, Math.round(((talk.get(name) ?? 0) + t.end_s - t.start_s) * 100) / 100);
  }
  return ok(
    { speakers, turns: turns.length, windows: windows.length },
    { turns, segments },
    { model, provider: providerOf(model), speaking_s: Object.fromEntries(talk) },
  );
});

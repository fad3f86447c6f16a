// sounds, the run: AudioSet tagging per 10.24 s window (ml/audio-tags.ts).
import { readPcmWav } from '../../ml/vad.ts';
import { soundEvents } from '../../ml/audio-tags.ts';
import { modelsDir } from '../../ml/models.ts';
import { providerOf } from '../../ml/providers.ts';
import { notApplicable, ok, withModel } from '../stage.ts';
import { soundsStage } from './sounds.stage.ts';

export const runSounds = withModel(soundsStage, async ({ options, input: audioFile, dataDir, progress }, model) => {
  if (!audioFile) return notApplicable('the video has no audio track');
  const audio = await readPcmWav(audioFile);
  const { windows, events } = await soundEvents(modelsDir(dataDir), model, audio, options.min_confidence ?? 0.25, 5, progress);
  const labels = [...new Set(events.map((e) => e.label))];
  return ok({ events: events.length, labels: labels.length, windows }, events, { model, provider: providerOf(model), labels });
});

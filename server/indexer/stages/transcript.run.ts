// transcript, the run: Whisper over the speech windows (ml/whisper.ts).
import { readPcmWav } from '../../ml/vad.ts';
import { transcribe } from '../../ml/whisper.ts';
import { providerOf } from '../../ml/providers.ts';
import { notApplicable, ok, withModel } from '../stage.ts';
import { transcriptStage } from './transcript.stage.ts';

export const runTranscript = withModel(transcriptStage, async ({ options, input: { audio, speech }, dataDir, progress }, model) => {
  if (!audio) return notApplicable('the video has no audio track');
  if (speech.length === 0) return ok({ segments: 0, words: 0 }, [], { model, provider: providerOf(model), note: 'no speech found' });
  const { language, segments } = await transcribe(dataDir, model, await readPcmWav(audio), speech, options.language ?? 'auto', progress);
  const words = segments.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
  return ok({ segments: segments.length, words }, segments, { model, provider: providerOf(model), language });
});

// speech, the run: Silero VAD over the video's 16 kHz audio (ml/vad.ts).
import { readPcmWav, speechSegments } from '../../ml/vad.ts';
import { defineRunner, notApplicable, ok } from '../stage.ts';
import { speechStage } from './speech.stage.ts';

export const runSpeech = defineRunner(speechStage, async ({ input: audioFile }) => {
  if (!audioFile) return notApplicable('the video has no audio track');
  const audio = await readPcmWav(audioFile);
  const segments = await speechSegments(audio);
  const speech = segments.reduce((s, x) => s + x.end_s - x.start_s, 0);
  return ok({ segments: segments.length, speech_s: Math.round(speech * 100) / 100, audio_s: Math.round((audio.length / 16000) * 100) / 100 }, segments);
});

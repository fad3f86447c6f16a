// Why a stage run failed, as the screens say it: its reason without the code it starts with
// ("encrypted: the PDF needs a password to open" reads "the PDF needs a password to open").
import type { AssetDetail } from './api/videos.ts';

/** What each index stage does, in the screens' words (the API's stage names are for scripts). */
const STAGE_WORDS: Record<string, string> = {
  extract: 'reading the file',
  metadata: 'dates and places',
  shots: 'scenes and sound',
  transcript: 'speech',
  captions: 'captions',
  speakers: 'speakers',
  sounds: 'sounds',
  labels: 'scene labels',
  ocr: 'text in pictures',
  faces: 'faces',
  objects: 'objects',
  people: 'people',
  music: 'music',
  embeddings: 'search by meaning',
};

/** A stage as the screens name it: "text in pictures" for `ocr`; a stage this build does not know, as the API names it. */
export function stageWords(stage: string): string {
  return STAGE_WORDS[stage] ?? stage.replace(/_/g, ' ');
}

/** "faces, objects or text in pictures": stages as a phrase, joined by `last`. */
export function stagesInWords(stages: string[], last: 'and' | 'or' = 'and'): string {
  const words = stages.map(stageWords);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}` : (words[0] ?? '');
}

export function why({ code, reason }: { code?: string | null; reason: string | null }): string {
  if (!reason) return code ?? 'failed';
  const c = code ?? /^([a-z_]+): /.exec(reason)?.[1];
  return c && reason.startsWith(`${c}: `) ? reason.slice(c.length + 2) : reason;
}

/** The stages of an asset that failed of themselves (not those left unrun by an earlier failure), with why. */
export function ownFailures(asset: AssetDetail): Array<{ stage: string; why: string }> {
  return Object.entries(asset.index.report.stages)
    .filter(([, r]) => r.state === 'failed' && !r.reason?.startsWith('dependency_failed') && !r.reason?.startsWith('model_not_installed'))
    .map(([stage, r]) => ({ stage, why: why({ reason: r.reason }) }));
}

// Why a stage run failed, as the screens say it: its reason without the code it starts with
// ("encrypted: the PDF needs a password to open" reads "the PDF needs a password to open").
import type { AssetDetail } from './api/videos.ts';

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

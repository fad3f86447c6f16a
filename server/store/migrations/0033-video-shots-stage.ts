import type { Migration } from './index.ts';

// A video's shots, keyframes and sound are read by a stage of their own, `shots` (phase 2), where
// `extract` read them before (now a probe and a poster frame, phase 1). A video extracted before
// has them already: its `shots` run says what its extraction did (its counts and details, a damaged
// copy's included). One whose extraction is still to come waits for `shots` after it; one whose
// extraction failed has a `shots` run failed the same way the queue would have settled it.
export const migration: Migration = {
  name: '0033-video-shots-stage',
  up: `
    INSERT INTO stage_runs (asset_id, stage, version, state, code, reason, counts, details, attempts, queued_at, started_at, finished_at, duration_ms)
    SELECT r.asset_id, 'shots', 1,
           CASE WHEN r.state IN ('pending', 'running') THEN 'pending' ELSE r.state END,
           CASE WHEN r.state = 'failed' THEN 'dependency_failed' END,
           CASE r.state
             WHEN 'failed' THEN 'dependency_failed: extract'
             WHEN 'ok' THEN 'read with the video''s extraction'
             WHEN 'pending' THEN NULL
             WHEN 'running' THEN NULL
             ELSE r.reason
           END,
           CASE WHEN r.state = 'ok' THEN r.counts ELSE '{}' END,
           CASE WHEN r.state = 'ok' THEN r.details END,
           0, r.queued_at,
           CASE WHEN r.state IN ('pending', 'running') THEN NULL ELSE r.started_at END,
           CASE WHEN r.state IN ('pending', 'running') THEN NULL ELSE r.finished_at END,
           CASE WHEN r.state IN ('pending', 'running') THEN NULL ELSE 0 END
      FROM stage_runs r JOIN assets a ON a.id = r.asset_id
     WHERE a.kind = 'video' AND r.stage = 'extract'
       AND NOT EXISTS (SELECT 1 FROM stage_runs s WHERE s.asset_id = r.asset_id AND s.stage = 'shots');
  `,
};

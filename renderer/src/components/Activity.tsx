// The top bar's one indicator of indexing: assets done of all and the stage running, while anything
// indexes; it opens a panel with uploads in flight, what failed and why (retry), and pause/resume.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useDismiss } from '../keys.ts';
import { useShallow } from 'zustand/react/shallow';
import { useActivity } from '../stores/activity.ts';
import { useLibrary } from '../stores/library.ts';
import { size } from './Library.tsx';

export function ActivityIndicator() {
  const { activity, watch, pause, retry } = useActivity(useShallow((s) => ({ activity: s.activity, watch: s.watch, pause: s.pause, retry: s.retry })));
  const { uploads, clearFinishedUploads } = useLibrary(useShallow((s) => ({ uploads: s.uploads, clearFinishedUploads: s.clearFinishedUploads })));
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => watch(), [watch]);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, box, close);
  const uploading = uploads.filter((u) => u.state === 'uploading' || u.state === 'waiting');
  const refused = uploads.filter((u) => u.state === 'failed');
  const a = activity;
  const busy = Boolean(a && a.assets.processing > 0) || uploading.length > 0;
  const failed = (a?.failed.count ?? 0) + refused.length;
  if (!busy && !failed && !a?.paused && !open) return null;
  const running = a?.stages.find((s) => s.running > 0)?.stage ?? a?.stages[0]?.stage;
  const label = uploading.length
    ? `Uploading ${uploading.length}`
    : a?.paused
      ? `Paused · ${a.assets.done} of ${a.assets.total}`
      : busy && a
        ? `Indexing ${a.assets.done} of ${a.assets.total}${running ? ` · ${running}` : ''}`
        : `${failed} problem${failed === 1 ? '' : 's'}`;
  return (
    <div className="activity" ref={box}>
      <button className={`activity-button ${failed ? 'has-failed' : ''}`} aria-expanded={open} onClick={() => setOpen(!open)} data-testid="activity">
        {busy && !a?.paused ? <span className="spinner" aria-hidden /> : null}
        {label}
        {a && a.assets.total ? <progress max={a.assets.total} value={a.assets.done} aria-label="assets indexed" /> : null}
      </button>
      {open ? (
        <div className="activity-panel" role="dialog" aria-label="indexing">
          {a ? (
            <p>
              {a.assets.done} of {a.assets.total} indexed{a.waiting_for_models ? ` · ${a.waiting_for_models} wait for an optional model (Settings)` : ''}.{' '}
              {a.assets.processing ? (
                <button onClick={() => void pause(!a.paused)}>{a.paused ? 'Resume' : 'Pause'}</button>
              ) : a.paused ? (
                <button onClick={() => void pause(false)}>Resume</button>
              ) : null}
            </p>
          ) : null}
          {a?.stages.length ? (
            <ul className="plain">
              {a.stages.map((s) => (
                <li key={s.stage}>
                  {s.stage}: {s.running} running, {s.pending} waiting
                </li>
              ))}
            </ul>
          ) : null}
          {uploads.length ? (
            <>
              <h3>Uploads</h3>
              <ul className="plain uploads">
                {uploads.map((u) => (
                  <li key={u.key} className={`upload upload-${u.state}`} data-state={u.state}>
                    <span className="upload-name" title={u.name}>
                      {u.name}
                    </span>
                    <small>{size(u.size)}</small>
                    {u.state === 'failed' ? (
                      <span className="error">{u.error}</span>
                    ) : (
                      <progress max={1} value={u.progress} aria-label={`upload of ${u.name}`} />
                    )}
                  </li>
                ))}
              </ul>
              <button className="link" onClick={clearFinishedUploads}>
                Clear finished uploads
              </button>
            </>
          ) : null}
          {a?.failed.count ? (
            <>
              <h3>
                Not indexed ({a.failed.count}) <button onClick={() => void retry()}>Retry all</button>
              </h3>
              <ul className="plain failed-runs">
                {a.failed.items.map((f) => (
                  <li key={`${f.video_id}/${f.stage}`}>
                    <a href={`#/view/${encodeURIComponent(f.video_id)}`}>{f.file_name}</a> — {f.stage}: {f.reason ?? 'failed'}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

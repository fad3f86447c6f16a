// The top bar's one indicator of indexing: assets done of all and the stage running, while anything
// indexes; it opens a panel with uploads in flight, what failed and why (retry), and pause/resume.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useDismiss } from '../keys.ts';
import { useShallow } from 'zustand/react/shallow';
import { useActivity } from '../stores/activity.ts';
import { useLibrary } from '../stores/library.ts';
import { counted, fileSize, progressWords } from '../plural.ts';
import { stageWords, stagesInWords, why } from '../failures.ts';

/** The failed files the owner has seen listed in the panel (this browser's storage; the newest 500). */
const SEEN_KEY = 'mi.failures.seen';
const seenFailures = new Set<string>(
  (() => {
    try {
      return JSON.parse(localStorage.getItem(SEEN_KEY) ?? '[]') as string[];
    } catch {
      return [];
    }
  })(),
);
function markSeen(ids: string[]): void {
  if (ids.every((id) => seenFailures.has(id))) return;
  for (const id of ids) seenFailures.add(id);
  localStorage.setItem(SEEN_KEY, JSON.stringify([...seenFailures].slice(-500)));
}

export function ActivityIndicator() {
  const { activity, askedAt, watch, pause, retry } = useActivity(
    useShallow((s) => ({ activity: s.activity, askedAt: s.askedAt, watch: s.watch, pause: s.pause, retry: s.retry })),
  );
  const { uploads, clearFinishedUploads } = useLibrary(useShallow((s) => ({ uploads: s.uploads, clearFinishedUploads: s.clearFinishedUploads })));
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => watch(), [watch]);
  const close = useCallback(() => {
    // Closed from inside the panel (Esc on its retry button or a file's link): the focus goes back
    // to the indicator, not to the page's body.
    if (box.current?.contains(document.activeElement)) button.current?.focus();
    setOpen(false);
  }, []);
  useDismiss(open, box, close);
  const uploading = uploads.filter((u) => u.state === 'uploading' || u.state === 'waiting');
  const refused = uploads.filter((u) => u.state === 'failed');
  const a = activity;
  // Files the service took in after the last look was asked for are indexing, though that look
  // could not count them: until the next one does, the indicator says so without its stale counts
  // (it said "1 problem", a refused file alone, for up to 0.3 s after the uploads ended).
  const unseen = uploads.some((u) => u.state === 'done' && (u.doneAt ?? 0) >= askedAt);
  const busy = Boolean(a && a.assets.processing > 0) || uploading.length > 0 || unseen;
  // Files, not runs: an encrypted PDF is one problem, whatever its later stages that could not run.
  const failed = (a?.failed.assets ?? 0) + refused.length;
  // Failures the owner has looked at that another try would not clear (a password, a damaged file)
  // stay listed but no longer call for attention: "3 not indexed", not "3 problems" in red.
  const attention = refused.length > 0 || (a ? a.failed.retryable > 0 || a.failed.files.some((f) => !seenFailures.has(f.video_id)) : false);
  useEffect(() => {
    if (open && a) markSeen(a.failed.files.map((f) => f.video_id));
  }, [open, a]);
  if (!busy && !failed && !a?.paused && !open) return null;
  const running = a?.stages.find((s) => s.running > 0)?.stage ?? a?.stages[0]?.stage;
  // The stages with runs still to come, or with runs under way not listed one by one above them: a
  // stage whose only runs are listed ("examples.pdf — text in pictures, 3 of 3 pages") says no more.
  const queued = (a?.stages ?? []).filter((s) => s.pending > 0 || s.running > (a?.running ?? []).filter((r) => r.stage === s.stage).length);
  const label = uploading.length
    ? `Uploading ${uploading.length}`
    : a?.paused
      ? `Paused · ${a.assets.done} of ${a.assets.total}`
      : unseen
        ? 'Indexing'
        : busy && a
          ? `Indexing ${a.assets.done} of ${a.assets.total}${running ? ` · ${stageWords(running)}` : ''}`
          : attention
            ? counted(failed, 'problem')
            : `${failed} not indexed`;
  const [head, ...more] = label.split(' · ');
  return (
    <div className="activity" ref={box}>
      <button
        ref={button}
        className={`activity-button ${failed && attention ? 'has-failed' : ''} ${busy && !a?.paused && !unseen ? 'is-busy' : ''}`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title={label}
        data-testid="activity"
      >
        {busy && !a?.paused ? <span className="spinner" aria-hidden /> : null}
        {/* What follows the first "·" gives way first where the top bar is short of room. */}
        <span className="activity-label">{head}</span>
        {more.length ? <span className="activity-more"> · {more.join(' · ')}</span> : null}
        {/* A bar while there is work to do; once all is done, only what could not be indexed is said. */}
        {a && a.assets.total && !unseen && (busy || a.paused) ? <progress max={a.assets.total} value={a.assets.done} aria-label="assets indexed" /> : null}
      </button>
      {open ? (
        <div className="activity-panel" role="dialog" aria-label="indexing">
          {/* Nothing admitted yet (uploads still arriving): the uploads' list below says it all. */}
          {a && (a.assets.total || a.paused || a.waiting_for_models) ? (
            <p>
              {a.assets.done} of {a.assets.total} done
              {a.waiting_for_models ? (
                <>
                  {' '}
                  · {counted(a.waiting_for_models, 'file')} {a.waiting_for_models === 1 ? 'waits' : 'wait'} for an optional model (
                  <a href="#/settings" onClick={() => setOpen(false)}>
                    Settings
                  </a>
                  )
                </>
              ) : null}
              .{' '}
              {a.assets.processing ? (
                <button onClick={() => void pause(!a.paused)}>{a.paused ? 'Resume' : 'Pause'}</button>
              ) : a.paused ? (
                <button onClick={() => void pause(false)}>Resume</button>
              ) : null}
            </p>
          ) : null}
          {a?.running.length ? (
            <ul className="plain running-runs" aria-label="under way">
              {a.running.map((r) => (
                <li key={`${r.video_id} ${r.stage}`}>
                  <span className="running-what">
                    <span className="running-file" title={r.file_name}>
                      {r.file_name}
                    </span>{' '}
                    — {stageWords(r.stage)}
                    {r.progress ? `, ${progressWords(r.progress)}` : ''}
                  </span>
                  {r.progress ? <progress max={r.progress.total} value={r.progress.done} aria-label={`${stageWords(r.stage)} of ${r.file_name}`} /> : null}
                </li>
              ))}
            </ul>
          ) : null}
          {queued.length ? (
            <ul className="plain stage-queue">
              {queued.map((s) => (
                <li key={s.stage}>
                  {stageWords(s.stage)}: {s.running} running, {s.pending} waiting
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
                    <small>{fileSize(u.size)}</small>
                    {u.state === 'failed' ? (
                      <span className="error">{u.error}</span>
                    ) : (
                      <progress max={1} value={u.progress} aria-label={`upload of ${u.name}`} />
                    )}
                  </li>
                ))}
              </ul>
              {uploads.length > uploading.length ? (
                <button className="link" onClick={clearFinishedUploads}>
                  Clear finished uploads
                </button>
              ) : null}
            </>
          ) : null}
          {a?.failed.assets ? (
            <>
              <h3>
                Not indexed ({counted(a.failed.assets, 'file')}){' '}
                {a.failed.retryable ? (
                  <button onClick={() => void retry()}>
                    {a.failed.retryable === a.failed.assets ? 'Try again' : `Try ${counted(a.failed.retryable, 'file')} again`}
                  </button>
                ) : null}
              </h3>
              {a.failed.retryable < a.failed.assets ? (
                <p className="hint lasting-hint">
                  {a.failed.retryable ? 'The others are' : a.failed.assets === 1 ? 'It is' : 'They are'} stopped by the file itself: another try ends the same
                  way. A file that changes is read again by itself.
                </p>
              ) : null}
              <ul className="plain failed-runs">
                {a.failed.files.map((f) => (
                  <li key={f.video_id} data-retryable={f.causes.some((c) => c.retryable)}>
                    <a href={`#/view/${encodeURIComponent(f.video_id)}`} onClick={() => setOpen(false)}>
                      {f.file_name}
                    </a>
                    {f.causes.length ? ` — ${f.causes.map((c) => `${stageWords(c.stage)}: ${why(c)}`).join('; ')}` : null}
                    {/* Nothing of a file that could not be read is looked at: only a later stage's failure says what it held back. */}
                    {f.not_run.length && !f.causes.some((c) => c.stage === 'extract') ? (
                      <small className="not-run"> (so no {stagesInWords(f.not_run, 'or')})</small>
                    ) : null}
                  </li>
                ))}
                {a.failed.assets > a.failed.files.length ? <li>and {a.failed.assets - a.failed.files.length} more</li> : null}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

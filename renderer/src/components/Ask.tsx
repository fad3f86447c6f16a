// Ask: a question answered from the library, with the moments it rests on. With a language model
// installed the answer is written as you watch (Stop, or Escape, ends it); without one, the
// sentences of the evidence that answer it are shown. Each [n] opens its moment.
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAsk } from '../stores/ask.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import type { Moment } from '../api/answers.ts';

function where(m: Moment): string {
  if (m.page !== null) return `${m.file_name}, page ${m.page}`;
  if (m.asset_kind === 'video') return `${m.file_name} at ${Math.floor(m.timestamp / 60)}:${String(Math.floor(m.timestamp % 60)).padStart(2, '0')}`;
  return m.file_name;
}

/** The answer's text with each [n] a link to its moment. */
function Cited({ text, moments }: { text: string; moments: Moment[] }) {
  const parts = text.split(/(\[\d+\])/g);
  return (
    <>
      {parts.map((p, i) => {
        const n = /^\[(\d+)\]$/.exec(p)?.[1];
        const m = n ? moments.find((x) => x.n === Number(n)) : undefined;
        return m ? (
          <a key={i} className="cite" href={viewHash(m.video_id, { page: m.page, timestamp: m.timestamp, box: m.region })} title={where(m)}>
            {p}
          </a>
        ) : (
          <span key={i}>{p}</span>
        );
      })}
    </>
  );
}

export function Ask({ params }: { params: URLSearchParams }) {
  const { state, evidence, written, answer, error, asked } = useAsk(
    useShallow((s) => ({ state: s.state, evidence: s.evidence, written: s.written, answer: s.answer, error: s.error, asked: s.query })),
  );
  const { ask, stop } = useAsk(useShallow((s) => ({ ask: s.ask, stop: s.stop })));
  const go = useNav((s) => s.go);
  const q = params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  const input = useRef<HTMLInputElement>(null);

  // The address holds the question: asking, back and forward all go through it.
  useEffect(() => {
    setDraft(q);
    if (q && q !== asked) void ask(q);
  }, [q, asked, ask]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || useAsk.getState().state !== 'asking') return;
      e.preventDefault(); // this Escape stopped the answer: it dismisses nothing else
      stop();
    };
    // On the document, which a key reaches before the window, where the toasts listen.
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [stop]);

  const cited = answer?.citations ?? [];
  return (
    <section className="ask" data-testid="ask">
      <form
        className="ask-form"
        onSubmit={(e) => {
          e.preventDefault();
          const v = draft.trim();
          if (!v) return;
          if (v === q) void ask(v);
          else go(`#/ask?q=${encodeURIComponent(v)}`);
        }}
      >
        <input
          ref={input}
          autoFocus
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Ask a question about your library"
          aria-label="question"
        />
        {state === 'asking' ? (
          // Its own element, and no default action: the click must not become a submit of the
          // Ask button that takes its place as the answer stops.
          <button
            key="stop"
            type="button"
            onClick={(e) => {
              e.preventDefault();
              stop();
            }}
            aria-label="stop the answer"
          >
            Stop
          </button>
        ) : (
          <button key="ask" type="submit">
            Ask
          </button>
        )}
      </form>
      {state === 'idle' ? <p className="empty">Answers are written only from what the library holds, with the moments they rest on.</p> : null}
      <div className="answer" data-state={state} aria-live="polite">
        {answer ? (
          <p data-testid="answer-text">
            <Cited text={answer.answer} moments={cited} />
          </p>
        ) : written ? (
          <p data-testid="answer-written" className="writing">
            {written}
          </p>
        ) : state === 'asking' ? (
          <p className="empty">{evidence.length ? 'Writing…' : 'Looking…'}</p>
        ) : null}
        {state === 'stopped' ? <p className="hint">Stopped.</p> : null}
        {error ? <p className="error">{error}</p> : null}
        {answer ? (
          <p className="hint" data-testid="answer-composer">
            {answer.composer === 'generative' ? 'Written by the local language model from the evidence below' : 'Sentences of the evidence below'}
            {answer.truncated ? ' · cut at the length limit' : ''}
          </p>
        ) : null}
      </div>
      {(answer ? cited : evidence).length ? (
        <ol className="ask-evidence" aria-label="evidence">
          {(answer ? cited : evidence).map((m) => (
            <li key={m.n} value={m.n}>
              <a href={viewHash(m.video_id, { page: m.page, timestamp: m.timestamp, box: m.region })}>{where(m)}</a>
              <div className="hit-snippet">{m.snippet}</div>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

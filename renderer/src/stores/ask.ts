// A question asked of the whole library: the answer streams in as the language model writes it
// (or arrives whole from the extractive composer); Stop closes the stream and the model stops.
import { create } from 'zustand';
import { ask, type Answer, type Moment } from '../api/answers.ts';
import { ApiError } from '../api/client.ts';

interface AskState {
  query: string;
  state: 'idle' | 'asking' | 'done' | 'stopped' | 'failed';
  evidence: Moment[];
  written: string;
  answer: Answer | null;
  error: string | null;
  ask(query: string): Promise<void>;
  stop(): void;
}

let current: AbortController | null = null;

export const useAsk = create<AskState>((set, get) => ({
  query: '',
  state: 'idle',
  evidence: [],
  written: '',
  answer: null,
  error: null,
  async ask(query) {
    current?.abort();
    const abort = new AbortController();
    current = abort;
    set({ query, state: 'asking', evidence: [], written: '', answer: null, error: null });
    const mine = () => current === abort;
    try {
      await ask(
        query,
        {
          evidence: (evidence) => mine() && set({ evidence }),
          chunk: (text) => mine() && set({ written: get().written + text }),
          answer: (answer) => mine() && set({ answer, state: 'done' }),
          error: (error) => mine() && set({ error, state: 'failed' }),
        },
        abort.signal,
      );
      if (mine() && get().state === 'asking') set({ state: 'failed', error: 'The answer ended early.' });
    } catch (err) {
      if (!mine()) return;
      if (abort.signal.aborted) set({ state: 'stopped' });
      else set({ state: 'failed', error: err instanceof ApiError ? err.message : 'The service could not be reached.' });
    }
  },
  /** Stopped at once on screen; closing the stream tells the server to stop the model. */
  stop() {
    if (!current) return;
    current.abort();
    current = null;
    if (get().state === 'asking') set({ state: 'stopped' });
  },
}));

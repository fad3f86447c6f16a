// First screen in a browser without a key: paste one (the server wrote the first to
// first-api-key.txt in its data folder).
import { useState } from 'react';
import { useSession } from '../stores/session.ts';

export function Connect() {
  const error = useSession((s) => s.error);
  const connect = useSession((s) => s.connect);
  const [key, setKey] = useState('');
  return (
    <main className="connect">
      <h1>Media Index</h1>
      <p>
        Paste an API key to open your library. The first key is in <code>first-api-key.txt</code> in the data folder; more come from{' '}
        <code>media-index keys create</code>.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void connect(key);
        }}
      >
        <input aria-label="API key" placeholder="mi_…" value={key} onChange={(e) => setKey(e.target.value)} autoFocus spellCheck={false} />
        <button type="submit" disabled={!key.trim()}>
          Open
        </button>
      </form>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </main>
  );
}

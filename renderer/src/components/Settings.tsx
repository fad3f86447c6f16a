// Settings of the workspace: the libraries (folders followed), which stages new uploads run, the engines, the optional models (they
// are installed with `media-index models pull NAME` on a connected machine), and the key in use.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSettings } from '../stores/settings.ts';
import { useSession } from '../stores/session.ts';
import { Libraries } from './Libraries.tsx';
import { stageWords } from '../failures.ts';

const mb = (n: number) => `${Math.round(n / 1e6)} MB`;

/** Why a stage does not run here, in words: "needs whisper-tiny (Optional models, below)" for `model_not_installed: whisper-tiny`. */
function availability(reason: string | null): string {
  const missing = /^model_not_installed: (.+)$/.exec(reason ?? '');
  return missing ? `needs ${missing[1]} (Optional models, below)` : (reason ?? 'not available');
}

export function Settings() {
  const { options, engines, models } = useSettings(useShallow((s) => ({ options: s.options, engines: s.engines, models: s.models })));
  const { load, setStage, reset, pull } = useSettings(useShallow((s) => ({ load: s.load, setStage: s.setStage, reset: s.reset, pull: s.pull })));
  const importFrom = useSettings((s) => s.importFrom);
  const { desktop, forget } = useSession(useShallow((s) => ({ desktop: s.desktop, forget: s.forget })));
  useEffect(() => void load(), [load]);
  return (
    <section className="settings" data-testid="settings">
      <header className="section-head">
        <h2>Settings</h2>
      </header>
      <h3>Libraries</h3>
      <Libraries />

      <h3>Index options for new uploads</h3>
      <table>
        <thead>
          <tr>
            <th>Stage</th>
            <th>On</th>
            <th>What it does</th>
            <th>Here</th>
          </tr>
        </thead>
        <tbody>
          {options?.stages.map((s) => (
            <tr key={s.name}>
              <td>
                {/* In words, and as scripts name it (PUT /index-options) where that differs. */}
                <span className="stage-words">{stageWords(s.name)}</span>
                {stageWords(s.name) !== s.name ? <code className="stage-key">{s.name}</code> : null}
              </td>
              <td>
                <input
                  type="checkbox"
                  aria-label={`${stageWords(s.name)} on`}
                  checked={options.effective[s.name].enabled}
                  onChange={(e) => void setStage(s.name, e.target.checked)}
                />
              </td>
              <td>{s.description}</td>
              <td data-stage-state={s.name}>{s.available ? 'ready' : availability(s.availability_reason)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button className="link" onClick={() => void reset()}>
        Back to the defaults
      </button>

      <h3>Optional models {models ? <small>running on {models.provider}</small> : null}</h3>
      <table>
        <thead>
          <tr>
            <th>Model</th>
            <th>For</th>
            <th>Size</th>
            <th>Licence</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {models?.models.map((m) => (
            <tr key={m.name}>
              <td>{m.name}</td>
              <td>{stageWords(m.stage)}</td>
              <td>{m.size_bytes ? mb(m.size_bytes) : '—'}</td>
              <td>{m.licence}</td>
              <td data-model-state={m.name}>
                {m.installed ? (
                  <span title={m.revision ? `revision ${m.revision}` : undefined}>
                    installed · {m.build === 'imported' ? 'imported build' : m.build === 'hub' ? 'checked against the hub' : 'pinned build'}
                  </span>
                ) : m.pull?.state === 'downloading' ? (
                  <progress max={m.pull.total || 1} value={m.pull.received} aria-label={`download of ${m.name}`} />
                ) : m.pull?.state === 'importing' ? (
                  <span>importing…</span>
                ) : (
                  <>
                    {m.downloadable ? (
                      <>
                        <button onClick={() => void pull(m.name)} aria-label={`install ${m.name}`}>
                          Install
                        </button>{' '}
                        or <code>media-index models pull {m.name}</code>
                        {m.pinned ? null : <div className="hint">each file checked against the checksum the hub publishes</div>}
                      </>
                    ) : (
                      <span>not on a model hub: import it from a folder</span>
                    )}
                    {m.pull?.state === 'failed' ? <div className="error">{m.pull.error}</div> : null}
                  </>
                )}
                {m.pull?.state === 'downloading' || m.pull?.state === 'importing' ? null : (
                  <ImportModel name={m.name} onImport={(from) => void importFrom(m.name, from)} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>Engines</h3>
      <ul className="plain">
        {engines?.engines.map((e) => (
          <li key={e.name}>
            {e.name} · {e.status}
            {e.is_default ? ' · default for this workspace' : ''}
          </li>
        ))}
      </ul>

      <h3>API keys of this workspace</h3>
      <KeysPanel />
      {desktop ? (
        <p>This window uses a key of its own, made when the app started and revoked when it quits.</p>
      ) : (
        <p>
          This browser keeps the key it was opened with.{' '}
          <button className="link" onClick={forget}>
            Forget the key here
          </button>
        </p>
      )}
    </section>
  );
}

function KeysPanel() {
  const { keys, created } = useSettings(useShallow((s) => ({ keys: s.keys, created: s.created })));
  const { createKey, revokeKey, dismissCreated } = useSettings(
    useShallow((s) => ({ createKey: s.createKey, revokeKey: s.revokeKey, dismissCreated: s.dismissCreated })),
  );
  const [label, setLabel] = useState('');
  const [write, setWrite] = useState(false);
  const [expiry, setExpiry] = useState('30d');
  return (
    <>
      <form
        className="key-form"
        onSubmit={(e) => {
          e.preventDefault();
          void createKey({ label: label.trim() || undefined, scopes: write ? ['read', 'write'] : ['read'], expires_in: expiry || undefined });
          setLabel('');
        }}
      >
        <input aria-label="key label" placeholder="What is it for?" value={label} onChange={(e) => setLabel(e.target.value)} />
        <label>
          <input type="checkbox" checked={write} onChange={(e) => setWrite(e.target.checked)} /> may change things (write)
        </label>
        <select aria-label="expires" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
          <option value="1d">expires in a day</option>
          <option value="30d">expires in 30 days</option>
          <option value="52w">expires in a year</option>
          <option value="">never expires</option>
        </select>
        <button type="submit">Create key</button>
      </form>
      {created ? (
        <div className="created-key" role="alert">
          <p>Copy this key now: it is not shown again.</p>
          <code data-testid="new-key">{created.key}</code>
          <div className="actions">
            <button onClick={() => void navigator.clipboard?.writeText(created.key)}>Copy</button>
            <button className="link" onClick={dismissCreated}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      <table>
        <thead>
          <tr>
            <th>Label</th>
            <th>Scopes</th>
            <th>Created</th>
            <th>Expires</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.key_id} data-key={k.key_id} className={k.revoked_at ? 'revoked' : ''}>
              <td>
                {k.label ?? <em>no label</em>}
                {k.current ? ' (this session)' : ''}
              </td>
              <td>{k.scopes.join(', ')}</td>
              <td>{k.created_at.slice(0, 10)}</td>
              <td>{k.expires_at ? k.expires_at.slice(0, 10) : 'never'}</td>
              <td>{k.last_used_at ? k.last_used_at.slice(0, 16).replace('T', ' ') : '—'}</td>
              <td>
                {k.revoked_at ? (
                  'revoked'
                ) : (
                  <button disabled={k.current} onClick={() => window.confirm('Revoke this key? Scripts using it stop working.') && void revokeKey(k.key_id)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * Installs a model from a folder or a file on this machine (a machine without a network): the
 * desktop opens a native picker; in a browser the path is typed.
 */
function ImportModel({ name, onImport }: { name: string; onImport: (from: string) => void }) {
  // Each button's name starts with what it shows, then the model it is for ("label in name").
  const [typing, setTyping] = useState(false);
  const [from, setFrom] = useState('');
  const bridge = window.mediaIndex;
  if (bridge) {
    return (
      <div className="hint">
        <button
          className="link"
          aria-label={`Import from a folder… (${name})`}
          onClick={() => void bridge.pickModelSource(false).then((p) => p && onImport(p))}
        >
          Import from a folder…
        </button>{' '}
        <button className="link" aria-label={`from a file… (${name})`} onClick={() => void bridge.pickModelSource(true).then((p) => p && onImport(p))}>
          from a file…
        </button>
      </div>
    );
  }
  if (!typing) {
    return (
      <div className="hint">
        <button className="link" aria-label={`Import from a folder or file… (${name})`} onClick={() => setTyping(true)}>
          Import from a folder or file…
        </button>
      </div>
    );
  }
  return (
    <form
      className="hint"
      onSubmit={(e) => {
        e.preventDefault();
        if (from.trim()) onImport(from.trim());
        setTyping(false);
      }}
    >
      <input
        autoFocus
        aria-label={`folder or file to import ${name} from`}
        placeholder="/path/to/model"
        value={from}
        onChange={(e) => setFrom(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && setTyping(false)}
      />{' '}
      <button type="submit">Import</button>
    </form>
  );
}

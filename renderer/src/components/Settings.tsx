// Settings of the workspace: which stages new uploads run, the engines, the optional models (they
// are installed with `media-index models pull NAME` on a connected machine), and the key in use.
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSettings } from '../stores/settings.ts';
import { useSession } from '../stores/session.ts';
import type { EffectiveStage } from '../../../server/contract/stages.ts';

const mb = (n: number) => `${Math.round(n / 1e6)} MB`;

export function Settings() {
  const { options, engines, models } = useSettings(useShallow((s) => ({ options: s.options, engines: s.engines, models: s.models })));
  const { load, setStage, reset } = useSettings(useShallow((s) => ({ load: s.load, setStage: s.setStage, reset: s.reset })));
  const { desktop, forget } = useSession(useShallow((s) => ({ desktop: s.desktop, forget: s.forget })));
  useEffect(() => void load(), [load]);
  return (
    <section className="settings" data-testid="settings">
      <header className="section-head">
        <h2>Settings</h2>
      </header>
      <h3>Index options for new uploads</h3>
      <table>
        <thead>
          <tr><th>Stage</th><th>On</th><th>What it does</th><th>Here</th></tr>
        </thead>
        <tbody>
          {options?.stages.map((s) => (
            <tr key={s.name}>
              <td>{s.name}</td>
              <td>
                <input type="checkbox" aria-label={`${s.name} on`} checked={(options.effective as Record<string, EffectiveStage>)[s.name].enabled} onChange={(e) => void setStage(s.name, e.target.checked)} />
              </td>
              <td>{s.description}</td>
              <td>{s.available ? 'available' : s.availability_reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button className="link" onClick={() => void reset()}>Back to the defaults</button>

      <h3>Optional models {models ? <small>running on {models.provider}</small> : null}</h3>
      <table>
        <thead>
          <tr><th>Model</th><th>For</th><th>Size</th><th>Licence</th><th>State</th></tr>
        </thead>
        <tbody>
          {models?.models.map((m) => (
            <tr key={m.name}>
              <td>{m.name}</td>
              <td>{m.stage}</td>
              <td>{m.size_bytes ? mb(m.size_bytes) : '—'}</td>
              <td>{m.licence}</td>
              <td>{m.installed ? 'installed' : m.downloadable ? <code>media-index models pull {m.name}</code> : 'not available in this build'}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>Engines</h3>
      <ul className="plain">
        {engines?.engines.map((e) => (
          <li key={e.name}>{e.name} · {e.status}{e.is_default ? ' · default for this workspace' : ''}</li>
        ))}
      </ul>

      <h3>Access</h3>
      {desktop ? (
        <p>This window uses a key of its own, made when the app started.</p>
      ) : (
        <p>
          This browser keeps the API key it was opened with. Keys are made and revoked with <code>media-index keys create</code> and <code>media-index keys revoke</code>.{' '}
          <button className="link" onClick={forget}>Forget the key here</button>
        </p>
      )}
    </section>
  );
}

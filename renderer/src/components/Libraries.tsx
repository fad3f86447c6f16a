// The folders the app follows: their state and progress, add one (the desktop folder picker, or a
// typed path in a browser), scan one again, see what it skipped and why, remove one.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useLibraries } from '../stores/libraries.ts';
import { useSession } from '../stores/session.ts';
import type { Library } from '../api/libraries.ts';

function state(l: Library): string {
  if (l.scan.running) return `scanning · ${l.scan.files_walked} files looked at`;
  if (l.status === 'offline') return `offline · ${l.error ?? ''}`;
  if (l.status === 'error') return `error · ${l.error ?? ''}`;
  if (l.pending > 0) return `indexing · ${l.pending} to go`;
  return l.status === 'watching' ? 'up to date, watching' : l.status;
}

export function Libraries() {
  const { libraries, problems } = useLibraries(useShallow((s) => ({ libraries: s.libraries, problems: s.problems })));
  const { watch, add, pickAndAdd, scan, remove, showProblems } = useLibraries(
    useShallow((s) => ({ watch: s.watch, add: s.add, pickAndAdd: s.pickAndAdd, scan: s.scan, remove: s.remove, showProblems: s.showProblems })),
  );
  const desktop = useSession((s) => s.desktop);
  const [folder, setFolder] = useState('');
  const [exclude, setExclude] = useState('');
  const [stackRaw, setStackRaw] = useState(true);
  useEffect(() => watch(), [watch]);
  return (
    <div className="libraries" data-testid="libraries">
      <p>Folders on this machine indexed where they are and kept in step: new, changed, moved and deleted files are followed. Your files are never changed.</p>
      <form
        className="library-form"
        onSubmit={(e) => {
          e.preventDefault();
          const globs = exclude
            .split(/[\s,]+/)
            .map((g) => g.trim())
            .filter(Boolean);
          void add(folder.trim(), globs, stackRaw).then((ok) => ok && setFolder(''));
        }}
      >
        {desktop ? (
          <button type="button" onClick={() => void pickAndAdd()}>
            Add a folder…
          </button>
        ) : null}
        <input aria-label="folder path" placeholder="/home/you/Pictures" value={folder} onChange={(e) => setFolder(e.target.value)} />
        <input aria-label="leave out" placeholder="leave out, e.g. raw/** *.tmp" value={exclude} onChange={(e) => setExclude(e.target.value)} />
        <label title="A camera RAW file and the JPEG of the same shot (IMG_1.CR2, IMG_1.JPG) are one photo, the JPEG shown">
          <input type="checkbox" checked={stackRaw} onChange={(e) => setStackRaw(e.target.checked)} /> RAW + JPEG as one
        </label>
        <button type="submit" disabled={!folder.trim()}>
          Add folder
        </button>
      </form>
      <table>
        <thead>
          <tr>
            <th>Folder</th>
            <th>State</th>
            <th>Assets</th>
            <th title="Files the library did not take in: of a kind the app does not read, or that could not be read. Files taken in whose indexing failed are in the indexing panel of the top bar.">
              Skipped
            </th>
            <th>Last scan</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {libraries.map((l) => (
            <tr key={l.library_id} data-library={l.library_id} className={l.status}>
              <td>
                <code>{l.path}</code>
                {l.exclude.length ? <small> leaving out {l.exclude.join(', ')}</small> : null}
                {l.stack_raw ? null : <small> RAW and JPEG apart</small>}
              </td>
              <td data-testid="library-state">
                {state(l)}
                {l.scan.running || l.pending > 0 ? (
                  <progress aria-label={`progress of ${l.path}`} max={Math.max(1, l.assets)} value={Math.max(0, l.assets - l.pending)} />
                ) : null}
              </td>
              <td>{l.assets}</td>
              <td>
                {l.refused + l.unreadable > 0 ? (
                  <button className="link" onClick={() => void showProblems(l.library_id)}>
                    {l.refused + l.unreadable}
                  </button>
                ) : (
                  0
                )}
                {problems[l.library_id] ? (
                  <ul className="plain problems">
                    {problems[l.library_id].map((p) => (
                      <li key={p.path}>
                        <code>{p.path}</code>: {p.reason}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </td>
              <td>{l.last_scan_at ? l.last_scan_at.slice(0, 16).replace('T', ' ') : '—'}</td>
              <td className="actions">
                <button onClick={() => void scan(l.library_id)}>Scan now</button>
                <button
                  onClick={() => window.confirm(`Remove ${l.path}? Its assets leave the index; the files stay where they are.`) && void remove(l.library_id)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// The keyboard shortcut sheet: `?` opens it anywhere (not while typing), Esc closes it.
import { useEffect, useRef, useState } from 'react';
import { typing } from '../keys.ts';

export const SHORTCUTS: Array<[string, Array<[string, string]>]> = [
  [
    'Everywhere',
    [
      ['/', 'search'],
      ['?', 'this sheet'],
      ['Esc', 'close, clear the selection, back from the viewer'],
      ['Alt ← / Alt →', 'back / forward'],
    ],
  ],
  [
    'Library',
    [
      ['← → ↑ ↓', 'move between pictures'],
      ['Enter', 'open'],
      ['Space', 'select'],
      ['Shift-click', 'select a range'],
      ['Ctrl/Cmd A', 'select all'],
      ['Ctrl + / Ctrl −', 'bigger / smaller pictures'],
    ],
  ],
  [
    'Search results',
    [
      ['↑ ↓', 'move between results'],
      ['Enter', 'open'],
    ],
  ],
  [
    'Viewer',
    [
      ['← →', 'previous / next'],
      ['Shift ↑ / Shift ↓', 'previous / next search result'],
      ['n / N', 'next / previous page or moment the search found'],
      ['+ / −, Ctrl+wheel', 'zoom a document page (Ctrl 0: fit the width)'],
      ['i', 'info panel'],
      ['f', 'favourite'],
      ['0 – 5', 'rating'],
      ['r / Shift R', 'turn a photo clockwise / back (kept in the index, not the file)'],
      ['z or double-click', 'zoom to 1:1 and back; wheel zooms, drag pans'],
      ['Delete', 'delete (with undo)'],
    ],
  ],
];

export function ShortcutSheet() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '?' || typing(e.target)) return;
      e.preventDefault();
      // Closed a moment ago and not yet gone (its close event waits): shown again as it is.
      if (dialog.current && !dialog.current.open) dialog.current.showModal();
      setOpen(true);
    };
    // The desktop window's Help menu asks for it too.
    const onAsk = () => setOpen(true);
    window.addEventListener('keydown', onKey);
    window.addEventListener('media-index:shortcuts', onAsk);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('media-index:shortcuts', onAsk);
    };
  }, []);
  useEffect(() => {
    if (open && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [open]);
  if (!open) return null;
  return (
    <dialog ref={dialog} className="shortcuts" aria-label="keyboard shortcuts" onClose={() => !dialog.current?.open && setOpen(false)}>
      <h2>Keyboard shortcuts</h2>
      {SHORTCUTS.map(([group, keys]) => (
        <section key={group}>
          <h3>{group}</h3>
          <dl>
            {keys.map(([k, what]) => (
              <div key={k}>
                <dt>
                  <kbd>{k}</kbd>
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
      <button onClick={() => setOpen(false)}>Close</button>
    </dialog>
  );
}

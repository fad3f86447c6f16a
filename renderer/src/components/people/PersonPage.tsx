// A person: name (typing another person's name offers to merge into them), hide, merge; their
// faces page by page (best first, or weakest first to find mistakes), selected in bulk for "Not this
// person", "Split out" or "Use as cover"; the faces that may be them as a strip (Accept all, ✗ per
// face; Y/N answer the current one, → skips); and where they appear. #/people/ID?order=weakest.
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { usePeople } from '../../stores/people.ts';
import { useNav, viewHash } from '../../stores/nav.ts';
import { stepHash, useBrowse } from '../../stores/browse.ts';
import { all } from '../../stores/selection.ts';
import type { FaceSuggestion } from '../../api/people.ts';
import { FaceGrid, FaceThumb } from './FaceGrid.tsx';
import { clockOf } from '../SearchView.tsx';
import { counted } from '../../plural.ts';

function SuggestionStrip({ items, who }: { items: FaceSuggestion[]; who: string }) {
  const answer = usePeople((s) => s.answer);
  const [at, setAt] = useState(0);
  if (items.length === 0) return null;
  const cur = Math.min(at, items.length - 1);
  return (
    <section className="suggestion-strip" aria-labelledby="strip-head">
      <div className="section-sub">
        <h3 id="strip-head">
          Also {who}? <small>{items.length}</small>
        </h3>
        <button onClick={() => void answer(items, true)}>Accept all {items.length}</button>
        <span className="hint">Y yes · N no · → next</span>
      </div>
      <div
        className="strip"
        role="group"
        aria-label={`faces that may be ${who}`}
        tabIndex={0}
        onKeyDown={(e) => {
          const s = items[cur];
          if (!s) return;
          if (e.key === 'y' || e.key === 'Y') void answer([s], true);
          else if (e.key === 'n' || e.key === 'N') void answer([s], false);
          else if (e.key === 'ArrowRight') setAt((cur + 1) % items.length);
          else if (e.key === 'ArrowLeft') setAt((cur - 1 + items.length) % items.length);
          else return;
          e.preventDefault();
        }}
      >
        {items.map((s, i) => (
          <div key={s.face.face_id} className={`strip-face ${i === cur ? 'current' : ''}`} data-suggested={s.face.face_id}>
            <FaceThumb url={s.face.thumbnail_url} size={96} title={`${Math.round(s.similarity * 100)} % alike`} />
            <button className="strip-no" aria-label={`not ${who}`} title={`Not ${who}`} onClick={() => void answer([s], false)}>
              ✗
            </button>
          </div>
        ))}
      </div>
    </section>
  );
}

export function PersonPage({ id, params }: { id: string; params: URLSearchParams }) {
  const { person, faces, selection, people, busy, suggestions } = usePeople(
    useShallow((s) => ({ person: s.person, faces: s.faces, selection: s.selection, people: s.people, busy: s.busy, suggestions: s.suggestions })),
  );
  const a = usePeople(
    useShallow((s) => ({
      open: s.open,
      load: s.load,
      select: s.select,
      moreFaces: s.moreFaces,
      rename: s.rename,
      setHidden: s.setHidden,
      setCover: s.setCover,
      mergeWithUndo: s.mergeWithUndo,
      takeOff: s.takeOff,
      notFaces: s.notFaces,
    })),
  );
  const go = useNav((s) => s.go);
  const order = params.get('order') === 'weakest' ? 'weakest' : 'best';
  const [name, setName] = useState('');
  const { open, load } = a;
  useEffect(() => {
    void open(id, order);
    void load();
  }, [id, order, open, load]);
  useEffect(() => setName(person?.name ?? ''), [person?.person_id, person?.name]);
  const grid = useMemo(
    () =>
      faces.map((f) => ({
        face_id: f.face_id,
        thumbnail_url: f.thumbnail_url,
        label: `face in a ${f.asset_kind}${f.page ? `, page ${f.page}` : ''}, quality ${f.quality.toFixed(2)}${f.good ? '' : ' (not good enough to decide)'}, put here by ${f.assigned_by}`,
        marks: [...(f.face_id === person?.cover_face_id ? ['cover'] : []), ...(f.good ? [] : ['weak'])],
      })),
    [faces, person?.cover_face_id],
  );
  if (!person || (person.person_id !== id && person.requested_id !== id)) return <p className="empty">Opening…</p>;
  const others = people.filter((p) => p.person_id !== person.person_id);
  const typed = name.trim();
  const same = typed && typed.toLowerCase() !== person.name.toLowerCase() ? others.find((p) => p.name.toLowerCase() === typed.toLowerCase()) : undefined;
  const who = person.name || 'this person';
  const mine = suggestions.filter((s) => s.person.person_id === person.person_id);
  const n = selection.ids.length;
  const setOrder = (o: string) => go(`#/people/${encodeURIComponent(person.person_id)}${o === 'weakest' ? '?order=weakest' : ''}`);

  return (
    <section className="person-page" data-testid="person">
      <header className="section-head">
        <a href="#/people" className="back">
          ← People
        </a>
        <form
          className="rename"
          onSubmit={(e) => {
            e.preventDefault();
            void a.rename(typed);
          }}
        >
          <input aria-label="name" placeholder="Who is this?" value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={busy || typed === person.name}>
            {same ? `Merge into ${same.name}` : 'Save name'}
          </button>
        </form>
        <span className={`badge status-${person.status}`}>{person.status}</span>
        <button onClick={() => void a.setHidden(person.status !== 'hidden')} disabled={busy}>
          {person.status === 'hidden' ? 'Unhide' : 'Hide'}
        </button>
        <select
          aria-label="merge into"
          value=""
          disabled={busy || others.length === 0}
          onChange={(e) => {
            if (!e.target.value) return;
            a.mergeWithUndo(person.person_id, e.target.value);
            go('#/people');
          }}
        >
          <option value="">Merge into…</option>
          {others.map((p) => (
            <option key={p.person_id} value={p.person_id}>
              {p.name || `Unnamed (${p.face_count} faces)`}
            </option>
          ))}
        </select>
      </header>
      <SuggestionStrip items={mine} who={who} />
      <div className="toolbar" aria-label="selected faces">
        <span aria-live="polite">
          {n} of {person.faces_pagination.total} selected
        </span>
        <button onClick={() => a.select(all(faces.map((f) => f.face_id)))} disabled={faces.length === 0}>
          Select all
        </button>
        <button onClick={() => void a.takeOff(true)} disabled={busy || n === 0}>
          Not this person
        </button>
        <button onClick={() => void a.takeOff(false)} disabled={busy || n === 0}>
          Split out
        </button>
        <button
          onClick={() => void a.notFaces()}
          disabled={busy || n === 0}
          title="an animal, a drawing, a pattern: taken off this person, no longer shown or found as a person"
        >
          Not a face
        </button>
        <button onClick={() => void a.setCover(selection.ids[0])} disabled={busy || n !== 1}>
          Use as cover
        </button>
        <label>
          Order{' '}
          <select aria-label="order of faces" value={order} onChange={(e) => setOrder(e.target.value)}>
            <option value="best">best first</option>
            <option value="weakest">weakest first</option>
          </select>
        </label>
      </div>
      <FaceGrid
        label={`faces of ${who}`}
        faces={grid}
        total={person.faces_pagination.total}
        selection={selection}
        onSelection={a.select}
        onMore={a.moreFaces}
        onOpen={(g) => {
          // ← and → in the viewer step through this person's faces, Esc comes back here.
          const steps = faces.map((x) => ({ id: x.video_id, hash: viewHash(x.video_id, { page: x.page, timestamp: x.timestamp, box: x.box }) }));
          const at = faces.findIndex((x) => x.face_id === g.face_id);
          if (at < 0) return;
          const from = window.location.hash;
          useBrowse.getState().begin(from, steps);
          go(stepHash(steps[at], from));
        }}
        tile={104}
      />
      <h3>Appears in</h3>
      <ul className="plain">
        {person.appearances.map((ap) => (
          <li key={ap.video_id}>
            <a href={viewHash(ap.video_id, { page: ap.first_page, timestamp: ap.first_timestamp })}>{ap.file_name}</a> ·{' '}
            {ap.asset_kind === 'image' ? 'photo' : ap.asset_kind}
            {ap.first_page ? ` · from page ${ap.first_page}` : ap.asset_kind === 'video' ? ` · from ${clockOf(ap.first_timestamp)}` : ''} ·{' '}
            {counted(ap.face_count, 'face')}
          </li>
        ))}
      </ul>
    </section>
  );
}

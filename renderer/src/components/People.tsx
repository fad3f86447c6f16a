// People: the grid (drag one person onto another to merge), and a person's page — name, hide,
// merge, the faces as a grid of crops for fast review (click, Shift/Ctrl-click to select several),
// take faces off ("not this person" or "split out"), set the cover, and where they appear.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { usePeople } from '../stores/people.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import { FaceCrop } from './Boxes.tsx';
import type { Person } from '../api/people.ts';

function PersonCard({ p }: { p: Person }) {
  const merge = usePeople((s) => s.merge);
  const [over, setOver] = useState(false);
  return (
    <a
      className={`person ${over ? 'drop-over' : ''} status-${p.status}`}
      href={`#/people/${encodeURIComponent(p.person_id)}`}
      data-person={p.person_id}
      draggable
      onDragStart={(e) => e.dataTransfer.setData('application/x-person', p.person_id)}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('application/x-person')) {
          e.preventDefault();
          setOver(true);
        }
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const source = e.dataTransfer.getData('application/x-person');
        if (source && source !== p.person_id && window.confirm(`Merge into ${p.name || 'this person'}? All faces move here.`)) void merge(source, p.person_id);
      }}
    >
      {p.cover ? <FaceCrop src={p.cover.frame_url} box={p.cover.box} size={128} title={p.name || 'Unnamed'} /> : <div className="crop crop-empty" />}
      <div className="person-name">{p.name || <em>Unnamed</em>}</div>
      <div className="person-meta">
        {p.face_count} face{p.face_count === 1 ? '' : 's'} · {p.status}
      </div>
    </a>
  );
}

function PlanDialog() {
  const plan = usePeople((s) => s.plan);
  const recluster = usePeople((s) => s.recluster);
  const close = usePeople((s) => s.closePlan);
  if (!plan) return null;
  const faces = plan.new_people.reduce((n, g) => n + g.face_ids.length, 0);
  return (
    <div className="dialog" role="dialog" aria-label="re-group preview" onKeyDown={(e) => e.key === 'Escape' && close()}>
      <h3>Re-group faces</h3>
      <ul className="plain">
        <li>{plan.joins.length} waiting face(s) join people you have</li>
        <li>
          {plan.new_people.length} new unnamed people from {faces} faces
        </li>
        <li>{plan.waiting} face(s) keep waiting (no clear match)</li>
        {plan.suggestions.length ? <li>{plan.suggestions.length} of them probably someone you have: you are asked below (nothing moves without you)</li> : null}
        <li>People are never merged automatically; names, hidden people and your corrections stay.</li>
      </ul>
      <div className="actions">
        <button onClick={() => void recluster()} autoFocus>
          Re-group now
        </button>
        <button className="link" onClick={close}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** "Is this Anna?": a waiting face beside the person it probably is, answered yes or no. */
function Suggestions() {
  const { suggestions, answer } = usePeople(useShallow((s) => ({ suggestions: s.suggestions, answer: s.answer })));
  if (suggestions.length === 0) return null;
  return (
    <section className="suggestions" aria-label="suggestions">
      <h3>
        Is this…? <small>{suggestions.length}</small>
      </h3>
      <ul>
        {suggestions.slice(0, 24).map((s) => {
          const who = s.person.name || 'this person';
          return (
            <li key={s.face.face_id} className="suggestion" data-face={s.face.face_id} data-person={s.person.person_id}>
              <FaceCrop src={s.face.frame_url} box={s.face.box} size={88} title="the face found" />
              {s.person.cover ? <FaceCrop src={s.person.cover.frame_url} box={s.person.cover.box} size={88} title={who} /> : null}
              <span className="suggestion-question">Is this {who}?</span>
              <span className="suggestion-answer">
                <button onClick={() => void answer(s, true)} aria-label={`yes, this is ${who}`}>
                  Yes
                </button>
                <button onClick={() => void answer(s, false)} aria-label={`no, this is not ${who}`}>
                  No
                </button>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function PeopleGrid() {
  const { people, includeHidden, loaded, busy } = usePeople(
    useShallow((s) => ({ people: s.people, includeHidden: s.includeHidden, loaded: s.loaded, busy: s.busy })),
  );
  const { load, setIncludeHidden, preview } = usePeople(useShallow((s) => ({ load: s.load, setIncludeHidden: s.setIncludeHidden, preview: s.preview })));
  useEffect(() => void load(), [load]);
  return (
    <section className="people" data-testid="people">
      <header className="section-head">
        <h2>
          People <small>{people.length}</small>
        </h2>
        <label>
          <input type="checkbox" checked={includeHidden} onChange={(e) => void setIncludeHidden(e.target.checked)} /> show hidden
        </label>
        <button onClick={() => void preview()} disabled={busy}>
          {busy ? 'Re-grouping…' : 'Re-group faces…'}
        </button>
      </header>
      <PlanDialog />
      <Suggestions />
      {loaded && people.length === 0 ? <p className="empty">No people yet. Index photos or videos with faces, then re-group faces.</p> : null}
      <div className="grid people-grid">
        {people.map((p) => (
          <PersonCard key={p.person_id} p={p} />
        ))}
      </div>
    </section>
  );
}

export function PersonPage({ id }: { id: string }) {
  const { person, selected, people, busy } = usePeople(useShallow((s) => ({ person: s.person, selected: s.selected, people: s.people, busy: s.busy })));
  const a = usePeople(
    useShallow((s) => ({
      open: s.open,
      load: s.load,
      toggle: s.toggle,
      rename: s.rename,
      setHidden: s.setHidden,
      setCover: s.setCover,
      merge: s.merge,
      takeOff: s.takeOff,
    })),
  );
  const go = useNav((s) => s.go);
  const [name, setName] = useState('');
  const { open, load } = a;
  useEffect(() => {
    void open(id);
    void load();
  }, [id, open, load]);
  useEffect(() => setName(person?.name ?? ''), [person?.person_id, person?.name]);
  if (!person || (person.person_id !== id && person.requested_id !== id)) return <p className="empty">Opening…</p>;
  const others = people.filter((p) => p.person_id !== person.person_id);

  return (
    <section className="person-page" data-testid="person">
      <header className="section-head">
        <form
          className="rename"
          onSubmit={(e) => {
            e.preventDefault();
            void a.rename(name.trim());
          }}
        >
          <input aria-label="name" placeholder="Who is this?" value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={busy || name.trim() === person.name}>
            Save name
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
          onChange={(e) =>
            e.target.value && window.confirm('Merge this person into the one chosen? All faces move there.') && void a.merge(person.person_id, e.target.value)
          }
        >
          <option value="">Merge into…</option>
          {others.map((p) => (
            <option key={p.person_id} value={p.person_id}>
              {p.name || `Unnamed (${p.face_count} faces)`}
            </option>
          ))}
        </select>
      </header>
      <div className="toolbar" aria-label="selected faces">
        <span>{selected.length} selected</span>
        <button onClick={() => void a.takeOff(true)} disabled={busy || selected.length === 0}>
          Not this person
        </button>
        <button onClick={() => void a.takeOff(false)} disabled={busy || selected.length === 0}>
          Split out
        </button>
        <button onClick={() => void a.setCover(selected[0])} disabled={busy || selected.length !== 1}>
          Use as cover
        </button>
      </div>
      <div className="faces">
        {person.faces.map((f) => (
          <button
            key={f.face_id}
            className={`face ${selected.includes(f.face_id) ? 'selected' : ''} ${f.face_id === person.cover_face_id ? 'cover' : ''}`}
            data-face={f.face_id}
            aria-pressed={selected.includes(f.face_id)}
            onClick={(e) => a.toggle(f.face_id, e.shiftKey || e.ctrlKey || e.metaKey)}
            onDoubleClick={() => go(viewHash(f.video_id, { page: f.page, timestamp: f.timestamp, box: f.box }))}
            title={`quality ${f.quality.toFixed(2)}${f.good ? '' : ' (not good enough to decide)'} · ${f.assigned_by}`}
          >
            <FaceCrop src={f.frame_url} box={f.box} size={96} />
          </button>
        ))}
      </div>
      {person.faces_pagination.has_more ? (
        <p className="empty">
          Showing {person.faces.length} of {person.faces_pagination.total} faces.
        </p>
      ) : null}
      <h3>Appears in</h3>
      <ul className="plain">
        {person.appearances.map((ap) => (
          <li key={ap.video_id}>
            <a href={viewHash(ap.video_id, { page: ap.first_page, timestamp: ap.first_timestamp })}>{ap.file_name}</a> · {ap.asset_kind}
            {ap.first_page ? ` · from page ${ap.first_page}` : ap.asset_kind === 'video' ? ` · from ${ap.first_timestamp.toFixed(1)} s` : ''} · {ap.face_count}{' '}
            face(s)
          </li>
        ))}
      </ul>
    </section>
  );
}

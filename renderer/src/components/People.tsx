// People: named people first (largest first, found by name), then the unnamed groups the service
// formed, each with a name field (type + Enter names it; an existing name merges after a second
// Enter; Tab goes to the next group; Enter in an empty field opens it). Drag one person onto another
// to merge, with a few seconds to undo. "Not grouped yet" lists every face no person holds, to say
// who they are in bulk or to ignore them. State in the address: #/people?q=…&hidden=1, #/people?view=waiting&ignored=1.
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { usePeople } from '../stores/people.ts';
import { useNav, viewHash } from '../stores/nav.ts';
import type { LooseFace, Person } from '../api/people.ts';
import { FaceGrid, FaceThumb, type GridFace } from './people/FaceGrid.tsx';
import { NameField } from './people/NameField.tsx';
import { counted } from '../plural.ts';

export { PersonPage } from './people/PersonPage.tsx';

/** Sets some of the People screen's parameters in the address (replacing the entry: typing is not history). */
function useParams(params: URLSearchParams) {
  return (changes: Record<string, string | null>, push = false) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    const hash = `#/people${next.toString() ? `?${next.toString()}` : ''}`;
    if (push) window.location.hash = hash;
    else history.replaceState(null, '', hash);
    if (!push) window.dispatchEvent(new HashChangeEvent('hashchange'));
  };
}

function dragProps(p: Person, over: boolean, setOver: (v: boolean) => void, mergeWithUndo: (s: string, i: string) => void) {
  return {
    draggable: true,
    onDragStart: (e: React.DragEvent) => e.dataTransfer.setData('application/x-person', p.person_id),
    onDragOver: (e: React.DragEvent) => {
      if (e.dataTransfer.types.includes('application/x-person')) {
        e.preventDefault();
        if (!over) setOver(true);
      }
    },
    onDragLeave: () => setOver(false),
    onDrop: (e: React.DragEvent) => {
      e.preventDefault();
      setOver(false);
      const source = e.dataTransfer.getData('application/x-person');
      if (source && source !== p.person_id) mergeWithUndo(source, p.person_id);
    },
  };
}

function NamedCard({ p }: { p: Person }) {
  const mergeWithUndo = usePeople((s) => s.mergeWithUndo);
  const [over, setOver] = useState(false);
  return (
    <a
      className={`person ${over ? 'drop-over' : ''} status-${p.status}`}
      href={`#/people/${encodeURIComponent(p.person_id)}`}
      data-person={p.person_id}
      {...dragProps(p, over, setOver, mergeWithUndo)}
    >
      <FaceThumb url={p.cover?.thumbnail_url} size={128} title={p.name} />
      <div className="person-name">{p.name}</div>
      <div className="person-meta">
        {counted(p.face_count, 'face')}
        {p.status === 'hidden' ? ' · hidden' : ''}
      </div>
    </a>
  );
}

function UnnamedCard({ p, index }: { p: Person; index: number }) {
  const { mergeWithUndo, nameGroup, people, busy } = usePeople(
    useShallow((s) => ({ mergeWithUndo: s.mergeWithUndo, nameGroup: s.nameGroup, people: s.people, busy: s.busy })),
  );
  const go = useNav((s) => s.go);
  const [over, setOver] = useState(false);
  const href = `#/people/${encodeURIComponent(p.person_id)}`;
  return (
    <div className={`person unnamed ${over ? 'drop-over' : ''} status-${p.status}`} data-person={p.person_id} {...dragProps(p, over, setOver, mergeWithUndo)}>
      <a href={href} tabIndex={-1} aria-label={`open the group of ${p.face_count} faces`}>
        <FaceThumb url={p.cover?.thumbnail_url} size={128} />
      </a>
      <div className="person-meta">
        {counted(p.face_count, 'face')}
        {p.status === 'hidden' ? ' · hidden' : ''}
      </div>
      <NameField
        id={`group-name-${index}`}
        className="group-name"
        label={`name of group ${index + 1}, ${p.face_count} faces`}
        placeholder="Add a name"
        people={people}
        exclude={p.person_id}
        disabled={busy}
        confirmExisting={(to) => `${to.name} exists: Enter again merges these ${p.face_count} faces into ${to.name} (Esc cancels).`}
        onEmptyEnter={() => go(href)}
        onPick={async (c) => {
          await nameGroup(p, c);
          // The next group slides into this place: its field takes the focus, to name it straight away.
          requestAnimationFrame(() => (document.getElementById(`group-name-${index}`) ?? document.getElementById(`group-name-${index - 1}`))?.focus());
        }}
      />
    </div>
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
              <FaceThumb url={s.face.thumbnail_url} size={88} title="the face found" />
              <FaceThumb url={s.person.cover?.thumbnail_url} size={88} title={who} />
              <span className="suggestion-question">Is this {who}?</span>
              <span className="suggestion-answer">
                <button onClick={() => void answer([s], true)} aria-label={`yes, this is ${who}`}>
                  Yes
                </button>
                <button onClick={() => void answer([s], false)} aria-label={`no, this is not ${who}`}>
                  No
                </button>
              </span>
            </li>
          );
        })}
      </ul>
      {suggestions.length > 24 ? <p className="empty">Open a person to answer all of theirs at once.</p> : null}
    </section>
  );
}

/** How many cards a section shows first, and how many more each time its end comes into view. */
const FIRST_CARDS = 60;
const MORE_CARDS = 240;

/** A section's cards drawn a part at a time (2,000 people paint at once otherwise): the count shown, and the sentinel that asks for more. */
function useMoreOnView(total: number): [number, (el: HTMLElement | null) => void] {
  const [shown, setShown] = useState(FIRST_CARDS);
  const [el, setEl] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (!el || shown >= total) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setShown((n) => n + MORE_CARDS), { rootMargin: '600px' });
    io.observe(el);
    return () => io.disconnect();
  }, [el, shown, total]);
  return [shown, setEl];
}

function PeopleLists({ params }: { params: URLSearchParams }) {
  const { people, loaded, pending } = usePeople(useShallow((s) => ({ people: s.people, loaded: s.loaded, pending: s.pending })));
  const set = useParams(params);
  const q = params.get('q') ?? '';
  const shown = people.filter((p) => p.person_id !== pending?.source);
  const named = useMemo(
    () => shown.filter((p) => p.name && p.name.toLowerCase().includes(q.trim().toLowerCase())).sort((a, b) => b.face_count - a.face_count),
    [shown, q],
  );
  const unnamed = shown.filter((p) => !p.name);
  const [namedShown, namedEnd] = useMoreOnView(named.length);
  const [unnamedShown, unnamedEnd] = useMoreOnView(unnamed.length);
  if (loaded && people.length === 0)
    return <p className="empty">No people yet. Faces found while indexing are grouped by themselves a little after indexing settles.</p>;
  return (
    <>
      <section aria-labelledby="named-head">
        <div className="section-sub">
          <h3 id="named-head">
            Named <small>{shown.filter((p) => p.name).length}</small>
          </h3>
          <input type="search" aria-label="find a person by name" placeholder="Find by name" value={q} onChange={(e) => set({ q: e.target.value })} />
        </div>
        {named.length === 0 ? <p className="empty">{q ? `Nobody named like “${q}”.` : 'Nobody named yet: name a group below.'}</p> : null}
        <div className="grid people-grid" data-testid="named">
          {named.slice(0, namedShown).map((p) => (
            <NamedCard key={p.person_id} p={p} />
          ))}
        </div>
        {named.length > namedShown ? <div ref={namedEnd} className="more-sentinel" aria-hidden /> : null}
      </section>
      {unnamed.length ? (
        <section aria-labelledby="unnamed-head">
          <div className="section-sub">
            <h3 id="unnamed-head">
              Unnamed <small>{unnamed.length}</small>
            </h3>
            <span className="hint">Type a name and press Enter; Tab goes to the next group.</span>
          </div>
          <div className="grid people-grid" data-testid="unnamed">
            {unnamed.slice(0, unnamedShown).map((p, i) => (
              <UnnamedCard key={p.person_id} p={p} index={i} />
            ))}
          </div>
          {unnamed.length > unnamedShown ? <div ref={unnamedEnd} className="more-sentinel" aria-hidden /> : null}
        </section>
      ) : null}
    </>
  );
}

/** A loose face as the grid shows it: made once per face (the same object when a page is added). */
const gridFaces = new WeakMap<LooseFace, GridFace>();
function gridFace(f: LooseFace): GridFace {
  let g = gridFaces.get(f);
  if (!g) {
    g = {
      face_id: f.face_id,
      thumbnail_url: f.thumbnail_url,
      label: `face in a ${f.asset_kind}${f.page ? `, page ${f.page}` : ''}, quality ${f.quality.toFixed(2)}${f.not_a_face ? ', not a face' : ''}${f.small ? ', small' : ''}${f.blurred ? ', blurred' : ''}`,
      marks: [...(f.not_a_face ? ['not a face'] : []), ...(f.small ? ['small'] : []), ...(f.blurred ? ['blurred'] : [])],
    };
    gridFaces.set(f, g);
  }
  return g;
}

function NotGrouped({ params }: { params: URLSearchParams }) {
  const ignored = params.get('ignored') === '1';
  const { loose, total, selection, people, busy } = usePeople(
    useShallow((s) => ({ loose: s.loose, total: s.looseTotal, selection: s.looseSelection, people: s.people, busy: s.busy })),
  );
  const a = usePeople(
    useShallow((s) => ({ loadLoose: s.loadLoose, moreLoose: s.moreLoose, selectLoose: s.selectLoose, assignLoose: s.assignLoose, ignoreLoose: s.ignoreLoose })),
  );
  const go = useNav((s) => s.go);
  const set = useParams(params);
  const { loadLoose } = a;
  useEffect(() => void loadLoose(ignored), [ignored, loadLoose]);
  const faces = useMemo(() => loose.map(gridFace), [loose]);
  const n = selection.ids.length;
  return (
    <section className="not-grouped" data-testid="not-grouped">
      <div className="toolbar" aria-label="selected faces">
        <label>
          <input type="checkbox" checked={ignored} onChange={(e) => set({ ignored: e.target.checked ? '1' : null }, true)} /> ignored faces
        </label>
        <span aria-live="polite">
          {n} of {total} selected
        </span>
        {ignored ? (
          <button onClick={() => void a.ignoreLoose(false)} disabled={busy || n === 0}>
            Un-ignore
          </button>
        ) : (
          <>
            <NameField
              label="this is"
              placeholder={n ? `These ${n} are…` : 'Select faces, then: this is…'}
              people={people}
              disabled={busy || n === 0}
              onPick={(c) => a.assignLoose(c)}
            />
            <button onClick={() => void a.ignoreLoose(true)} disabled={busy || n === 0} title="a stranger: kept out of every grouping and suggestion">
              Ignore
            </button>
            <button
              onClick={() => void a.ignoreLoose(true, true)}
              disabled={busy || n === 0}
              title="an animal, a drawing, a pattern: no longer shown on its picture or found as a person"
            >
              Not a face
            </button>
          </>
        )}
      </div>
      {total === 0 ? (
        <p className="empty">{ignored ? 'No ignored faces.' : 'Every face found is in a person, or ignored.'}</p>
      ) : (
        <FaceGrid
          label={ignored ? 'ignored faces' : 'faces not grouped yet'}
          faces={faces}
          total={total}
          selection={selection}
          onSelection={a.selectLoose}
          onMore={a.moreLoose}
          onOpen={(f) => {
            const at = loose.find((x) => x.face_id === f.face_id);
            if (at) go(viewHash(at.video_id, { page: at.page, timestamp: at.timestamp, box: at.box }));
          }}
        />
      )}
      <p className="hint">Click or Space selects, Shift a range, Ctrl+A all, Esc none; Enter or a double-click opens the picture.</p>
    </section>
  );
}

export function PeopleScreen({ params }: { params: URLSearchParams }) {
  const { people, includeHidden, busy, looseTotal, looseIgnored } = usePeople(
    useShallow((s) => ({ people: s.people, includeHidden: s.includeHidden, busy: s.busy, looseTotal: s.looseTotal, looseIgnored: s.looseIgnored })),
  );
  const { load, loadList, setIncludeHidden, preview } = usePeople(
    useShallow((s) => ({ load: s.load, loadList: s.loadList, setIncludeHidden: s.setIncludeHidden, preview: s.preview })),
  );
  const view = params.get('view') === 'waiting' ? 'waiting' : 'people';
  const hidden = params.get('hidden') === '1';
  const set = useParams(params);
  useEffect(() => {
    if (hidden !== includeHidden) void setIncludeHidden(hidden);
    else if (view === 'waiting') void loadList();
    else void load();
  }, [hidden, includeHidden, setIncludeHidden, load, loadList, view]);
  return (
    <section className="people" data-testid="people">
      <header className="section-head">
        <h2>
          People <small>{people.length}</small>
        </h2>
        <nav className="tabs" aria-label="people views">
          <a href="#/people" aria-current={view === 'people' ? 'page' : undefined}>
            People
          </a>
          <a href="#/people?view=waiting" aria-current={view === 'waiting' ? 'page' : undefined}>
            {/* The count of faces waiting, not of the ignored ones while those are listed. */}
            Not grouped yet{looseTotal && view === 'waiting' && !looseIgnored ? ` (${looseTotal})` : ''}
          </a>
        </nav>
        {view === 'people' ? (
          <label>
            <input type="checkbox" checked={hidden} onChange={(e) => set({ hidden: e.target.checked ? '1' : null }, true)} /> show hidden
          </label>
        ) : null}
        <button onClick={() => void preview()} disabled={busy}>
          {busy ? 'Re-grouping…' : 'Re-group faces…'}
        </button>
      </header>
      <PlanDialog />
      {view === 'waiting' ? (
        <NotGrouped params={params} />
      ) : (
        <>
          <Suggestions />
          <PeopleLists params={params} />
        </>
      )}
    </section>
  );
}

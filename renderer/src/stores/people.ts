// People: the grid, one person's faces, and the owner's corrections (name, hide, merge, take faces
// off, cover, re-cluster with a preview). A re-cluster in progress makes edits answer 409 busy.
import { create } from 'zustand';
import * as People from '../api/people.ts';
import { ApiError } from '../api/client.ts';
import { attempt, useToasts } from './toasts.ts';

interface PeopleState {
  people: People.Person[];
  includeHidden: boolean;
  loaded: boolean;
  person: People.PersonDetail | null;
  selected: string[];
  plan: People.Recluster['plan'] | null;
  busy: boolean;
  /** Waiting faces that probably are someone known, for the owner to answer. */
  suggestions: People.FaceSuggestion[];
  load(): Promise<void>;
  /** The owner's answer to "Is this <person>?". */
  answer(s: People.FaceSuggestion, yes: boolean): Promise<void>;
  /** The owner says who a face is (from the viewer); true when it was done. */
  assign(faceId: string, personId: string): Promise<boolean>;
  setIncludeHidden(v: boolean): Promise<void>;
  open(id: string): Promise<void>;
  toggle(faceId: string, extend: boolean): void;
  rename(name: string): Promise<void>;
  setHidden(hidden: boolean): Promise<void>;
  setCover(faceId: string): Promise<void>;
  merge(sourceId: string, intoId: string): Promise<void>;
  takeOff(reject: boolean): Promise<void>;
  preview(): Promise<void>;
  recluster(): Promise<void>;
  closePlan(): void;
}

const busyMessage = 'People are being re-grouped; try again in a moment.';

export const usePeople = create<PeopleState>((set, get) => {
  const act = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (err) {
      const busy = err instanceof ApiError && err.status === 409;
      useToasts.getState().push('error', busy ? busyMessage : `${what}: ${(err as Error).message}`);
      if (busy) set({ busy: true });
      return undefined;
    }
  };
  const refreshPerson = async () => {
    const p = get().person;
    if (p) await get().open(p.person_id);
  };

  return {
    people: [],
    includeHidden: false,
    loaded: false,
    person: null,
    selected: [],
    plan: null,
    busy: false,
    suggestions: [],
    async load() {
      const [r, s] = await Promise.all([
        attempt('Loading people', () => People.listPeople(get().includeHidden)),
        attempt('Loading suggestions', () => People.suggestions()),
      ]);
      if (r) set({ people: r.people, loaded: true, busy: r.regrouping });
      if (s) set({ suggestions: s.suggestions });
    },
    async assign(faceId, personId) {
      const r = await act('Saying who it is', () => People.ownerSays(personId, [faceId], false));
      if (!r) return false;
      useToasts.getState().push('info', `Added to ${r.person.name || 'the person'}.`);
      await get().load();
      return true;
    },
    async answer(s, yes) {
      const who = s.person.name || 'this person';
      if (await act(yes ? 'Adding the face' : 'Answering', () => People.ownerSays(s.person.person_id, [s.face.face_id], !yes))) {
        useToasts.getState().push('info', yes ? `Added to ${who}.` : `Not ${who}: it will not be suggested again.`);
        set({ suggestions: get().suggestions.filter((x) => x.face.face_id !== s.face.face_id) });
        await get().load();
      }
    },
    async setIncludeHidden(v) {
      set({ includeHidden: v });
      await get().load();
    },
    async open(id) {
      const p = await attempt('Opening the person', () => People.getPerson(id));
      if (p) set({ person: p, selected: get().person?.person_id === p.person_id ? get().selected.filter((f) => p.faces.some((x) => x.face_id === f)) : [] });
    },
    toggle(faceId, extend) {
      const sel = get().selected;
      if (!extend) return set({ selected: sel.length === 1 && sel[0] === faceId ? [] : [faceId] });
      set({ selected: sel.includes(faceId) ? sel.filter((f) => f !== faceId) : [...sel, faceId] });
    },
    async rename(name) {
      const p = get().person;
      if (!p || name === p.name) return;
      if (await act('Naming', () => People.patchPerson(p.person_id, { name }))) {
        useToasts.getState().push('info', name ? `Named ${name}.` : 'Name removed.');
        await refreshPerson();
        await get().load();
      }
    },
    async setHidden(hidden) {
      const p = get().person;
      if (p && (await act('Hiding', () => People.patchPerson(p.person_id, { hidden })))) {
        await refreshPerson();
        await get().load();
      }
    },
    async setCover(faceId) {
      const p = get().person;
      if (p && (await act('Setting the cover', () => People.patchPerson(p.person_id, { cover_face_id: faceId })))) await refreshPerson();
    },
    async merge(sourceId, intoId) {
      if (sourceId === intoId) return;
      const r = await act('Merging', () => People.mergePerson(sourceId, intoId));
      if (!r) return;
      useToasts.getState().push('info', `Merged into ${r.person.name || 'the other person'}.`);
      await get().load();
      if (get().person?.person_id === sourceId) await get().open(intoId);
    },
    async takeOff(reject) {
      const p = get().person;
      const faces = get().selected;
      if (!p || faces.length === 0) return;
      const r = await act('Taking faces off', () => People.removeFaces(p.person_id, faces, reject));
      if (!r) return;
      useToasts.getState().push('info', `${r.removed.length} face(s) ${reject ? 'marked as not this person' : 'split out'}.`);
      set({ selected: [] });
      await refreshPerson();
      await get().load();
    },
    async preview() {
      const r = await act('Planning', () => People.recluster(true));
      if (r?.plan) set({ plan: r.plan });
    },
    async recluster() {
      set({ plan: null });
      const r = await act('Re-grouping', () => People.recluster(false));
      if (!r) return;
      set({ busy: true });
      for (let i = 0; i < 1200; i++) {
        await new Promise((res) => setTimeout(res, 500));
        const list = await People.listPeople(get().includeHidden).catch(() => null);
        if (list && !list.regrouping) break;
      }
      set({ busy: false });
      await get().load();
      useToasts.getState().push('info', 'People re-grouped.');
    },
    closePlan() {
      set({ plan: null });
    },
  };
});

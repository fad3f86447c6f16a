// People: the list (named, unnamed groups), one person's faces page by page with their suggestions,
// the faces no person holds ("Not grouped yet"), and the owner's word on each: name, merge (with a
// few seconds to undo), take faces off, cover, hide, "this is…", ignore. A re-group in progress
// makes edits answer 409 busy.
import { create } from 'zustand';
import * as People from '../api/people.ts';
import { ApiError } from '../api/client.ts';
import { attempt, useToasts } from './toasts.ts';
import { NONE, type Selection } from './selection.ts';
import type { NameChoice } from '../components/people/NameField.tsx';
import { counted } from '../plural.ts';

/** How long a merge by drag waits for an Undo before it is sent. */
export const MERGE_UNDO_MS = 6000;
/** Faces asked for at a time: a person's, and (larger pages, fewer redraws while scrolling) the loose ones. */
const PAGE = 200;
const LOOSE_PAGE = 500;

interface PendingMerge {
  source: string;
  into: string;
  timer: ReturnType<typeof setTimeout>;
}

interface PeopleState {
  people: People.Person[];
  includeHidden: boolean;
  loaded: boolean;
  busy: boolean;
  plan: People.Recluster['plan'] | null;
  /** Waiting faces that probably are someone known (everyone's; the person page filters). */
  suggestions: People.FaceSuggestion[];
  /** A merge by drag not sent yet (its source is left out of the list until then). */
  pending: PendingMerge | null;

  person: People.PersonDetail | null;
  faces: People.PersonFace[];
  order: 'best' | 'weakest';
  selection: Selection;

  loose: People.LooseFace[];
  looseTotal: number;
  looseIgnored: boolean;
  looseSelection: Selection;

  load(): Promise<void>;
  /** The people only (for names to complete), no suggestions. */
  loadList(): Promise<void>;
  setIncludeHidden(v: boolean): Promise<void>;
  /** The owner names an unnamed group, or (an existing name, confirmed) merges it into that person. */
  nameGroup(p: People.Person, choice: NameChoice): Promise<void>;
  /** Merge by drag: sent after MERGE_UNDO_MS unless undone. */
  mergeWithUndo(sourceId: string, intoId: string): void;
  merge(sourceId: string, intoId: string): Promise<void>;
  /** The owner's answer to "Is this <person>?" for some suggestions at once. */
  answer(list: People.FaceSuggestion[], yes: boolean): Promise<void>;

  open(id: string, order?: 'best' | 'weakest'): Promise<void>;
  moreFaces(): Promise<void>;
  select(s: Selection): void;
  rename(name: string): Promise<void>;
  setHidden(hidden: boolean): Promise<void>;
  setCover(faceId: string): Promise<void>;
  takeOff(reject: boolean): Promise<void>;
  /** The person's selected faces are no faces: taken off them and out of search (People, Not grouped yet, ignored faces takes it back). */
  notFaces(): Promise<void>;

  loadLoose(ignored: boolean): Promise<void>;
  moreLoose(): Promise<void>;
  selectLoose(s: Selection): void;
  /** The selected loose faces are this person (an existing one, or a new name). */
  assignLoose(choice: NameChoice): Promise<void>;
  /** Ignores the selected faces (`ignored`), or takes that back; `notAFace`: they are no faces at all. */
  ignoreLoose(ignored: boolean, notAFace?: boolean): Promise<void>;

  /** From the viewer: who a face is (true when done), or that it is not the person it is on. */
  sayWho(faceId: string, choice: NameChoice): Promise<boolean>;
  notThem(personId: string, faceId: string): Promise<boolean>;
  /** A waiting face is no face at all (seen in the viewer); taken back among the ignored faces. */
  notAFace(faceId: string): Promise<boolean>;

  preview(): Promise<void>;
  recluster(): Promise<void>;
  closePlan(): void;
}

const busyMessage = 'People are being re-grouped; try again in a moment.';
const toast = (text: string) => useToasts.getState().push('info', text);

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
    if (p) await get().open(p.person_id, get().order);
  };
  /** Faces to a person: a new one by name, or an existing one. */
  const give = (faceIds: string[], choice: NameChoice) =>
    'person' in choice ? People.ownerSays(choice.person.person_id, faceIds, false).then((r) => r.person) : People.createPerson(choice.name, faceIds);
  const commitPending = async () => {
    const p = get().pending;
    if (!p) return;
    clearTimeout(p.timer);
    set({ pending: null });
    await get().merge(p.source, p.into);
  };

  return {
    people: [],
    includeHidden: false,
    loaded: false,
    busy: false,
    plan: null,
    suggestions: [],
    pending: null,
    person: null,
    faces: [],
    order: 'best',
    selection: NONE,
    loose: [],
    looseTotal: 0,
    looseIgnored: false,
    looseSelection: NONE,

    async load() {
      // The people are shown as soon as they come; suggestions (a plan over every waiting face) after.
      const suggested = attempt('Loading suggestions', () => People.suggestions()).then((s) => s && set({ suggestions: s.suggestions }));
      await get().loadList();
      await suggested;
    },
    async loadList() {
      const r = await attempt('Loading people', () => People.listPeople(get().includeHidden));
      if (r) set({ people: r.people, loaded: true, busy: r.regrouping });
    },
    async setIncludeHidden(v) {
      set({ includeHidden: v });
      await get().load();
    },
    async nameGroup(p, choice) {
      if ('person' in choice) {
        await get().merge(p.person_id, choice.person.person_id);
        return;
      }
      if (await act('Naming', () => People.patchPerson(p.person_id, { name: choice.name }))) {
        toast(`Named ${choice.name}.`);
        await get().load();
      }
    },
    mergeWithUndo(sourceId, intoId) {
      if (sourceId === intoId) return;
      void commitPending();
      const people = get().people;
      const name = (id: string) => people.find((p) => p.person_id === id)?.name || 'the unnamed person';
      const timer = setTimeout(() => void commitPending(), MERGE_UNDO_MS);
      set({ pending: { source: sourceId, into: intoId, timer } });
      useToasts.getState().push('info', `${name(sourceId)} merged into ${name(intoId)}.`, {
        ms: MERGE_UNDO_MS,
        action: {
          label: 'Undo',
          run: () => {
            const p = get().pending;
            if (p?.source !== sourceId) return;
            clearTimeout(p.timer);
            set({ pending: null });
            toast('Merge undone.');
          },
        },
      });
    },
    async merge(sourceId, intoId) {
      if (sourceId === intoId) return;
      const r = await act('Merging', () => People.mergePerson(sourceId, intoId));
      if (!r) return;
      toast(`Merged into ${r.person.name || 'the other person'}.`);
      await get().load();
      if (get().person?.person_id === sourceId) await get().open(intoId);
    },
    async answer(list, yes) {
      if (list.length === 0) return;
      const byPerson = new Map<string, People.FaceSuggestion[]>();
      for (const s of list) byPerson.set(s.person.person_id, [...(byPerson.get(s.person.person_id) ?? []), s]);
      let done = 0;
      for (const [personId, items] of byPerson) {
        const r = await act(yes ? 'Adding the faces' : 'Answering', () =>
          People.ownerSays(
            personId,
            items.map((s) => s.face.face_id),
            !yes,
          ),
        );
        if (r) done += items.length;
      }
      if (!done) return;
      const who = list.length === 1 || byPerson.size === 1 ? list[0].person.name || 'this person' : 'them';
      toast(
        yes ? (done === 1 ? `Added to ${who}.` : `${done} faces added to ${who}.`) : `Not ${who}: ${done === 1 ? 'it' : 'they'} will not be suggested again.`,
      );
      const answered = new Set(list.map((s) => s.face.face_id));
      set({ suggestions: get().suggestions.filter((x) => !answered.has(x.face.face_id)) });
      await get().load();
      if (get().person && byPerson.has(get().person!.person_id)) await refreshPerson();
    },

    async open(id, order = get().order) {
      const mine = ++opening;
      const p = await attempt('Opening the person', () => People.getPerson(id, { limit: PAGE, order }));
      if (!p || mine !== opening) return;
      const same = get().person?.person_id === p.person_id;
      set({
        person: p,
        faces: p.faces,
        order,
        selection: same ? { ...get().selection, ids: get().selection.ids.filter((f) => p.faces.some((x) => x.face_id === f)) } : NONE,
      });
    },
    async moreFaces() {
      const p = get().person;
      const have = get().faces.length;
      if (!p || have >= p.faces_pagination.total || loadingFaces) return;
      loadingFaces = true;
      try {
        const next = await attempt('Loading faces', () => People.getPerson(p.person_id, { limit: PAGE, offset: have, order: get().order }));
        if (next && get().person?.person_id === p.person_id && get().faces.length === have) set({ faces: [...get().faces, ...next.faces] });
      } finally {
        loadingFaces = false;
      }
    },
    select(s) {
      set({ selection: s });
    },
    async rename(name) {
      const p = get().person;
      if (!p || name === p.name) return;
      const same = name ? get().people.find((x) => x.person_id !== p.person_id && x.name.toLowerCase() === name.toLowerCase()) : undefined;
      if (same) {
        await get().merge(p.person_id, same.person_id);
        return;
      }
      if (await act('Naming', () => People.patchPerson(p.person_id, { name }))) {
        toast(name ? `Named ${name}.` : 'Name removed.');
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
      if (p && (await act('Setting the cover', () => People.patchPerson(p.person_id, { cover_face_id: faceId })))) {
        toast('Cover set.');
        await refreshPerson();
      }
    },
    async takeOff(reject) {
      const p = get().person;
      const faces = get().selection.ids;
      if (!p || faces.length === 0) return;
      const r = await act('Taking faces off', () => People.removeFaces(p.person_id, faces, reject));
      if (!r) return;
      toast(`${counted(r.removed.length, 'face')} ${reject ? 'marked as not this person' : 'split out'}.`);
      set({ selection: NONE });
      await refreshPerson();
      await get().load();
    },

    async notFaces() {
      const p = get().person;
      const faces = get().selection.ids;
      if (!p || faces.length === 0) return;
      const r = await act('Saying they are no faces', () => People.ignoreFaces(faces, true, true));
      if (!r) return;
      toast(
        `${counted(r.faces.length, 'face')} marked as no face and taken off ${p.name || 'this person'} (People, Not grouped yet, ignored faces takes it back).`,
      );
      set({ selection: NONE });
      await refreshPerson();
      await get().load();
    },

    async loadLoose(ignored) {
      const r = await attempt('Loading faces', () => People.looseFaces(ignored, 0, LOOSE_PAGE));
      if (r)
        set({
          loose: r.faces,
          looseTotal: r.pagination.total,
          looseIgnored: ignored,
          looseSelection: ignored === get().looseIgnored ? get().looseSelection : NONE,
        });
    },
    async moreLoose() {
      const have = get().loose.length;
      if (have >= get().looseTotal || loadingLoose) return;
      loadingLoose = true;
      try {
        const ignored = get().looseIgnored;
        const r = await attempt('Loading faces', () => People.looseFaces(ignored, have, LOOSE_PAGE));
        if (r && get().looseIgnored === ignored && get().loose.length === have) set({ loose: [...get().loose, ...r.faces], looseTotal: r.pagination.total });
      } finally {
        loadingLoose = false;
      }
    },
    selectLoose(s) {
      set({ looseSelection: s });
    },
    async assignLoose(choice) {
      const ids = get().looseSelection.ids;
      if (ids.length === 0) return;
      const person = await act('Saying who they are', () => give(ids, choice));
      if (!person) return;
      toast(`${counted(ids.length, 'face')} now ${person.name}.`);
      set({ looseSelection: NONE });
      await Promise.all([get().loadLoose(get().looseIgnored), get().load()]);
    },
    async ignoreLoose(ignored, notAFace = false) {
      const ids = get().looseSelection.ids;
      if (ids.length === 0) return;
      if (!(await act('Ignoring', () => People.ignoreFaces(ids, ignored, notAFace)))) return;
      toast(
        notAFace
          ? `${counted(ids.length, 'face')} marked as no face: no longer shown or found as a person.`
          : ignored
            ? `${counted(ids.length, 'face')} ignored: they will not be grouped or suggested.`
            : `${counted(ids.length, 'face')} back among the faces to group.`,
      );
      set({ looseSelection: NONE });
      await get().loadLoose(get().looseIgnored);
    },

    async sayWho(faceId, choice) {
      const person = await act('Saying who it is', () => give([faceId], choice));
      if (!person) return false;
      toast(`Added to ${person.name || 'the person'}.`);
      await get().load();
      return true;
    },
    async notThem(personId, faceId) {
      const r = await act('Taking the face off', () => People.removeFaces(personId, [faceId], true));
      if (!r) return false;
      toast(`Not ${r.person.name || 'that person'}: taken off.`);
      await get().load();
      return true;
    },
    async notAFace(faceId) {
      if (!(await act('Saying it is no face', () => People.ignoreFaces([faceId], true, true)))) return false;
      toast('No face: no longer shown or found as a person (People, Not grouped yet, ignored faces takes it back).');
      // Whoever held it holds one face fewer.
      await get().load();
      return true;
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
      toast('People re-grouped.');
    },
    closePlan() {
      set({ plan: null });
    },
  };
});

let loadingFaces = false;
/** The latest person asked for: an earlier one answered later (the owner moved on) is not shown. */
let opening = 0;
let loadingLoose = false;

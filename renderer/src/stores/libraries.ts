// The workspace's libraries, polled while their screen is shown: every second while one of them is
// scanning or indexing, every few seconds otherwise (a watched folder takes new files at any time).
import { create } from 'zustand';
import * as Libraries from '../api/libraries.ts';
import { attempt, useToasts } from './toasts.ts';
import { counted } from '../plural.ts';

const POLL_BUSY_MS = 1000;
const POLL_IDLE_MS = 5000;

interface LibrariesState {
  libraries: Libraries.Library[];
  problems: Record<string, Libraries.Problem[]>;
  load(): Promise<void>;
  /** Loads now and keeps polling until the returned function is called (the screen leaves). */
  watch(): () => void;
  add(path: string, exclude: string[], stackRaw?: boolean): Promise<boolean>;
  /** The desktop folder picker, then add. */
  pickAndAdd(): Promise<void>;
  scan(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  showProblems(id: string): Promise<void>;
}

let timer: ReturnType<typeof setTimeout> | null = null;
/** Screens showing the libraries; polling runs only while one does. */
let watchers = 0;
/** The latest load asked for: an older answer arriving after it is dropped, never shown. */
let asked = 0;
const busy = (l: Libraries.Library) => l.scan.running || l.scan.queued || l.status === 'scanning' || l.pending > 0;

export const useLibraries = create<LibrariesState>((set, get) => ({
  libraries: [],
  problems: {},
  async load() {
    const mine = ++asked;
    const r = await attempt('Loading libraries', Libraries.listLibraries);
    if (mine !== asked) return;
    if (timer) clearTimeout(timer);
    timer = null;
    if (!r) return; // the error is shown once; the next action or visit loads again
    set({ libraries: r.items });
    if (watchers > 0) timer = setTimeout(() => void get().load(), r.items.some(busy) ? POLL_BUSY_MS : POLL_IDLE_MS);
  },
  watch() {
    watchers++;
    void get().load();
    return () => {
      watchers--;
      if (watchers === 0 && timer) {
        clearTimeout(timer);
        timer = null;
      }
    };
  },
  async add(path, exclude, stackRaw = true) {
    const l = await attempt('Adding the folder', () => Libraries.addLibrary(path, exclude, stackRaw));
    if (!l) return false;
    useToasts.getState().push('info', `${l.path} added: its files are indexed where they are.`);
    await get().load();
    return true;
  },
  async pickAndAdd() {
    const picked = await window.mediaIndex?.pickLibraryFolder();
    if (picked) await get().add(picked, []);
  },
  async scan(id) {
    if (await attempt('Starting a scan', () => Libraries.scanLibrary(id))) await get().load();
  },
  async remove(id) {
    const r = await attempt('Removing the library', () => Libraries.removeLibrary(id));
    if (!r) return;
    useToasts.getState().push('info', `Library removed: ${counted(r.assets_removed, 'item')} left the index; your files were not touched.`);
    await get().load();
  },
  async showProblems(id) {
    const r = await attempt('Loading what the library skipped', () => Libraries.libraryProblems(id));
    if (r) set({ problems: { ...get().problems, [id]: r.items } });
  },
}));

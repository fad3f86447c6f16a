// The workspace's libraries, polled while one of them is scanning or indexing.
import { create } from 'zustand';
import * as Libraries from '../api/libraries.ts';
import { attempt, useToasts } from './toasts.ts';

const POLL_MS = 1000;

interface LibrariesState {
  libraries: Libraries.Library[];
  problems: Record<string, Libraries.Problem[]>;
  load(): Promise<void>;
  add(path: string, exclude: string[], stackRaw?: boolean): Promise<boolean>;
  /** The desktop folder picker, then add. */
  pickAndAdd(): Promise<void>;
  scan(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  showProblems(id: string): Promise<void>;
}

let timer: ReturnType<typeof setTimeout> | null = null;
const busy = (l: Libraries.Library) => l.scan.running || l.scan.queued || l.status === 'scanning' || l.pending > 0;

export const useLibraries = create<LibrariesState>((set, get) => ({
  libraries: [],
  problems: {},
  async load() {
    const r = await attempt('Loading libraries', Libraries.listLibraries);
    if (!r) return;
    set({ libraries: r.items });
    if (timer) clearTimeout(timer);
    timer = r.items.some(busy) ? setTimeout(() => void get().load(), POLL_MS) : null;
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
    useToasts.getState().push('info', `Library removed: ${r.assets_removed} asset(s) left the index; your files were not touched.`);
    await get().load();
  },
  async showProblems(id) {
    const r = await attempt('Loading what was not indexed', () => Libraries.libraryProblems(id));
    if (r) set({ problems: { ...get().problems, [id]: r.items } });
  },
}));

// The connection to the server: its origin and an API key. Inside the desktop shell the preload
// hands both over; in a browser the key comes from the link the server printed (#key=…) or is
// pasted once, and is kept in this browser's storage for this origin only.
import { create } from 'zustand';
import { ApiError, configure } from '../api/client.ts';
import { listAssets } from '../api/videos.ts';
import type { DesktopBridge } from '../../../server/contract/desktop.ts';

declare global {
  interface Window {
    /** The desktop shell's preload (absent in a browser). */
    mediaIndex?: DesktopBridge;
  }
}

const STORAGE = 'media-index.key';

interface SessionState {
  status: 'starting' | 'needs_key' | 'ready';
  error: string | null;
  desktop: boolean;
  init(): Promise<void>;
  connect(key: string): Promise<void>;
  forget(): void;
}

export const useSession = create<SessionState>((set, get) => ({
  status: 'starting',
  error: null,
  desktop: Boolean(window.mediaIndex),
  async init() {
    if (window.mediaIndex) {
      const s = await window.mediaIndex.session();
      if (s) {
        configure({ base: s.baseUrl.replace(/\/$/, ''), key: s.key });
        set({ status: 'ready' });
        return;
      }
      set({ status: 'needs_key', error: 'The desktop shell did not hand over a session.' });
      return;
    }
    const fromLink = /(?:^#|&)key=(mi_[A-Za-z0-9_-]+)/.exec(window.location.hash)?.[1];
    if (fromLink) {
      // Out of the address bar (and history) at once.
      history.replaceState(null, '', `${window.location.pathname}#/library`);
    }
    const key = fromLink ?? localStorage.getItem(STORAGE);
    if (key) await get().connect(key);
    else set({ status: 'needs_key' });
  },
  async connect(key) {
    configure({ base: '', key: key.trim() });
    try {
      await listAssets(1, 0);
      localStorage.setItem(STORAGE, key.trim());
      set({ status: 'ready', error: null });
    } catch (err) {
      const msg = err instanceof ApiError && err.status === 401 ? 'That key is not valid here (unknown, revoked or expired).' : (err as Error).message;
      set({ status: 'needs_key', error: msg });
    }
  },
  forget() {
    localStorage.removeItem(STORAGE);
    configure({ base: '', key: '' });
    set({ status: 'needs_key', error: null });
  },
}));

// Where the app is: a hash route (#/library, #/search?q=…, #/ask?q=…, #/view/ID?page=…&t=…&box=…,
// #/people, #/people/ID, #/collections, #/settings), so the browser's back button and links work.
import { create } from 'zustand';

export type Screen = 'library' | 'search' | 'ask' | 'view' | 'people' | 'person' | 'collections' | 'settings';

export interface Route {
  screen: Screen;
  id: string | null;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [first, second] = path.split('/').map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (first === 'search') return { screen: 'search', id: null, params };
  if (first === 'ask') return { screen: 'ask', id: null, params };
  if (first === 'view' && second) return { screen: 'view', id: second, params };
  if (first === 'people' && second) return { screen: 'person', id: second, params };
  if (first === 'people') return { screen: 'people', id: null, params };
  if (first === 'collections') return { screen: 'collections', id: null, params };
  if (first === 'settings') return { screen: 'settings', id: null, params };
  return { screen: 'library', id: null, params };
}

interface NavState {
  route: Route;
  go(hash: string): void;
}

export const useNav = create<NavState>(() => ({
  route: parseHash(window.location.hash),
  go(hash) {
    window.location.hash = hash;
  },
}));

window.addEventListener('hashchange', () => useNav.setState({ route: parseHash(window.location.hash) }));

export function viewHash(
  videoId: string,
  at: { page?: number | null; timestamp?: number; box?: { x: number; y: number; w: number; h: number } | null },
): string {
  const p = new URLSearchParams();
  if (at.page) p.set('page', String(at.page));
  else if (at.timestamp !== undefined) p.set('t', String(at.timestamp));
  if (at.box) p.set('box', [at.box.x, at.box.y, at.box.w, at.box.h].map((v) => v.toFixed(4)).join(','));
  return `#/view/${encodeURIComponent(videoId)}?${p.toString()}`;
}

// The window: a top bar (sections, the search box: "/" focuses it), the current screen, toasts.
import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useNav } from './stores/nav.ts';
import { useSession } from './stores/session.ts';
import { useSearch } from './stores/search.ts';
import { useToasts } from './stores/toasts.ts';
import { Connect } from './components/Connect.tsx';
import { Library } from './components/Library.tsx';
import { SearchView } from './components/SearchView.tsx';
import { Viewer } from './components/Viewer.tsx';
import { PeopleScreen, PersonPage } from './components/People.tsx';
import { Settings } from './components/Settings.tsx';
import { Ask } from './components/Ask.tsx';
import { Collections } from './components/Collections.tsx';
import { ActivityIndicator } from './components/Activity.tsx';
import { ShortcutSheet } from './components/Shortcuts.tsx';
import { typing } from './keys.ts';

function Toasts() {
  const { items, dismiss } = useToasts(useShallow((s) => ({ items: s.items, dismiss: s.dismiss })));
  // Escape dismisses the newest toast, unless it went to a text field or a dialog (which have their own)
  // or a screen already acted on it (Ask stops an answer being written).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const newest = useToasts.getState().items.at(-1);
      if (e.key !== 'Escape' || e.defaultPrevented || !newest || typing(e.target)) return;
      dismiss(newest.id);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [dismiss]);
  return (
    <div className="toasts" role="status" aria-live="polite">
      {items.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} title="Esc or click to dismiss" onClick={() => dismiss(t.id)}>
          {t.text}
          {t.action ? (
            <button
              className="toast-action"
              onClick={(e) => {
                e.stopPropagation();
                t.action?.run();
                dismiss(t.id);
              }}
            >
              {t.action.label}
            </button>
          ) : null}
        </div>
      ))}
    </div>
  );
}

function SearchBox() {
  const { query, setQuery } = useSearch(useShallow((s) => ({ query: s.query, setQuery: s.setQuery })));
  const go = useNav((s) => s.go);
  const route = useNav((s) => s.route);
  const input = useRef<HTMLInputElement>(null);
  // The box shows the search on screen (a link, the back button), and is empty on other screens: never
  // a search that is no longer shown.
  const shown = route.screen === 'search' ? (route.params.get('q') ?? '') : '';
  useEffect(() => setQuery(shown), [route.screen, shown, setQuery]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === '/' && document.activeElement?.tagName !== 'INPUT') {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <form
      className="searchbox"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (query.trim()) go(`#/search?q=${encodeURIComponent(query.trim())}`);
        input.current?.blur();
      }}
    >
      <input
        ref={input}
        type="search"
        aria-label="search"
        placeholder="Search moments, pages and photos  ( / )"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
    </form>
  );
}

const SECTIONS = [
  ['library', '#/library', 'Library'],
  ['ask', '#/ask', 'Ask'],
  ['people', '#/people', 'People'],
  ['collections', '#/collections', 'Collections'],
  ['settings', '#/settings', 'Settings'],
] as const;

export function App() {
  const status = useSession((s) => s.status);
  const init = useSession((s) => s.init);
  const route = useNav((s) => s.route);
  useEffect(() => void init(), [init]);

  if (status === 'starting') return <p className="empty">Connecting…</p>;
  if (status === 'needs_key') return <Connect />;
  const section = route.screen === 'person' ? 'people' : route.screen;
  const from = route.screen === 'view' ? route.params.get('from') : null;
  const behind = from?.startsWith('#/library') ? new URLSearchParams(from.split('?')[1] ?? '') : null;
  return (
    <div className="app">
      <header className="topbar">
        {/* Back, for a window without a browser's own (the desktop window, an installed app). */}
        <button
          className="icon back"
          aria-label="back (Alt ←)"
          title="Back (Alt ←)"
          onClick={() => history.back()}
          disabled={route.screen === 'library' && !route.params.toString()}
        >
          ‹
        </button>
        <span className="brand">Media Index</span>
        <nav>
          {SECTIONS.map(([name, href, label]) => (
            <a key={name} href={href} aria-current={section === name ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <SearchBox />
        <ActivityIndicator />
        <button
          className="icon"
          aria-label="keyboard shortcuts (?)"
          title="Keyboard shortcuts (?)"
          onClick={() => window.dispatchEvent(new Event('media-index:shortcuts'))}
        >
          ?
        </button>
      </header>
      <main>
        {/* The timeline stays mounted behind a viewer opened from it: back is the same screen at once, scrolled where it was. */}
        {route.screen === 'library' || behind ? (
          <div className={route.screen === 'library' ? 'screen' : 'screen behind'} inert={route.screen !== 'library'}>
            <Library params={route.screen === 'library' ? route.params : behind!} active={route.screen === 'library'} />
          </div>
        ) : null}
        {route.screen === 'search' ? <SearchView params={route.params} /> : null}
        {route.screen === 'ask' ? <Ask params={route.params} /> : null}
        {route.screen === 'view' && route.id ? <Viewer id={route.id} params={route.params} /> : null}
        {route.screen === 'people' ? <PeopleScreen params={route.params} /> : null}
        {route.screen === 'person' && route.id ? <PersonPage id={route.id} params={route.params} /> : null}
        {route.screen === 'collections' ? <Collections /> : null}
        {route.screen === 'settings' ? <Settings /> : null}
      </main>
      <Toasts />
      <ShortcutSheet />
    </div>
  );
}

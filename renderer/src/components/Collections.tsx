// Collections (albums): each with its cover and size; opening one shows the library narrowed to it
// (#/library?collection_id=…, a filter chip). Rename and delete in place; making one is done from
// the library's selection bar ("Add to collection" → "New collection…") or here, empty.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useCollections } from '../stores/collections.ts';
import { counted } from '../plural.ts';

export function Collections() {
  const { list, load, add, rename, remove } = useCollections(
    useShallow((s) => ({ list: s.list, load: s.load, add: s.add, rename: s.rename, remove: s.remove })),
  );
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => void load(), [load]);
  return (
    <section className="collections" data-testid="collections">
      <header className="section-head">
        <h2>
          Collections <small>{list?.length ?? ''}</small>
        </h2>
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            const input = e.currentTarget.elements.namedItem('name') as HTMLInputElement;
            const name = input.value.trim();
            if (name) void add({ name }, []).then(() => (input.value = ''));
          }}
        >
          <input name="name" aria-label="new collection name" placeholder="New collection" />
          <button>Make</button>
        </form>
      </header>
      {list && list.length === 0 ? <p className="empty">No collections yet. Select pictures in the Library and choose “Add to collection”.</p> : null}
      <ul className="collection-grid">
        {(list ?? []).map((c) => (
          <li key={c.collection_id} className="collection-card" data-collection={c.collection_id}>
            <a href={`#/library?collection_id=${encodeURIComponent(c.collection_id)}`} className="collection-open">
              {c.cover_url ? <img src={c.cover_url} alt="" /> : <span className="collection-empty" aria-hidden />}
              <span className="collection-name">{c.name}</span>
              <small>{counted(c.asset_count, 'item')}</small>
            </a>
            {editing === c.collection_id ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  const name = (e.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
                  setEditing(null);
                  if (name && name !== c.name) void rename(c.collection_id, name);
                }}
              >
                <input
                  name="name"
                  aria-label={`new name of ${c.name}`}
                  defaultValue={c.name}
                  autoFocus
                  onKeyDown={(e) => e.key === 'Escape' && setEditing(null)}
                />
              </form>
            ) : (
              <div className="collection-actions">
                <button className="link" onClick={() => setEditing(c.collection_id)} aria-label={`rename ${c.name}`}>
                  Rename
                </button>
                <button
                  className="link"
                  aria-label={`delete ${c.name}`}
                  onClick={() => window.confirm(`Delete the collection ${c.name}? Its pictures stay in the library.`) && void remove(c.collection_id)}
                >
                  Delete
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

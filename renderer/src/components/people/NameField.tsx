// "Who is this?": a name field with autocomplete over the people already named (a combobox). Enter
// takes the highlighted suggestion, else the name typed: a new name makes a new person (or names
// the group), an existing one is that person — where that merges two people, the field asks first
// ("Enter again to merge into Ada") and a second Enter confirms; Esc cancels. ↑/↓ move through the
// suggestions.
import { useId, useState } from 'react';
import type { Person } from '../../api/people.ts';

export type NameChoice = { person: Person } | { name: string };

const MAX_OPTIONS = 6;

export function NameField({
  people,
  onPick,
  label,
  placeholder = 'Who is this?',
  confirmExisting,
  onEmptyEnter,
  exclude,
  disabled,
  className = '',
  id,
}: {
  /** Everyone who may be chosen (only named people are offered). */
  people: Person[];
  onPick(choice: NameChoice): void | Promise<void>;
  label: string;
  placeholder?: string;
  /** When choosing an existing person needs a second Enter: what the field says then. */
  confirmExisting?: (p: Person) => string;
  /** Enter in an empty field. */
  onEmptyEnter?: () => void;
  /** A person not to offer (the one being named). */
  exclude?: string;
  disabled?: boolean;
  className?: string;
  id?: string;
}) {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [hi, setHi] = useState(-1);
  const [confirming, setConfirming] = useState<Person | null>(null);
  const listId = useId();
  const q = text.trim().toLowerCase();
  const named = people.filter((p) => p.name && p.person_id !== exclude);
  const exact = q ? named.find((p) => p.name.toLowerCase() === q) : undefined;
  const matches = q
    ? named
        .filter((p) => p.name.toLowerCase().includes(q))
        .sort((a, b) => Number(b.name.toLowerCase().startsWith(q)) - Number(a.name.toLowerCase().startsWith(q)) || b.face_count - a.face_count)
        .slice(0, MAX_OPTIONS)
    : [];
  const options: Array<{ key: string; label: string; choice: NameChoice }> = [
    ...matches.map((p) => ({ key: p.person_id, label: p.name, choice: { person: p } as NameChoice })),
    ...(q && !exact ? [{ key: 'new', label: `New person “${text.trim()}”`, choice: { name: text.trim() } as NameChoice }] : []),
  ];
  const shown = open && options.length > 0 && !confirming;

  const choose = async (c: NameChoice) => {
    if ('person' in c && confirmExisting && confirming?.person_id !== c.person.person_id) {
      setConfirming(c.person);
      setOpen(false);
      return;
    }
    setText('');
    setOpen(false);
    setHi(-1);
    setConfirming(null);
    await onPick(c);
  };

  return (
    <div className={`name-field ${className}`}>
      <input
        id={id}
        role="combobox"
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={shown && hi >= 0 ? `${listId}-${hi}` : undefined}
        placeholder={placeholder}
        value={text}
        disabled={disabled}
        autoComplete="off"
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setHi(-1);
          setConfirming(null);
        }}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            if (!options.length) return;
            e.preventDefault();
            setOpen(true);
            setHi((h) => (e.key === 'ArrowDown' ? (h + 1) % options.length : (h <= 0 ? options.length : h) - 1));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            e.stopPropagation();
            if (shown && hi >= 0 && options[hi]) void choose(options[hi].choice);
            else if (confirming) void choose({ person: confirming });
            else if (exact) void choose({ person: exact });
            else if (q) void choose({ name: text.trim() });
            else onEmptyEnter?.();
          } else if (e.key === 'Escape' && (shown || confirming || text)) {
            e.preventDefault();
            e.stopPropagation();
            if (confirming || shown) {
              setConfirming(null);
              setOpen(false);
            } else setText('');
          }
        }}
      />
      {shown ? (
        <ul className="name-options" role="listbox" id={listId} aria-label={`${label}: suggestions`}>
          {options.map((o, i) => (
            <li
              key={o.key}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === hi}
              className={i === hi ? 'hi' : ''}
              onMouseDown={(e) => {
                e.preventDefault();
                void choose(o.choice);
              }}
            >
              {o.label}
            </li>
          ))}
        </ul>
      ) : null}
      {confirming && confirmExisting ? (
        <p className="name-confirm" role="alert">
          {confirmExisting(confirming)}
        </p>
      ) : null}
    </div>
  );
}

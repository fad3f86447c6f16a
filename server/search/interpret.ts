// What a query says besides the words to look for: when ("Paris 2019", "last summer", "between
// March and May 2020"), where ("in Paris", "at Kochi"), who ("Anna and Ben": two or more of the
// workspace's named people, all of whom must appear), and what kind ("videos of …", "photos …",
// "documents about …" at the start). Each part found is taken out of the words and becomes a
// filter; the caller returns what was understood, so a person sees it.
import { findDates } from './dates.ts';

export type Kind = 'video' | 'image' | 'document';

export interface Understood {
  taken_after?: string;
  taken_before?: string;
  place?: string;
  people?: string[];
  kinds?: Kind[];
}

export interface Interpretation {
  /** The words left to search for. */
  words: string;
  filters: Understood;
  /** The phrases of the query that became filters. */
  phrases: string[];
}

const KIND_WORDS: Record<string, Kind> = {
  video: 'video',
  videos: 'video',
  clip: 'video',
  clips: 'video',
  movie: 'video',
  movies: 'video',
  footage: 'video',
  photo: 'image',
  photos: 'image',
  picture: 'image',
  pictures: 'image',
  image: 'image',
  images: 'image',
  pic: 'image',
  pics: 'image',
  document: 'document',
  documents: 'document',
  doc: 'document',
  docs: 'document',
  pdf: 'document',
  pdfs: 'document',
  papers: 'document',
};

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

export interface Lookups {
  now: Date;
  /** Whether the workspace holds a place of this name (city, region, country or country code). */
  isPlace(phrase: string): boolean;
  /** The id of the workspace's named person of exactly this name, if any. */
  personNamed(phrase: string): string | null;
}

export function interpret(query: string, look: Lookups): Interpretation {
  let q = query.trim();
  const filters: Understood = {};
  const phrases: string[] = [];

  // What kind: a kind word leading the query ("videos of the wedding").
  const lead = /^(\w+)(\s+(?:of|from|with|about|showing|taken))?\b/i.exec(q);
  const kind = lead ? KIND_WORDS[lead[1].toLowerCase()] : undefined;
  if (lead && kind) {
    filters.kinds = [kind];
    phrases.push(lead[0]);
    q = q.slice(lead[0].length).trim();
  }

  // When.
  const dates = findDates(q, look.now);
  if (dates) {
    filters.taken_after = dates.range.after;
    filters.taken_before = dates.range.before;
    phrases.push(dates.range.text);
    q = dates.rest;
  }

  // Where: a place the workspace holds, introduced by in / at / near ("in Paris", "at the Eiffel" is not one).
  const words = q.split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length - 1 && !filters.place; i++) {
    if (!/^(in|at|near|around)$/i.test(words[i])) continue;
    for (let n = Math.min(4, words.length - i - 1); n >= 1; n--) {
      const phrase = words
        .slice(i + 1, i + 1 + n)
        .join(' ')
        .replace(/[,.;!?]+$/, '');
      if (look.isPlace(phrase)) {
        filters.place = phrase;
        phrases.push(`${words[i]} ${phrase}`);
        words.splice(i, n + 1);
        break;
      }
    }
  }

  // Who: two or more named people ("Anna and Ben", "Anna, Ben & Carl").
  const found: Array<{ id: string; start: number; n: number; phrase: string }> = [];
  for (let i = 0; i < words.length; i++) {
    for (let n = Math.min(4, words.length - i); n >= 1; n--) {
      const phrase = words
        .slice(i, i + n)
        .join(' ')
        .replace(/[,.;!?]+$/, '');
      const id = look.personNamed(phrase);
      if (id) {
        found.push({ id, start: i, n, phrase });
        i += n - 1;
        break;
      }
    }
  }
  if (found.length >= 2) {
    filters.people = [...new Set(found.map((f) => f.id))];
    phrases.push(found.map((f) => f.phrase).join(' and '));
    for (const f of [...found].reverse()) words.splice(f.start, f.n);
    // The joins between the names go with them.
    for (let i = words.length - 1; i >= 0; i--) if (/^(and|&|,|with)$/i.test(words[i])) words.splice(i, 1);
  }

  return { words: words.join(' ').trim(), filters, phrases };
}

export { fold };

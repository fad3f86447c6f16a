// WordNet's related words as search widens a query by them: the kind of thing a word names read
// from its definition's head, and names (people, places) kept as they are.
import { describe, expect, it } from 'vitest';
import { genusOf, wordnet } from './wordnet.ts';

const broader = (w: string) => [...wordnet.expand(w)].filter(([, r]) => r === 'broader').map(([k]) => k);

describe('the head of a definition', () => {
  const nouns = new Set([
    'vehicle',
    'wheels',
    'four',
    'cat',
    'mammal',
    'fur',
    'ability',
    'roar',
    'member',
    'genus',
    'canis',
    'piece',
    'furniture',
    'room',
    'building',
  ]);
  const isNoun = (w: string) => nouns.has(w);

  it('is the last noun before the words that qualify it', () => {
    expect(genusOf('a motor vehicle with four wheels', isNoun)).toBe('vehicle');
    expect(genusOf('young domestic cat', isNoun)).toBe('cat');
    expect(genusOf('feline mammal usually having thick soft fur and no ability to roar', isNoun)).toBe('mammal');
    expect(genusOf('a room or building equipped with one or more toilets', isNoun)).toBe('room');
  });

  it('looks past a word that names a part or kind of what follows', () => {
    expect(genusOf('a member of the genus Canis', isNoun)).toBe('canis');
    expect(genusOf('a piece of furniture having a smooth flat top', isNoun)).toBe('furniture');
  });

  it('is never a number', () => {
    expect(genusOf('four wheels', isNoun)).toBe('wheels');
    expect(genusOf('four', isNoun)).toBeNull();
  });
});

describe('related words', () => {
  it('widen a word to the kind of thing it is, not to words its definition happens to hold', () => {
    expect(broader('car')).toContain('vehicle');
    expect(broader('car')).not.toContain('four');
    expect(broader('cat')).toEqual(expect.arrayContaining(['mammal', 'feline']));
    expect(broader('tree')).not.toContain('crown');
    expect(broader('phone')).not.toContain('back');
  });

  it('come from a rare sense only where it has a synonym or two: "panel" lends "jury", "mountain" as a large amount none of its 25 words for one', () => {
    expect(wordnet.expand('panel').get('jury')).toBe('synonym');
    for (const w of ['lot', 'deal', 'pot', 'flock', 'heap', 'plenty']) expect(wordnet.expand('mountain').has(w), w).toBe(false);
  });

  it('take a definition\'s head only where it says what kind of thing it is: not "area" for a beach, "time" for a sunset, "large" for a city', () => {
    expect(broader('beach')).not.toContain('area');
    expect(broader('sunset')).not.toContain('time');
    expect(broader('city')).not.toContain('large');
    expect(broader('child')).not.toContain('young');
    expect(broader('kitten')).toContain('cat');
  });

  it('are words in a meaning they commonly have: "car" lends "automobile" but not "machine", "vehicle" lends "car"; and no kind that is a name', () => {
    expect(wordnet.expand('car').get('automobile')).toBe('synonym');
    expect(wordnet.expand('car').has('machine')).toBe(false);
    expect(wordnet.expand('vehicle').get('car')).toBe('narrower');
    expect(wordnet.expand('john').get('bathroom')).toBe('synonym');
    expect(wordnet.expand('dog').has('toy')).toBe(false);
    for (const w of ['amazon', 'congo', 'colorado']) expect(wordnet.expand('river').has(w), w).toBe(false);
    expect(wordnet.expand('king').has('alfred')).toBe(false);
  });

  it('are none for a name: Lincoln the president lends neither "president" nor "lawyer", Paris not "france"', () => {
    expect([...wordnet.expand('lincoln').keys()]).not.toEqual(expect.arrayContaining(['president']));
    expect([...wordnet.expand('lincoln').keys()]).not.toContain('lawyer');
    expect([...wordnet.expand('paris').keys()]).not.toContain('france');
  });

  it('of two words that make one noun are that noun\'s, every sense of it alike where it is untagged: "hot dog" lends "frankfurter"', () => {
    expect(wordnet.compound('hot', 'dog')).toBe('hot_dog');
    expect(wordnet.compound('hot', 'dogs')).toBe('hot_dog');
    expect(wordnet.compound('living', 'room')).toBe('living_room');
    expect(wordnet.compound('red', 'car')).toBeNull();
    const hotDog = wordnet.expand('hot_dog');
    expect(hotDog.get('frankfurter')).toBe('synonym');
    expect(hotDog.get('sausage')).toBe('broader');
    expect(hotDog.has('puppy')).toBe(false);
    expect(wordnet.expand('living_room').get('parlour')).toBe('synonym');
  });

  it('of a word mostly used as an adjective are those of its adjective\'s meaning: "white" the colour, not a white person', () => {
    const white = wordnet.expand('white');
    expect(white.get('ivory')).toBe('narrower');
    for (const w of ['person', 'someone', 'somebody', 'caucasian', 'honkey', 'arab']) expect(white.has(w), w).toBe(false);
    const blue = wordnet.expand('blue');
    expect(blue.get('navy')).toBe('narrower');
    for (const w of ['clothing', 'wear', 'organization']) expect(blue.has(w), w).toBe(false);
    // Nothing broader: not "illumination" for "dark", nor "temperature" for "cold".
    expect(wordnet.expand('dark').get('darkness')).toBe('synonym');
    for (const [w, r] of [
      ['dark', 'illumination'],
      ['dark', 'absence'],
      ['cold', 'temperature'],
    ])
      expect(wordnet.expand(w).has(r), r).toBe(false);
    // The temperature, not the illness; the colour's other spelling.
    expect(wordnet.expand('cold').has('chill')).toBe(true);
    expect(wordnet.expand('cold').has('nose')).toBe(false);
    expect(wordnet.expand('gray').get('grey')).toBe('synonym');
    // "old" has no noun of its meaning ("oldness" is another word): nothing, not "past".
    expect(wordnet.expand('old').size).toBe(0);
    // Its other meanings lend a synonym or two, as a rare sense does: "blond" lends "blonde", not "person".
    expect(wordnet.expand('blond').get('blonde')).toBe('synonym');
    expect(wordnet.expand('blond').has('person')).toBe(false);
  });

  it('of a noun are never words mostly used as adjectives: "people" lends neither "dead" nor "rich", "woman" not "broad"', () => {
    const people = wordnet.expand('people');
    for (const w of ['dead', 'rich', 'brave', 'timid', 'elderly']) expect(people.has(w), w).toBe(false);
    expect(people.get('folk')).toBe('narrower');
    expect(wordnet.expand('woman').has('broad')).toBe(false);
    expect(wordnet.expand('food').has('sweet')).toBe(false);
    expect(wordnet.expand('dog').get('puppy')).toBe('narrower');
  });

  it('are never a slur, a disparaging or an obscene word, whatever they stand for', () => {
    for (const w of ['pickaninny', 'piccaninny']) expect(wordnet.expand('children').has(w), w).toBe(false);
    for (const w of ['honky', 'whitey', 'honkey']) expect(wordnet.expand('whites').has(w), w).toBe(false);
    expect(wordnet.expand('children').get('kid')).toBe('synonym');
    expect(wordnet.expand('whites').get('caucasian')).toBe('synonym');
  });

  it('of a word mostly used as a noun, or written as one, are those of its nouns: "light", "whites"', () => {
    expect(wordnet.expand('light').has('sunlight')).toBe(true);
    expect(wordnet.expand('whites').has('person')).toBe(true);
    expect(wordnet.expand('dog').get('puppy')).toBe('narrower');
  });

  it('of a plural are its singular\'s, irregular ones too: "planes" a plane\'s (not a plan\'s), "mice" a mouse\'s', () => {
    expect(wordnet.expand('planes').get('airplane')).toBe('synonym');
    for (const w of ['plan', 'program', 'idea']) expect(wordnet.expand('planes').has(w), w).toBe(false);
    expect(wordnet.expand('wines').has('victory')).toBe(false);
    expect(wordnet.expand('wines').get('vino')).toBe('synonym');
    expect(wordnet.expand('whites').has('whit')).toBe(false);
    expect(wordnet.expand('mice').get('rodent')).toBe('broader');
    expect(wordnet.expand('children').get('kid')).toBe('synonym');
    expect(wordnet.expand('leaves').get('foliage')).toBe('synonym');
    expect(wordnet.expand('boxes').get('carton')).toBe('narrower');
    expect(wordnet.compound('living', 'rooms')).toBe('living_room');
  });

  it('know a name, of someone or somewhere, from a word that is none', () => {
    for (const w of ['john', 'lincoln', 'paris', 'turkey']) expect(wordnet.isName(w), w).toBe(true);
    for (const w of ['coffee', 'cat', 'apple', 'queen']) expect(wordnet.isName(w), w).toBe(false);
  });
});

// How well search widens a word (server/search/wordnet.ts): pairs of a query and a related word
// that real prose holds (the corpus's book and e-book, Debian's fortunes: bench/texts.ts), labelled
// by hand as a user would take them — sensible ("hill" → knoll, "food" → bread) or not ("music" →
// development, "king" → Saul) — in bench/related-words.tsv. Two sets of common nouns a library is
// searched by (the rules were chosen on `tuning` and are reported on `held-out`), and two of
// adjectives (below). Each pair is a
// sample of those that either the rules of the time or those before them lent (one in four of the
// tuning set, one in six of the held-out; of the adjectives, every pair either rule lent of the
// words whose related words the rule for adjectives changed). Precision: the share of the labelled pairs lent that are
// sensible; recall: the share of the sensible pairs that are lent. Pairs lent now that no label
// covers are counted apart (a rule that lends new words is to be labelled again).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wordnet } from '../server/search/wordnet.ts';
import { realTexts } from './texts.ts';
import { writeResults } from './report.ts';

const SETS: Record<string, string[]> = {
  tuning:
    'beach dog car mountain lake sunset forest river kitten cat bicycle bus boat tree flower bird church castle bridge street sea ocean city wedding baby child girl woman portrait house garden snow'.split(
      ' ',
    ),
  'held-out':
    'horse sky cloud road train plane table chair book door window fish shoe hat dress glass bottle cake food party king queen teacher doctor soldier music fire rain moon island hill valley field kitchen school office computer letter key clock tea'.split(
      ' ',
    ),
  // Words mostly used as adjectives ("white dress", "old car"), whose nouns' meanings are seldom
  // the one asked for: the rule for them (server/search/wordnet.ts, adjectiveMeaning) was made
  // looking at the first set; the second was listed before either rule's words were looked at.
  'adjectives: design':
    'white red blue old cold dark young silver black green yellow brown pink gray light orange gold purple violet hot warm dry wet clean dirty empty full flat square round modern antique vintage sharp soft hard heavy quiet busy sad happy fat thin smooth rough sunny cloudy frozen tiny huge ancient pretty beautiful bright new small big tall long short fast golden wooden broken rusty crowded'.split(
      ' ',
    ),
  'adjectives: held-out':
    'rainy windy foggy snowy icy stormy misty wild wooden metal plastic leather cotton silk stone brick rural urban sandy rocky grassy shady bare naked dead alive sick tired angry funny cute shy brave proud poor rich cheap expensive famous strange early late open closed deep shallow high low wide narrow thick loose tight straight curly bald blond pale dusty muddy hollow solid liquid fresh ripe rotten raw sweet sour bitter salty spicy loud noisy silent calm gentle fierce lonely tropical royal holy sacred public private military medical'.split(
      ' ',
    ),
};

const here = path.dirname(fileURLToPath(import.meta.url));
const labels = fs
  .readFileSync(path.join(here, 'related-words.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => {
    const [set, query, related, sensible] = l.split('\t');
    return { set, query, related, sensible: sensible === 'yes' };
  });

const held = new Set((await realTexts()).flatMap((t) => t.words));
const results: Record<string, number | string> = { 'words of the prose': held.size };
for (const [set, queries] of Object.entries(SETS)) {
  const mine = labels.filter((l) => l.set === set);
  const lent = (q: string, r: string) => wordnet.expand(q).has(r);
  const sensible = mine.filter((l) => l.sensible);
  const given = mine.filter((l) => lent(l.query, l.related));
  const right = given.filter((l) => l.sensible);
  const labelled = new Set(mine.map((l) => `${l.query}\t${l.related}`));
  const lentHeld = queries.flatMap((q) => [...wordnet.expand(q).keys()].filter((r) => held.has(r)).map((r) => `${q}\t${r}`));
  results[`${set}: labelled pairs (sensible)`] = `${mine.length} (${sensible.length})`;
  results[`${set}: precision`] = (right.length / given.length).toFixed(2);
  results[`${set}: recall`] = (right.length / sensible.length).toFixed(2);
  results[`${set}: pairs lent that the prose holds (not labelled)`] = `${lentHeld.length} (${lentHeld.filter((p) => !labelled.has(p)).length})`;
}
writeResults('related-words', 'Related words of a query (WordNet), against pairs labelled by hand', results);

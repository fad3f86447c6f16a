// The prompt a local language model answers from, and the grounding rule applied to what it
// writes (docs/answers.md). The model sees the question and at most EVIDENCE_MAX numbered pieces of
// evidence found in the index, after one worked example; a grammar holds its output to sentences
// that end with citations of those numbers. Then every sentence is checked against the evidence: a
// sentence is kept only when most of its content words are in the evidence it cites (a small model
// sometimes cites the neighbour of the right piece: the citation is then moved to the piece that
// holds the words); a sentence that no piece supports, a repeated sentence, and a sentence cut off
// by max_tokens are dropped.
import { sentences, words as wordsOf } from '../search/tokenizer.ts';
import { STOPWORDS } from '../search/stopwords.ts';

export const EVIDENCE_MAX = 4;
const EVIDENCE_CHARS = 360;
/** The share of a sentence's content words its evidence must hold. */
export const SUPPORT_MIN = 0.5;

export const INSTRUCTIONS =
  'Answer each question using only the numbered evidence. End every sentence with the number of the evidence it rests on, in brackets.';

const EXAMPLE = [
  'Evidence:',
  '[1] (opening-hours.pdf, page 2) The library closes at six in the evening on weekdays.',
  '[2] (parking.jpg) Parking behind the town hall is free after seven.',
  'Question: When does the library close?',
  'Answer: The library closes at six in the evening on weekdays [1].',
].join('\n');

export interface PromptEvidence {
  n: number;
  /** Where it is: "talk.mp4 at 1:23", "report.pdf, page 3". */
  where: string;
  text: string;
}

/**
 * The part of a long text a question is about: the sentence holding most of the question's words,
 * with its neighbours while they fit in EVIDENCE_CHARS (a small model reads a few sentences well,
 * a page badly).
 */
export function focus(text: string, asked: string[]): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= EVIDENCE_CHARS) return t;
  const parts = sentences(t);
  const want = new Set(asked.map(base));
  const score = (x: string) => wordsOf(x).filter((w) => want.has(base(w))).length;
  let best = 0;
  parts.forEach((x, i) => {
    if (score(x) > score(parts[best])) best = i;
  });
  // Grow around it while the whole still fits: a sentence after where one fits, else one before.
  let from = best;
  let to = best + 1;
  const fits = (a: number, b: number) => parts.slice(a, b).join(' ').length <= EVIDENCE_CHARS;
  for (;;) {
    if (to < parts.length && fits(from, to + 1)) to++;
    else if (from > 0 && fits(from - 1, to)) from--;
    else break;
  }
  return clip(parts.slice(from, to).join(' '));
}

function clip(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= EVIDENCE_CHARS ? t : `${t.slice(0, EVIDENCE_CHARS).replace(/\s+\S*$/, '')} …`;
}

export function answerPrompt(question: string, evidence: PromptEvidence[]): string {
  const lines = evidence.map((e) => `[${e.n}] (${e.where}) ${clip(e.text).replace(/[[\]]/g, '')}`);
  return `${INSTRUCTIONS}\n\n${EXAMPLE}\n\nEvidence:\n${lines.join('\n')}\nQuestion: ${question.replace(/\s+/g, ' ').trim()}\nAnswer:`;
}

/** English inflections set aside for the comparison only ("closes" holds "close", "built" does not "build"). */
const base = (w: string) => w.replace(/(?<=\p{L}{3})(ies|es|s|ed|ing|ly)$/u, '');
const content = (s: string) => [
  ...new Set(
    wordsOf(s)
      .filter((w) => !STOPWORDS.has(w) && w.length > 1)
      .map(base),
  ),
];

export interface Grounded {
  answer: string;
  /** The evidence numbers the answer cites, in the order first cited. */
  cited: number[];
  /** Sentences dropped, with why (for logs and tests). */
  dropped: Array<{ text: string; why: 'unsupported' | 'repeated' | 'uncited' }>;
}

/** Keeps the sentences the evidence supports, each citing the piece that holds its words. */
export function ground(written: string, evidence: PromptEvidence[]): Grounded {
  const words = new Map(evidence.map((e) => [e.n, new Set(content(e.text))]));
  const support = (claim: string[], n: number) => {
    const w = words.get(n);
    return w && claim.length ? claim.filter((x) => w.has(x)).length / claim.length : 0;
  };
  const out: string[] = [];
  const cited: number[] = [];
  const dropped: Grounded['dropped'] = [];
  const seen = new Set<string>();
  const re = /\s*([^[\]]+?)\s*((?:\[\d+\]\s*)+)\.?/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(written))) {
    end = re.lastIndex;
    const text = m[1].trim().replace(/[.\s]+$/, '');
    const claim = content(text);
    const given = [...m[2].matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1])).filter((n) => words.has(n));
    const best = evidence.map((e) => ({ n: e.n, s: support(claim, e.n) })).sort((a, b) => b.s - a.s)[0];
    const keep = given.filter((n) => support(claim, n) >= SUPPORT_MIN);
    if (!best || best.s < SUPPORT_MIN) {
      dropped.push({ text, why: 'unsupported' });
      continue;
    }
    const key = claim.join(' ');
    if (seen.has(key)) {
      dropped.push({ text, why: 'repeated' });
      continue;
    }
    seen.add(key);
    const ns = keep.length ? keep : [best.n];
    for (const n of ns) if (!cited.includes(n)) cited.push(n);
    out.push(`${text} ${ns.map((n) => `[${n}]`).join('')}.`);
  }
  const rest = written.slice(end).trim();
  if (rest) dropped.push({ text: rest, why: 'uncited' });
  return { answer: out.join(' '), cited, dropped };
}

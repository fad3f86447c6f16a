import { describe, expect, it } from 'vitest';
import { endsInQuotation, looksLikeRunningHead, sentenceSpans, sentences } from './tokenizer.ts';

describe('sentences', () => {
  it('splits at . ! ? with closing quotes, goes on after ! or ? before a word in lower case, and says where each stands', () => {
    const text = '  ‘Call the first witness,’ said the King. ‘Mary Ann!’ said the Rabbit’s voice. Alice read: ‘What?’ And the rest';
    const spans = sentenceSpans(text);
    expect(spans.map((s) => s.text)).toEqual([
      '‘Call the first witness,’ said the King.',
      '‘Mary Ann!’ said the Rabbit’s voice.',
      'Alice read: ‘What?’',
      'And the rest',
    ]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
    expect(sentences(text)).toEqual(spans.map((s) => s.text));
  });

  it('ends no sentence at the full stop of a number, a version, an address, an abbreviation before a lower-case word or a title before a name, nor at a line break', () => {
    const text =
      'Ian Jackson led the project through the preparation for the 2.0 release. See www.debian.org, e.g. the history.\nIt cost 3.5 dollars; Dr. Jones and Mr. Smith paid. Fig. 2 shows it! हिंदी में वाक्य। दूसरा वाक्य।';
    const spans = sentenceSpans(text);
    expect(spans.map((s) => s.text)).toEqual([
      'Ian Jackson led the project through the preparation for the 2.0 release.',
      'See www.debian.org, e.g. the history.',
      'It cost 3.5 dollars; Dr. Jones and Mr. Smith paid.',
      'Fig. 2 shows it!',
      'हिंदी में वाक्य।',
      'दूसरा वाक्य।',
    ]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
    // A line break inside a sentence stays in it, where it stands.
    expect(sentences('the White Rabbit hurried\nby. Then she')).toEqual(['the White Rabbit hurried\nby.', 'Then she']);
  });

  it('goes on to the mark that closes a quotation where asked to, an apostrophe between letters closing none', () => {
    const text = 'and Alice called out as loud as she could, ‘If you do. I’ll set Dinah at you!’ There was a dead silence. Then “Stop. Now.” he said. Done.';
    expect(sentences(text)).toHaveLength(6);
    expect(sentences(text, { quotations: true })).toEqual([
      'and Alice called out as loud as she could, ‘If you do. I’ll set Dinah at you!’',
      'There was a dead silence.',
      'Then “Stop. Now.” he said.',
      'Done.',
    ]);
    // A mark never closed holds a sentence open for 400 characters at most.
    const open = `‘${'Word after word. '.repeat(40)}`;
    expect(sentences(open, { quotations: true }).length).toBeGreaterThan(1);
  });

  it('ends a sentence at an ellipsis, "…" as "...", where a capital follows', () => {
    expect(sentences('She left… Then he came.')).toEqual(['She left…', 'Then he came.']);
    expect(sentences('She left... Then he came.')).toEqual(['She left...', 'Then he came.']);
    expect(sentences('I think… maybe not. Yes.')).toEqual(['I think… maybe not.', 'Yes.']);
  });

  it('keeps a text of punctuation alone, and gives nothing for blank text', () => {
    expect(sentences('...')).toEqual(['...']);
    expect(sentenceSpans('   ')).toEqual([]);
  });
});

describe('endsInQuotation', () => {
  it('tells a text whose last sentence is spoken within a quotation still open at its end', () => {
    expect(endsInQuotation('Then he said: ‘I had to sing “Twinkle, twinkle, little bat!')).toBe(true);
    expect(endsInQuotation('‘If you do. I’ll set Dinah at you!’ There was a dead silence.')).toBe(false);
    expect(endsInQuotation('‘If you do. I’ll set Dinah at you!’')).toBe(false);
    // An apostrophe between letters closes nothing, and one after a word's end closes a quotation.
    expect(endsInQuotation('He said ‘I’ll go.')).toBe(true);
    expect(endsInQuotation('the rabbits’ house.')).toBe(false);
    expect(endsInQuotation('')).toBe(false);
  });
});

describe('looksLikeRunningHead', () => {
  it('takes a page number or a short line in capitals for a running head, and no text in lower case or in a script without capitals', () => {
    for (const head of ['35', '– 12 –', '68 CHAPTER 9. THE MOCK TURTLE’S STORY', 'ГЛАВА 5']) expect(looksLikeRunningHead(head)).toBe(true);
    for (const text of ['out as loud as she could', 'Down the Rabbit-Hole', 'हिंदी में वाक्य।', 'CHAPTER 4 домой', 'A'.repeat(81)]) {
      expect(looksLikeRunningHead(text)).toBe(false);
    }
  });
});

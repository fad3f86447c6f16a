import { describe, expect, it } from 'vitest';
import { sentenceSpans, sentences } from './tokenizer.ts';

describe('sentences', () => {
  it('splits at . ! ? … with closing quotes, and says where each stands', () => {
    const text = '  ‘Call the first witness,’ said the King. Alice read: ‘What?’ and the rest';
    const spans = sentenceSpans(text);
    expect(spans.map((s) => s.text)).toEqual(['‘Call the first witness,’ said the King.', 'Alice read: ‘What?’', 'and the rest']);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
    expect(sentences(text)).toEqual(spans.map((s) => s.text));
  });

  it('keeps a text of punctuation alone, and gives nothing for blank text', () => {
    expect(sentences('...')).toEqual(['...']);
    expect(sentenceSpans('   ')).toEqual([]);
  });
});

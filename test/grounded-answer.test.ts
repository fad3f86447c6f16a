// The grounding rule applied to what a language model writes (server/services/grounded-answer.ts):
// sentences the evidence does not hold are dropped, a citation of the wrong piece is moved to the
// piece that holds the sentence's words, repeats and a sentence cut off without a citation go, and
// citations of numbers that were not given are never kept. The prompt holds the evidence numbered.
import { describe, expect, it } from 'vitest';
import { answerPrompt, ground, INSTRUCTIONS, type PromptEvidence } from '../server/answers/grounded.ts';
import { citationGrammar } from '../server/ml/llm.worker.ts';

const evidence: PromptEvidence[] = [
  { n: 1, where: 'bridge.mp4 at 0:42', text: 'The mayor opened the new bridge on Tuesday morning.' },
  { n: 2, where: 'report.pdf, page 3', text: 'The bridge cost four million euros and took two years to build.' },
  { n: 3, where: 'notes.txt', text: 'Buy milk and eggs.' },
];

describe('grounded answers', () => {
  it('keeps supported sentences with their citations', () => {
    const g = ground('The bridge cost four million euros [2]. The mayor opened it on Tuesday morning [1].', evidence);
    expect(g.answer).toBe('The bridge cost four million euros [2]. The mayor opened it on Tuesday morning [1].');
    expect(g.cited).toEqual([2, 1]);
    expect(g.dropped).toEqual([]);
  });

  it('moves a citation to the piece that holds the words, and keeps none of a number not given', () => {
    expect(ground('The bridge cost four million euros. [3]', evidence)).toMatchObject({ answer: 'The bridge cost four million euros [2].', cited: [2] });
    expect(ground('The bridge cost four million euros [7].', evidence)).toMatchObject({ answer: 'The bridge cost four million euros [2].', cited: [2] });
  });

  it('drops what no evidence supports, repeats, and a sentence cut off without a citation', () => {
    const g = ground('The bridge was painted bright red by volunteers [1]. Buy milk and eggs [3]. Buy milk and eggs [3]. The bridge cost four', evidence);
    expect(g.answer).toBe('Buy milk and eggs [3].');
    expect(g.dropped.map((d) => d.why)).toEqual(['unsupported', 'repeated', 'uncited']);
    expect(ground('Nothing here is in the evidence at all [1].', evidence)).toMatchObject({ answer: '', cited: [] });
  });

  it('numbers the evidence in the prompt and ends it where the model writes', () => {
    const p = answerPrompt('How much did the bridge cost?', evidence);
    expect(p.startsWith(INSTRUCTIONS)).toBe(true);
    expect(p).toContain('[2] (report.pdf, page 3) The bridge cost four million euros');
    expect(p.endsWith('Question: How much did the bridge cost?\nAnswer:')).toBe(true);
    // Brackets inside evidence cannot pose as citations.
    expect(answerPrompt('q', [{ n: 1, where: 'a', text: 'see [4] above' }])).toContain('[1] (a) see 4 above');
  });

  it('the grammar allows only the numbers given', () => {
    expect(citationGrammar([1, 2])).toMatch(/^n ::= "1" \| "2"$/m);
  });
});

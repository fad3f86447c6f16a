import { describe, expect, it } from 'vitest';
import { stageWords, stagesInWords, why } from './failures.ts';

describe('failures in the screens’ words', () => {
  it('names each stage as a user would, and a stage it does not know as the API does', () => {
    expect(stageWords('extract')).toBe('reading the file');
    expect(stageWords('ocr')).toBe('text in pictures');
    expect(stageWords('embeddings')).toBe('search by meaning');
    expect(stageWords('new_stage')).toBe('new stage');
  });

  it('lists stages as a phrase', () => {
    expect(stagesInWords([])).toBe('');
    expect(stagesInWords(['faces'])).toBe('faces');
    expect(stagesInWords(['faces', 'ocr'], 'or')).toBe('faces or text in pictures');
    expect(stagesInWords(['faces', 'objects', 'people'])).toBe('faces, objects and people');
  });

  it('drops the code a reason starts with', () => {
    expect(why({ reason: 'encrypted: the PDF needs a password to open' })).toBe('the PDF needs a password to open');
    expect(why({ code: 'corrupt', reason: 'the file is damaged' })).toBe('the file is damaged');
    expect(why({ code: 'timeout', reason: null })).toBe('timeout');
  });
});

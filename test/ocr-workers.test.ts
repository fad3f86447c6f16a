// One tesseract worker per indexer process at a time: a reading in another language set ends the
// last set's worker (its memory, ≈ 100 MiB and more with each language, given back) once its
// readings are done; readings in either set are the same as with a worker of their own.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { closeOcr, ocrWorkerSets, recognize, setOcrIdleEnd, type OcrParagraph } from '../server/ml/ocr.ts';

const threads = () => fs.readdirSync('/proc/self/task').length;
const text = (ps: OcrParagraph[]) => ps.map((p) => p.text).join('\n');

/** The process's thread count once it is down to `most` (or after 10 s). */
async function settled(most: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (threads() > most && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return threads();
}

describe('tesseract workers', () => {
  afterAll(() => closeOcr());

  it('keeps one language set at a time and reads the same after switching', async () => {
    const image = corpus('ocr/images/imageTextN.png');
    const before = threads();
    const english = text(await recognize(image, ['en']));
    expect(english.length).toBeGreaterThan(20);
    expect(ocrWorkerSets()).toEqual(['eng']);
    const withOne = threads();
    expect(withOne).toBeGreaterThan(before);

    // Two readings asked at once in the two sets: each ends the other set's worker after its
    // reading (one worker at a time, whatever the order), and both read as before.
    const [hindiToo, englishAgain] = await Promise.all([recognize(image, ['en', 'hi']), recognize(image, ['en'])]);
    expect(text(hindiToo).length).toBeGreaterThan(20);
    expect(text(englishAgain)).toBe(english);

    const last = text(await recognize(image, ['en', 'hi']));
    expect(last).toBe(text(hindiToo));
    expect(ocrWorkerSets()).toEqual(['eng+hin']);
    // The English worker's thread is gone: as many threads as with one worker.
    expect(await settled(withOne)).toBeLessThanOrEqual(withOne);
  }, 60_000);

  it('ends a worker left idle, and loads one again for the next reading, which reads the same', async () => {
    const image = corpus('ocr/images/imageTextN.png');
    setOcrIdleEnd(300);
    try {
      const before = threads();
      const first = text(await recognize(image, ['en']));
      // Readings one after another keep it.
      const second = text(await recognize(image, ['en']));
      expect(second).toBe(first);
      expect(ocrWorkerSets()).toEqual(['eng']);
      const deadline = Date.now() + 5000;
      while (ocrWorkerSets().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(ocrWorkerSets()).toEqual([]);
      // Its thread is gone.
      expect(await settled(before)).toBeLessThanOrEqual(before);
      expect(text(await recognize(image, ['en']))).toBe(first);
      expect(ocrWorkerSets()).toEqual(['eng']);
    } finally {
      setOcrIdleEnd(30_000);
    }
  }, 60_000);
});

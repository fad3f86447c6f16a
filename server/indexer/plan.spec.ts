import { describe, expect, it } from 'vitest';
import { STAGE_SPECS, deploymentDefaults } from '../contract/stages.ts';
import { videoFps } from './picture-input.ts';
import { planRerun, planRuns, rerunClosure, stagesByAsset } from './plan.ts';
import { STAGE_ORDER } from './registry.ts';

describe('what re-running a stage pulls in', () => {
  it('every stage when none is named', () => {
    expect(rerunClosure(undefined)).toEqual(STAGE_ORDER);
  });

  it('a stage and everything that depends on it, directly or not', () => {
    const closure = (stages: string[]) => [...rerunClosure(stages)].sort();
    expect(closure(['faces'])).toEqual(['faces', 'labels', 'people']);
    expect(closure(['speech'])).toEqual(['embeddings', 'labels', 'speakers', 'speech', 'transcript']);
    expect(closure(['metadata'])).toEqual(['metadata', 'people']);
    expect(closure(['extract'])).toEqual(STAGE_ORDER.filter((s) => s !== 'metadata').sort());
    expect(rerunClosure(['faces'])).toEqual(STAGE_ORDER.filter((s) => ['faces', 'labels', 'people'].includes(s))); // in stage order
  });

  it('a stage nothing depends on is re-run alone', () => {
    expect(rerunClosure(['sounds'])).toEqual(['sounds']);
  });

  it('the runs planned as at upload: applicable stages pending, the others settled', () => {
    const photo = planRerun('vid_1', 'image', deploymentDefaults(), ['speech'], 7);
    expect(Object.fromEntries(photo.map((r) => [r.stage, r.state]))).toEqual({
      speech: 'not_applicable',
      transcript: 'not_applicable',
      speakers: 'not_applicable',
      labels: 'pending',
      embeddings: 'pending',
    });
    expect(photo.every((r) => r.queued_at === 7)).toBe(true);
    const legacy = planRuns('vid_2', 'video', null, 0);
    expect(legacy.find((r) => r.stage === 'faces')).toMatchObject({ state: 'off', reason: 'not part of the legacy pipeline' });
    expect(legacy.find((r) => r.stage === 'transcript')).toMatchObject({ state: 'pending' });
  });

  it("a text-only document's picture stages are planned as not applicable; a PDF's wait for its pages", () => {
    const state = (ext: string) => Object.fromEntries(planRuns('doc_1', 'document', deploymentDefaults(), 0, ext).map((r) => [r.stage, r.state]));
    for (const ext of ['.txt', '.docx', '.epub', '.csv']) {
      const s = state(ext);
      for (const stage of ['faces', 'objects', 'ocr', 'captions', 'people']) expect(s[stage], `${ext} ${stage}`).toBe('not_applicable');
      expect(s.extract).toBe('pending');
      expect(s.embeddings).toBe('pending');
    }
    expect(planRuns('doc_1', 'document', deploymentDefaults(), 0, '.txt').find((r) => r.stage === 'faces')!.reason).toBe(
      'a .txt document is read as text; its pictures are not indexed',
    );
    const pdf = state('.pdf');
    for (const stage of ['faces', 'objects', 'ocr', 'captions', 'people']) expect(pdf[stage], stage).toBe('pending');
  });

  it('runs to do again are grouped per asset, each stage once', () => {
    const grouped = stagesByAsset([
      { asset_id: 'a', stage: 'faces' },
      { asset_id: 'b', stage: 'ocr' },
      { asset_id: 'a', stage: 'faces' },
      { asset_id: 'a', stage: 'objects' },
    ]);
    expect([...grouped]).toEqual([
      ['a', ['faces', 'objects']],
      ['b', ['ocr']],
    ]);
  });
});

describe('the rates the picture stages sample a video at (the shots pass keeps their frames)', () => {
  it("are ocr's and faces' own fps, and by default the contract's", () => {
    expect(videoFps('ocr')).toBe(STAGE_SPECS.ocr.defaults.fps);
    expect(videoFps('faces')).toBe(STAGE_SPECS.faces.defaults.fps);
    expect(videoFps('faces', { fps: 2 })).toBe(2);
    expect(videoFps('embeddings', { fps: 3 })).toBe(0.5);
  });
});

import { describe, expect, it } from 'vitest';
import { PROCESS_BASE_MIB, STAGE_FAMILIES, placeRun, reckonedMiB, type PlacedProcess } from './memory.ts';

const TEXT = STAGE_FAMILIES.ocr!.name;
const VISION = STAGE_FAMILIES.faces!.name;
const proc = (free: boolean, families: string[] = [], rssMiB: number | null = null): PlacedProcess => ({ free, families: new Set(families), rssMiB });
const TIGHT = 850;
const AMPLE = 100_000;

describe('placing a run by the models the processes hold', () => {
  it('sends faces and objects to the process that holds Human, and text to the one that reads text', () => {
    const procs = [proc(true, [TEXT], 400), proc(true, [VISION], 330)];
    expect(placeRun('faces', procs, TIGHT)).toBe(1);
    expect(placeRun('objects', procs, TIGHT)).toBe(1);
    expect(placeRun('ocr', procs, TIGHT)).toBe(0);
    // Also where every copy fits: a process that holds the model goes first.
    expect(placeRun('faces', procs, AMPLE)).toBe(1);
  });

  it('makes no second copy over the budget: the run waits for the busy process that holds its model', () => {
    expect(placeRun('ocr', [proc(false, [TEXT], 400), proc(true, [VISION], 330)], TIGHT)).toBe(-1);
    // Within the budget (a folder of scans: the other process holds nothing), the copy is made.
    expect(placeRun('ocr', [proc(false, [TEXT], 400), proc(true, [], 130)], TIGHT)).toBe(1);
    // And where the budget holds every model in every process, any free process takes it.
    expect(placeRun('ocr', [proc(false, [TEXT], 400), proc(true, [VISION], 330)], AMPLE)).toBe(1);
  });

  it('gives the first copy of a model to a process that holds none, waiting for it when it is busy', () => {
    // The free process reads text; the other holds nothing and is busy: Human waits for it rather
    // than joining the text models, which would leave the other process nothing it may load.
    expect(placeRun('faces', [proc(true, [TEXT], 400), proc(false, [], 130)], TIGHT)).toBe(-1);
    expect(placeRun('faces', [proc(true, [TEXT], 400), proc(true, [], 130)], TIGHT)).toBe(1);
    // Where every process holds a model, the lightest free one takes a model no one holds.
    expect(placeRun('faces', [proc(true, [TEXT], 500), proc(false, [TEXT], 450)], TIGHT)).toBe(0);
    expect(placeRun('faces', [proc(true, [TEXT], 500), proc(true, [TEXT], 450)], TIGHT)).toBe(1);
  });

  it('places runs that load no model on the first free process, whatever the budget', () => {
    expect(placeRun('extract', [proc(false, [TEXT]), proc(true, [VISION])], TIGHT)).toBe(1);
    expect(placeRun('metadata', [proc(true, [TEXT]), proc(true)], 0)).toBe(0);
    expect(placeRun('ocr', [proc(false), proc(false)], AMPLE)).toBe(-1);
  });

  it('reckons a process by what it said, or by what its models will take before it has said', () => {
    expect(reckonedMiB(proc(true))).toBe(PROCESS_BASE_MIB);
    expect(reckonedMiB(proc(true, [TEXT]))).toBe(PROCESS_BASE_MIB + STAGE_FAMILIES.ocr!.mib);
    expect(reckonedMiB(proc(true, [TEXT], 700))).toBe(700);
  });
});

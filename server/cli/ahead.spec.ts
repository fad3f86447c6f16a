// How many indexer processes the command line forks before it loads: an `index` command's, as its
// `--workers` or the environment says; none for anything else.
import { afterEach, describe, expect, it } from 'vitest';
import { workersAhead } from './ahead.ts';
import { defaultWorkers } from '../config.ts';

const argv = (...args: string[]) => ['/usr/bin/node', '/app/bin/media-index.js', ...args];

describe('workersAhead', () => {
  const saved = process.env.MEDIA_INDEX_WORKERS;
  afterEach(() => {
    if (saved === undefined) delete process.env.MEDIA_INDEX_WORKERS;
    else process.env.MEDIA_INDEX_WORKERS = saved;
  });

  it("forks an index command's processes: its --workers, else the environment's, else one per core", () => {
    delete process.env.MEDIA_INDEX_WORKERS;
    expect(workersAhead(argv('index', '/photos'))).toBe(defaultWorkers());
    expect(workersAhead(argv('index', '/photos', '--workers', '3', '--json'))).toBe(3);
    expect(workersAhead(argv('index', '--workers=1', '/photos'))).toBe(1);
    process.env.MEDIA_INDEX_WORKERS = '4';
    expect(workersAhead(argv('index', '/photos'))).toBe(4);
    expect(workersAhead(argv('index', '/photos', '--workers', '2'))).toBe(2);
  });

  it('forks none for other commands, for help, for no processes, and where the count is wrong', () => {
    delete process.env.MEDIA_INDEX_WORKERS;
    for (const args of [
      ['serve'],
      ['search', 'index'],
      [],
      ['index', '--help'],
      ['index', '-h'],
      ['index', '/p', '--workers', '0'],
      ['index', '/p', '--workers', 'two'],
      ['index', '/p', '--workers'],
    ]) {
      expect(workersAhead(argv(...args)), args.join(' ')).toBe(0);
    }
    process.env.MEDIA_INDEX_WORKERS = 'lots';
    expect(workersAhead(argv('index', '/photos'))).toBe(0);
    process.env.MEDIA_INDEX_WORKERS = '0';
    expect(workersAhead(argv('index', '/photos'))).toBe(0);
  });
});

import type { Migration } from './index.ts';

// A failed stage run's stable code in a column of its own, next to its reason for people, so that
// "what waits for a model" is a query on the code. Reasons written before read "code: message".
export const migration: Migration = {
  name: '0016-stage-failure-codes',
  up: `
    ALTER TABLE stage_runs ADD COLUMN code TEXT;
    UPDATE stage_runs SET code = CASE
        WHEN instr(reason, ':') > 1 AND instr(substr(reason, 1, instr(reason, ':') - 1), ' ') = 0
          THEN substr(reason, 1, instr(reason, ':') - 1)
        ELSE 'error' END
      WHERE state = 'failed';
    CREATE INDEX stage_runs_code ON stage_runs(code) WHERE code IS NOT NULL;
  `,
};

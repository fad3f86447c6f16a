// Installs the pinned Python generator once into a virtual environment under the cache (re-used on
// later runs), as `npm run fuzz:api` does for schemathesis.
import type { TestProject } from 'vitest/node';
import { pythonGenerator } from '../scripts/clients.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    venv: string;
  }
}

export default function setup(project: TestProject): void {
  project.provide('venv', pythonGenerator());
}

import { createRequire } from 'node:module';
import { fromRoot } from './paths.ts';

export const VERSION: string = (createRequire(import.meta.url)(fromRoot('package.json')) as { version: string }).version;

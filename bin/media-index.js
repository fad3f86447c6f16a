#!/usr/bin/env node
// The command line: the compiled service where it is current (bin/compiled.js; `npm start` builds
// it first), else the TypeScript sources themselves through tsx's loader.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { currentBuild } from './compiled.js';

const build = currentBuild();
if (build) {
  await import(pathToFileURL(path.join(build, 'cli.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/cli.ts');
}

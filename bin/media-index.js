#!/usr/bin/env node
// The command line: the compiled service where it is current (bin/compiled.js; `npm start` builds
// it first), else the TypeScript sources themselves through tsx's loader.
import { COMPILED_CLI, compiledIsCurrent } from './compiled.js';

if (compiledIsCurrent()) {
  await import(COMPILED_CLI);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/cli.ts');
}

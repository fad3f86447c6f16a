#!/usr/bin/env node
// The command line: the compiled service where it is current (bin/compiled.js; `npm start` builds
// it first), else the TypeScript sources themselves through tsx's loader.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { currentBuild } from './compiled.js';

// ONNX Runtime's telemetry (on Linux too in the 1.30 used here: a device identifier and events cached
// under ~/.cache/Microsoft, uploaded when online, and a log file per process in the temporary
// folder) is turned off before any part of the app loads the runtime; every process and thread the
// app starts inherits it. Nothing about a user's files or use leaves the machine.
process.env.ORT_DISABLE_TELEMETRY = '1';

// `index` forks its indexer processes before the command line loads (server/cli/ahead.ts).
const build = currentBuild();
if (build) {
  (await import(pathToFileURL(path.join(build, 'cli', 'ahead.mjs')).href)).forkAheadFor(process.argv);
  await import(pathToFileURL(path.join(build, 'cli.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  (await import('../server/cli/ahead.ts')).forkAheadFor(process.argv);
  await import('../server/cli.ts');
}

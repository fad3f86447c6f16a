#!/usr/bin/env node
// `npm start`: the desktop app where an Electron binary and the shell exist, otherwise the same
// service headless on 127.0.0.1, printing its URL and where the first API key was written.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    const bin = require('electron');
    return typeof bin === 'string' && fs.existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

// The shell runs the TypeScript sources; its preload and the app's pages are built (`npm run build`,
// which `npm start` runs first).
const built = ['../dist/shell/preload.cjs', '../dist/renderer/index.html'].every((f) => fs.existsSync(fileURLToPath(new URL(f, import.meta.url))));
const electron = electronBinary();
const [cmd, args] =
  electron && built ? [electron, [root]] : [process.execPath, [fileURLToPath(new URL('./media-index.js', import.meta.url)), 'serve', ...process.argv.slice(2)]];
if (cmd === process.execPath) {
  process.stderr.write(electron ? 'desktop shell not built; starting headless\n' : 'no Electron binary installed; starting headless\n');
}
const child = spawn(cmd, args, { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

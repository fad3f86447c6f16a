#!/usr/bin/env node
// `npm start`: the desktop window, its Electron binary fetched on the first start where the machine
// is online (bin/desktop.js); otherwise the same service headless on 127.0.0.1, printing its URL and
// where the first API key was written. MEDIA_INDEX_HEADLESS=1 always starts headless.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chooseStart, downloadHostAnswers } from './desktop.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The Electron binary's path when it is installed (its package names it; the file must be there). */
function electronBinary() {
  try {
    const bin = require('electron');
    return typeof bin === 'string' && fs.existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

function electronInstaller() {
  try {
    return require.resolve('electron/install.js');
  } catch {
    return null;
  }
}

// The shell runs the TypeScript sources; its preload and the app's pages are built (`npm run build`,
// which `npm start` runs first).
const built = ['../dist/shell/preload.cjs', '../dist/renderer/index.html'].every((f) => fs.existsSync(fileURLToPath(new URL(f, import.meta.url))));
const installer = electronInstaller();
const choice = await chooseStart({
  binary: electronBinary,
  built: built && installer !== null,
  online: () => downloadHostAnswers(),
  installer,
  say: (line) => process.stderr.write(`${line}\n`),
  headless: Boolean(process.env.MEDIA_INDEX_HEADLESS),
});
const [cmd, args] =
  choice.mode === 'desktop'
    ? [choice.electron, [root]]
    : [process.execPath, [fileURLToPath(new URL('./media-index.js', import.meta.url)), 'serve', ...process.argv.slice(2)]];
const child = spawn(cmd, args, { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

// The desktop app's main process (started through main/entry.mjs, which loads TypeScript).
// `--device=cuda|dml|coreml|cpu` picks the execution provider for models; `--data=DIR` the data folder.
import { fileURLToPath } from 'node:url';
import { app, dialog } from 'electron';
import { runShell } from './shell.ts';

const device = app.commandLine.getSwitchValue('device') || process.env.MEDIA_INDEX_DEVICE || undefined;
const dataDir = app.commandLine.getSwitchValue('data') || process.env.MEDIA_INDEX_DATA || undefined;

runShell({
  preload: fileURLToPath(new URL('../dist/shell/preload.cjs', import.meta.url)),
  device,
  config: dataDir ? { dataDir } : {},
}).catch((err: unknown) => {
  dialog.showErrorBox('Media Index could not start', err instanceof Error ? err.message : String(err));
  app.exit(1);
});

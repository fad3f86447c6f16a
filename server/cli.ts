// `media-index`: the service without the desktop shell. Every command takes --data DIR
// (default: MEDIA_INDEX_DATA, else the per-user app data folder). One file per resource in cli/,
// as the API has one folder of routes per resource; they call the same services.
import { Command } from 'commander';
import { AppError } from './errors.ts';
import { VERSION } from './version.ts';
import { ModelError } from './ml/models.ts';
import { fail } from './cli/shared.ts';
import { registerServe } from './cli/serve.ts';
import { registerKeys } from './cli/keys.ts';
import { registerWorkspaces } from './cli/workspaces.ts';
import { registerVideos } from './cli/videos.ts';
import { registerModels } from './cli/models.ts';
import { registerSearch } from './cli/search.ts';
import { registerLibraries } from './cli/libraries.ts';
import { registerDoctor } from './cli/doctor.ts';

// A closed pipe (`media-index search … | head`) ends the command quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command('media-index').description('Local index of your videos, photos and documents').version(VERSION).showHelpAfterError();

registerServe(program);
registerKeys(program);
registerWorkspaces(program);
registerVideos(program);
registerModels(program);
registerSearch(program);
registerLibraries(program);
registerDoctor(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof AppError || err instanceof ModelError) fail(err.message, 2);
  fail((err as Error)?.stack ?? String(err));
});

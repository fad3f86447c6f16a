// The Python generator of API clients, as a script writer runs it: openapi-python-client (PyPI,
// pinned) with ruff (which it formats with), in a virtual environment under the cache folder.
// `npm run test:clients` generates a client with it (and one with openapi-typescript, from npm).
import os from 'node:os';
import path from 'node:path';
import { pinnedVenv } from './venv.ts';

const PYTHON_GENERATOR = ['openapi-python-client==0.29.1', 'ruff==0.14.6'];
const VENV = process.env.MEDIA_INDEX_CLIENTS_VENV || path.join(os.homedir(), '.cache', 'media-index', 'clients-venv');

/** The virtual environment holding the pinned Python generator. */
export const pythonGenerator = (): string => pinnedVenv(VENV, PYTHON_GENERATOR, (msg) => process.stderr.write(`clients: ${msg}\n`));

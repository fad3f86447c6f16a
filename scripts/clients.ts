// The two generators of API clients that scripts use, as a script writer runs them: openapi-typescript
// (npm, a devDependency) and openapi-python-client (PyPI, pinned, in a virtual environment under the
// cache folder). `npm run test:clients` generates both from a running service's document.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PYTHON_GENERATOR = ['openapi-python-client==0.29.1', 'ruff==0.14.6'];
const VENV = process.env.MEDIA_INDEX_CLIENTS_VENV || path.join(os.homedir(), '.cache', 'media-index', 'clients-venv');

/** The virtual environment holding the pinned Python generator (and ruff, which it formats with). */
export function pythonGenerator(): string {
  const marker = path.join(VENV, 'installed.txt');
  const want = PYTHON_GENERATOR.join(' ');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want) return VENV;
  process.stderr.write(`clients: installing ${want} into ${VENV}\n`);
  fs.rmSync(VENV, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(path.join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PYTHON_GENERATOR], {
    stdio: 'inherit',
  });
  fs.writeFileSync(marker, `${want}\n`);
  return VENV;
}

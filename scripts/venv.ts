// A Python virtual environment under the cache folder holding pinned packages from PyPI, for the
// tools the test suites run (schemathesis, openapi-python-client); made again when the pins change.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The folder of a virtual environment with exactly these pinned packages installed. */
export function pinnedVenv(dir: string, packages: string[], log: (msg: string) => void): string {
  const marker = path.join(dir, 'installed.txt');
  const want = packages.join(' ');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want) return dir;
  log(`installing ${want} into ${dir}`);
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'venv', dir], { stdio: 'inherit' });
  execFileSync(path.join(dir, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...packages], { stdio: 'inherit' });
  fs.writeFileSync(marker, `${want}\n`);
  return dir;
}

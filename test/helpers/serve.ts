// `media-index serve` as its own process (as a user starts it), for tests that kill or restart it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../bin/media-index.js', import.meta.url));

export function startServe(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exited, output: () => ({ out, err }) };
}

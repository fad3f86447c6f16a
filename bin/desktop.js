// Whether `npm start` opens the desktop window or starts headless, and fetching Electron's binary
// on first start. npm does not run Electron's own install step (package.json `allowScripts`), so
// the binary is fetched here, with Electron's installer, the first time the window is wanted and
// the machine is online; offline, the service starts headless and says how to fetch it later.
import { spawn } from 'node:child_process';
import https from 'node:https';

export const INSTALL_COMMAND = 'npm run desktop:install';

/**
 * `binary()` is the Electron binary's path when installed (else null), `built` whether the shell and
 * the pages are built, `online()` whether Electron's download host answers, `installer` the script
 * that fetches the binary (Electron's install.js), `say` one line for the person starting it.
 * Resolves to the desktop (with its binary) or headless (with why).
 */
export async function chooseStart({ binary, built, online, installer, say, headless = false }) {
  if (!built) return { mode: 'headless', why: 'the desktop shell is not built (npm run build)' };
  const found = binary();
  if (found) return { mode: 'desktop', electron: found };
  if (headless) return { mode: 'headless', why: 'MEDIA_INDEX_HEADLESS is set' };
  if (!(await online())) {
    say(`The desktop window is not installed yet and this machine is offline: starting headless. Run \`${INSTALL_COMMAND}\` once online.`);
    return { mode: 'headless', why: 'offline' };
  }
  say('Fetching the desktop window (Electron, about 100 MB) on this first start…');
  const ok = await runInstaller(installer, say);
  const installed = ok ? binary() : null;
  if (installed) return { mode: 'desktop', electron: installed };
  say(`The desktop window could not be fetched: starting headless. Try \`${INSTALL_COMMAND}\` again later.`);
  return { mode: 'headless', why: 'the download failed' };
}

/** Runs the installer in its own process, a line of elapsed time while it works; true when it succeeded. */
export function runInstaller(installer, say, env = process.env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [installer], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let err = '';
    child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
    const tty = process.stderr.isTTY;
    const tick = setInterval(() => {
      if (tty) process.stderr.write(`\r  downloading… ${Math.round((Date.now() - started) / 1000)} s`);
    }, 1000);
    child.on('error', () => finish(false));
    child.on('exit', (code) => finish(code === 0));
    function finish(ok) {
      clearInterval(tick);
      if (tty) process.stderr.write('\n');
      if (!ok && err.trim()) say(err.trim().split('\n').slice(-1)[0]);
      else if (ok) say(`  done in ${Math.round((Date.now() - started) / 1000)} s`);
      resolve(ok);
    }
  });
}

/** Whether the host Electron downloads from (ELECTRON_MIRROR, else GitHub) answers within `ms`. */
export function downloadHostAnswers(ms = 4000, env = process.env) {
  const url = env.ELECTRON_MIRROR || 'https://github.com/electron/electron/releases';
  return new Promise((resolve) => {
    try {
      const req = https.request(url, { method: 'HEAD', timeout: ms }, (res) => {
        res.resume();
        resolve((res.statusCode ?? 500) < 500);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end();
    } catch {
      resolve(false);
    }
  });
}

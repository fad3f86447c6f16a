// `npm start`'s choice between the desktop window and headless, and fetching Electron's binary on
// the first start: the decision with a binary present, fetchable and offline; the installer is a
// real process (a stand-in script at the process edge: Electron's own cannot download here).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseStart, INSTALL_COMMAND } from '../bin/desktop.js';
import { tempDir } from './helpers/server.ts';

describe('npm start: the desktop window or headless', () => {
  let dir: string;
  let binaryFile: string;
  let lines: string[];
  const binary = () => (fs.existsSync(binaryFile) ? binaryFile : null);
  /** An installer that writes the binary (or fails, saying why), as Electron's install.js does. */
  const installer = (ok: boolean) => {
    const script = path.join(dir, ok ? 'install-ok.mjs' : 'install-fails.mjs');
    fs.writeFileSync(
      script,
      ok
        ? `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(binaryFile)}, 'ELF'); console.log('installed');`
        : `console.error('RequestError: getaddrinfo ENOTFOUND github.com'); process.exit(1);`,
    );
    return script;
  };
  beforeEach(() => {
    dir = tempDir('mi-desktop-');
    binaryFile = path.join(dir, 'electron');
    lines = [];
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const say = (l: string) => lines.push(l);
  const never = async () => {
    throw new Error('not asked');
  };

  it('opens the window when the binary is there, asking nothing of the network', async () => {
    fs.writeFileSync(binaryFile, 'ELF');
    expect(await chooseStart({ binary, built: true, online: never, installer: installer(false), say })).toEqual({ mode: 'desktop', electron: binaryFile });
    expect(lines).toEqual([]);
  });

  it("fetches the binary with Electron's installer on the first start when online, says so, then opens the window", async () => {
    const choice = await chooseStart({ binary, built: true, online: async () => true, installer: installer(true), say });
    expect(choice).toEqual({ mode: 'desktop', electron: binaryFile });
    expect(lines[0]).toMatch(/^Fetching the desktop window/);
    expect(lines.at(-1)).toMatch(/done in \d+ s/);
  });

  it('starts headless offline, with one line naming the command that fetches it later', async () => {
    const choice = await chooseStart({ binary, built: true, online: async () => false, installer: installer(true), say });
    expect(choice).toEqual({ mode: 'headless', why: 'offline' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(INSTALL_COMMAND);
    expect(fs.existsSync(binaryFile)).toBe(false);
  });

  it('starts headless when the download fails, saying why and what to run later', async () => {
    const choice = await chooseStart({ binary, built: true, online: async () => true, installer: installer(false), say });
    expect(choice).toEqual({ mode: 'headless', why: 'the download failed' });
    expect(lines.join('\n')).toContain('ENOTFOUND');
    expect(lines.at(-1)).toContain(INSTALL_COMMAND);
  });

  it('starts headless when asked to, or when the shell is not built', async () => {
    expect(await chooseStart({ binary, built: true, online: never, installer: installer(true), say, headless: true })).toMatchObject({ mode: 'headless' });
    expect(await chooseStart({ binary, built: false, online: never, installer: installer(true), say })).toMatchObject({ mode: 'headless' });
    expect(fs.existsSync(binaryFile)).toBe(false);
  });
});

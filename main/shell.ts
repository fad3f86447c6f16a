// The desktop shell: one instance, one window. It starts the local service (the same server as
// headless, on a free loopback port, indexer processes as Electron utility processes), gives the
// window a key of its own through the preload, answers the few things a sandboxed page cannot do
// (native pickers that index files in place, reveal in folder), puts up the application menu,
// opens the window where it was left, and shuts everything down on quit.
import fs from 'node:fs';
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Menu, screen, shell, type IpcMainInvokeEvent } from 'electron';
import { loadConfig, type Config } from '../server/config.ts';
import { startServer, type RunningServer } from '../server/server.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { collectFiles } from '../server/media/collect.ts';
import { utilityLauncher } from './utility-launcher.ts';
import { guardNavigation, windowOptions } from './window.ts';
import { CHANNELS } from './channels.ts';
import { menuTemplate, toElectron, type MenuCommand } from './menu.ts';
import { placeable } from './window-state.ts';
import type { BridgeCall, DesktopBridge, PickResult } from '../server/contract/desktop.ts';

const WORKSPACE = 'default';
const SESSION_KEY_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface ShellOptions {
  preload: string;
  config?: Partial<Config>;
  /** Execution provider for models (cuda, dml, coreml, cpu); the default picks what is present. */
  device?: string;
  log?: (msg: string) => void;
}

export interface RunningShell {
  server: RunningServer;
  window: BrowserWindow;
  /** Runs a menu command (as its click does). */
  menu(command: MenuCommand): Promise<void>;
}

/**
 * Answers one bridge call. What the page sends is untrusted (`args` are checked by the handler);
 * what the handler returns is the call's declared result.
 */
function answer<K extends BridgeCall>(
  call: K,
  handler: (e: IpcMainInvokeEvent, ...args: unknown[]) => ReturnType<DesktopBridge[K]> | Awaited<ReturnType<DesktopBridge[K]>>,
): void {
  ipcMain.handle(CHANNELS[call], handler);
}

export async function runShell(opts: ShellOptions): Promise<RunningShell | null> {
  const log = opts.log ?? ((m: string) => console.error(m));
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  let win: BrowserWindow | null = null;
  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  await app.whenReady();

  const server = await startServer(loadConfig({ port: 0, ...opts.config }), { launch: utilityLauncher({ device: opts.device }), log });
  const auth = new AuthService(server.store);
  const session = auth.createKey({ workspace: WORKSPACE, scopes: ['read', 'write'], expiresInMs: SESSION_KEY_LIFETIME_MS, label: 'desktop window' });
  const workspaceId = session.workspace_id;
  const ours = (e: IpcMainInvokeEvent) => win !== null && e.sender === win.webContents && new URL(e.senderFrame?.url ?? 'about:blank').origin === server.url;

  const indexPaths = async (paths: string[]): Promise<PickResult> => {
    const { files, skipped } = collectFiles(paths);
    const result: PickResult = { accepted: [], refused: [...skipped] };
    for (const file of files) {
      try {
        result.accepted.push((await server.services.assets.ingestLocal(workspaceId, file, { pipeline: 'arrow' })).video_id);
      } catch (err) {
        result.refused.push({ path: file, reason: (err as Error).message });
      }
    }
    return result;
  };

  answer('session', (e) => (ours(e) ? { baseUrl: server.url, key: session.key } : null));
  answer('pickFiles', async (e) => {
    if (!ours(e) || !win) return null;
    const r = await dialog.showOpenDialog(win, { title: 'Index files', properties: ['openFile', 'multiSelections'] });
    return r.canceled ? { accepted: [], refused: [] } : indexPaths(r.filePaths);
  });
  answer('pickFolder', async (e) => {
    if (!ours(e) || !win) return null;
    const r = await dialog.showOpenDialog(win, { title: 'Index a folder', properties: ['openDirectory'] });
    return r.canceled ? { accepted: [], refused: [] } : indexPaths(r.filePaths);
  });
  answer('pickLibraryFolder', async (e) => {
    if (!ours(e) || !win) return null;
    const r = await dialog.showOpenDialog(win, { title: 'Add a library folder', properties: ['openDirectory'] });
    return r.canceled ? null : (r.filePaths[0] ?? null);
  });
  answer('pickModelSource', async (e, file) => {
    if (!ours(e) || !win) return null;
    const r = await dialog.showOpenDialog(win, { title: 'Import a model', properties: [file === true ? 'openFile' : 'openDirectory'] });
    return r.canceled ? null : (r.filePaths[0] ?? null);
  });
  answer('reveal', (e, videoId) => {
    if (!ours(e) || typeof videoId !== 'string') return false;
    let a;
    try {
      a = server.services.assets.owned(workspaceId, videoId, 'reveal it');
    } catch {
      return false;
    }
    shell.showItemInFolder(a.linked ? a.stored_path : path.join(server.store.files.root, a.stored_path));
    return true;
  });

  // The window where it was left (a display still showing it), and kept when it moves or closes.
  const stateFile = path.join(app.getPath('userData'), 'window-state.json');
  const savedState = () => {
    try {
      return JSON.parse(fs.readFileSync(stateFile, 'utf8')) as unknown;
    } catch {
      return null;
    }
  };
  const saved = placeable(
    savedState(),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  win = new BrowserWindow({ ...windowOptions(opts.preload), ...(saved?.bounds ?? {}) });
  if (saved?.maximized) win.maximize();
  const keepState = () => {
    if (!win || win.isMinimized()) return;
    try {
      fs.mkdirSync(path.dirname(stateFile), { recursive: true });
      fs.writeFileSync(stateFile, JSON.stringify({ bounds: win.getNormalBounds(), maximized: win.isMaximized() }));
    } catch (err) {
      log(`the window's place was not kept: ${(err as Error).message}`);
    }
  };
  let moved: ReturnType<typeof setTimeout> | null = null;
  const later = () => {
    if (moved) clearTimeout(moved);
    moved = setTimeout(keepState, 500);
  };
  win.on('resize', later);
  win.on('move', later);
  win.on('close', keepState);

  // The menu's commands: pickers run here; the page is told to go somewhere or show something.
  const inPage = (js: string) => void win?.webContents.executeJavaScript(js).catch(() => undefined);
  const added = () => inPage("window.dispatchEvent(new Event('media-index:added'))");
  const run = async (command: MenuCommand) => {
    if (!win) return;
    if (command === 'addFiles' || command === 'addFolder') {
      const r = await dialog.showOpenDialog(win, {
        title: command === 'addFiles' ? 'Index files' : 'Index a folder',
        properties: command === 'addFiles' ? ['openFile', 'multiSelections'] : ['openDirectory'],
      });
      if (!r.canceled) {
        await indexPaths(r.filePaths);
        added();
      }
    } else if (command === 'settings') inPage("window.location.hash = '#/settings'");
    else if (command === 'back') inPage('history.back()');
    else if (command === 'forward') inPage('history.forward()');
    else if (command === 'shortcuts') inPage("window.dispatchEvent(new Event('media-index:shortcuts'))");
  };
  Menu.setApplicationMenu(Menu.buildFromTemplate(toElectron(menuTemplate(process.platform), (c) => void run(c))));

  guardNavigation(win, server.url);
  win.once('ready-to-show', () => win?.show());
  win.on('closed', () => (win = null));
  app.on('window-all-closed', () => app.quit());

  let closed = false;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    closed = true;
    auth.revoke(session.id);
    for (const c of Object.values(CHANNELS)) ipcMain.removeHandler(c);
    void server.close().finally(() => app.quit());
  });

  await win.loadURL(`${server.url}/`);
  return { server, window: win, menu: run };
}

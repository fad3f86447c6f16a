// The desktop shell: one instance, one window. It starts the local service (the same server as
// headless, on a free loopback port, indexer processes as Electron utility processes), gives the
// window a key of its own through the preload, answers the few things a sandboxed page cannot do
// (native pickers that index files in place, reveal in folder) and shuts everything down on quit.
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent } from 'electron';
import { loadConfig, type Config } from '../server/config.ts';
import { startServer, type RunningServer } from '../server/server.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { collectFiles } from '../server/media/collect.ts';
import { utilityLauncher } from './utility-launcher.ts';
import { guardNavigation, windowOptions } from './window.ts';
import { CHANNELS } from './channels.ts';
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

  win = new BrowserWindow(windowOptions(opts.preload));
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
  return { server, window: win };
}

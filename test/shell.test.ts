// The desktop shell's process management with Electron replaced by a stand-in (its binary cannot be
// installed here); the server, store and indexer host behind it are the real ones.
import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { tempDir } from './helpers/server.ts';
import { openDatabase } from '../server/store/db.ts';

const fake = vi.hoisted(() => {
  // The fakes below are created when the mocked module loads; until then they are typed placeholders.
  const state = {
    lock: true,
    windows: [] as Array<{
      options: Record<string, unknown>;
      webContents: EventEmitter & { openHandler?: (d: { url: string }) => unknown };
      loadURL: Mock<(...args: unknown[]) => unknown>;
      bounds: { x: number; y: number; width: number; height: number };
      emit(event: string): boolean;
    }>,
    handlers: new Map<string, (...args: unknown[]) => unknown>(),
    children: [] as Array<EventEmitter & { pid: number; sent: unknown[]; modulePath: string; options: Record<string, unknown> }>,
    quit: null as unknown as Mock<(...args: unknown[]) => unknown>,
    app: null as unknown as EventEmitter,
    openExternal: null as unknown as Mock<(...args: unknown[]) => unknown>,
    showItemInFolder: null as unknown as Mock<(...args: unknown[]) => unknown>,
    showOpenDialog: null as unknown as Mock<(...args: unknown[]) => unknown>,
    userData: '',
    menu: null as unknown,
    scripts: [] as string[],
  };
  return state;
});

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const app = Object.assign(new Emitter(), {
    requestSingleInstanceLock: () => fake.lock,
    whenReady: async () => {},
    quit: (...a: unknown[]) => fake.quit(...a),
    exit: () => {},
    commandLine: { getSwitchValue: () => '' },
    getPath: () => fake.userData,
  });
  fake.app = app;
  class BrowserWindow extends Emitter {
    webContents: EventEmitter & { openHandler?: (d: { url: string }) => unknown; setWindowOpenHandler: (fn: (d: { url: string }) => unknown) => void };
    loadURL = vi.fn(async () => {});
    constructor(readonly options: Record<string, unknown>) {
      super();
      const wc = new Emitter() as BrowserWindow['webContents'];
      wc.setWindowOpenHandler = (fn) => (wc.openHandler = fn);
      Object.assign(wc, { executeJavaScript: async (js: string) => void fake.scripts.push(js) });
      this.webContents = wc;
      const o = options as { x?: number; y?: number; width: number; height: number };
      this.bounds = { x: o.x ?? 0, y: o.y ?? 0, width: o.width, height: o.height };
      fake.windows.push(this as never);
    }
    bounds = { x: 0, y: 0, width: 0, height: 0 };
    show() {}
    maximize() {}
    isMaximized() {
      return false;
    }
    getNormalBounds() {
      return this.bounds;
    }
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
  }
  let pid = 1000;
  return {
    app,
    BrowserWindow,
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: (m: unknown) => (fake.menu = m) },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1040 } }] },
    ipcMain: {
      handle: (ch: string, fn: (...a: unknown[]) => unknown) => fake.handlers.set(ch, fn),
      removeHandler: (ch: string) => fake.handlers.delete(ch),
    },
    dialog: { showOpenDialog: (...a: unknown[]) => fake.showOpenDialog(...a), showErrorBox: () => {} },
    shell: { openExternal: (...a: unknown[]) => fake.openExternal(...a), showItemInFolder: (...a: unknown[]) => fake.showItemInFolder(...a) },
    utilityProcess: {
      fork: (modulePath: string, _args: string[], options: Record<string, unknown>) => {
        const child = Object.assign(new Emitter(), { pid: pid++, sent: [] as unknown[], modulePath, options });
        Object.assign(child, {
          postMessage: (m: unknown) => child.sent.push(m),
          kill: () => setImmediate(() => child.emit('exit', 0)),
        });
        fake.children.push(child);
        return child;
      },
    },
  };
});

const { runShell } = await import('../main/shell.ts');
const { CHANNELS } = await import('../main/channels.ts');
const CORPUS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/corpus');

describe('desktop shell', () => {
  let data: string;
  let running: Awaited<ReturnType<typeof runShell>>;
  beforeEach(() => {
    data = tempDir('mi-shell-');
    fake.lock = true;
    fake.windows = [];
    fake.handlers = new Map();
    fake.children = [];
    fake.quit = vi.fn();
    fake.openExternal = vi.fn(async () => {});
    fake.showItemInFolder = vi.fn();
    fake.showOpenDialog = vi.fn();
    fake.app.removeAllListeners();
    fake.userData = data;
    fake.menu = null;
    fake.scripts = [];
    running = null;
  });
  afterEach(async () => {
    await running?.server.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  const start = (device?: string) => runShell({ preload: '/app/dist/shell/preload.cjs', config: { dataDir: data, workers: 1 }, device, log: () => {} });
  const fromWindow = (url: string) => ({ sender: fake.windows[0].webContents, senderFrame: { url } });

  it('leaves a second instance to the first one', async () => {
    fake.lock = false;
    expect(await start()).toBeNull();
    expect(fake.quit).toHaveBeenCalled();
    expect(fake.windows).toHaveLength(0);
    expect(fake.children).toHaveLength(0);
  });

  it('opens one isolated, sandboxed window on the local server and gives only that page its key', async () => {
    running = await start();
    const { server } = running!;
    expect(fake.windows).toHaveLength(1);
    const prefs = fake.windows[0].options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ preload: '/app/dist/shell/preload.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(fake.windows[0].loadURL).toHaveBeenCalledWith(`${server.url}/`);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const session = (await fake.handlers.get(CHANNELS.session)!(fromWindow(`${server.url}/#/library`))) as { baseUrl: string; key: string };
    expect(session.baseUrl).toBe(server.url);
    const r = await fetch(`${session.baseUrl}/api/v1/videos`, { headers: { 'X-API-Key': session.key } });
    expect(r.status).toBe(200);
    expect(await fake.handlers.get(CHANNELS.session)!(fromWindow('https://evil.example/'))).toBeNull();
    expect(await fake.handlers.get(CHANNELS.session)!({ sender: new EventEmitter(), senderFrame: { url: `${server.url}/` } })).toBeNull();
  });

  it('keeps the window on the server: other sites open in the browser, new windows are refused', async () => {
    running = await start();
    const wc = fake.windows[0].webContents;
    const away = { preventDefault: vi.fn() };
    wc.emit('will-navigate', away, 'https://example.com/phish');
    expect(away.preventDefault).toHaveBeenCalled();
    expect(fake.openExternal).toHaveBeenCalledWith('https://example.com/phish');
    const inside = { preventDefault: vi.fn() };
    wc.emit('will-navigate', inside, `${running!.server.url}/#/people`);
    expect(inside.preventDefault).not.toHaveBeenCalled();
    expect(wc.openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(fake.openExternal).toHaveBeenCalledTimes(1);
  });

  it('runs indexers as utility processes with the chosen execution provider once there is work, and restarts one that dies', async () => {
    running = await start('cuda');
    // No indexer process while there is nothing to index; a picked file starts one.
    expect(fake.children).toHaveLength(0);
    fake.showOpenDialog.mockResolvedValue({ canceled: false, filePaths: [path.join(CORPUS, 'scenes/skimage/chelsea.png')] });
    await fake.handlers.get(CHANNELS.pickFiles)!(fromWindow(`${running!.server.url}/`));
    for (const until = Date.now() + 5000; fake.children.length < 1 && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
    expect(fake.children).toHaveLength(1);
    const first = fake.children[0];
    expect(first.modulePath).toMatch(/server[\\/]indexer[\\/]worker\.ts$/);
    // The sources through tsx, with the indexer's small young generation, its collector on its own
    // thread and WebAssembly compiled again only where it runs long (launcher.ts WORKER_EXEC_ARGV).
    expect(first.options.execArgv).toEqual([
      '--max-semi-space-size=4',
      '--single-threaded-gc',
      '--wasm-tiering-budget=90000000',
      '--import',
      expect.stringContaining('tsx'),
    ]);
    expect((first.options.env as Record<string, string>).MEDIA_INDEX_DEVICE).toBe('cuda');
    first.emit('exit', 1);
    const deadline = Date.now() + 5000;
    while (fake.children.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fake.children).toHaveLength(2);
  });

  it('indexes picked files in place, lists what it refused, and reveals an original in its folder', async () => {
    running = await start();
    const odd = path.join(data, 'notes.xyz');
    fs.writeFileSync(odd, 'x');
    const photo = path.join(CORPUS, 'scenes/skimage/chelsea.png');
    fake.showOpenDialog.mockResolvedValue({ canceled: false, filePaths: [photo, odd] });
    const r = (await fake.handlers.get(CHANNELS.pickFiles)!(fromWindow(`${running!.server.url}/`))) as {
      accepted: string[];
      refused: Array<{ path: string; reason: string }>;
    };
    expect(r.accepted).toHaveLength(1);
    expect(r.refused).toEqual([{ path: odd, reason: 'not a supported type' }]);
    const asset = running!.server.store.assets.byId(r.accepted[0])!;
    expect(asset).toMatchObject({ linked: 1, stored_path: photo, file_name: 'chelsea.png' });
    expect(await fake.handlers.get(CHANNELS.reveal)!(fromWindow(`${running!.server.url}/`), r.accepted[0])).toBe(true);
    expect(fake.showItemInFolder).toHaveBeenCalledWith(photo);
    expect(await fake.handlers.get(CHANNELS.reveal)!(fromWindow(`${running!.server.url}/`), 'vid_nope')).toBe(false);
  });

  it('picks a library folder for the page (which adds it over the API); cancelled or foreign asks get null', async () => {
    running = await start();
    fake.showOpenDialog.mockResolvedValue({ canceled: false, filePaths: [data] });
    expect(await fake.handlers.get(CHANNELS.pickLibraryFolder)!(fromWindow(`${running!.server.url}/`))).toBe(data);
    expect(fake.showOpenDialog).toHaveBeenLastCalledWith(expect.anything(), expect.objectContaining({ properties: ['openDirectory'] }));
    fake.showOpenDialog.mockResolvedValue({ canceled: true, filePaths: [] });
    expect(await fake.handlers.get(CHANNELS.pickLibraryFolder)!(fromWindow(`${running!.server.url}/`))).toBeNull();
    expect(await fake.handlers.get(CHANNELS.pickLibraryFolder)!(fromWindow('https://evil.example/'))).toBeNull();
  });

  it('puts up the menu: its commands pick and index files, go to settings, back and forward, show the shortcuts', async () => {
    running = await start();
    const menu = fake.menu as Array<{ label?: string; role?: string; submenu?: Array<{ label?: string; click?: () => void }> }>;
    expect(menu.map((m) => m.label ?? m.role)).toEqual(expect.arrayContaining(['File', 'View', 'help']));
    const file = path.join(CORPUS, 'scenes/skimage/coffee.png');
    fake.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [file] });
    await running!.menu('addFiles');
    expect((fake.showOpenDialog.mock.calls[0][1] as { properties: string[] }).properties).toContain('openFile');
    const indexed = running!.server.store.db.prepare('SELECT COUNT(*) AS n FROM assets WHERE stored_path = ?').get(file) as { n: number };
    expect(indexed.n).toBe(1);
    for (const c of ['settings', 'back', 'forward', 'shortcuts'] as const) await running!.menu(c);
    expect(fake.scripts).toEqual([
      "window.dispatchEvent(new Event('media-index:added'))",
      "window.location.hash = '#/settings'",
      'history.back()',
      'history.forward()',
      "window.dispatchEvent(new Event('media-index:shortcuts'))",
    ]);
  });

  it('opens the window where it was left', async () => {
    running = await start();
    const win = fake.windows[0];
    expect(win.bounds).toMatchObject({ width: 1280, height: 800 });
    win.bounds = { x: 200, y: 120, width: 1500, height: 950 };
    win.emit('close');
    await running!.server.close();
    fake.windows = [];
    fake.app.removeAllListeners();
    running = await start();
    expect(fake.windows[0].bounds).toEqual({ x: 200, y: 120, width: 1500, height: 950 });
  });

  it('on quit revokes the window key, stops the server and the indexers, then quits', async () => {
    running = await start();
    const { server } = running!;
    const session = (await fake.handlers.get(CHANNELS.session)!(fromWindow(`${server.url}/`))) as { key: string };
    const event = { preventDefault: vi.fn() };
    fake.app.emit('before-quit', event);
    expect(event.preventDefault).toHaveBeenCalled();
    const deadline = Date.now() + 5000;
    while (fake.quit.mock.calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(fake.quit).toHaveBeenCalled();
    await expect(fetch(`${server.url}/api/v1/health`)).rejects.toThrow();
    const db = openDatabase(path.join(data, 'media-index.sqlite'));
    const keyId = `key_${session.key.split('_')[1]}`;
    expect((db.prepare('SELECT revoked_at FROM api_keys WHERE id = ?').get(keyId) as { revoked_at: number | null }).revoked_at).not.toBeNull();
    db.close();
    expect(fake.handlers.size).toBe(0);
    running = null;
  });
});

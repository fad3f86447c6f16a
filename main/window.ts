// The one window: renderer isolated from Node (context isolation, sandbox, no node integration),
// allowed to show only the local server's pages; links elsewhere open in the user's browser.
import { shell, type BrowserWindow, type BrowserWindowConstructorOptions } from 'electron';

export function windowOptions(preload: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: 1024,
    minHeight: 700,
    title: 'Media Index',
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  };
}

/** Keeps the window on the local server; everything else goes to the system browser (http/https only). */
export function guardNavigation(win: BrowserWindow, serverOrigin: string): void {
  const external = (url: string) => {
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
  };
  win.webContents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== serverOrigin) {
      event.preventDefault();
      external(url);
    }
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    external(url);
    return { action: 'deny' };
  });
}

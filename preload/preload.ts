// The page's only door to the shell (context isolation on, sandboxed): the server's address and
// the window's key, native pickers that index files in place, reveal in folder. Nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNELS } from '../main/channels.ts';
import type { DesktopBridge } from '../server/contract/desktop.ts';

const bridge: DesktopBridge = {
  session: () => ipcRenderer.invoke(CHANNELS.session),
  pickFiles: () => ipcRenderer.invoke(CHANNELS.pickFiles),
  pickFolder: () => ipcRenderer.invoke(CHANNELS.pickFolder),
  pickLibraryFolder: () => ipcRenderer.invoke(CHANNELS.pickLibraryFolder),
  pickModelSource: (file) => ipcRenderer.invoke(CHANNELS.pickModelSource, Boolean(file)),
  reveal: (videoId) => ipcRenderer.invoke(CHANNELS.reveal, String(videoId)),
};

contextBridge.exposeInMainWorld('mediaIndex', bridge);

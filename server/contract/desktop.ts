// The desktop bridge: the whole surface the sandboxed page can reach in the shell, declared once.
// The preload (preload/) exposes it as `window.mediaIndex`, the shell (main/) answers it over IPC,
// and the renderer calls it when present. Types only: no code runs from here.

/** What a picker did: files indexed in place (their ids), and those refused with why. */
export interface PickResult {
  accepted: string[];
  refused: Array<{ path: string; reason: string }>;
}

/** The local service's address and the window's own key. */
export interface DesktopSession {
  baseUrl: string;
  key: string;
}

export interface DesktopBridge {
  /** Null when asked by anything but the app's own page. */
  session(): Promise<DesktopSession | null>;
  /** Native file picker; the files picked are indexed in place. Null when refused. */
  pickFiles(): Promise<PickResult | null>;
  /** Native folder picker; every supported file below it is indexed in place. Null when refused. */
  pickFolder(): Promise<PickResult | null>;
  /** Native folder picker for a library: the folder's path (the page then adds it over the API), or null. */
  pickLibraryFolder(): Promise<string | null>;
  /** Native picker for a model to import (a folder, or a single file when `file`): its path, or null. */
  pickModelSource(file: boolean): Promise<string | null>;
  /** Shows the original of an owned asset in the system file manager. */
  reveal(videoId: string): Promise<boolean>;
}

export type BridgeCall = keyof DesktopBridge;

// The desktop window's application menu, as plain data: File (add files, add a folder, settings),
// View (back and forward, zoom, full screen), Help (keyboard shortcuts), and the platform's own
// Edit and Window menus. `toElectron` turns it into Electron's template, each command a click.
import type { MenuItemConstructorOptions } from 'electron';

export type MenuCommand = 'addFiles' | 'addFolder' | 'settings' | 'back' | 'forward' | 'shortcuts';

export interface MenuEntry {
  label?: string;
  command?: MenuCommand;
  role?: MenuItemConstructorOptions['role'];
  accelerator?: string;
  type?: 'separator';
  /** Not shown, its accelerator still works (macOS): a second key for the same command. */
  hidden?: true;
  submenu?: MenuEntry[];
}

const SEP: MenuEntry = { type: 'separator' };

export function menuTemplate(platform: NodeJS.Platform): MenuEntry[] {
  const mac = platform === 'darwin';
  // Back and forward: Cmd+[ ] on macOS (Alt+← → too), Alt+← → elsewhere.
  const history: MenuEntry[] = mac
    ? [
        { label: 'Back', command: 'back', accelerator: 'Cmd+[' },
        { label: 'Forward', command: 'forward', accelerator: 'Cmd+]' },
        { label: 'Back', command: 'back', accelerator: 'Alt+Left', hidden: true },
        { label: 'Forward', command: 'forward', accelerator: 'Alt+Right', hidden: true },
      ]
    : [
        { label: 'Back', command: 'back', accelerator: 'Alt+Left' },
        { label: 'Forward', command: 'forward', accelerator: 'Alt+Right' },
      ];
  return [
    ...(mac ? [{ role: 'appMenu' } as MenuEntry] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Add Files…', command: 'addFiles', accelerator: 'CmdOrCtrl+O' },
        { label: 'Add a Folder…', command: 'addFolder', accelerator: 'CmdOrCtrl+Shift+O' },
        SEP,
        { label: 'Settings', command: 'settings', accelerator: 'CmdOrCtrl+,' },
        ...(mac ? [] : [SEP, { role: 'quit' } as MenuEntry]),
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [...history, SEP, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, SEP, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ label: 'Keyboard Shortcuts', command: 'shortcuts', accelerator: '?' }] },
  ];
}

/** Electron's template of the menu, each command calling `run`. */
export function toElectron(entries: MenuEntry[], run: (command: MenuCommand) => void): MenuItemConstructorOptions[] {
  return entries.map((e) => {
    const item: MenuItemConstructorOptions = {};
    if (e.label) item.label = e.label;
    if (e.role) item.role = e.role;
    if (e.type) item.type = e.type;
    if (e.accelerator) item.accelerator = e.accelerator;
    if (e.hidden) Object.assign(item, { visible: false, acceleratorWorksWhenHidden: true });
    if (e.command) {
      const command = e.command;
      item.click = () => run(command);
    }
    if (e.submenu) item.submenu = toElectron(e.submenu, run);
    return item;
  });
}

import { describe, expect, it } from 'vitest';
import { menuTemplate, toElectron, type MenuCommand, type MenuEntry } from './menu.ts';
import { placeable } from './window-state.ts';

const find = (entries: MenuEntry[], label: string) => entries.find((e) => e.label === label);
const commands = (entries: MenuEntry[]): Array<[MenuCommand, string | undefined, boolean]> =>
  entries.flatMap((e) => [
    ...(e.command ? [[e.command, e.accelerator, Boolean(e.hidden)] as [MenuCommand, string | undefined, boolean]] : []),
    ...commands(e.submenu ?? []),
  ]);

describe('the application menu', () => {
  it('has File (add files, add a folder, settings), View (back, forward, zoom, full screen) and Help (shortcuts)', () => {
    const menu = menuTemplate('linux');
    expect(
      find(menu, 'File')!
        .submenu!.filter((e) => e.command)
        .map((e) => e.command),
    ).toEqual(['addFiles', 'addFolder', 'settings']);
    const view = find(menu, 'View')!.submenu!;
    expect(view.filter((e) => e.role).map((e) => e.role)).toEqual(['resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen']);
    expect(commands(menu)).toContainEqual(['back', 'Alt+Left', false]);
    expect(commands(menu)).toContainEqual(['forward', 'Alt+Right', false]);
    expect(menu.find((e) => e.role === 'help')!.submenu).toEqual([{ label: 'Keyboard Shortcuts', command: 'shortcuts', accelerator: '?' }]);
    expect(menu.some((e) => e.role === 'appMenu')).toBe(false);
  });

  it('on macOS: the app menu, Cmd+[ and Cmd+] for back and forward, Alt+arrows too', () => {
    const menu = menuTemplate('darwin');
    expect(menu[0].role).toBe('appMenu');
    expect(commands(menu)).toEqual(
      expect.arrayContaining([
        ['back', 'Cmd+[', false],
        ['forward', 'Cmd+]', false],
        ['back', 'Alt+Left', true],
        ['forward', 'Alt+Right', true],
      ]),
    );
  });

  it("becomes Electron's template, each command a click", () => {
    const ran: MenuCommand[] = [];
    const items = toElectron(menuTemplate('darwin'), (c) => ran.push(c));
    const view = items.find((i) => i.label === 'View')!.submenu as Array<{
      label?: string;
      click?: () => void;
      visible?: boolean;
      acceleratorWorksWhenHidden?: boolean;
    }>;
    view.find((i) => i.label === 'Forward')!.click!();
    const hidden = view.filter((i) => i.visible === false);
    expect(hidden.every((i) => i.acceleratorWorksWhenHidden)).toBe(true);
    hidden[0].click!();
    expect(ran).toEqual(['forward', 'back']);
  });
});

describe('the window where it was left', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1040 }];
  it('opens at the saved place and size when a display shows it', () => {
    expect(placeable({ bounds: { x: 100, y: 80, width: 1400, height: 900 }, maximized: true }, screen)).toEqual({
      bounds: { x: 100, y: 80, width: 1400, height: 900 },
      maximized: true,
    });
  });
  it('forgets a place no display shows any more (a monitor unplugged), and nonsense', () => {
    expect(placeable({ bounds: { x: 2500, y: 80, width: 1400, height: 900 } }, screen)).toBeNull();
    expect(placeable({ bounds: { x: 1880, y: 80, width: 1400, height: 900 } }, screen)).toBeNull();
    expect(placeable({ bounds: { x: 0, y: 0, width: 50, height: 900 } }, screen)).toBeNull();
    expect(placeable({ bounds: { x: 'a' } }, screen)).toBeNull();
    expect(placeable(null, screen)).toBeNull();
  });
});

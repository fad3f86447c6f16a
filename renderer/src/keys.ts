// What the app's keyboard shortcuts leave alone: keys typed into a text field, a list box or a dialog.
import { useEffect, type RefObject } from 'react';

// A closed <dialog> still on the page (until its close event is handled) is not one: its button may hold the keyboard for a moment.
export const TEXT_ENTRY = 'input:not([type=checkbox]):not([type=radio]), textarea, select, [role=dialog], dialog[open]';

/** Whether a key went to a field or a dialog (which have keys of their own). */
export const typing = (target: EventTarget | null): boolean => Boolean((target as Element | null)?.closest?.(TEXT_ENTRY));

/** Closes a popover (a menu, a panel) on a press outside `box`, on Esc (which then goes no further) or when the screen changes. */
export function useDismiss(open: boolean, box: RefObject<HTMLElement | null>, close: () => void): void {
  useEffect(() => {
    if (!open) return;
    const away = (e: PointerEvent) => !box.current?.contains(e.target as Node) && close();
    const esc = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      close();
    };
    window.addEventListener('pointerdown', away);
    window.addEventListener('keydown', esc, true);
    // Another screen (a link followed, the back button): what was open over the last one closes.
    window.addEventListener('hashchange', close);
    return () => {
      window.removeEventListener('pointerdown', away);
      window.removeEventListener('keydown', esc, true);
      window.removeEventListener('hashchange', close);
    };
  }, [open, box, close]);
}

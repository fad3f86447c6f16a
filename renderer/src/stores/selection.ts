// Selecting in a grid of faces, as photo tools do: a click toggles one, Shift-click selects the
// range from the last one clicked, Ctrl/Cmd-A all, Esc none. Pure, over the grid's order of ids.
export interface Selection {
  ids: string[];
  /** Where a Shift-range starts (the last item toggled). */
  anchor: string | null;
}

export const NONE: Selection = { ids: [], anchor: null };

export function pick(order: readonly string[], sel: Selection, id: string, range: boolean): Selection {
  if (range && sel.anchor && order.includes(sel.anchor)) {
    const [a, b] = [order.indexOf(sel.anchor), order.indexOf(id)].sort((x, y) => x - y);
    const span = order.slice(a, b + 1);
    return { ids: [...new Set([...sel.ids, ...span])], anchor: id };
  }
  return { ids: sel.ids.includes(id) ? sel.ids.filter((x) => x !== id) : [...sel.ids, id], anchor: id };
}

export const all = (order: readonly string[]): Selection => ({ ids: [...order], anchor: order.at(-1) ?? null });

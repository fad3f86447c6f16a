// Search engines (SPEC 2.9, 4.4): arrow is current; classic and the legacy tiers are deprecated.
import type { Store } from '../store/index.ts';
import { ENGINE_NAMES } from '../contract/index-options.ts';
import type { z } from 'zod';
import type { EnginesView } from '../contract/index-options.ts';

export class EnginesService {
  constructor(private readonly store: Store) {}

  list(workspaceId: string): z.infer<typeof EnginesView> {
    const def = this.store.workspaces.defaultEngine(workspaceId);
    return {
      engines: ENGINE_NAMES.map((name) => ({
        name,
        status: name === 'arrow' ? ('current' as const) : ('deprecated' as const),
        is_default: name === def,
      })),
      default: def,
    };
  }
}

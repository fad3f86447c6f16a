// GET /workspaces (SPEC 4.4, 5.7): the workspaces a key reaches.
import { z } from 'zod';

export const WorkspaceView = z.object({
  workspace_id: z.string(),
  name: z.string(),
  /** The key's own workspace: where its writes go and what its calls read by default. */
  own: z.boolean(),
  /** Whether the key may write there (its own workspace, with the write scope, not read-only). */
  may_write: z.boolean(),
  /** A read-only demo workspace: read and searched by its keys, every write refused (403). */
  read_only: z.boolean(),
  /** Assets indexed there (not deleted). */
  asset_count: z.number().int(),
});

export const WorkspacesView = z.object({ workspaces: z.array(WorkspaceView) });

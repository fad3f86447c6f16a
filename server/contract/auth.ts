// Who is asking: what a verified API key gives every layer that checks access (services, the
// search's filter resolution, routes), declared once.

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

export interface AuthContext {
  keyId: string;
  workspaceId: string;
  scopes: ReadonlySet<Scope>;
  /** Workspaces this key may search besides its own. */
  access: readonly string[];
  /** The key's workspace is a read-only demo workspace: every write is refused, whatever the scopes. */
  readOnly: boolean;
}

// API keys (SPEC 5): created for one workspace with scopes, an optional expiry and a list of other
// workspaces it may search (federated, read only). Only a SHA-256 of the secret is stored: keys carry
// 256 random bits, so a fast hash is as safe as a slow one and keeps every request cheap.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/index.ts';
import { clock, iso, newId } from '../store/ids.ts';
import type { KeyRow } from '../store/keys.repo.ts';
import { AppError, Errors } from '../errors.ts';
import { SCOPES, type AuthContext, type Scope } from '../contract/auth.ts';

export const KEY_PREFIX = 'mi_';

const KEY_PATTERN = /^mi_([0-9a-z]{20})_([A-Za-z0-9_-]{43})$/;

export interface CreatedKey {
  id: string;
  key: string;
  workspace_id: string;
  workspace: string;
  scopes: Scope[];
  access: string[];
  expires_at: number | null;
  workspace_created: boolean;
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** "30d", "12h", "90m", "3600s" or "2w" to milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (!m) throw new AppError('invalid_duration', 422, `Cannot read duration "${text}"; use e.g. 30d, 12h, 90m.`);
  const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  const ms = Number(m[1]) * unit;
  if (ms <= 0) throw new AppError('invalid_duration', 422, 'The duration must be positive.');
  return ms;
}

export function parseScopes(text: string): Scope[] {
  const parts = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (parts.length === 0 || parts.some((p) => !(SCOPES as readonly string[]).includes(p))) {
    throw new AppError('invalid_scopes', 422, `Scopes are "read" or "read,write"; got "${text}".`);
  }
  if (parts.includes('write') && !parts.includes('read')) parts.push('read');
  return SCOPES.filter((s) => parts.includes(s));
}

export class AuthService {
  constructor(private readonly store: Store) {}

  createKey(input: { workspace: string; scopes: Scope[]; expiresInMs?: number | null; access?: string[]; label?: string | null }): CreatedKey {
    const name = input.workspace.trim();
    if (!/^[\w.-]{1,64}$/.test(name)) {
      throw new AppError('invalid_workspace', 422, 'Workspace names are 1-64 letters, digits, ".", "_" or "-".');
    }
    return this.store.transaction(() => {
      const { row: ws, created } = this.store.workspaces.ensure(name);
      const access = (input.access ?? []).map((other) => {
        const w = this.store.workspaces.byName(other.trim());
        if (!w) throw new AppError('unknown_workspace', 422, `No workspace named "${other}".`);
        return w.id;
      });
      const id = newId('key');
      const secret = randomBytes(32).toString('base64url');
      const now = clock.now();
      const expiresAt = input.expiresInMs ? now + input.expiresInMs : null;
      this.store.keys.insert({
        id,
        workspace_id: ws.id,
        secret_hash: hashSecret(secret),
        scopes: input.scopes.join(','),
        access: JSON.stringify(access.filter((a) => a !== ws.id)),
        label: input.label ?? null,
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
        last_used_at: null,
      });
      return {
        id,
        key: `${KEY_PREFIX}${id.slice('key_'.length)}_${secret}`,
        workspace_id: ws.id,
        workspace: ws.name,
        scopes: input.scopes,
        access: input.access ?? [],
        expires_at: expiresAt,
        workspace_created: created,
      };
    });
  }

  /** Resolves a presented key, or throws 401 with a reason that reveals nothing about other keys. */
  verify(presented: string | undefined): AuthContext {
    if (!presented) throw Errors.unauthorized();
    const m = KEY_PATTERN.exec(presented.trim());
    if (!m) throw Errors.unauthorized('The API key is not valid.');
    const row = this.store.keys.byId(`key_${m[1]}`);
    const given = Buffer.from(hashSecret(m[2]), 'hex');
    const expected = Buffer.from(row?.secret_hash ?? '0'.repeat(64), 'hex');
    if (!row || !timingSafeEqual(given, expected)) throw Errors.unauthorized('The API key is not valid.');
    if (row.revoked_at !== null) throw Errors.unauthorized('The API key has been revoked.');
    const now = clock.now();
    if (row.expires_at !== null && row.expires_at <= now) throw Errors.unauthorized('The API key has expired.');
    if (row.last_used_at === null || now - row.last_used_at > 60_000) {
      // Best effort: a database held by another program (or a full disk) must not turn every read away.
      try {
        this.store.keys.touch(row.id, now);
      } catch {
        /* noted on a later call */
      }
    }
    return {
      keyId: row.id,
      workspaceId: row.workspace_id,
      scopes: new Set(row.scopes.split(',') as Scope[]),
      access: JSON.parse(row.access) as string[],
      readOnly: this.store.workspaces.byId(row.workspace_id)?.read_only === 1,
    };
  }

  /** The keys of the caller's workspace, without secrets. */
  keysOf(auth: AuthContext) {
    return this.store.keys.ofWorkspace(auth.workspaceId).map((k) => ({
      key_id: k.id,
      label: k.label,
      scopes: k.scopes.split(',') as Scope[],
      created_at: iso(k.created_at) as string,
      expires_at: iso(k.expires_at),
      revoked_at: iso(k.revoked_at),
      last_used_at: iso(k.last_used_at),
      current: k.id === auth.keyId,
    }));
  }

  /** A new key of the caller's workspace, with no scope the caller lacks and no federated access. */
  createOwnKey(auth: AuthContext, body: { label?: string; scopes: Scope[]; expires_in?: string }) {
    const missing = body.scopes.filter((s) => !auth.scopes.has(s));
    if (missing.length) throw Errors.forbidden(`This key cannot give the scope ${missing.join(', ')}.`);
    const scopes = [...new Set<Scope>(['read', ...body.scopes])];
    const ws = this.store.workspaces.byId(auth.workspaceId);
    if (!ws) throw Errors.notFound('Workspace');
    const k = this.createKey({ workspace: ws.name, scopes, expiresInMs: body.expires_in ? parseDuration(body.expires_in) : null, label: body.label ?? null });
    const row = this.store.keys.byId(k.id) as KeyRow;
    return { key_id: k.id, key: k.key, label: row.label, scopes, created_at: iso(row.created_at) as string, expires_at: iso(row.expires_at) };
  }

  /** Revokes a key of the caller's workspace (another workspace's id is not found). */
  revokeOwnKey(auth: AuthContext, id: string): { key_id: string; revoked: true } {
    const row = this.store.keys.byId(id);
    if (!row || row.workspace_id !== auth.workspaceId) throw Errors.notFound('Key');
    this.store.keys.revoke(id, clock.now());
    return { key_id: id, revoked: true };
  }

  revoke(id: string): boolean {
    return this.store.keys.revoke(id, clock.now());
  }

  list() {
    return this.store.keys.list().map((k) => ({
      id: k.id,
      workspace: k.workspace_name,
      scopes: k.scopes,
      created_at: k.created_at,
      expires_at: k.expires_at,
      revoked_at: k.revoked_at,
      last_used_at: k.last_used_at,
      access: (JSON.parse(k.access) as string[]).map((id) => this.store.workspaces.byId(id)?.name ?? id),
    }));
  }
}

// First start: a data folder without any key gets a workspace "default" and a read,write key,
// written to first-api-key.txt (owner-only) because the plaintext is never stored anywhere else.
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../store/index.ts';
import { AuthService } from './auth.service.ts';

export const FIRST_KEY_FILE = 'first-api-key.txt';

export function ensureFirstKey(store: Store, dataDir: string): { path: string; created: boolean } {
  const file = path.join(dataDir, FIRST_KEY_FILE);
  if (store.keys.count() > 0) return { path: file, created: false };
  const created = new AuthService(store).createKey({ workspace: 'default', scopes: ['read', 'write'] });
  fs.writeFileSync(
    file,
    [
      '# Media Index: the first API key (workspace "default", scopes read,write).',
      '# Send it as X-API-Key or Authorization: Bearer. It is shown only here; delete this file once saved.',
      created.key,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return { path: file, created: true };
}

// `media-index keys create|list|revoke`: API keys, on the data folder itself.
import type { Command } from 'commander';
import { parseDuration, parseScopes } from '../services/auth.service.ts';
import { dataOption, fail, withServices } from './shared.ts';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys');

  keys
    .command('create')
    .description('create a key; prints the plaintext once, as the last line')
    .addOption(dataOption())
    .requiredOption('--workspace <name>', 'workspace the key is bound to (created if new)')
    .requiredOption('--scopes <scopes>', '"read" or "read,write"')
    .option('--expires-in <duration>', 'e.g. 30d, 12h')
    .option('--access <workspaces>', 'other workspaces this key may search (read only), comma-separated')
    .option('--label <text>', 'a note to recognise the key by')
    .action((opts: { data?: string; workspace: string; scopes: string; expiresIn?: string; access?: string; label?: string }) => {
      return withServices(opts.data, (s) => {
        const created = s.auth.createKey({
          workspace: opts.workspace,
          scopes: parseScopes(opts.scopes),
          expiresInMs: opts.expiresIn ? parseDuration(opts.expiresIn) : null,
          access: opts.access
            ? opts.access
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean)
            : [],
          label: opts.label ?? null,
        });
        if (created.workspace_created) process.stdout.write(`created workspace ${created.workspace}\n`);
        process.stdout.write(
          `key ${created.id} for workspace ${created.workspace}, scopes ${created.scopes.join(',')}` +
            `${created.expires_at ? `, expires ${new Date(created.expires_at).toISOString()}` : ''}` +
            `${created.access.length ? `, may also search ${created.access.join(',')}` : ''}\n`,
        );
        process.stdout.write(`${created.key}\n`);
      });
    });

  keys
    .command('list')
    .description('list keys (never their secrets)')
    .addOption(dataOption())
    .option('--json', 'print JSON')
    .action((opts: { data?: string; json?: boolean }) => {
      return withServices(opts.data, (s) => {
        const list = s.auth.list();
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        const now = Date.now();
        for (const k of list) {
          const state = k.revoked_at ? 'revoked' : k.expires_at && k.expires_at <= now ? 'expired' : 'active';
          process.stdout.write(
            `${k.id}  ${k.workspace}  ${k.scopes}  ${state}` +
              `${k.expires_at ? `  expires ${new Date(k.expires_at).toISOString()}` : ''}` +
              `${k.access.length ? `  access ${k.access.join(',')}` : ''}\n`,
          );
        }
        if (list.length === 0) process.stdout.write('no keys\n');
      });
    });

  keys
    .command('revoke <id>')
    .description('revoke a key at once')
    .addOption(dataOption())
    .action((id: string, opts: { data?: string }) => {
      return withServices(opts.data, (s) => {
        if (!s.auth.revoke(id)) fail(`no active key ${id}`);
        process.stdout.write(`revoked ${id}\n`);
      });
    });
}

// `media-index serve`: the local API in the foreground until SIGTERM or SIGINT.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { startServer } from '../server.ts';
import { ensureFirstKey } from '../services/bootstrap.service.ts';
import { DataFolderBusyError } from '../store/lock.ts';
import { dataOption, fail } from './shared.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the local API server in the foreground')
    .addOption(dataOption())
    .option('--port <n>', 'port (0 picks a free one)', (v) => Number(v))
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--workers <n>', 'indexer processes (0 pauses indexing)', (v) => Number(v))
    .action(async (opts: { data?: string; port?: number; host: string; workers?: number }) => {
      const config = loadConfig({ dataDir: opts.data, host: opts.host, port: opts.port, workers: opts.workers });
      if (!['127.0.0.1', 'localhost', '::1'].includes(config.host)) {
        process.stderr.write(`warning: binding ${config.host} exposes the API beyond this machine\n`);
      }
      let server;
      try {
        server = await startServer(config);
      } catch (err) {
        if (err instanceof DataFolderBusyError) fail(`${err.message}\nStop it first, or use another --data folder.`);
        throw err;
      }
      const first = ensureFirstKey(server.store, config.dataDir);
      process.stdout.write(`listening on ${server.url}\n`);
      process.stderr.write(first.created ? `first API key written to ${first.path}\n` : `data folder ${path.resolve(config.dataDir)}\n`);
      if (fs.existsSync(path.join(config.uiDir, 'index.html'))) {
        process.stderr.write(`app: open ${server.url}/ in a browser and paste an API key${first.created ? ` (the one in ${first.path})` : ''}\n`);
      }
      let closing = false;
      const shutdown = (signal: string) => {
        if (closing) return;
        closing = true;
        process.stderr.write(`${signal}: shutting down\n`);
        void server.close().then(() => process.exit(0));
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    });
}

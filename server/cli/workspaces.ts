// `media-index workspaces [list]|create|set`: workspaces, on the data folder itself.
import { Option, type Command } from 'commander';
import { PIPELINES } from '../contract/assets.ts';
import { indexPaths } from './videos.ts';
import { dataOption, fail, withServices } from './shared.ts';

export function registerWorkspaces(program: Command): void {
  const workspaces = program.command('workspaces').description('list, create and flag workspaces');

  workspaces
    .command('list', { isDefault: true })
    .description('list workspaces')
    .addOption(dataOption())
    .action(async (opts: { data?: string }) => {
      await withServices(opts.data, (s) => {
        for (const w of s.workspaces.list()) {
          process.stdout.write(`${w.id}  ${w.name}  ${w.asset_count} assets  ${w.key_count} keys${w.read_only ? '  read-only' : ''}\n`);
        }
      });
    });

  workspaces
    .command('create <name>')
    .description(
      'create a workspace; --read-only makes a demo workspace (its keys read and search, every write through the API is refused); --from indexes a folder into it',
    )
    .addOption(dataOption())
    .option('--read-only', 'a read-only demo workspace')
    .option('--from <paths...>', 'files and folders to index into it (in place)')
    .addOption(new Option('--pipeline <name>', 'pipeline for --from').choices([...PIPELINES]).default('arrow'))
    .option('--workers <n>', 'indexer processes for --from', (v) => Number(v))
    .action(async (name: string, opts: { data?: string; readOnly?: boolean; from?: string[]; pipeline: string; workers?: number }) => {
      if (opts.from?.length) {
        if (await withServices(opts.data, (s) => s.workspaces.exists(name)))
          fail(`workspace ${name} exists already; index into it with \`media-index index --workspace ${name}\``);
        await indexPaths(opts.from, { data: opts.data, workspace: name, pipeline: opts.pipeline, workers: opts.workers, readOnly: opts.readOnly });
        if (opts.readOnly) process.stdout.write(`workspace ${name} is read-only\n`);
        return;
      }
      await withServices(opts.data, (s) => {
        if (s.workspaces.exists(name)) fail(`workspace ${name} exists already`);
        const { row } = s.workspaces.ensure(name, { readOnly: opts.readOnly });
        process.stdout.write(`created workspace ${row.name} (${row.id})${opts.readOnly ? ', read-only' : ''}\n`);
      });
    });

  workspaces
    .command('set <name>')
    .description('make a workspace read-only, or writable again')
    .addOption(dataOption())
    .addOption(new Option('--read-only', 'refuse every write through the API').conflicts('writable'))
    .option('--writable', 'accept writes again')
    .action(async (name: string, opts: { data?: string; readOnly?: boolean; writable?: boolean }) => {
      if (!opts.readOnly && !opts.writable) fail('say --read-only or --writable');
      await withServices(opts.data, (s) => {
        if (!s.workspaces.setReadOnly(name, Boolean(opts.readOnly))) fail(`no workspace ${name}`);
        process.stdout.write(`workspace ${name} is ${opts.readOnly ? 'read-only' : 'writable'}\n`);
      });
    });
}

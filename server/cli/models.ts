// `media-index models list|pull|import|verify|remove`: the optional models of a data folder.
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { defaultDataDir } from '../config.ts';
import { importModel } from '../ml/model-import.ts';
import { manifest, modelStatus, modelsCatalogue, modelsDir, removeModel, requireModel, verifyModel } from '../ml/models.ts';
import { pullModel } from '../ml/model-download.ts';
import { dataOption } from './shared.ts';

export function registerModels(program: Command): void {
  const models = program.command('models').description('optional models: list, pull (download), verify, remove');

  models
    .command('list')
    .description('list the optional models and whether they are installed')
    .addOption(dataOption())
    .option('--json', 'print JSON')
    .action((opts: { data?: string; json?: boolean }) => {
      const { dir, models: list, provider } = modelsCatalogue(opts.data ?? defaultDataDir());
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      for (const m of list) {
        const state = m.installed
          ? `installed (${m.build}${m.revision ? ` @ ${m.revision.slice(0, 12)}` : ''})`
          : m.downloadable
            ? `not installed${m.pinned ? '' : " (checked against the hub's checksums)"}`
            : 'no files listed in this build';
        const size = m.size_bytes > 0 ? `${(m.size_bytes / 1e6).toFixed(0).padStart(5)} MB` : '    ? MB';
        process.stdout.write(`${m.name.padEnd(28)} ${m.stage.padEnd(11)} ${size}  ${state}  (${m.licence})\n`);
      }
      process.stdout.write(`models folder: ${dir}; execution provider: ${provider}\n`);
    });

  models
    .command('pull <name>')
    .description('download a model (each file checked by the sha256 this build pins, else the one the hub publishes; an interrupted download resumes)')
    .addOption(dataOption())
    .option('--mirror <url>', "a mirror with the hub's layout (also MEDIA_INDEX_MODEL_MIRROR)")
    .action(async (name: string, opts: { data?: string; mirror?: string }) => {
      const entry = requireModel(name);
      const bar = new cliProgress.SingleBar({ format: '{bar} {percentage}% | {file}', hideCursor: true }, cliProgress.Presets.shades_classic);
      bar.start(1, 0, { file: '' });
      let receipt;
      try {
        receipt = await pullModel(opts.data ?? defaultDataDir(), entry, {
          mirror: opts.mirror,
          onProgress: (p) => {
            bar.setTotal(Math.max(1, p.total));
            bar.update(p.received, { file: p.file });
          },
        });
      } finally {
        bar.stop();
      }
      process.stdout.write(`${name} installed (${receipt.build}${receipt.revision ? `, revision ${receipt.revision}` : ''})\n`);
    });

  models
    .command('import <name>')
    .description(
      'install a model from a folder or a file (no network): a pinned build is verified by checksum; another build of the same model is accepted when its interface is the one the app loads',
    )
    .addOption(dataOption())
    .requiredOption('--from <path>', 'the folder (or the single file) holding the model')
    .action(async (name: string, opts: { data?: string; from: string }) => {
      const r = await importModel(opts.data ?? defaultDataDir(), requireModel(name), opts.from, (msg) => process.stderr.write(`${msg}\n`));
      for (const f of r.files) process.stdout.write(`${f.path} <- ${f.from} (${f.verified_by})\n`);
      process.stdout.write(`${name} installed (${r.receipt.build}${r.receipt.note ? `: ${r.receipt.note}` : ''})\n`);
    });

  models
    .command('verify [name]')
    .description('check installed model files against their checksums')
    .addOption(dataOption())
    .action(async (name: string | undefined, opts: { data?: string }) => {
      const dataDir = opts.data ?? defaultDataDir();
      const entries = name ? [requireModel(name)] : manifest().models.filter((m) => modelStatus(modelsDir(dataDir), m).installed);
      let bad = 0;
      for (const m of entries) {
        for (const r of await verifyModel(dataDir, m)) {
          if (!r.ok) bad++;
          process.stdout.write(`${m.name}/${r.path}: ${r.ok ? 'ok' : r.problem}\n`);
        }
      }
      if (entries.length === 0) process.stdout.write('no models installed\n');
      if (bad > 0) process.exit(1);
    });

  models
    .command('remove <name>')
    .description('delete a model from the models folder')
    .addOption(dataOption())
    .action(async (name: string, opts: { data?: string }) => {
      const removed = await removeModel(opts.data ?? defaultDataDir(), requireModel(name));
      process.stdout.write(removed ? `${name} removed\n` : `${name} was not installed\n`);
    });
}

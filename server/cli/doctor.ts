// `media-index doctor`: what this machine gives the models — the execution providers present, the
// one the models are given, and the provider each stage's last run says it ran on.
import type { Command } from 'commander';
import { dataOption, jsonLine, withServices } from './shared.ts';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('the execution providers present (CPU, CUDA…), the one the models are given, and the one each stage last ran on')
    .addOption(dataOption())
    .option('--json', 'one JSON object')
    .action((opts: { data?: string; json?: boolean }) =>
      withServices(opts.data, async (s) => {
        const r = await s.doctor.report();
        if (opts.json) {
          jsonLine({ ...r });
          return;
        }
        const out: string[] = [`node ${r.node} (${r.platform}), onnxruntime-node ${r.onnxruntime ?? 'not found'}`, 'execution providers:'];
        for (const p of r.providers) {
          const state = p.installed ? 'installed' : p.name === 'cuda' ? 'not installed (npm run gpu:install)' : 'not installed';
          out.push(`  ${p.name.padEnd(10)} ${state}${p.bundled ? '' : ', downloaded apart'}`);
        }
        out.push(`models run on: ${r.provider} (MEDIA_INDEX_DEVICE=${r.device_setting})`);
        if (r.provider_check)
          out.push(
            r.provider_check.works
              ? `  ${r.provider_check.provider} took the text detector just now`
              : `  but ${r.provider_check.provider} refused the text detector just now, so the models run on the CPU: ${r.provider_check.reason}`,
          );
        out.push(r.last_runs.length ? 'last run of each stage:' : 'no stage has run in this data folder yet');
        for (const l of r.last_runs) {
          const on = l.provider ?? 'cpu (not an ONNX model)';
          out.push(`  ${l.stage.padEnd(12)} ${on.padEnd(24)} ${l.finished_at}${l.model ? `  ${l.model}` : ''}`);
        }
        process.stdout.write(`${out.join('\n')}\n`);
      }),
    );
}

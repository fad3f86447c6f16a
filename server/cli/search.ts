// `media-index search`: ranked hits of a workspace, printed or as the API's JSON.
import type { Command } from 'commander';
import { Presenter } from '../api/present.ts';
import { SearchRequest } from '../contract/search.ts';
import { dataOption, fail, withServices } from './shared.ts';

export function registerSearch(program: Command): void {
  program
    .command('search <query>')
    .description('search the index and print ranked hits')
    .addOption(dataOption())
    .option('--workspace <name>', 'workspace to search', 'default')
    .option('--limit <n>', 'number of hits', (v) => Number(v), 10)
    .option('--rerank', 'second pass: exact phrase and query coverage')
    .option('--json', 'print the answer as one line of JSON (as POST /search answers)')
    .action(async (query: string, opts: { data?: string; workspace: string; limit: number; rerank?: boolean; json?: boolean }) => {
      await withServices(opts.data, async (s) => {
        const auth = s.workspaces.localReader(opts.workspace);
        if (!auth) fail(`no workspace named ${opts.workspace}`);
        const request = SearchRequest.parse({ query, limit: opts.limit, rerank: Boolean(opts.rerank) });
        // Printed as the API answers, with frame URLs relative to the server.
        const answer = new Presenter(s.signer, '').hits(await s.search.search(auth, request));
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(answer)}\n`);
          return;
        }
        if (answer.hits.length === 0) process.stdout.write('no hits\n');
        answer.hits.forEach((h, i) => {
          const where = h.page !== null ? `page ${h.page}` : h.asset_kind === 'video' ? `at ${h.timestamp.toFixed(1)} s` : 'photo';
          const text = (h.passage?.text ?? h.snippet.text).replace(/\s+/g, ' ');
          process.stdout.write(
            `${String(i + 1).padStart(2)}. ${h.score.toFixed(3)}  ${h.file_name}  ${where}  [${h.video_id}]\n    ${text.slice(0, 160)}${text.length > 160 ? '…' : ''}\n`,
          );
        });
      });
    });
}

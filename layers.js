// The layers of server/: what each folder holds and which other folders it may import. Written once:
// eslint.config.js makes its import rules from it, and test/layers.test.ts checks that the table in
// docs/ARCHITECTURE.md ("Layers") is this one. Type-only imports follow the same rules.

/** Modules at the top of server/ that any layer but the contracts may import. */
export const SHARED = ['errors.ts', 'config.ts', 'paths.ts', 'thread.ts', 'geometry.ts', 'version.ts'];

/**
 * Each folder of server/, from the bottom up, with what it may import: other folders, or single
 * modules of them (`media/types.ts`) or top modules (`server.ts`). The composition roots (server.ts,
 * cli.ts) wire everything and are not layers.
 */
export const LAYERS = [
  {
    folder: 'contract',
    holds: 'zod schemas and inferred types of every API resource; who is asking (`auth.ts`); the desktop bridge type',
    imports: [],
    only: 'zod',
  },
  { folder: 'places', holds: 'the offline gazetteer: a position to a place name', imports: [] },
  {
    folder: 'ml',
    holds: 'the model catalogue (`catalogue.ts`), the model manager (`models.ts`) and one adapter per model library',
    imports: [],
  },
  {
    folder: 'media',
    holds: 'probing and extraction: ffmpeg, sharp, PDFium (pdf.js for complex scripts), office formats (through one guarded zip reader), metadata',
    imports: ['contract'],
  },
  {
    folder: 'store',
    holds: 'repositories (every SQL statement, the filter condition included), the file store, clock and ids, migrations, the vector index',
    imports: ['contract', 'media/types.ts', 'search/tokenizer.ts'],
  },
  {
    folder: 'people',
    holds: 'the rules of People: clustering, applying a plan, decisions that survive re-detection, merges, faces taken off, upkeep',
    imports: ['store', 'contract'],
  },
  {
    folder: 'search',
    holds: 'the search algorithm: tokenizer, filters resolved to values, lexical (BM25 + WordNet), people, dense, moments and fusion, rerank, hits',
    imports: ['store', 'ml', 'contract'],
  },
  {
    folder: 'answers',
    holds: 'the rules of an answer: question types and words (`question.ts`), the prompt and the grounding of what a model writes (`grounded.ts`)',
    imports: ['search', 'contract'],
  },
  {
    folder: 'indexer',
    holds: 'stage manifests and runs (`stages/`), the registry, the queue, the host (pool) and the worker entry',
    imports: ['store', 'ml', 'media', 'people', 'places', 'search', 'contract'],
  },
  {
    folder: 'libraries',
    holds:
      'folders kept in step: the rules (`reconcile.ts`, pure), recording them (`apply.ts`) and what they do to assets (`assets.ts`), the schedule (`sync.ts`), the file-system thread and its client',
    imports: ['store', 'media', 'indexer', 'search/tokenizer.ts', 'contract'],
  },
  {
    folder: 'services',
    holds: 'authorization and orchestration per resource (assets, reads, search, people, answers, libraries, auth…): domain values, no URLs',
    imports: ['store', 'ml', 'media', 'indexer', 'people', 'places', 'libraries', 'search', 'answers', 'contract'],
  },
  {
    folder: 'api',
    holds: 'Koa app, middleware, one folder of routes per resource, presenters (`present.ts`), file streaming (`send-file.ts`), OpenAPI',
    imports: ['services', 'contract'],
  },
  {
    folder: 'cli',
    holds: 'the `media-index` commands, one file per resource as `api/` has one folder of routes per resource (`cli.ts` registers them)',
    imports: ['server.ts', 'services', 'api/present.ts', 'store', 'ml', 'media', 'indexer', 'contract'],
  },
];

/** Why `file` (a path under server/) may not import the server module `target`, or null when it may. */
export function layerViolation(file, target) {
  const [from, ...fromRest] = file.split('/');
  const [to, ...toRest] = target.split('/');
  const layer = LAYERS.find((l) => l.folder === from && fromRest.length > 0);
  if (!layer || from === to) return null;
  if (toRest.length === 0) {
    if ((SHARED.includes(to) && !layer.only) || layer.imports.includes(to)) return null;
    return `server/${from}/ may not import ${to}`;
  }
  if (layer.imports.includes(to) || layer.imports.includes(target)) return null;
  return `server/${from}/ may not import server/${to}/ (${target})`;
}

const LAYER_OF = (l) => (l.only ? l.only : [...l.imports, ...SHARED].join(', '));

/** ESLint rule: every import (static, dynamic, re-export) of a server/ module keeps to its layer's row. */
export const layersRule = {
  meta: { type: 'problem', messages: { layer: '{{why}}: its row allows {{allowed}} (layers.js; docs/ARCHITECTURE.md, "Layers").' }, schema: [] },
  create(context) {
    const file = context.filename.replaceAll('\\', '/');
    const at = file.lastIndexOf('/server/');
    if (at < 0) return {};
    const rel = file.slice(at + '/server/'.length);
    const layer = LAYERS.find((l) => rel.startsWith(`${l.folder}/`));
    if (!layer) return {};
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const spec = source.value;
      let why = null;
      if (spec.startsWith('.')) {
        const parts = rel.split('/').slice(0, -1);
        let outside = false;
        for (const seg of spec.split('/')) {
          if (seg === '..') outside ||= parts.pop() === undefined;
          else if (seg !== '.') parts.push(seg);
        }
        if (!outside) why = layerViolation(rel, parts.join('/')); // outside server/ (test helpers): not a layer
      } else if (layer.only && spec !== layer.only) why = `server/${layer.folder}/ may not import ${spec}`;
      if (why) context.report({ node, messageId: 'layer', data: { why, allowed: LAYER_OF(layer) } });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source),
      ExportNamedDeclaration: (n) => check(n, n.source),
      ExportAllDeclaration: (n) => check(n, n.source),
      ImportExpression: (n) => check(n, n.source),
    };
  },
};

/** The table in docs/ARCHITECTURE.md, as it must read. */
export function markdownTable() {
  const mayImport = (l) => (l.only ? l.only : [...l.imports.map((i) => `\`${i}\``), 'shared'].join(', '));
  return [
    '| Folder | What lives there | May import |',
    '|---|---|---|',
    ...LAYERS.map((l) => `| \`server/${l.folder}/\` | ${l.holds} | ${mayImport(l)} |`),
  ].join('\n');
}

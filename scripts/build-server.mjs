// `npm run build:server`: compiles the service's TypeScript for `media-index` to run — the command
// line (and server/cli/ahead.ts, which it loads first), the indexer process's module and every
// worker thread's module (`*.worker.ts`) as entries, the code they share in chunks, the packages
// left to node_modules. Each build goes to a folder of its own under dist/server/builds, with the
// newest source time it was made from (build.json); dist/server/current.json names the build to
// run; places.bin beside the modules holds the gazetteer's arrays (server/places/gazetteer.ts). A
// service already running keeps its own build (its chunks, worker and indexer modules load
// lazily), so the two builds before stay.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { BUILDS_DIR, CURRENT_FILE, SOURCES_DIR, newestMtime } from '../bin/compiled.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEEP = 3;

/**
 * Pure JavaScript packages every start of the command line and the service loads, and those an
 * indexer process loads for office files and e-books: bundled into the build's modules (one file
 * read where their own hundreds of small modules would be resolved and read one by one:
 * `media-index --help` 0.23 → 0.19 s; with Koa's, `serve` from launch to listening 354 → 300 ms,
 * medians of 7; with the office readers, exceljs (since replaced) loaded in 81 ms against 194, and
 * bench:recoll's mixed folder is searchable through the CLI in 2.41 s against 2.51, medians of 5,
 * the same text read from every file; file-type, which `index`, the libraries' file-system thread
 * and uploads load on their first file, answers it in 15–20 ms against 38–46). The other packages
 * stay in node_modules (native addons, WebAssembly, model files, workers and tools of their own:
 * tesseract.js, Human, exiftool).
 */
export const BUNDLED_PACKAGES = [
  'zod',
  'chrono-node',
  'commander',
  'cli-progress',
  'picomatch',
  'openapi-fetch',
  'env-paths',
  'koa',
  '@koa/router',
  '@koa/bodyparser',
  '@koa/multer',
  'multer',
  'koa-static',
  'marked',
  'node-html-parser',
  'fast-xml-parser',
  'saxes',
  'csv-parse',
  'jszip',
  'file-type',
];

/**
 * CommonJS packages left to node_modules that the build's modules load through `require` rather
 * than `import`: Node 20 loads a CommonJS package imported from ES modules through its ES module
 * loader (its exports read from the source first), and sharp took 107 ms so against 54 (medians of
 * 3), at the start of each indexer process's first run.
 */
export const REQUIRED_PACKAGES = ['sharp', 'better-sqlite3', '@photostructure/tz-lookup'];

/**
 * Turns `import x from 'pkg'` of REQUIRED_PACKAGES into the `require` each module has (the banner):
 * for default imports (a package whose named exports are getters, as onnxruntime-node's, loses them).
 */
const requiredPackages = {
  name: 'required-packages',
  setup(build) {
    const filter = new RegExp(`^(${REQUIRED_PACKAGES.map((p) => p.replace(/[/.]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => (args.namespace === 'required' ? { path: args.path, external: true } : { path: args.path, namespace: 'required' }));
    build.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * zod's messages in English only: its namespace export (`z`) carries every locale it ships
 * (`z.locales`, 49 languages, 366 KB of the 775 KB of zod in the build), which no part of the service
 * uses (errors are the API's own, in English) and which every start of the command line and the
 * service compiled.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};`,
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
  },
};

function externalPackages() {
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.keys(dependencies)
    .filter((name) => !BUNDLED_PACKAGES.includes(name))
    .flatMap((name) => [name, `${name}/*`]);
}

export function entryPoints() {
  const workers = fs
    .readdirSync(SOURCES_DIR, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.worker.ts'))
    .map((f) => path.join('server', f));
  return ['server/cli.ts', 'server/cli/ahead.ts', 'server/indexer/worker.ts', ...workers.sort()];
}

/** Builds into a new folder and makes it the current build; returns that folder. */
export async function buildServer() {
  // Taken before reading the sources: one saved while the build runs counts as newer than it.
  const sourcesMtime = newestMtime(SOURCES_DIR);
  const id = `${Date.now().toString(36)}-${process.pid}`;
  const dir = path.join(BUILDS_DIR, id);
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: entryPoints(),
    outbase: 'server',
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: externalPackages(),
    plugins: [requiredPackages, zodEnglishOnly],
    // The bundled CommonJS packages require Node's own modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  fs.writeFileSync(path.join(dir, 'build.json'), `${JSON.stringify({ id, sources_mtime: sourcesMtime })}\n`);
  // The gazetteer's arrays, built from their packages once here rather than in every process.
  const { register } = await import('tsx/esm/api');
  const unregister = register();
  try {
    const { writePlaces } = await import('../server/places/gazetteer.ts');
    writePlaces(path.join(dir, 'places.bin'));
  } finally {
    await unregister();
  }
  const tmp = `${CURRENT_FILE}.${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify({ id, sources_mtime: sourcesMtime })}\n`);
  fs.renameSync(tmp, CURRENT_FILE);
  const builds = fs
    .readdirSync(BUILDS_DIR)
    .map((name) => ({ name, mtime: fs.statSync(path.join(BUILDS_DIR, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEEP)) if (old.name !== id) fs.rmSync(path.join(BUILDS_DIR, old.name), { recursive: true, force: true });
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();

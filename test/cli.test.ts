import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { tempDir } from './helpers/server.ts';
import { CLI, startServe } from './helpers/serve.ts';
import { conversationVideo } from './helpers/ffmpeg.ts';
import {
  installTinyAudioTagger,
  installTinyCaptioner,
  installTinyMiniLM,
  installTinySpeakerEmbedder,
  installTinyWhisper,
  helloChain,
  seededTable,
  writeManifestOf,
} from './helpers/tiny-onnx.ts';

const META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova');

/** The events of a `--json` run, one JSON object a line. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const jsonLines = (out: string): any[] =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** A run's `progress` events, in order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const progressOf = (events: any[], file: string, stage: string) => events.filter((e) => e.event === 'progress' && e.file === file && e.stage === stage);

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('media-index CLI', () => {
  const dirs: string[] = [];
  const data = () => {
    const d = tempDir('mi-cli-');
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('models list says what can be downloaded, with sizes, and what is not pinned', () => {
    const r = cli(['models', 'list'], { MEDIA_INDEX_DATA: data() });
    expect(r.code).toBe(0);
    const line = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name} `)) ?? '';
    expect(line('whisper-tiny')).toMatch(/^whisper-tiny\s+transcript\s+45 MB {2}not installed {2}\(MIT\)$/);
    // Not pinned in this build, still installable: checked against the checksums the hub publishes.
    expect(line('owlv2-base-patch16')).toMatch(/objects\s+\? MB {2}not installed \(checked against the hub's checksums\)/);
    expect(r.stdout).toMatch(/execution provider: (cpu|cuda|dml|coreml)\n$/);
  });

  it('serve prints one listening line, writes the first key, answers with it, and stops cleanly on SIGTERM', async () => {
    const dir = data();
    const s = startServe(['--data', dir]);
    const url = await s.url;
    const keyFile = path.join(dir, 'first-api-key.txt');
    expect(s.output().out.trim().split('\n')).toEqual([`listening on ${url}`]);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = fs
      .readFileSync(keyFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('mi_'))!;
    const r = await fetch(`${url}/api/v1/videos`, { headers: { 'X-API-Key': key } });
    expect(r.status).toBe(200);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(fs.existsSync(path.join(dir, 'indexer.lock'))).toBe(false);
  });

  it('keys create prints the key last; list shows it without the secret; revoke takes effect; MEDIA_INDEX_DATA works', async () => {
    const dir = data();
    const created = cli(['keys', 'create', '--workspace', 'team', '--scopes', 'read', '--expires-in', '30d'], { MEDIA_INDEX_DATA: dir });
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    const key = lines.at(-1)!;
    expect(key).toMatch(/^mi_[0-9a-z]{20}_[A-Za-z0-9_-]{43}$/);
    expect(created.stdout).toContain('created workspace team');

    const other = cli(['keys', 'create', '--data', dir, '--workspace', 'lab', '--scopes', 'read,write', '--access', 'team']);
    expect(other.code).toBe(0);
    const bad = cli(['keys', 'create', '--data', dir, '--workspace', 'lab', '--scopes', 'admin']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Scopes/);

    const list = cli(['keys', 'list', '--data', dir, '--json']);
    const keys = JSON.parse(list.stdout);
    expect(keys).toHaveLength(2);
    expect(list.stdout).not.toContain(key.slice('mi_'.length + 21));
    expect(keys[1]).toMatchObject({ workspace: 'lab', scopes: 'read,write', access: ['team'] });
    expect(keys[0].expires_at).toBeGreaterThan(Date.now() + 29 * 86400e3);

    const s = startServe(['--data', dir]);
    const url = await s.url;
    expect((await fetch(`${url}/api/v1/videos`, { headers: { 'X-API-Key': key } })).status).toBe(200);
    expect(cli(['keys', 'revoke', '--data', dir, keys[0].id]).code).toBe(0);
    expect((await fetch(`${url}/api/v1/videos`, { headers: { 'X-API-Key': key } })).status).toBe(401);
    s.child.kill('SIGTERM');
    await s.exited;
    expect(cli(['workspaces', '--data', dir]).stdout).toMatch(/team/);
  });

  it('index adds files and folders in place, search prints ranked hits; share makes an asset visible elsewhere', async () => {
    const dir = data();
    const folder = tempDir('mi-cli-src-');
    dirs.push(folder);
    fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(folder, 'a-text.pdf'));
    fs.mkdirSync(path.join(folder, 'nested'));
    fs.copyFileSync(corpus('scenes/skimage/chelsea.png'), path.join(folder, 'nested', 'chelsea.png'));
    fs.copyFileSync(corpus('office/format-fixtures/doc.doc'), path.join(folder, 'old.doc'));
    fs.writeFileSync(path.join(folder, 'readme.xyz'), 'skip me');
    fs.writeFileSync(path.join(folder, 'note.txt'), 'Field notes from the estuary survey, second week: herons at low tide.');

    const r = cli(['index', '--data', dir, '--workspace', 'home', folder, corpus('video/imageio/realshort.mp4')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/4 indexed into workspace home, 0 refused/);
    // Optional models this build does not have are skipped stages, not failures (exit code 0).
    expect(r.stdout).toMatch(/^skipped: optional model not installed \(\d+ stage runs?; `media-index models list`\)$/m);
    expect(r.stdout).not.toMatch(/fail/);
    expect(r.stderr).toMatch(/skipped .*readme\.xyz: not a supported type/);
    expect(r.stderr).toMatch(/skipped .*old\.doc/);

    const found = cli(['search', '--data', dir, '--workspace', 'home', 'text from LibreOffice Writer']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(/^ 1\. 1\.000 {2}a-text\.pdf {2}page 1 /m);
    const asJson = cli(['search', '--data', dir, '--workspace', 'home', 'text from LibreOffice Writer', '--json']);
    expect(asJson.stdout.trim().split('\n')).toHaveLength(1); // one JSON object, as POST /search answers
    const answer = JSON.parse(asJson.stdout);
    expect([answer.query, answer.hits[0].file_name, answer.hits[0].page]).toEqual(['text from LibreOffice Writer', 'a-text.pdf', 1]);
    expect(cli(['search', '--data', dir, '--workspace', 'home', 'nonexistentword']).stdout).toBe('no hits\n');

    const key = cli(['keys', 'create', '--data', dir, '--workspace', 'home', '--scopes', 'read,write']).stdout.trim().split('\n').at(-1)!;
    const guestKey = cli(['keys', 'create', '--data', dir, '--workspace', 'guest', '--scopes', 'read']).stdout.trim().split('\n').at(-1)!;
    const s = startServe(['--data', dir]);
    const url = await s.url;
    const list = (await (await fetch(`${url}/api/v1/videos`, { headers: { 'X-API-Key': key } })).json()) as {
      pagination: { total: number };
      data: Array<{ status: string; file_name: string; video_id: string; thumbnail_url: string }>;
    };
    expect(list.pagination.total).toBe(4);
    expect(list.data.every((a: { status: string }) => a.status === 'completed')).toBe(true);
    const pdf = list.data.find((a) => a.file_name === 'a-text.pdf')!;

    // A note indexed in place writes nothing into the data folder (no folder for it) until its
    // thumbnail is first asked for.
    const note = list.data.find((a) => a.file_name === 'note.txt')!;
    expect(fs.existsSync(path.join(dir, 'assets', note.video_id))).toBe(false);
    const thumb = await fetch(note.thumbnail_url);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(fs.readdirSync(path.join(dir, 'assets', note.video_id))).toEqual(['thumb.jpg']);

    // Indexed in place: the user's file stays where it is and is never copied.
    expect(fs.readdirSync(path.join(dir, 'assets'))).not.toContain('original.pdf');

    // The data folder is taken while a server runs.
    const busy = cli(['index', '--data', dir, folder]);
    expect(busy.code).not.toBe(0);
    expect(busy.stderr).toMatch(/in use by process/);

    expect(cli(['share', '--data', dir, '--asset', pdf.video_id, '--to', 'guest']).code).toBe(0);
    const seen = await fetch(`${url}/api/v1/videos/${pdf.video_id}`, { headers: { 'X-API-Key': guestKey } });
    expect(seen.status).toBe(200);

    // Deleting a linked asset never touches the user's file.
    const del = await fetch(`${url}/api/v1/videos/${pdf.video_id}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
    expect(del.status).toBe(200);
    await new Promise((res) => setTimeout(res, 300));
    expect(fs.existsSync(path.join(folder, 'a-text.pdf'))).toBe(true);
    s.child.kill('SIGTERM');
    await s.exited;
  }, 180_000);

  it('index --json prints one event per line and a summary; a refused file or a failed stage is exit code 2', () => {
    const dir = data();
    const folder = tempDir('mi-cli-json-');
    dirs.push(folder);
    fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(folder, 'a-text.pdf'));
    fs.writeFileSync(path.join(folder, 'not-a.pdf'), 'plain text, not a PDF');
    const r = cli(['index', '--data', dir, folder, '--json', '--workers', '1']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe('');
    const events = jsonLines(r.stdout);
    const pdf = path.join(folder, 'a-text.pdf');
    const added = events.find((e) => e.event === 'added');
    expect(added).toEqual({ event: 'added', file: pdf, video_id: expect.stringMatching(/^vid_/) });
    expect(events.find((e) => e.event === 'refused')).toMatchObject({ file: path.join(folder, 'not-a.pdf'), code: 'unsupported_file_type' });
    expect(events).toContainEqual({ event: 'stage', file: pdf, video_id: added.video_id, stage: 'extract', state: 'ok', code: null });
    // Runs waiting for an optional model (the sentence encoder, not installed here) are settled as the
    // file is taken in: no phase 2 run is left to look at for them, and the summary counts them.
    const runsDb = new Database(path.join(dir, 'media-index.sqlite'), { readonly: true });
    const { n: missing } = runsDb
      .prepare("SELECT COUNT(*) AS n FROM stage_runs WHERE asset_id = ? AND state = 'failed' AND code = 'model_not_installed'")
      .get(added.video_id) as { n: number };
    runsDb.close();
    expect(missing).toBeGreaterThan(0);
    expect(events.filter((e) => e.event === 'stage' && e.code === 'model_not_installed')).toEqual([]);
    // Searchable (phase 1: text and metadata read), then completed.
    const at = (event: string) => events.findIndex((e) => e.event === event);
    expect(events[at('searchable')]).toEqual({ event: 'searchable', file: pdf, video_id: added.video_id });
    expect(events[at('all_searchable')]).toEqual({ event: 'all_searchable', files: 1, seconds: expect.any(Number) });
    expect(at('searchable')).toBeLessThan(at('all_searchable'));
    expect(events.at(-2)).toEqual({ event: 'completed', file: pdf, video_id: added.video_id });
    expect(events.at(-1)).toEqual({
      event: 'summary',
      workspace: 'default',
      files: 2,
      indexed: 1,
      queued: 0,
      searchable: 1,
      searchable_s: expect.any(Number),
      enriching_left: 0,
      refused: 1,
      failed_stage_runs: 0,
      read_in_part: 0,
      failed_files: 0,
      skipped_model_not_installed: missing,
      exit_code: 2,
    });

    // A video copied only in part is indexed as far as it goes, said apart, and is no failure.
    const part = path.join(folder, 'part.mp4');
    fs.writeFileSync(part, fs.readFileSync(corpus('video/forensics/movie-hello.mp4')).subarray(0, 60_000));
    const inPart = cli(['index', '--data', dir, part, '--workers', '1', '--options', '{"ocr":false,"faces":false,"people":false}']);
    expect(inPart.code).toBe(0);
    expect(inPart.stdout).toMatch(/^1 indexed into workspace default, 0 refused$/m);
    expect(inPart.stdout).toMatch(/^read in part: 1 file$/m);
    expect(inPart.stdout).toMatch(
      new RegExp(
        `^  ${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} — the file ends after 0\\.\\d s of its 8\\.3 s: it may have been copied only in part$`,
        'm',
      ),
    );

    // A PDF cut short is accepted (its header is a PDF's) and fails to extract: a real failure.
    const cut = path.join(folder, 'cut.pdf');
    fs.writeFileSync(cut, fs.readFileSync(corpus('docs/a-text.pdf')).subarray(0, 3000));
    const failed = cli(['index', '--data', dir, cut, '--workers', '1']);
    expect(failed.code).toBe(2);
    // Said once for the file, with why, and not counted as indexed.
    expect(failed.stdout).toMatch(/^0 indexed into workspace default, 0 refused$/m);
    expect(failed.stdout).toMatch(/^not indexed: 1 file$/m);
    expect(failed.stdout).toMatch(new RegExp(`^  ${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} — extract: \\S.*$`, 'm'));

    // A stage whose optional model is not installed is said skipped, not failed.
    const notes = path.join(folder, 'notes.txt');
    fs.writeFileSync(notes, 'Field notes from the heron colony.\n');
    const plain = cli(['index', '--data', dir, notes, '--workers', '1']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^skipped: optional model not installed \(1 stage run; `media-index models list`\)$/m);
    expect(`${plain.stdout}${plain.stderr}`).not.toMatch(/ failed\s*$/m);
  }, 120_000);

  it("index --json tells how far a long run has got: a scanned document's pages read, a video's seconds decoded and looked at", () => {
    const dir = data();
    const folder = tempDir('mi-cli-progress-');
    dirs.push(folder);
    // Three pages whose text layer is broken (Devanagari read as Latin): each is read by OCR.
    const pdf = path.join(folder, 'examples.pdf');
    const video = path.join(folder, 'hello.mp4');
    fs.copyFileSync(corpus('ocr/hindi-pdf/examples.pdf'), pdf);
    fs.copyFileSync(corpus('video/forensics/movie-hello.mp4'), video);
    const r = cli(['index', '--data', dir, folder, '--json', '--options', '{"faces":false,"people":false,"objects":false}'], { MEDIA_INDEX_PROGRESS_MS: '0' });
    expect(r.code, r.stderr).toBe(0);
    const events = jsonLines(r.stdout);
    const progress = (file: string, stage: string) => progressOf(events, file, stage);
    const pages = progress(pdf, 'ocr');
    const pdfId = events.find((e) => e.event === 'added' && e.file === pdf).video_id;
    expect(pages).toEqual([0, 1, 2, 3].map((done) => ({ event: 'progress', file: pdf, video_id: pdfId, stage: 'ocr', done, total: 3, unit: 'pages' })));
    // Told while the run goes, before it ends.
    const ended = events.findIndex((e) => e.event === 'stage' && e.file === pdf && e.stage === 'ocr');
    expect(events.lastIndexOf(pages.at(-1))).toBeLessThan(ended);
    // The video read through: the seconds decoded (ffmpeg's reports), then each shot's keyframe drawn.
    const extract = progress(video, 'shots');
    const decoded = extract.filter((e) => e.unit === 'seconds');
    const shots = extract.filter((e) => e.unit === 'shots');
    expect(decoded[0]).toMatchObject({ done: 0, total: 8.329 });
    expect(decoded.at(-1).done).toBeGreaterThan(7);
    expect(extract.indexOf(decoded.at(-1))).toBeLessThan(extract.indexOf(shots[0]));
    expect(shots.map((e) => e.done)).toEqual(shots.map((_, i) => i));
    expect(events.lastIndexOf(extract.at(-1))).toBeLessThan(events.findIndex((e) => e.event === 'stage' && e.file === video && e.stage === 'shots'));
    // Its extraction (a probe and a poster frame) says nothing as it goes.
    expect(progress(video, 'extract')).toEqual([]);
    const seconds = progress(video, 'ocr');
    expect(seconds.length).toBeGreaterThanOrEqual(3);
    for (const [i, e] of seconds.entries()) {
      expect(e).toMatchObject({ unit: 'seconds', total: 8.329 });
      expect(e.done).toBeLessThanOrEqual(e.total);
      if (i > 0) expect(e.done).toBeGreaterThan(seconds[i - 1].done);
    }
  }, 120_000);

  // Plumbing of the reports only: the models are generated stand-ins (test/helpers/tiny-onnx.ts).
  it('index --json tells how far the optional models have got: passages encoded, seconds heard', () => {
    const dir = data();
    const folder = tempDir('mi-cli-progress-models-');
    dirs.push(folder);
    const book = path.join(folder, 'wonderland.pdf');
    const talk = path.join(folder, 'conversation.mp4');
    fs.copyFileSync(corpus('docs/carroll-wonderland.pdf'), book);
    conversationVideo(talk);
    const models = path.join(dir, 'models');
    const manifest = path.join(dir, 'manifest.json');
    writeManifestOf(manifest, [
      {
        name: 'all-MiniLM-L6-v2',
        stage: 'embeddings',
        task: 'feature-extraction',
        files: installTinyMiniLM(models, path.join(META, 'all-MiniLM-L6-v2'), seededTable(30522, 16, 5), 30522, 16),
      },
      {
        name: 'ast-audioset',
        stage: 'sounds',
        task: 'audio-classification',
        files: installTinyAudioTagger(models, 'ast-audioset', ['Speech', 'Silence'], Float32Array.of(10, -10), Float32Array.of(9.3, -9.3)),
      },
      {
        name: 'wespeaker-voxceleb-resnet34',
        stage: 'speakers',
        task: 'speaker-embedding',
        files: installTinySpeakerEmbedder(models, 'wespeaker-voxceleb-resnet34'),
      },
      {
        name: 'whisper-tiny',
        stage: 'transcript',
        task: 'automatic-speech-recognition',
        files: installTinyWhisper(models, 'whisper-tiny', path.join(META, 'whisper-tiny'), helloChain(path.join(META, 'whisper-tiny'))),
      },
      {
        name: 'vit-gpt2-image-captioning',
        stage: 'captions',
        task: 'image-to-text',
        files: installTinyCaptioner(models, 'vit-gpt2-image-captioning', { cat: new Float32Array(48).fill(0.5), bowl: new Float32Array(48).fill(-0.5) }),
      },
    ]);
    const options = { ocr: false, faces: false, people: false, objects: false, labels: false };
    const r = cli(['index', '--data', dir, folder, '--json', '--workers', '1', '--options', JSON.stringify(options)], {
      MEDIA_INDEX_PROGRESS_MS: '0',
      MEDIA_INDEX_MODEL_MANIFEST: manifest,
    });
    expect(r.code, r.stderr).toBe(0);
    const events = jsonLines(r.stdout);
    const progress = (file: string, stage: string) => progressOf(events, file, stage);
    const ended = (file: string, stage: string) => events.findIndex((e) => e.event === 'stage' && e.file === file && e.stage === stage);

    // The book's passages, a batch of 32 at a time, up to every one of them, before the run ends.
    const passages = progress(book, 'embeddings');
    const bookId = events.find((e) => e.event === 'added' && e.file === book).video_id;
    const db = new Database(path.join(dir, 'media-index.sqlite'), { readonly: true });
    const { n } = db.prepare("SELECT COUNT(*) AS n FROM vectors WHERE asset_id = ? AND model = 'all-MiniLM-L6-v2'").get(bookId) as { n: number };
    db.close();
    expect(n).toBeGreaterThan(100);
    expect(passages.map((e) => e.done)).toEqual([...Array.from({ length: Math.ceil(n / 32) }, (_, i) => i * 32), n]);
    expect(passages.every((e) => e.total === n && e.unit === 'passages' && e.video_id === bookId)).toBe(true);
    expect(events.lastIndexOf(passages.at(-1))).toBeLessThan(ended(book, 'embeddings'));

    // The conversation's seconds: each 10.24 s window tagged, each window of speech told apart, each
    // stretch of speech transcribed, each shot captioned; every report within the recording's length,
    // rising, before its run ends.
    for (const stage of ['sounds', 'speakers', 'transcript', 'captions']) {
      const heard = progress(talk, stage);
      expect(heard.length, stage).toBeGreaterThanOrEqual(stage === 'transcript' || stage === 'captions' ? 1 : 3);
      // Captions look at each shot's keyframe (here the one shot's middle); the others start at once.
      if (stage !== 'captions') expect(heard[0].done, stage).toBeLessThan(2);
      for (const [i, e] of heard.entries()) {
        expect(e, stage).toMatchObject({ unit: 'seconds', total: expect.closeTo(heard[0].total, 6) });
        expect(e.total, stage).toBeGreaterThan(20);
        expect(e.done, stage).toBeLessThanOrEqual(e.total);
        if (i > 0) expect(e.done, stage).toBeGreaterThan(heard[i - 1].done);
      }
      expect(events.lastIndexOf(heard.at(-1)), stage).toBeLessThan(ended(talk, stage));
    }
    expect(progress(talk, 'sounds').map((e) => e.done)).toEqual([0, 10.24, 20.48]);
  }, 180_000);

  it('index keeps both indexer processes busy, makes every file searchable before enriching any, and can stop there', () => {
    const dir = data();
    const folder = tempDir('mi-cli-phases-');
    dirs.push(folder);
    // Four distinct copies of a book (a byte after its end) and a photo with faces to look at.
    for (let i = 1; i <= 4; i++) {
      fs.writeFileSync(path.join(folder, `book-${i}.pdf`), Buffer.concat([fs.readFileSync(corpus('docs/carroll-wonderland.pdf')), Buffer.from(`\n% ${i}\n`)]));
    }
    fs.copyFileSync(corpus('faces/face-api-samples/sample1.jpg'), path.join(folder, 'group.jpg'));
    const r = cli(['index', '--data', dir, folder, '--json', '--workers', '2']);
    expect(r.code, r.stderr).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.filter((e) => e.event === 'searchable')).toHaveLength(5);
    const all = events.findIndex((e) => e.event === 'all_searchable');
    const firstCompleted = events.findIndex((e) => e.event === 'completed');
    expect(all).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ event: 'summary', indexed: 5, searchable: 5, enriching_left: 0 });

    // What the runs recorded: phase 1 (extract, metadata) of every file started before any other
    // stage was handed to a process; runs of two files overlapped in time (two processes at work).
    const db = new Database(path.join(dir, 'media-index.sqlite'), { readonly: true });
    const runs = db.prepare('SELECT asset_id, stage, started_at, finished_at FROM stage_runs WHERE attempts > 0').all() as Array<{
      asset_id: string;
      stage: string;
      started_at: number;
      finished_at: number;
    }>;
    db.close();
    const phaseOne = runs.filter((x) => x.stage === 'extract' || x.stage === 'metadata');
    const phaseTwo = runs.filter((x) => x.stage !== 'extract' && x.stage !== 'metadata');
    expect(phaseOne).toHaveLength(10);
    expect(phaseTwo.length).toBeGreaterThan(0); // the photo's faces and objects
    expect(Math.max(...phaseOne.map((x) => x.started_at))).toBeLessThanOrEqual(Math.min(...phaseTwo.map((x) => x.started_at)));
    const overlap = runs.some((a) => runs.some((b) => a.asset_id !== b.asset_id && a.started_at < b.finished_at && b.started_at < a.finished_at));
    expect(overlap).toBe(true);
    expect(firstCompleted).toBeGreaterThan(-1);

    // --wait searchable returns once every file is searchable, the rest left queued for the next start.
    const dir2 = data();
    const quick = cli(['index', '--data', dir2, folder, '--wait', 'searchable', '--workers', '2']);
    expect(quick.code, quick.stderr).toBe(0);
    expect(quick.stdout).toMatch(/^searchable: 5 files in [\d.]+ s$/m);
    const found = cli(['search', '--data', dir2, 'the rabbit-hole went straight on like a tunnel']);
    expect(found.stdout).toMatch(/book-\d\.pdf/);
    const left = new Database(path.join(dir2, 'media-index.sqlite'), { readonly: true });
    const waiting = left.prepare("SELECT COUNT(*) AS n FROM stage_runs WHERE state = 'pending'").get() as { n: number };
    left.close();
    expect(waiting.n).toBeGreaterThan(0);
    expect(quick.stdout).toMatch(/\d+ files? searchable and still to enrich/);
  }, 180_000);

  it('index forks its indexer processes before it loads, and they end with it where it stops before using them', async () => {
    // A pipeline that does not exist is refused once the command line has loaded and read its options.
    const child = spawn(process.execPath, [CLI, 'index', '--data', data(), corpus('docs/a-text.pdf'), '--workers', '2', '--pipeline', 'nope'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const indexers = new Set<number>();
    const look = setInterval(() => {
      try {
        for (const pid of fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
          if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('indexer/worker')) indexers.add(Number(pid));
        }
      } catch {
        // The command or a child has just ended.
      }
    }, 5);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearInterval(look);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/nope/);
    expect(indexers.size).toBe(2);
    // None is left once the command has gone.
    const alive = () => [...indexers].filter((pid) => fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8')));
    for (let waited = 0; alive().length > 0 && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toEqual([]);
  }, 60_000);

  it('doctor lists the execution providers present and the one each stage last ran on', () => {
    const dir = data();
    const before = cli(['doctor', '--data', dir]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/^node v\d+\.\d+\.\d+ \(\w+ \w+\), onnxruntime-node \d+\.\d+\.\d+$/m);
    expect(before.stdout).toMatch(/^ {2}cpu +installed$/m);
    expect(before.stdout).toMatch(/^models run on: (cpu|cuda|dml|coreml) \(MEDIA_INDEX_DEVICE=auto\)$/m);
    expect(before.stdout).toMatch(/no stage has run in this data folder yet/);
    // Where the CUDA provider is not installed, the line says how to install it.
    const report = JSON.parse(cli(['doctor', '--data', dir, '--json']).stdout);
    const cuda = report.providers.find((p: { name: string }) => p.name === 'cuda');
    if (cuda && !cuda.installed) expect(before.stdout).toMatch(/^ {2}cuda +not installed \(npm run gpu:install\)/m);
    expect(report.provider).toBe(cuda?.installed ? 'cuda' : 'cpu');
    // Only a provider other than the CPU is asked to take a model there and then.
    if (report.provider === 'cpu') expect(report.provider_check).toBeNull();
    else expect(report.provider_check).toMatchObject({ provider: report.provider, works: expect.any(Boolean) });

    expect(cli(['index', '--data', dir, corpus('faces/face-api-samples/sample1.jpg')]).code).toBe(0);
    const after = JSON.parse(cli(['doctor', '--data', dir, '--json']).stdout);
    const last = Object.fromEntries(after.last_runs.map((r: { stage: string }) => [r.stage, r]));
    expect(last.faces).toMatchObject({ provider: 'cpu', finished_at: expect.stringMatching(/^\d{4}-/) });
    expect(last.objects).toMatchObject({ provider: 'cpu' }); // CenterNet (TensorFlow.js); no open-vocabulary model installed
    expect(last.extract.provider).toBeNull();
    expect(cli(['doctor', '--data', dir]).stdout).toMatch(/^ {2}faces +cpu +\d{4}-/m);
  }, 120_000);

  it("index indexes the paths it is given and leaves the data folder's libraries to serve", () => {
    const dir = data();
    const lib = data();
    fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(lib, 'a-text.pdf'));
    const env = { MEDIA_INDEX_LIBRARY_ROOTS: path.dirname(lib), MEDIA_INDEX_LIBRARY_SETTLE_MS: '0' };
    expect(cli(['libraries', 'add', lib, '--data', dir, '--workers', '1'], env).code).toBe(0);
    // A file that arrives in the library afterwards: found by the next scan of it, under serve.
    fs.copyFileSync(corpus('office/a-text.docx'), path.join(lib, 'a-text.docx'));
    const r = cli(['index', '--data', dir, corpus('office/a-text.odt'), '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ event: 'summary', indexed: 1 });
    expect(cli(['libraries', 'list', '--data', dir], env).stdout).toMatch(/watching {2}1 assets/);
    const db = new Database(path.join(dir, 'media-index.sqlite'), { readonly: true });
    const assets = db.prepare('SELECT COUNT(*) AS n FROM assets').get() as { n: number };
    db.close();
    expect(assets.n).toBe(2);
  }, 120_000);

  it('libraries add, list, scan and remove: on their own, and through a running service', async () => {
    const dir = data();
    const lib = data();
    const second = data();
    fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(lib, 'a-text.pdf'));
    fs.copyFileSync(corpus('office/a-text.docx'), path.join(second, 'a-text.docx'));
    const env = { MEDIA_INDEX_LIBRARY_ROOTS: path.dirname(lib), MEDIA_INDEX_LIBRARY_SETTLE_MS: '100' };

    // No service: the command opens the folder, indexes, and shows the library settled.
    const added = cli(['libraries', 'add', lib, '--data', dir, '--workers', '1', '--exclude', 'raw/**'], env);
    expect(added.code).toBe(0);
    const id = /^added (lib_\w+)/m.exec(added.stdout)![1];
    expect(added.stdout).toMatch(new RegExp(`${id}  ${fs.realpathSync(lib)}  watching  1 assets, 0 pending, 0 skipped  exclude raw/\\*\\*`));
    expect(cli(['libraries', 'list', '--data', dir], env).stdout).toMatch(/watching {2}1 assets {2}\(service not running\)/);
    expect(cli(['libraries', 'add', '/etc', '--data', dir], env)).toMatchObject({ code: 2, stderr: expect.stringMatching(/system folder/) });

    // A running service holds the folder: the commands go to it (no "in use" refusal).
    const s = startServe(['--data', dir], env);
    await s.url;
    const viaService = cli(['libraries', 'add', second, '--data', dir, '--wait', '--json'], env);
    expect(viaService.code, viaService.stderr).toBe(0);
    const events = jsonLines(viaService.stdout);
    expect(events[0]).toMatchObject({ event: 'added', library_id: expect.stringMatching(/^lib_/), path: fs.realpathSync(second) });
    expect(events.slice(1, -1).every((e) => e.event === 'progress' && e.library_id === events[0].library_id)).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: 'summary', exit_code: 0, library: { status: 'watching', assets: 1, pending: 0, refused: 0 } });
    const list = cli(['libraries', 'list', '--data', dir], env).stdout;
    expect(list).toMatch(new RegExp(`${id}  ${fs.realpathSync(lib)}  watching  1 assets`));
    expect(list).toMatch(new RegExp(`${fs.realpathSync(second)}  watching  1 assets, 0 pending`));
    expect(cli(['libraries', 'scan', id, '--data', dir, '--wait'], env).code).toBe(0);
    const removed = cli(['libraries', 'remove', id, '--data', dir], env);
    expect(removed.stdout).toMatch(`removed ${id}: 1 asset left the index; no file was touched`);
    expect(fs.existsSync(path.join(lib, 'a-text.pdf'))).toBe(true);
    expect(cli(['libraries', 'list', '--data', dir], env).stdout).not.toMatch(id);
    // The keys the commands used were revoked.
    expect(
      cli(['keys', 'list', '--data', dir])
        .stdout.split('\n')
        .filter((l) => / active/.test(l)),
    ).toHaveLength(1);
    s.child.kill('SIGTERM');
    await s.exited;
  }, 180_000);
});

// Videos as a browser plays them, through the real server and ffmpeg: an MP4 of H.264 served as it
// is; a camera's AVI of H.264 copied into MP4 on the first request to play it; formats a browser
// cannot decode (MPEG-4 Part 2 in AVI and in Matroska) converted to H.264 and AAC; byte ranges for
// seeking; the copy kept, and the original never touched.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const QUICK = { ocr: false, faces: false, people: false, objects: false, labels: false };

interface Probe {
  format: { format_name: string; duration: string };
  streams: Array<{ codec_type: string; codec_name: string }>;
}

describe('videos a browser plays', () => {
  let t: TestServer;
  let key: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-playable-'));
  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('playable');
  }, 60_000);
  afterAll(async () => {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const mediaOf = async (id: string) => (await t.api('GET', `/videos/${id}`, { key })).body.data.media_url as string;
  /** What media_url serves, saved and probed by ffprobe. */
  const played = async (url: string) => {
    const r = await fetch(url);
    expect(r.status, r.status === 200 ? '' : await r.text()).toBe(200);
    const bytes = Buffer.from(await r.arrayBuffer());
    const file = path.join(tmp, crypto.randomUUID());
    fs.writeFileSync(file, bytes);
    const probe = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' }),
    ) as Probe;
    const codec = (type: string) => probe.streams.find((s) => s.codec_type === type)?.codec_name ?? null;
    return {
      type: r.headers.get('content-type'),
      bytes,
      container: probe.format.format_name,
      duration: Number(probe.format.duration),
      video: codec('video'),
      audio: codec('audio'),
    };
  };
  const copyOf = (id: string) => path.join(t.dataDir, 'assets', id, 'playable.mp4');

  it('serves an MP4 of H.264 and AAC as it is, with byte ranges', async () => {
    const d = await t.index(key, corpus('video/forensics/movie-hello.mp4'), QUICK);
    const url = await mediaOf(d.video_id);
    const got = await played(url);
    expect(got.type).toBe('video/mp4');
    expect(got.bytes.equals(fs.readFileSync(corpus('video/forensics/movie-hello.mp4')))).toBe(true);
    const part = await fetch(url, { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    expect(fs.existsSync(copyOf(d.video_id))).toBe(false);
  });

  it("copies an AVI's H.264 into MP4 on the first request to play it, keeps the copy, and seeks in it", async () => {
    const original = corpus('video/forensics/movie-hello.avi');
    const before = fs.readFileSync(original);
    const d = await t.index(key, original, QUICK);
    expect(fs.existsSync(copyOf(d.video_id))).toBe(false);
    const url = await mediaOf(d.video_id);
    const got = await played(url);
    expect(got).toMatchObject({ type: 'video/mp4', video: 'h264', audio: 'aac' });
    expect(got.container).toMatch(/mp4/);
    expect(Math.abs(got.duration - d.duration_s) / d.duration_s).toBeLessThan(0.02);
    // Kept: a second request is the same file, and a range of it answers 206.
    const made = fs.statSync(copyOf(d.video_id)).mtimeMs;
    const part = await fetch(url, { headers: { Range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(fs.statSync(copyOf(d.video_id)).mtimeMs).toBe(made);
    expect(fs.readFileSync(original).equals(before)).toBe(true);
  });

  it('converts to H.264 what a browser cannot decode: MPEG-4 Part 2 in AVI (no sound) and in Matroska', async () => {
    const avi = await t.index(key, corpus('video/opencv/vtest.avi'), QUICK);
    const mkv = await t.index(key, corpus('video/format-fixtures/mkv.mkv'), QUICK);
    // Asked at once, made one after the other.
    const [a, m] = await Promise.all([played(await mediaOf(avi.video_id)), played(await mediaOf(mkv.video_id))]);
    expect(a).toMatchObject({ type: 'video/mp4', video: 'h264', audio: null });
    expect(m).toMatchObject({ type: 'video/mp4', video: 'h264', audio: 'aac' });
    expect(Math.abs(a.duration - avi.duration_s) / avi.duration_s).toBeLessThan(0.02);
  }, 120_000);

  it('stops a copy being made when the service stops: its ffmpeg ended, nothing half-written left', async () => {
    const data = Buffer.concat([fs.readFileSync(corpus('video/opencv/vtest.avi')), Buffer.from('stopped copy')]);
    const d = await t.index(key, { name: 'stopped.avi', data }, QUICK);
    const asked = fetch(await mediaOf(d.video_id)).catch(() => null);
    const dir = path.dirname(copyOf(d.video_id));
    const started = Date.now();
    while (!fs.readdirSync(dir).some((f) => f.endsWith('.tmp')) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
    expect(fs.readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(true);
    await t.restart();
    await asked;
    expect(fs.readdirSync(dir).filter((f) => f.includes('playable'))).toEqual([]);
    const ffmpegs = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(dir));
    expect(ffmpegs).toEqual([]);
  });

  it('answers 503 original_unavailable where the original is away and no copy was made yet', async () => {
    const data = Buffer.concat([fs.readFileSync(corpus('video/opencv/vtest.avi')), Buffer.from('another copy')]);
    const d = await t.index(key, { name: 'away.avi', data }, QUICK);
    fs.rmSync(t.server.store.files.abs(t.server.store.assets.byId(d.video_id)!.stored_path));
    const r = await fetch(await mediaOf(d.video_id));
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('original_unavailable');
  });
});

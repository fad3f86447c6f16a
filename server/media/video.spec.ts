// Frames sampled from a video as pixels through a pipe: the PPM stream read whatever way it is cut
// into chunks, and ffmpeg's frames on a real video the same as it writes them to a lossless file;
// the frames the shots pass keeps for the picture stages the same as those.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findFfmpeg } from './ffmpeg.ts';
import { ExtractError, MAX_SAMPLE_FPS, SAMPLED_DIR } from './types.ts';
import { framesAt, PpmReader, probeVideo, readShots, sampledFrames, type RgbPixels, type SampledFrame } from './video.ts';

const corpus = (p: string) => fileURLToPath(new URL(`../../../shared/corpus/${p}`, import.meta.url));

function ppm(width: number, height: number, seed: number): Buffer {
  const body = Buffer.alloc(width * height * 3);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7 + seed) % 256;
  return Buffer.concat([Buffer.from(`P6\n${width} ${height}\n255\n`, 'latin1'), body]);
}

describe('PpmReader', () => {
  const a = ppm(5, 3, 1);
  const b = ppm(4, 2, 9);
  const stream = Buffer.concat([a, b]);

  it('gives each picture whole, wherever the stream is cut', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const reader = new PpmReader();
      const got = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(got.map((p) => [p.width, p.height])).toEqual([
        [5, 3],
        [4, 2],
      ]);
      expect(got[0].data.equals(a.subarray(a.length - 45))).toBe(true);
      expect(got[1].data.equals(b.subarray(b.length - 24))).toBe(true);
      expect(reader.partial).toBe(false);
    }
  });

  it('gives it byte by byte too, and says when a picture was left unfinished', () => {
    const reader = new PpmReader();
    const got: RgbPixels[] = [];
    for (let i = 0; i < stream.length - 1; i++) got.push(...reader.push(stream.subarray(i, i + 1)));
    expect(got).toHaveLength(1);
    expect(reader.partial).toBe(true);
  });

  it('refuses what is not binary PPM of 8 bits', () => {
    expect(() => [...new PpmReader().push(Buffer.from('GIF89a and more'))]).toThrow(/not a stream of PPM/);
    expect(() => [...new PpmReader().push(Buffer.from('P6\n2 2\n65535\n'))]).toThrow(/65535 levels/);
    expect(() => [...new PpmReader().push(Buffer.from('P6\n0 2\n255\n'))]).toThrow(/without pixels/);
  });
});

/** Whether an ffmpeg drawing frames of `file` for framesAt is running (a killed one is gone once reaped). */
function ffmpegRunningOn(file: string): boolean {
  return fs.readdirSync('/proc').some((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return cmd.includes('image2pipe') && cmd.includes(file);
    } catch {
      return false;
    }
  });
}

describe.skipIf(!findFfmpeg())('framesAt', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-frames-spec-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("gives a video's frames at the rate asked, each as ffmpeg draws it", async () => {
    const video = corpus('video/opencv/vtest.avi'); // 79.5 s, 768×576
    const frames: SampledFrame[] = [];
    for await (const f of framesAt(video, 0.5, 640)) frames.push(f);
    expect(frames).toHaveLength(40);
    expect(frames.slice(0, 3).map((f) => f.timestamp)).toEqual([0, 2, 4]);
    expect(frames.every((f) => f.pixels.width === 640 && f.pixels.height === 480 && f.pixels.channels === 3)).toBe(true);
    // The 11th frame, written by ffmpeg itself without loss through the same filters.
    const png = path.join(dir, 'f.png');
    const scale = "scale='if(gt(iw,ih),min(640,iw),-2)':'if(gt(iw,ih),-2,min(640,ih))'";
    execFileSync(findFfmpeg()!.ffmpeg, ['-v', 'error', '-i', video, '-an', '-vf', `fps=0.5,${scale},select=eq(n\\,10)`, '-frames:v', '1', png]);
    const expected = await sharp(png).removeAlpha().raw().toBuffer();
    expect(frames[10].pixels.data.equals(expected)).toBe(true);
    // Consecutive frames differ: each is its own.
    expect(frames[10].pixels.data.equals(frames[11].pixels.data)).toBe(false);
  });

  it('stops ffmpeg when the frames are no longer wanted', async () => {
    const video = corpus('video/opencv/vtest.avi');
    let n = 0;
    for await (const _ of framesAt(video, 10)) if (++n === 2) break;
    for (let i = 0; i < 50 && ffmpegRunningOn(video); i++) await new Promise((r) => setTimeout(r, 20));
    expect(ffmpegRunningOn(video)).toBe(false);
  });

  it('gives ffmpeg up when it sends nothing for the time allowed, and leaves it not running', async () => {
    // A named pipe no one writes to: ffmpeg waits on it for ever.
    const fifo = path.join(dir, 'never.mp4');
    execFileSync('mkfifo', [fifo]);
    const read = async () => {
      for await (const _ of framesAt(fifo, 1, 640, 300)) throw new Error('no frame was expected');
    };
    await expect(read()).rejects.toThrow(/drew no frame for 0.3 s/);
    expect(ffmpegRunningOn(fifo)).toBe(false);
  });

  it('fails as extraction does on a file ffmpeg cannot read', async () => {
    const bad = path.join(dir, 'bad.mp4');
    fs.writeFileSync(bad, Buffer.alloc(4096, 7));
    const frames: SampledFrame[] = [];
    const read = async () => {
      for await (const f of framesAt(bad, 1)) frames.push(f);
    };
    await expect(read()).rejects.toBeInstanceOf(ExtractError);
    expect(frames).toHaveLength(0);
  });
});

describe.skipIf(!findFfmpeg())('the frames the shots pass keeps for the picture stages', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-sampled-spec-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const all = async (frames: AsyncGenerator<SampledFrame>) => {
    const out: SampledFrame[] = [];
    for await (const f of frames) out.push(f);
    return out;
  };

  it('are, at each rate kept, the pixels framesAt draws from the file, at the same times', async () => {
    const video = corpus('video/opencv/vtest.avi'); // 79.5 s, 768×576, real footage
    const probe = await probeVideo(video);
    await readShots(video, dir, undefined, { duration_s: probe.duration_s, has_audio: probe.has_audio }, [0.5, 1]);
    expect(fs.readdirSync(path.join(dir, SAMPLED_DIR)).sort()).toEqual(['0.5', '1']);
    for (const fps of [0.5, 1]) {
      const kept = await all(sampledFrames(video, dir, fps));
      const drawn = await all(framesAt(video, fps));
      expect(kept).toHaveLength(fps === 1 ? 80 : 40);
      expect(kept.map((f) => f.timestamp)).toEqual(drawn.map((f) => f.timestamp));
      // Byte for byte: the stages find what they found when each decoded the file itself.
      expect(kept.every((f, i) => f.pixels.data.equals(drawn[i].pixels.data) && f.pixels.width === drawn[i].pixels.width)).toBe(true);
    }
  }, 120_000);

  it('are read from the file where none were kept at the rate asked, or they are not all there', async () => {
    const video = corpus('video/imageio/realshort.mp4');
    const probe = await probeVideo(video);
    const known = { duration_s: probe.duration_s, has_audio: probe.has_audio };
    // Above the highest rate kept: nothing is written.
    await readShots(video, dir, undefined, known, [MAX_SAMPLE_FPS * 2]);
    expect(fs.existsSync(path.join(dir, SAMPLED_DIR))).toBe(false);
    await readShots(video, dir, undefined, known, [1]);
    const frame = path.join(dir, SAMPLED_DIR, '1', '000000.png');
    // A frame changed where it lies shows which way the stage read: at 1 a second from the kept
    // frames; at 0.5 (not kept) from the file.
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } })
      .png()
      .toFile(frame);
    expect((await all(sampledFrames(video, dir, 1)))[0].pixels.width).toBe(8);
    expect((await all(sampledFrames(video, dir, 0.5)))[0].pixels.width).toBe(320);
    // One missing: the file, whole.
    fs.rmSync(frame);
    expect((await all(sampledFrames(video, dir, 1)))[0].pixels.width).toBe(320);
  }, 60_000);
});

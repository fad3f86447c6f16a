// What cameras and newer tools write, indexed by the real server: camera RAW through the preview it
// embeds (real camera files from exiftool's test set, whose previews were cut out; the test puts a
// full-size one back with exiftool, as a camera writes it, where a file must be pictured) with the
// RAW's own tags, and JPEG XL written by libjxl's own encoder (cjxl).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { cameraFiles } from './helpers/camera-files.ts';
import { EXTRACT_ONLY, startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import os from 'node:os';

describe('camera RAW and JPEG XL', () => {
  let t: TestServer;
  let key: string;
  let cams: string;
  const scratch = tempDir('mi-camera-');
  const photo = corpus('scenes/opencv/fruits.jpg'); // 512 × 480

  async function indexed(file: string) {
    const r = await t.upload(key, file, { pipeline: 'arrow', options: EXTRACT_ONLY });
    expect(r.status, file).toBe(201);
    return t.waitCompleted(key, r.body.data.video_id, 60_000);
  }

  /** A copy of one of exiftool's camera files, with `tags` written by exiftool. */
  function camera(name: string, as: string, ...tags: string[]): string {
    const out = path.join(scratch, as);
    fs.copyFileSync(path.join(cams, name), out);
    if (tags.length) execFileSync('exiftool', ['-q', '-m', '-overwrite_original', ...tags, out]);
    return out;
  }

  async function frameOf(id: string) {
    const frame = (await t.api('GET', `/videos/${id}/regions?timestamp=0`, { key })).body.data.frame_url;
    return sharp(Buffer.from(await (await fetch(frame)).arrayBuffer()));
  }

  beforeAll(async () => {
    cams = await cameraFiles();
    t = await startTestServer({ workers: 1, libraryRoots: [os.tmpdir()], libraryCheckMs: 150, librarySettleMs: 300, libraryGraceMs: 400 });
    key = t.key('library');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('pictures CR2, NEF, DNG and RW2 by their largest embedded JPEG, with the camera and date of the RAW itself', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['CanonRaw.cr2', `-PreviewImage<=${photo}`, 'Canon EOS 350D DIGITAL', '2005-08-03T18:59:18'],
      ['Nikon.nef', `-JpgFromRaw<=${photo}`, 'NIKON D70', '2004-06-09T16:02:35'],
      ['DNG.dng', `-JpgFromRaw<=${photo}`, 'Canon EOS 350D DIGITAL', '2005-08-03T18:59:18'],
      ['Panasonic.rw2', `-JpgFromRaw<=${photo}`, 'DMC-LX3', '2008-08-06T15:21:56'],
    ];
    const fruits = await sharp(photo).resize(32, 30, { fit: 'fill' }).raw().toBuffer();
    for (const [name, preview, model, taken] of cases) {
      const d = await indexed(camera(name, `with-preview-${name}`, preview));
      expect(d.index.report.stages.extract.state, name).toBe('ok');
      expect([d.width, d.height], name).toEqual([512, 480]);
      expect(d.metadata.camera?.model, name).toBe(model);
      expect(d.metadata.taken_at, name).toBe(taken);
      expect(d.index.report.stages.metadata.details, name).toMatchObject({ taken_at_source: 'exif' });
      // The picture is the preview's: the same pixels, near enough (JPEG twice).
      const got = await (await frameOf(d.video_id)).resize(32, 30, { fit: 'fill' }).raw().toBuffer();
      let diff = 0;
      for (let i = 0; i < got.length; i++) diff += Math.abs(got[i] - fruits[i]);
      expect(diff / got.length, name).toBeLessThan(6);
      expect(d.thumbnail_url, name).toBeTruthy();
    }
  });

  it("turns a RAW's preview by the RAW's orientation when the preview has none of its own", async () => {
    const d = await indexed(camera('CanonRaw.cr2', 'portrait.cr2', `-PreviewImage<=${photo}`, '-IFD0:Orientation#=6'));
    expect([d.width, d.height]).toEqual([480, 512]);
    const m = await (await frameOf(d.video_id)).metadata();
    expect([m.width, m.height]).toEqual([480, 512]);
  });

  it('indexes a RAW without a usable preview with its metadata, the picture stage failed with a clear reason', async () => {
    // As exiftool's set keeps them: CR3's preview and RAF's and RW2's are stubs of a few bytes / 8 × 8 pixels.
    for (const [name, model, taken] of [
      ['CanonRaw.cr3', 'Canon EOS M50', '2018-02-21T12:08:56+00:00'], // the M50 writes OffsetTimeOriginal
      ['FujiFilm.raf', 'FinePix S5Pro', '2007-05-22T13:58:30'],
      ['Panasonic.rw2', 'DMC-LX3', '2008-08-06T15:21:56'],
    ]) {
      const d = await indexed(camera(name, `bare-${name}`));
      expect(d.status, name).toBe('completed');
      expect(d.index.report.stages.extract.state, name).toBe('failed');
      expect(d.index.report.stages.extract.reason, name).toMatch(/^no_preview: /);
      expect(d.metadata.camera?.model, name).toBe(model);
      expect(d.metadata.taken_at, name).toBe(taken);
    }
    // Not a RAW at all: refused before anything is stored.
    const fake = path.join(scratch, 'fake.nef');
    fs.writeFileSync(fake, 'not a camera file at all, only words');
    expect((await t.upload(key, fake, { pipeline: 'arrow', options: EXTRACT_ONLY })).status).toBe(415);
  });

  it("reads through exiftool what exifr cannot parse (exiftool's own ExifTool.tif): date, title, author", async () => {
    const d = await indexed(camera('ExifTool.tif', 'exiftool.tif'));
    expect(d.metadata).toMatchObject({ taken_at: '2004-02-20T00:00:00', title: 'This is the title', author: "I'm the author" });
    expect(d.metadata.taken_at_tag).toBe('IPTC:DateCreated+TimeCreated');
  });

  it('decodes JPEG XL from libjxl: lossy, lossless, and a JPEG recompressed losslessly; a broken one fails with a reason', async () => {
    const src = corpus('scenes/skimage/chelsea.png'); // 451 × 300
    const jpeg = path.join(scratch, 'chelsea.jpg');
    await sharp(src).jpeg({ quality: 90 }).toFile(jpeg);
    const variants: Array<[string, string[]]> = [
      ['lossy.jxl', [src, '-d', '1']],
      ['lossless.jxl', [src, '-d', '0']],
      ['from-jpeg.jxl', [jpeg, '--lossless_jpeg=1']],
    ];
    const cat = await sharp(src).resize(30, 20, { fit: 'fill' }).removeAlpha().raw().toBuffer();
    for (const [name, args] of variants) {
      const out = path.join(scratch, name);
      execFileSync('cjxl', [args[0], out, ...args.slice(1)], { stdio: 'ignore' });
      const d = await indexed(out);
      expect(d.index.report.stages.extract.state, name).toBe('ok');
      expect([d.width, d.height], name).toEqual([451, 300]);
      const got = await (await frameOf(d.video_id)).resize(30, 20, { fit: 'fill' }).raw().toBuffer();
      let diff = 0;
      for (let i = 0; i < got.length; i++) diff += Math.abs(got[i] - cat[i]);
      expect(diff / got.length, name).toBeLessThan(6);
    }
    const broken = path.join(scratch, 'broken.jxl');
    const whole = fs.readFileSync(path.join(scratch, 'lossy.jxl'));
    fs.writeFileSync(broken, whole.subarray(0, Math.floor(whole.length / 3)));
    const b = await indexed(broken);
    expect(b.index.report.stages.extract).toMatchObject({ state: 'failed' });
    expect(b.index.report.stages.extract.reason).toMatch(/^corrupt: JPEG XL/);
  });

  it('stacks a RAW and the JPEG of the same shot in a library as one asset, the JPEG shown; the RAW alone until its JPEG comes; back to the RAW when the JPEG goes', async () => {
    const lkey = t.key('stacks');
    const root = tempDir('mi-stacks-');
    const loose = tempDir('mi-unstacked-');
    const cat = path.join(scratch, 'cat.jpg');
    await sharp(corpus('scenes/skimage/chelsea.png')).jpeg().toFile(cat); // 451 × 300; the RAWs' previews are fruits, 512 × 480
    const write = (dir: string, rel: string, from: string) => {
      const to = path.join(dir, rel);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(to, old, old);
      return to;
    };
    try {
      write(root, 'dcim/IMG_1.CR2', camera('CanonRaw.cr2', 'stack1.cr2', `-PreviewImage<=${photo}`));
      write(root, 'dcim/IMG_1.JPG', cat);
      write(root, 'dcim/IMG_2.NEF', camera('Nikon.nef', 'stack2.nef', `-JpgFromRaw<=${photo}`));
      // Other shots (the same content elsewhere would be copies of the first stack's asset).
      write(loose, 'IMG_3.CR2', camera('CanonRaw.cr2', 'stack3.cr2', `-PreviewImage<=${photo}`, '-Artist=Ana'));
      const cat3 = path.join(scratch, 'cat3.jpg');
      await sharp(cat).jpeg({ quality: 70 }).toFile(cat3);
      write(loose, 'IMG_3.JPG', cat3);
      const lib = (await t.api('POST', '/libraries', { key: lkey, json: { path: root } })).body.data;
      expect(lib.stack_raw).toBe(true);
      const off = (await t.api('POST', '/libraries', { key: lkey, json: { path: loose, stack_raw: false } })).body.data;
      expect(off.stack_raw).toBe(false);
      const details = async () => {
        const list = (await t.api('GET', '/videos?limit=50', { key: lkey })).body.data as Array<{ video_id: string; status: string }>;
        if (list.some((a) => a.status !== 'completed')) return [];
        return Promise.all(list.map(async (a) => (await t.api('GET', `/videos/${a.video_id}`, { key: lkey })).body.data));
      };
      const until = async (what: string, ok: (all: Awaited<ReturnType<typeof details>>) => boolean) => {
        const end = Date.now() + 50_000;
        for (;;) {
          const all = await details();
          if (all.length && ok(all)) return all;
          if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(all.map((d) => [d.path, d.paths]))}`);
          await new Promise((r) => setTimeout(r, 150));
        }
      };
      const at = (rel: string, dir = root) => path.join(dir, rel);
      const of = (all: Awaited<ReturnType<typeof details>>, rel: string, dir = root) => all.find((d) => d.path === at(rel, dir));
      // The stack is one asset: the JPEG its file and picture, the RAW a path of it; stacking off, two.
      let all = await until('the libraries', (a) => a.length === 4);
      const one = of(all, 'dcim/IMG_1.JPG')!;
      expect(one.paths.sort()).toEqual([at('dcim/IMG_1.CR2'), at('dcim/IMG_1.JPG')]);
      expect([one.width, one.height]).toEqual([451, 300]);
      const two = of(all, 'dcim/IMG_2.NEF')!;
      expect([two.width, two.height]).toEqual([512, 480]);
      expect(of(all, 'IMG_3.CR2', loose)).toBeTruthy();
      expect(of(all, 'IMG_3.JPG', loose)).toBeTruthy();
      // The JPEG of the lone RAW arrives: it takes the RAW's asset over (same id), the JPEG shown.
      const cat2 = path.join(scratch, 'cat2.jpg');
      await sharp(cat).jpeg({ quality: 60 }).toFile(cat2);
      write(root, 'dcim/img_2.jpg', cat2);
      all = await until('the JPEG to take the RAW over', (a) => of(a, 'dcim/img_2.jpg')?.width === 451);
      const taken = of(all, 'dcim/img_2.jpg')!;
      expect(taken.video_id).toBe(two.video_id);
      expect(taken.paths.sort()).toEqual([at('dcim/IMG_2.NEF'), at('dcim/img_2.jpg')]);
      expect(all).toHaveLength(4);
      // The stack's JPEG deleted: the asset goes on as its RAW, pictured from the RAW's preview.
      fs.rmSync(at('dcim/IMG_1.JPG'));
      all = await until('the asset to fall back to its RAW', (a) => of(a, 'dcim/IMG_1.CR2')?.width === 512);
      const back = of(all, 'dcim/IMG_1.CR2')!;
      expect(back.video_id).toBe(one.video_id);
      expect(back.paths).toEqual([at('dcim/IMG_1.CR2')]);
      expect(back.metadata.camera?.model).toBe('Canon EOS 350D DIGITAL');
      expect(all).toHaveLength(4);
      for (const l of [lib, off]) expect((await t.api('DELETE', `/libraries/${l.library_id}`, { key: lkey })).status).toBe(200);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(loose, { recursive: true, force: true });
    }
  }, 240_000);
});

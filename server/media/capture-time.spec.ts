// When a photo was taken: the priority of the tags, a time alone never a date, the offset from the
// offset tags, the GPS clock or the GPS position — on exifr's output shape, and on real files whose
// tags exiftool writes here.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTime, withZoneOfPlace } from './capture-time.ts';
import { readMetadata } from './metadata.ts';

const PHOTO = fileURLToPath(new URL('../../../shared/corpus/scenes/opencv/fruits.jpg', import.meta.url));

describe('the capture time of exifr output', () => {
  it('takes the first tag of the priority that holds a whole date, and names it', () => {
    const all = {
      ifd0: { ModifyDate: '2021:01:01 00:00:00' },
      exif: { DateTimeOriginal: '2019:12:24 15:15:44', OffsetTimeOriginal: '-04:00', CreateDate: '2019:12:25 10:00:00' },
      photoshop: { DateCreated: '2019-12-20T10:00:00' },
      iptc: { DateCreated: '20191221', TimeCreated: '101010+0100' },
    };
    expect(captureTime(all)).toEqual({
      taken_at: '2019-12-24T15:15:44-04:00',
      taken_at_source: 'exif',
      taken_at_tag: 'EXIF:DateTimeOriginal',
      taken_at_zone: 'offset_tag',
    });
    expect(captureTime({ ...all, exif: { CreateDate: '2019:12:25 10:00:00' } })).toMatchObject({
      taken_at_tag: 'XMP:photoshop:DateCreated',
      taken_at: '2019-12-20T10:00:00',
    });
    expect(captureTime({ iptc: all.iptc, exif: { CreateDate: '2019:12:25 10:00:00' } })).toMatchObject({
      taken_at_tag: 'IPTC:DateCreated+TimeCreated',
      taken_at: '2019-12-21T10:10:10+01:00',
      taken_at_source: 'iptc',
    });
    expect(captureTime({ ifd0: all.ifd0, exif: { CreateDate: '2019:12:25 10:00:00' } })).toMatchObject({ taken_at_tag: 'EXIF:CreateDate' });
    expect(captureTime({ ifd0: all.ifd0 })).toMatchObject({ taken_at_tag: 'EXIF:ModifyDate', taken_at_zone: null });
  });

  it('never makes a date of a time alone', () => {
    expect(captureTime({ iptc: { TimeCreated: '151544-0400' } })).toBeNull();
    expect(captureTime({ gps: { GPSTimeStamp: [19, 15, 44] } })).toBeNull();
    expect(captureTime({})).toBeNull();
  });

  it('takes the GPS clock (UTC) as a last resort, and as the offset of a local time', () => {
    const gps = { GPSDateStamp: '2019:12:24', GPSTimeStamp: [19, 15, 44] };
    expect(captureTime({ gps })).toEqual({
      taken_at: '2019-12-24T19:15:44Z',
      taken_at_source: 'exif',
      taken_at_tag: 'EXIF:GPSDateTime',
      taken_at_zone: 'offset_tag',
    });
    // Local 15:15:44, the GPS clock 19:15:46 UTC: taken at −04:00 (to the quarter hour).
    expect(captureTime({ exif: { DateTimeOriginal: '2019:12:24 15:15:44' }, gps: { ...gps, GPSTimeStamp: [19, 15, 46] } })).toMatchObject({
      taken_at: '2019-12-24T15:15:44-04:00',
      taken_at_zone: 'gps_time',
    });
  });

  it('gives a local time the offset of the place it was taken, summer time included', () => {
    expect(withZoneOfPlace('2019-12-24T15:15:44', 40.7128, -74.006)).toBe('2019-12-24T15:15:44-05:00');
    expect(withZoneOfPlace('2019-07-14T18:30:00', 48.8584, 2.2945)).toBe('2019-07-14T18:30:00+02:00');
    expect(withZoneOfPlace('2019-07-14T18:30:00', 9.9312, 76.2673)).toBe('2019-07-14T18:30:00+05:30');
    expect(withZoneOfPlace('2019-07-14T18:30:00+02:00', 40.7, -74)).toBeNull();
  });
});

describe('the capture time of real files, tags written by exiftool', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-taken-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const photo = async (name: string, tags: string[]) => {
    const file = path.join(dir, name);
    fs.copyFileSync(PHOTO, file);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-all=', ...tags, file]);
    return (await readMetadata(file, '.jpg', 'image', { linked: false })).metadata;
  };

  it('reads photoshop:DateCreated with its time and offset (Photoshop, Lightroom exports, agencies)', async () => {
    expect(await photo('ps.jpg', ['-XMP-photoshop:DateCreated=2019:12:24 15:15:44-04:00'])).toMatchObject({
      taken_at: '2019-12-24T15:15:44-04:00',
      taken_at_source: 'xmp',
      taken_at_tag: 'XMP:photoshop:DateCreated',
    });
  });

  it('reads IPTC DateCreated with TimeCreated, and not TimeCreated alone', async () => {
    expect(await photo('iptc.jpg', ['-IPTC:DateCreated=2019:12:24', '-IPTC:TimeCreated=15:15:44-04:00'])).toMatchObject({
      taken_at: '2019-12-24T15:15:44-04:00',
      taken_at_source: 'iptc',
      taken_at_tag: 'IPTC:DateCreated+TimeCreated',
    });
    expect((await photo('time-only.jpg', ['-IPTC:TimeCreated=15:15:44-04:00'])).taken_at).toBeNull();
  });

  it('takes the GPS date and time when nothing else says when', async () => {
    expect(await photo('gps.jpg', ['-GPSDateStamp=2019:12:24', '-GPSTimeStamp=19:15:44'])).toMatchObject({
      taken_at: '2019-12-24T19:15:44Z',
      taken_at_tag: 'EXIF:GPSDateTime',
    });
  });

  it("reads the EXIF of an AVIF photo as of a JPEG (a phone's 10-bit AVIF)", async () => {
    const file = path.join(dir, 'phone.avif');
    await sharp(PHOTO).avif({ bitdepth: 10 }).toFile(file);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-DateTimeOriginal=2019:12:24 15:15:44', '-OffsetTimeOriginal=-04:00', '-Model=Pixel 8', file]);
    expect((await readMetadata(file, '.avif', 'image', { linked: false })).metadata).toMatchObject({
      taken_at: '2019-12-24T15:15:44-04:00',
      taken_at_tag: 'EXIF:DateTimeOriginal',
      camera: { make: null, model: 'Pixel 8' },
    });
  }, 30_000); // encoding the AVIF takes seconds of one core

  it('gives a camera time without an offset the offset of its GPS position', async () => {
    expect(
      await photo('nyc.jpg', [
        '-DateTimeOriginal=2019:12:24 15:15:44',
        '-GPSLatitude=40.7128',
        '-GPSLatitudeRef=N',
        '-GPSLongitude=74.006',
        '-GPSLongitudeRef=W',
      ]),
    ).toMatchObject({ taken_at: '2019-12-24T15:15:44-05:00', taken_at_tag: 'EXIF:DateTimeOriginal', taken_at_zone: 'gps_position' });
  });
});

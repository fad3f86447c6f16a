// Camera RAW files (RAW_EXTENSIONS): read with exiftool (exiftool-vendored — one long-lived exiftool
// per indexer process, closed after a minute without work), which knows where each maker keeps its
// previews and tags (TIFF IFDs and sub-IFDs, maker notes, RAF's and CR3's own containers). The
// picture stages see the largest JPEG the camera embedded (JpgFromRaw, PreviewImage, OtherImage),
// never the sensor data; the metadata stage sees the RAW's own tags in the shape exifr gives for
// other photos, so one set of rules (capture-time.ts, metadata.ts) reads both.
import fs from 'node:fs';
import path from 'node:path';
import type { ExifTool } from 'exiftool-vendored';
import { ExtractError } from './types.ts';

type Json = Record<string, unknown>;

/** A preview smaller than this on its long side is a thumbnail, not a picture to index. */
export const MIN_PREVIEW_SIDE = 320;

const PREVIEW_TAGS = ['JpgFromRaw', 'PreviewImage', 'OtherImage', 'ThumbnailImage'];

let tool: Promise<ExifTool> | null = null;

/** Loaded and started on the first RAW file (a process that meets none starts no exiftool). */
function exiftool(): Promise<ExifTool> {
  tool ??= import('exiftool-vendored').then(
    ({ ExifTool }) =>
      new ExifTool({
        maxProcs: 1,
        maxIdleMsPerProcess: 60_000,
        taskTimeoutMillis: 60_000,
        maxTasksPerProcess: 5_000,
        // Its own environment is the process's (by default it gets a bare one).
        exiftoolEnv: { ...process.env },
      }),
  );
  return tool;
}

/** Ends the exiftool process (when the indexer process stops). */
export async function closeExiftool(): Promise<void> {
  const t = tool;
  tool = null;
  await (await t)?.end();
}

/** Every tag of the file, keyed by where it was found (`IFD0:Make`, `ExifIFD:DateTimeOriginal`), values unformatted. */
export async function rawTags(file: string): Promise<Json> {
  return (await (await exiftool()).readRaw(file, ['-G1', '-n'])) as Json;
}

const groupOf = (key: string) => key.slice(0, key.indexOf(':'));
const nameOf = (key: string) => key.slice(key.indexOf(':') + 1);

/** XMP property names as the packet writes them (exiftool capitalises the Dublin Core ones). */
const DC_NAMES: Record<string, string> = { Title: 'title', Description: 'description', Subject: 'subject', Creator: 'creator' };

/**
 * exiftool's grouped tags in exifr's shape: `ifd0`, `exif`, `gps` (with signed `latitude` and
 * `longitude`), `iptc`, and each XMP namespace by its prefix.
 */
export function asExifrShape(tags: Json): Json {
  const out: Record<string, Json> = { ifd0: {}, exif: {}, gps: {}, iptc: {} };
  // XMP last: where its `exif` namespace and the EXIF IFDs both say something, EXIF's is kept.
  const entries = Object.entries(tags).filter(([k]) => k.includes(':'));
  const xmpLast = [...entries.filter(([k]) => !k.startsWith('XMP-')), ...entries.filter(([k]) => k.startsWith('XMP-'))];
  for (const [key, value] of xmpLast) {
    const group = groupOf(key);
    const name = nameOf(key);
    const into = group === 'IFD0' ? 'ifd0' : group === 'ExifIFD' ? 'exif' : group === 'GPS' ? 'gps' : group === 'IPTC' ? 'iptc' : null;
    if (into) out[into][name] ??= value;
    else if (group.startsWith('XMP-')) {
      const ns = group.slice(4);
      out[ns] ??= {};
      out[ns][ns === 'dc' ? (DC_NAMES[name] ?? name) : name] ??= value;
    }
  }
  const lat = tags['Composite:GPSLatitude'];
  const lon = tags['Composite:GPSLongitude'];
  if (typeof lat === 'number' && typeof lon === 'number') Object.assign(out.gps, { latitude: lat, longitude: lon });
  return out;
}

/** The size of a binary tag as exiftool lists it ("(Binary data 82429 bytes, use -b option to extract)"). */
function binaryBytes(v: unknown): number {
  const m = /^\(Binary data (\d+) bytes/.exec(String(v ?? ''));
  return m ? Number(m[1]) : 0;
}

export interface RawPreview {
  jpeg: Buffer;
  /** The tag it came from, with its group (`SubIFD2:JpgFromRaw`). */
  tag: string;
  /** The RAW's EXIF orientation (1–8), which a preview without its own applies. */
  orientation: number;
}

/** The embedded previews, biggest first (the full-size JpgFromRaw of most cameras). */
export function previewsOf(tags: Json): Array<{ tag: string; bytes: number }> {
  return Object.entries(tags)
    .filter(([k]) => PREVIEW_TAGS.includes(nameOf(k)))
    .map(([tag, v]) => ({ tag, bytes: binaryBytes(v) }))
    .filter((p) => p.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}

/**
 * The largest embedded JPEG of a RAW file, written by exiftool into `scratch` and read back (a
 * 5 MB preview through exiftool's JSON, base64, took twice as long); `no_preview` when it holds
 * none that can be pictured.
 */
export async function rawPreview(file: string, scratch: string): Promise<RawPreview> {
  let all: Json;
  try {
    all = await rawTags(file);
  } catch (err) {
    throw new ExtractError('corrupt', `exiftool could not read the RAW file (${(err as Error).message.slice(0, 200)})`);
  }
  const orientation = Number(all['IFD0:Orientation'] ?? all['MWG:Orientation'] ?? 1) || 1;
  for (const [i, { tag }] of previewsOf(all).entries()) {
    const out = path.join(scratch, `preview-${i}.jpg`);
    const trouble = await (await exiftool()).extractBinaryTag(tag, file, out).then(
      () => null,
      (err: Error) => err,
    );
    const jpeg = trouble ? null : await fs.promises.readFile(out).catch(() => null);
    // A JPEG starts FF D8; a preview slot holding anything else (or a stub) is passed over.
    if (jpeg && jpeg.length > 1024 && jpeg[0] === 0xff && jpeg[1] === 0xd8) return { jpeg, tag, orientation };
  }
  throw new ExtractError('no_preview', 'the RAW file embeds no JPEG preview to picture (its metadata is still read)');
}

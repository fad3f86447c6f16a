// What a file says about itself: when and where it was taken, with what, by whom, titled and
// tagged how, and the faces other tools have named in it. Photos: EXIF, XMP and IPTC (exifr; camera
// RAW through exiftool, media/raw.ts);
// an XMP sidecar beside a file indexed in place (IMG_1.xmp or IMG_1.jpg.xmp) wins over what is
// embedded, as Lightroom and digiKam expect. Videos: the container's tags (ffprobe: creation time,
// ISO 6709 location, QuickTime make and model). Documents: PDF properties, Office and OpenDocument
// core properties. Nothing here throws for bad metadata: what cannot be read is left out and said
// in `warnings`.
import fs from 'node:fs';
import path from 'node:path';
import { captureTime, withZoneOfPlace, parseDate, dateMs } from './capture-time.ts';
import { createRequire } from 'node:module';
import type { XMLParser } from 'fast-xml-parser';
import type { AssetMetadata } from '../contract/assets.ts';
import { RAW_EXTENSIONS, type AssetKind } from '../contract/extensions.ts';
import type { Box } from '../contract/common.ts';
import { clampBox } from '../geometry.ts';
import { findFfmpeg, runTool } from './ffmpeg.ts';
import { pdfInfo } from './pdf.ts';

// The readers are loaded on first use: a process that reads only PDFs loads no photo or office
// reader (exifr, sharp, jszip, the XML parser), one that reads only photos no office reader.
// exifr is required, not imported: its package offers a UMD build and an ES module, and an import
// gets one or the other's shape depending on the loader; require always gets the UMD build.
type Exifr = Pick<typeof import('exifr'), 'parse' | 'sidecar'>;
const require = createRequire(import.meta.url);
const loadExifr = (): Exifr => require('exifr') as Exifr;
const loadSharp = async () => (await import('sharp')).default;
let xml: XMLParser | null = null;
async function xmlParser(): Promise<XMLParser> {
  const { XMLParser } = await import('fast-xml-parser');
  xml ??= new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, processEntities: false, htmlEntities: false });
  return xml;
}

/** A face region another tool named (MWG regions of Lightroom, digiKam, Picasa; Windows Photo Gallery's). */
export interface NamedRegion {
  name: string;
  box: Box;
  source: 'mwg-rs' | 'microsoft-photo';
}

/** What was read, before places are looked up (gps → place is done by the caller). */
export type ReadMetadata = Omit<AssetMetadata, 'place' | 'width' | 'height' | 'duration_s'>;

export interface MetadataRead {
  metadata: ReadMetadata;
  regions: NamedRegion[];
  /** Sidecar files read, relative names. */
  sidecars: string[];
  warnings: string[];
}

const EMPTY: ReadMetadata = {
  taken_at: null,
  taken_at_source: null,
  taken_at_tag: null,
  taken_at_zone: null,
  camera: null,
  lens: null,
  exposure: null,
  gps: null,
  title: null,
  description: null,
  keywords: [],
  rating: null,
  author: null,
};

const MAX_TEXT = 2000;
const MAX_KEYWORDS = 100;
const MAX_REGIONS = 100;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text of an XMP/EXIF value: a string, a language alternative ({lang, value} or a list of them), a number. */
function text(v: unknown): string | null {
  if (typeof v === 'string') return v.trim().slice(0, MAX_TEXT) || null;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return text(v.find((x) => isObj(x) && x.lang === 'x-default') ?? v[0]);
  if (isObj(v) && 'value' in v) return text(v.value);
  return null;
}

function texts(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : typeof v === 'string' ? v.split(/[;,]/) : [v];
  const out = list.map(text).filter((x): x is string => Boolean(x));
  return [...new Set(out)].slice(0, MAX_KEYWORDS);
}

function num(v: unknown): number | null {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

export { dateMs, parseDate };

function gpsOf(lat: unknown, lon: unknown, alt: unknown, warnings: string[]): ReadMetadata['gps'] {
  const la = num(lat);
  const lo = num(lon);
  if (la === null || lo === null) return null;
  if (Math.abs(la) > 90 || Math.abs(lo) > 180) {
    warnings.push(`gps: ${la}, ${lo} is not a place on Earth; ignored`);
    return null;
  }
  if (la === 0 && lo === 0) {
    warnings.push('gps: 0, 0 (an unset position); ignored');
    return null;
  }
  const a = num(alt);
  return { lat: Math.round(la * 1e6) / 1e6, lon: Math.round(lo * 1e6) / 1e6, alt: a !== null && Math.abs(a) < 100_000 ? Math.round(a * 10) / 10 : null };
}

/** An ISO 6709 position as QuickTime and Android write it: "+48.8584+002.2945+035.000/". */
function iso6709(s: unknown): { lat: number; lon: number; alt: number | null } | null {
  const m = typeof s === 'string' ? /^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)?/.exec(s.trim()) : null;
  return m ? { lat: Number(m[1]), lon: Number(m[2]), alt: m[3] ? Number(m[3]) : null } : null;
}

/** A region's box as a sidecar gives it (relative), or null when it is no box. */
function regionBox(x: number, y: number, w: number, h: number): Box | null {
  if (![x, y, w, h].every(Number.isFinite) || w <= 0 || h <= 0) return null;
  return clampBox({ x, y, w, h });
}

/** Named face regions of an XMP packet (as exifr parses it, namespaces as keys). */
function regionsOf(xmp: Json): NamedRegion[] {
  const out: NamedRegion[] = [];
  const mwg = xmp['mwg-rs'];
  const list = isObj(mwg) && isObj(mwg.Regions) ? mwg.Regions.RegionList : undefined;
  for (const r of Array.isArray(list) ? list : list ? [list] : []) {
    if (!isObj(r) || (r.Type !== undefined && r.Type !== 'Face')) continue;
    const name = text(r.Name);
    const a = isObj(r.Area) ? r.Area : null;
    if (!name || !a || (a.unit !== undefined && a.unit !== 'normalized')) continue;
    // MWG areas are given by their centre.
    const [w, h] = [num(a.w) ?? NaN, num(a.h) ?? NaN];
    const box = regionBox((num(a.x) ?? NaN) - w / 2, (num(a.y) ?? NaN) - h / 2, w, h);
    if (box) out.push({ name, box, source: 'mwg-rs' });
  }
  const mp = xmp.MP;
  const mpRegions = isObj(mp) && isObj(mp.RegionInfo) ? mp.RegionInfo.Regions : undefined;
  for (const r of Array.isArray(mpRegions) ? mpRegions : mpRegions ? [mpRegions] : []) {
    if (!isObj(r)) continue;
    const name = text(r.PersonDisplayName);
    const rect = typeof r.Rectangle === 'string' ? r.Rectangle.split(',').map(Number) : [];
    // Windows Photo Gallery rectangles are given by their top-left corner.
    const box = rect.length === 4 ? regionBox(rect[0], rect[1], rect[2], rect[3]) : null;
    if (name && box) out.push({ name, box, source: 'microsoft-photo' });
  }
  return out.slice(0, MAX_REGIONS);
}

/** What an XMP packet (embedded or sidecar) says; keys left out when it says nothing. */
function fromXmp(x: Json, warnings: string[]): Partial<ReadMetadata> {
  const dc = isObj(x.dc) ? x.dc : {};
  const xmpNs = isObj(x.xmp) ? x.xmp : {};
  const photoshop = isObj(x.photoshop) ? x.photoshop : {};
  const exifNs = isObj(x.exif) ? x.exif : {};
  const lr = isObj(x.lr) ? x.lr : {};
  const out: Partial<ReadMetadata> = {};
  const title = text(dc.title);
  if (title) out.title = title;
  const description = text(dc.description);
  if (description) out.description = description;
  const keywords = [...texts(dc.subject), ...texts(lr.hierarchicalSubject).map((k) => k.split('|').pop() ?? k)];
  if (keywords.length) out.keywords = [...new Set(keywords)].slice(0, MAX_KEYWORDS);
  const creator = texts(dc.creator);
  if (creator.length) out.author = creator.join(', ');
  const rating = num(xmpNs.Rating);
  if (rating !== null) {
    if (rating >= -1 && rating <= 5) out.rating = rating;
    else warnings.push(`xmp: rating ${rating} is not between -1 and 5; ignored`);
  }
  // The same order as embedded tags (capture-time.ts), within XMP; its GPS time (UTC) last.
  const when = (
    [
      ['XMP:exif:DateTimeOriginal', parseDate(exifNs.DateTimeOriginal)],
      ['XMP:photoshop:DateCreated', parseDate(photoshop.DateCreated)],
      ['XMP:xmp:CreateDate', parseDate(xmpNs.CreateDate)],
      ['XMP:exif:GPSTimeStamp', /T\d/.test(String(exifNs.GPSTimeStamp ?? '')) ? parseDate(exifNs.GPSTimeStamp) : null],
    ] as Array<[string, string | null]>
  ).find(([, v]) => v !== null);
  if (when) {
    out.taken_at = when[1];
    out.taken_at_source = 'xmp';
    out.taken_at_tag = when[0];
    out.taken_at_zone = /(Z|[+-]\d{2}:\d{2})$/.test(when[1]!) ? 'offset_tag' : null;
  }
  return out;
}

const EXIFR_OPTIONS = {
  tiff: true,
  exif: true,
  gps: true,
  xmp: true,
  iptc: true,
  icc: false,
  jfif: false,
  ihdr: true,
  mergeOutput: false,
  reviveValues: false,
  translateValues: false,
  chunkLimit: 20,
} as const;

/**
 * WebP (which exifr does not read) and PNG (whose eXIf chunk exifr misses after an XMP chunk, as
 * exiftool writes them): the EXIF and XMP chunks through sharp, read by exifr.
 */
async function chunksOf(file: string): Promise<Json | undefined> {
  const sharp = await loadSharp();
  const exifr = loadExifr();
  const { exif, xmp } = await sharp(file).metadata();
  let d: Json | undefined;
  if (exif) {
    const tiff = exif.subarray(0, 6).toString('binary') === 'Exif\x00\x00' ? exif.subarray(6) : exif;
    d = (await exifr.parse(tiff, EXIFR_OPTIONS)) as Json | undefined;
  }
  if (xmp) {
    const x = (await exifr.sidecar(xmp, { xmp: { parse: true } } as Parameters<Exifr['sidecar']>[1])) as Json | undefined;
    if (isObj(x)) d = { ...(d ?? {}), ...x };
  }
  return d;
}

async function photo(file: string, ext: string): Promise<{ meta: Partial<ReadMetadata>; regions: NamedRegion[]; warnings: string[] }> {
  const warnings: string[] = [];
  let d: Json | undefined;
  try {
    const raw = RAW_EXTENSIONS.includes(ext) ? await import('./raw.ts') : null;
    d = raw
      ? raw.asExifrShape(await raw.rawTags(file))
      : ext === '.webp' || ext === '.png'
        ? await chunksOf(file)
        : ((await loadExifr().parse(file, EXIFR_OPTIONS)) as Json | undefined);
  } catch (err) {
    warnings.push(`exif: ${(err as Error).message}`);
    d = { errors: [err] };
  }
  // A structure exifr does not know (some TIFFs, maker layouts) that cost it the capture time:
  // exiftool reads the whole file instead (≈ 30 files/s against exifr's hundreds: only then).
  if (Array.isArray(d?.errors) && d.errors.length && !captureTime(d) && !RAW_EXTENSIONS.includes(ext)) {
    const raw = await import('./raw.ts');
    d = await raw.rawTags(file).then(raw.asExifrShape, (err: Error) => {
      warnings.push(`exiftool: ${err.message.slice(0, 200)}`);
      return d;
    });
  }
  if (!d) return { meta: {}, regions: [], warnings };
  const ifd0 = isObj(d.ifd0) ? d.ifd0 : {};
  const exif = isObj(d.exif) ? d.exif : {};
  const gps = isObj(d.gps) ? d.gps : {};
  const iptc = isObj(d.iptc) ? d.iptc : {};
  const meta: Partial<ReadMetadata> = {};
  const when = captureTime(d);
  if (when) Object.assign(meta, when);
  else if (exif.DateTimeOriginal !== undefined) {
    warnings.push(`exif: DateTimeOriginal "${String(exif.DateTimeOriginal).slice(0, 40)}" is not a date; ignored`);
  }
  const make = text(ifd0.Make);
  const model = text(ifd0.Model);
  if (make || model) meta.camera = { make, model };
  const lens = text(exif.LensModel) ?? text(exif.LensMake);
  if (lens) meta.lens = lens;
  const exposure = { iso: num(exif.ISO), aperture: num(exif.FNumber), shutter_s: num(exif.ExposureTime), focal_mm: num(exif.FocalLength) };
  if (Object.values(exposure).some((v) => v !== null)) meta.exposure = exposure;
  const position = gpsOf(gps.latitude, gps.longitude, gps.GPSAltitude, warnings);
  if (position) meta.gps = position;
  const author = text(ifd0.Artist) ?? text(iptc['By-line']);
  if (author) meta.author = author;
  const title = text(iptc.ObjectName) ?? text(ifd0.XPTitle);
  if (title) meta.title = title;
  const description = text(iptc['Caption-Abstract']) ?? text(ifd0.ImageDescription);
  if (description) meta.description = description;
  const keywords = texts(iptc.Keywords);
  if (keywords.length) meta.keywords = keywords;
  // XMP (embedded) over EXIF and IPTC for what both say.
  const xmpOnly = Object.fromEntries(
    Object.entries(d).filter(([k, v]) => !['ifd0', 'ifd1', 'exif', 'gps', 'iptc', 'ihdr', 'interop', 'thumbnail'].includes(k) && isObj(v)),
  );
  const fromEmbedded = fromXmp(xmpOnly, warnings);
  // EXIF's own capture time stays first; XMP's stands in only where EXIF has none.
  if (meta.taken_at) {
    delete fromEmbedded.taken_at;
    delete fromEmbedded.taken_at_source;
    delete fromEmbedded.taken_at_tag;
    delete fromEmbedded.taken_at_zone;
  }
  return { meta: { ...meta, ...fromEmbedded }, regions: regionsOf(xmpOnly), warnings };
}

/** Folders whose listing is kept, the most recently used last. */
const LISTINGS_KEPT = 8;
/**
 * A listing is kept only once its folder has not changed for this long: a file system that keeps
 * times to the second or two (FAT, exFAT) would otherwise not show a sidecar written in the same
 * second as a change it did show.
 */
const LISTING_SETTLED_MS = 3000;
/** Folders' entries by lower-case name, with the folder's modification time when listed. */
const listings = new Map<string, { mtimeMs: number; byLowerName: Map<string, string[]> }>();

/**
 * A folder's entries by lower-case name. A folder of 20,000 photos was listed once a photo (20,000
 * names read 20,000 times); its listing is now kept while the folder's modification time is
 * unchanged (entries added, removed or renamed change it) and settled.
 */
function entriesByLowerName(dir: string): Map<string, string[]> | null {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(dir).mtimeMs;
  } catch {
    return null;
  }
  const kept = listings.get(dir);
  if (kept && kept.mtimeMs === mtimeMs) {
    listings.delete(dir);
    listings.set(dir, kept);
    return kept.byLowerName;
  }
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const byLowerName = new Map<string, string[]>();
  for (const n of names) {
    const key = n.toLowerCase();
    const same = byLowerName.get(key);
    if (same) same.push(n);
    else byLowerName.set(key, [n]);
  }
  listings.delete(dir);
  if (Date.now() - mtimeMs > LISTING_SETTLED_MS) {
    listings.set(dir, { mtimeMs, byLowerName });
    if (listings.size > LISTINGS_KEPT) listings.delete(listings.keys().next().value as string);
  }
  return byLowerName;
}

/** The XMP sidecars of a file indexed in place: IMG_1.xmp and IMG_1.jpg.xmp, in any case (IMG_1.JPG.xmp, img_1.XMP). */
export function sidecarsOf(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const stem = base.replace(/\.[^.]+$/, '');
  const entries = entriesByLowerName(dir);
  if (!entries) return [];
  const wanted = [...new Set([`${stem}.xmp`, `${base}.xmp`].map((n) => n.toLowerCase()))];
  return wanted.flatMap((n) => entries.get(n) ?? []).map((n) => path.join(dir, n));
}

/**
 * An XMP sidecar's text whatever its encoding: UTF-8 (with or without a byte-order mark), or UTF-16
 * little- or big-endian with or without one (as Lightroom and other Windows tools write them). XMP
 * begins with `<` or white space, so without a mark a zero byte second (LE) or first (BE) says UTF-16.
 */
export function sidecarText(bytes: Buffer): string {
  const be = (b: Buffer) =>
    Buffer.from(b.subarray(0, b.length - (b.length % 2)))
      .swap16()
      .toString('utf16le');
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return be(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] !== 0 && bytes[1] === 0) return bytes.toString('utf16le');
  if (bytes.length >= 2 && bytes[0] === 0 && bytes[1] !== 0) return be(bytes);
  return bytes.toString('utf8');
}

async function sidecar(file: string): Promise<{ meta: Partial<ReadMetadata>; regions: NamedRegion[]; warnings: string[] }> {
  const warnings: string[] = [];
  try {
    if (fs.statSync(file).size > 4 * 1024 * 1024) return { meta: {}, regions: [], warnings: [`${path.basename(file)}: larger than 4 MB; not read`] };
    // exifr reads XMP as UTF-8 only (a UTF-16 sidecar gave nothing): the text is decoded here first.
    const text = sidecarText(await fs.promises.readFile(file)).replace(/^\uFEFF/, '');
    const x = (await loadExifr().sidecar(Buffer.from(text, 'utf8'), { xmp: { parse: true } })) as Json | undefined;
    if (!isObj(x)) return { meta: {}, regions: [], warnings: [`${path.basename(file)}: no readable XMP`] };
    return { meta: fromXmp(x, warnings), regions: regionsOf(x), warnings };
  } catch (err) {
    return { meta: {}, regions: [], warnings: [`${path.basename(file)}: ${(err as Error).message}`] };
  }
}

async function video(file: string): Promise<{ meta: Partial<ReadMetadata>; warnings: string[] }> {
  const warnings: string[] = [];
  const tools = findFfmpeg();
  if (!tools) return { meta: {}, warnings: ['ffprobe: not found'] };
  const r = await runTool(tools.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { timeoutMs: 60_000 });
  let info: { format?: { tags?: Record<string, string> }; streams?: Array<{ tags?: Record<string, string> }> };
  try {
    info = JSON.parse(r.stdout);
  } catch {
    return { meta: {}, warnings: ['ffprobe: no readable answer'] };
  }
  const tags: Record<string, string> = {};
  for (const t of [info.format?.tags ?? {}, ...(info.streams ?? []).map((s) => s.tags ?? {})]) {
    for (const [k, v] of Object.entries(t)) if (!(k.toLowerCase() in tags)) tags[k.toLowerCase()] = String(v);
  }
  const meta: Partial<ReadMetadata> = {};
  const taken = parseDate(tags['com.apple.quicktime.creationdate']) ?? parseDate(tags.creation_time);
  if (taken) {
    meta.taken_at = taken;
    meta.taken_at_source = 'quicktime';
  }
  const where = iso6709(tags['com.apple.quicktime.location.iso6709'] ?? tags.location ?? tags['location-eng']);
  if (where) {
    const g = gpsOf(where.lat, where.lon, where.alt, warnings);
    if (g) meta.gps = g;
  }
  const make = text(tags['com.apple.quicktime.make'] ?? tags.make ?? tags['com.android.manufacturer']);
  const model = text(tags['com.apple.quicktime.model'] ?? tags.model ?? tags['com.android.model']);
  if (make || model) meta.camera = { make, model };
  const title = text(tags.title);
  if (title) meta.title = title;
  const description = text(tags.description ?? tags.comment);
  if (description) meta.description = description;
  const author = text(tags.artist ?? tags.author);
  if (author) meta.author = author;
  const keywords = texts(tags.keywords ?? tags['com.apple.quicktime.keywords']);
  if (keywords.length) meta.keywords = keywords;
  return { meta, warnings };
}

async function pdf(file: string): Promise<{ meta: Partial<ReadMetadata>; warnings: string[] }> {
  const warnings: string[] = [];
  const info = await pdfInfo(file);
  const meta: Partial<ReadMetadata> = {};
  const title = text(info.Title);
  if (title) meta.title = title;
  const author = text(info.Author);
  if (author) meta.author = author;
  const description = text(info.Subject);
  if (description) meta.description = description;
  const keywords = texts(info.Keywords);
  if (keywords.length) meta.keywords = keywords;
  const created = parseDate(info.CreationDate);
  if (created) {
    meta.taken_at = created;
    meta.taken_at_source = 'document';
  }
  return { meta, warnings };
}

async function office(file: string, ext: string): Promise<{ meta: Partial<ReadMetadata>; warnings: string[] }> {
  const { Zip } = await import('./zip.ts');
  const zip = await Zip.open(file);
  const odf = ['.odt', '.odp'].includes(ext);
  const name = odf ? 'meta.xml' : 'docProps/core.xml';
  if (!zip.has(name)) return { meta: {}, warnings: [] };
  const raw = await zip.text(name, 1_000_000).catch((err: Error) => {
    if (/^too_large/.test(err.message)) return null;
    throw err;
  });
  if (raw === null) return { meta: {}, warnings: ['document properties larger than 1 MB; not read'] };
  const doc = (await xmlParser()).parse(raw) as Json;
  const props = (odf ? (isObj(doc['document-meta']) ? doc['document-meta'].meta : undefined) : doc.coreProperties) as Json | undefined;
  if (!isObj(props)) return { meta: {}, warnings: [] };
  const meta: Partial<ReadMetadata> = {};
  const title = text(props.title);
  if (title) meta.title = title;
  const author = text(props.creator ?? props['initial-creator']);
  if (author) meta.author = author;
  const description = text(props.description ?? props.subject);
  if (description) meta.description = description;
  const keywords = texts(props.keywords ?? props.keyword);
  if (keywords.length) meta.keywords = keywords;
  const created = parseDate(props.created ?? props['creation-date']);
  if (created) {
    meta.taken_at = created;
    meta.taken_at_source = 'document';
  }
  return { meta, warnings: [] };
}

/** Reads what the file (and, for a file indexed in place, its XMP sidecars) says. */
export async function readMetadata(file: string, ext: string, kind: AssetKind, opts: { linked: boolean }): Promise<MetadataRead> {
  const warnings: string[] = [];
  let meta: Partial<ReadMetadata> = {};
  let regions: NamedRegion[] = [];
  const guard = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (err) {
      warnings.push(`${what}: ${(err as Error).message.slice(0, 200)}`);
      return null;
    }
  };
  if (kind === 'image') {
    const r = await guard('exif', () => photo(file, ext));
    if (r) {
      meta = r.meta;
      regions = r.regions;
      warnings.push(...r.warnings);
    }
  } else if (kind === 'video') {
    const r = await guard('ffprobe', () => video(file));
    if (r) {
      meta = r.meta;
      warnings.push(...r.warnings);
    }
  } else if (ext === '.pdf') {
    const r = await guard('pdf properties', () => pdf(file));
    if (r) meta = r.meta;
  } else if (['.docx', '.pptx', '.xlsx', '.odt', '.odp'].includes(ext)) {
    const r = await guard('document properties', () => office(file, ext));
    if (r) {
      meta = r.meta;
      warnings.push(...r.warnings);
    }
  }
  const sidecars = opts.linked ? sidecarsOf(file) : [];
  for (const s of sidecars) {
    const r = await sidecar(s);
    warnings.push(...r.warnings);
    // The sidecar wins over what is embedded (Lightroom and digiKam write their edits there).
    meta = { ...meta, ...r.meta };
    if (r.regions.length) regions = r.regions;
  }
  // A photo's local time: the offset of the place it was taken, where its position says it.
  if (kind === 'image' && meta.taken_at && meta.gps) {
    const zoned = withZoneOfPlace(meta.taken_at, meta.gps.lat, meta.gps.lon);
    if (zoned) {
      meta.taken_at = zoned;
      meta.taken_at_zone = 'gps_position';
    }
  }
  return { metadata: { ...EMPTY, ...meta }, regions, sidecars: sidecars.map((s) => path.basename(s)), warnings };
}

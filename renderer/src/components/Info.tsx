// The viewer's info panel: what the file says about itself — when and where it was taken (the
// place links to the library narrowed to it), the camera and exposure, title, description,
// keywords, rating, author — and who is in the picture.
import type { ReactNode } from 'react';
import type { AssetDetail } from '../api/videos.ts';
import { ownFailures, stagesInWords, stageWords } from '../failures.ts';
import { fileSize } from '../plural.ts';

const SOURCES: Record<string, string> = {
  exif: 'from EXIF',
  xmp: 'from XMP',
  iptc: 'from IPTC',
  quicktime: 'from the video',
  document: 'from the document',
  file: "the file's date: nothing says when it was taken",
  upload: 'when it was added: nothing says when it was taken',
};

/** The date and time as the file wrote them (its own clock), with the offset when it gave one. */
export function takenLabel(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(iso);
  if (!m) return iso;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const day = date.toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  const offset = /([+-]\d{2}:\d{2}|Z)$/.exec(iso)?.[1];
  return m[4] ? `${day}, ${m[4]}:${m[5]}${offset ? ` (UTC${offset === 'Z' ? '' : offset})` : ''}` : day;
}

/** A camera's RAW file, stacked under its JPEG in a library (the service's RAW_EXTENSIONS). */
const RAW = /\.(cr2|cr3|nef|nrw|arw|dng|raf|rw2|orf|pef|srw)$/i;

/**
 * Phase 2 in words: what runs now and what is still to come, by the stages' names on the screens
 * ("searchable; now faces, then objects and people"), rather than a count of runs.
 */
function enrichingWords(stages: AssetDetail['index']['report']['stages']): string {
  const now = Object.entries(stages)
    .filter(([, r]) => r.state === 'running')
    .map(([stage]) => stage);
  const next = Object.entries(stages)
    .filter(([, r]) => r.state === 'pending')
    .map(([stage]) => stage);
  if (now.length) return `searchable; now ${stagesInWords(now)}${next.length ? `, then ${stagesInWords(next)}` : ''}`;
  return next.length ? `searchable; still to come: ${stagesInWords(next)}` : 'searchable';
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function AssetInfo({ asset, people }: { asset: AssetDetail; people: Array<{ id: string; name: string }> }) {
  const m = asset.metadata;
  const failures = ownFailures(asset);
  // Read, but not to its end (a photo or a video copied only in part): what its extraction, or a
  // video's reading through (`shots`), found.
  const stages = asset.index.report.stages;
  const damaged = stages.extract?.details?.damaged ?? stages.shots?.details?.damaged;
  // "Tokyo, Japan" rather than "Tokyo, Tokyo, Japan" where the region is named as its city.
  const place = m.place ? [...new Set([m.place.city, m.place.region, m.place.country].filter(Boolean))].join(', ') : null;
  const placeFilter = m.place?.city ?? m.place?.country ?? null;
  const camera = m.camera ? [m.camera.make, m.camera.model].filter(Boolean).join(' ') : null;
  const e = m.exposure;
  const exposure = e
    ? [
        e.aperture ? `ƒ/${e.aperture}` : null,
        e.shutter_s ? (e.shutter_s < 1 ? `1/${Math.round(1 / e.shutter_s)} s` : `${e.shutter_s} s`) : null,
        e.focal_mm ? `${e.focal_mm} mm` : null,
        e.iso ? `ISO ${e.iso}` : null,
      ]
        .filter(Boolean)
        .join(' · ')
    : null;
  // As shown: a photo turned a quarter (detected, or by its owner) swaps its sides.
  const quarter = [90, 270].includes(asset.orientation_set ?? asset.orientation_detected ?? 0);
  const width = quarter ? (m.height ?? asset.height) : (m.width ?? asset.width);
  const height = quarter ? (m.width ?? asset.width) : (m.height ?? asset.height);
  return (
    <section className="info" aria-label="info" data-testid="info">
      <h3>Info</h3>
      <dl>
        {m.taken_at ? (
          <Row label="Taken">
            <span data-testid="info-taken">{takenLabel(m.taken_at)}</span> <small>{SOURCES[m.taken_at_source ?? ''] ?? ''}</small>
          </Row>
        ) : null}
        {place ? (
          <Row label="Place">
            <a data-testid="info-place" href={`#/library?place=${encodeURIComponent(placeFilter ?? place)}`} title="everything taken there">
              {place}
            </a>
          </Row>
        ) : null}
        {m.gps ? (
          <Row label="GPS">
            {m.gps.lat.toFixed(5)}, {m.gps.lon.toFixed(5)}
            {m.gps.alt !== null ? ` · ${Math.round(m.gps.alt)} m` : ''}
          </Row>
        ) : null}
        {people.length ? (
          <Row label="People">
            {people.map((p, i) => (
              <span key={p.id}>
                {i ? ', ' : ''}
                <a href={`#/people/${encodeURIComponent(p.id)}`}>{p.name || 'Unnamed person'}</a>
              </span>
            ))}
          </Row>
        ) : null}
        {camera ? <Row label="Camera">{camera}</Row> : null}
        {m.lens ? <Row label="Lens">{m.lens}</Row> : null}
        {exposure ? <Row label="Exposure">{exposure}</Row> : null}
        {m.title ? <Row label="Title">{m.title}</Row> : null}
        {m.description ? <Row label="Description">{m.description}</Row> : null}
        {m.keywords.length ? <Row label="Keywords">{m.keywords.join(', ')}</Row> : null}
        {m.rating !== null ? <Row label="Rating">{m.rating < 0 ? 'rejected' : '★'.repeat(m.rating) + '☆'.repeat(Math.max(0, 5 - m.rating))}</Row> : null}
        {m.author ? <Row label="Author">{m.author}</Row> : null}
        {width && height ? (
          <Row label="Size">
            {width} × {height}
            {asset.kind === 'image' && width * height >= 1e5 ? ` · ${((width * height) / 1e6).toFixed(1)} MP` : ''}
          </Row>
        ) : null}
        <Row label="File size">
          <span data-testid="info-file-size">{fileSize(asset.size_bytes)}</span>
        </Row>
        {asset.duration_s ? <Row label="Length">{asset.duration_s.toFixed(1)} s</Row> : null}
        {asset.path ? (
          <Row label="File">
            <span className="path">{asset.path}</span>
          </Row>
        ) : null}
        {asset.paths
          .filter((p) => p !== asset.path)
          .map((p) => (
            <Row key={p} label={RAW.test(p) ? 'RAW' : 'Copy'}>
              <span className="path">{p}</span>
            </Row>
          ))}
        {asset.sidecar_path ? (
          <Row label="Sidecar">
            <span className="path">{asset.sidecar_path}</span>
          </Row>
        ) : null}
        {asset.offline ? (
          <Row label="Offline">
            <span data-testid="info-offline">
              its folder&apos;s drive is not connected: what was indexed stays searchable, the file itself opens once it is back
            </span>
          </Row>
        ) : null}
        {typeof damaged === 'string' ? (
          <Row label="Damaged">
            <span data-testid="info-damaged">{damaged}</span>
          </Row>
        ) : null}
        {failures.length ? (
          <Row label="Not indexed">
            <span data-testid="info-failures">{failures.map((f) => `${stageWords(f.stage)}: ${f.why}`).join('; ')}</span>
          </Row>
        ) : null}
        {asset.index_phase !== 'done' ? (
          <Row label="Indexing">
            <span data-testid="info-phase">{asset.index_phase === 'reading' ? 'reading its text and metadata' : enrichingWords(stages)}</span>
          </Row>
        ) : null}
      </dl>
    </section>
  );
}

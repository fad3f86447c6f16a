// Short-lived signed URLs for frame and page images, so they load in an <img> tag without an API
// key. The signature covers the asset, the file and the expiry; the key lives in the data folder.
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { clock } from '../store/ids.ts';

export const FRAME_URL_TTL_S = 3600;

export class UrlSigner {
  private readonly key: Buffer;

  constructor(dataDir: string) {
    const file = path.join(dataDir, 'url-signing.key');
    try {
      fs.writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    this.key = fs.readFileSync(file);
  }

  private mac(assetId: string, name: string, exp: number): string {
    return createHmac('sha256', this.key).update(`${assetId}/${name}/${exp}`).digest('base64url');
  }

  /** Path and query of the frame, valid for FRAME_URL_TTL_S seconds (rounded so URLs cache well). */
  sign(assetId: string, name: string): string {
    const exp = this.expiry();
    return `/api/v1/videos/${assetId}/frames/${name}?exp=${exp}&sig=${this.mac(assetId, name, exp)}`;
  }

  private expiry(): number {
    const now = Math.floor(clock.now() / 1000);
    return now - (now % 600) + FRAME_URL_TTL_S + 600;
  }

  /** Path and query of a face's crop at `size` px (any allowed size: the signature covers the face). */
  signFace(faceId: string, size: number): string {
    const exp = this.expiry();
    return `/api/v1/faces/${faceId}/thumbnail?size=${size}&exp=${exp}&sig=${this.mac(faceId, 'thumbnail', exp)}`;
  }

  verify(assetId: string, name: string, exp: string | undefined, sig: string | undefined): boolean {
    if (!exp || !sig || !/^\d{1,12}$/.test(exp)) return false;
    const e = Number(exp);
    if (e < clock.now() / 1000) return false;
    const expected = Buffer.from(this.mac(assetId, name, e));
    const given = Buffer.from(sig);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

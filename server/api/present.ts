// Presenters: what services return, in the shape of the spec's responses. Stored files become
// URLs signed for the origin the request came to (frame_url, thumbnail_url, media_url).
import type { FileRef } from '../contract/common.ts';
import type { UrlSigner } from '../services/signing.service.ts';
import type { PersonDetailValue, PersonValue } from '../services/people.service.ts';
import type { AssetDetailValue, AssetListValue } from '../services/assets.service.ts';
import type { CollectionValue } from '../services/collections.service.ts';
import { originOf } from './context.ts';
import type { FoundHit } from '../services/search.service.ts';

/** The size of the face crops a face's thumbnail_url asks for. */
const FACE_THUMBNAIL_SIZE = 128;

type Framed<T extends { frame: FileRef | null }> = Omit<T, 'frame'> & { frame_url: string | null };

export class Presenter {
  constructor(
    private readonly signer: UrlSigner,
    private readonly origin: string,
  ) {}

  url(ref: FileRef | null): string | null {
    return ref ? `${this.origin}${this.signer.sign(ref.asset_id, ref.name)}` : null;
  }

  /** A value with the picture it shows: a page, a hit, a cited moment, a face. */
  framed<T extends { frame: FileRef | null }>({ frame, ...rest }: T): Framed<T> {
    return { ...rest, frame_url: this.url(frame) };
  }

  /** A face: its picture, and the face cut out of it (FACE_THUMBNAIL_SIZE px; the URL may ask for another size). */
  face<T extends { face_id: string; frame: FileRef | null }>(value: T): Framed<T> & { thumbnail_url: string } {
    return { ...this.framed(value), thumbnail_url: `${this.origin}${this.signer.signFace(value.face_id, FACE_THUMBNAIL_SIZE)}` };
  }

  person({ cover, ...rest }: PersonValue) {
    return { ...rest, cover: cover ? this.face(cover) : null };
  }

  personDetail({ faces, ...rest }: PersonDetailValue) {
    return { ...this.person(rest), faces: faces.map((f) => this.face(f)) };
  }

  asset<T extends AssetListValue>({ thumbnail, ...rest }: T) {
    return { ...rest, thumbnail_url: this.url(thumbnail) };
  }

  assetDetail({ media, ...rest }: AssetDetailValue) {
    return { ...this.asset(rest), media_url: this.url(media) };
  }

  collection({ cover, ...rest }: CollectionValue) {
    return { ...rest, cover_url: this.url(cover) };
  }

  /** Search hits, with the pictures of their moments when grouped. */
  hits<R extends { hits: FoundHit[] }>(result: R) {
    const { hits, ...rest } = result;
    return {
      ...rest,
      hits: hits.map(({ moments, ...h }) => ({ ...this.framed(h), ...(moments ? { moments: moments.map((m) => this.framed(m)) } : {}) })),
    };
  }
}

/** The presenter for one request. */
export function presenterFor(signer: UrlSigner, ctx: { protocol: string; get(name: string): string }): Presenter {
  return new Presenter(signer, originOf(ctx));
}

// The kinds of asset and the file extensions each is taken from (SPEC 2.2), apart from the
// schemas: what the indexer processes read of the contract, without loading the validation library.

export const ASSET_KINDS = ['video', 'image', 'document'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

export const EXTENSION_KINDS: Record<string, AssetKind> = {
  '.mp4': 'video',
  '.mov': 'video',
  '.mkv': 'video',
  '.webm': 'video',
  '.m4v': 'video',
  '.avi': 'video',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.png': 'image',
  '.webp': 'image',
  '.avif': 'image',
  '.jxl': 'image',
  '.heic': 'image',
  '.heif': 'image',
  '.tif': 'image',
  '.tiff': 'image',
  '.bmp': 'image',
  '.gif': 'image',
  // Camera RAW (RAW_EXTENSIONS): indexed through the full-size preview the camera embeds.
  '.cr2': 'image',
  '.cr3': 'image',
  '.nef': 'image',
  '.nrw': 'image',
  '.arw': 'image',
  '.dng': 'image',
  '.raf': 'image',
  '.rw2': 'image',
  '.orf': 'image',
  '.pef': 'image',
  '.srw': 'image',
  '.pdf': 'document',
  '.docx': 'document',
  '.pptx': 'document',
  '.xlsx': 'document',
  '.odt': 'document',
  '.odp': 'document',
  '.rtf': 'document',
  '.epub': 'document',
  '.txt': 'document',
  '.md': 'document',
  '.html': 'document',
  '.csv': 'document',
};

/**
 * Documents read as text only (SPEC 2.2: their embedded pictures are not indexed): every document
 * type but PDF, whose pages may be pictures. Stages that look only at pictures never apply to them.
 */
export const isTextOnlyDocument = (ext: string): boolean => EXTENSION_KINDS[ext] === 'document' && ext !== '.pdf';

/** Camera RAW files: pictured by their embedded preview, their metadata read by exiftool (media/raw.ts). */
export const RAW_EXTENSIONS: readonly string[] = ['.cr2', '.cr3', '.nef', '.nrw', '.arw', '.dng', '.raf', '.rw2', '.orf', '.pef', '.srw'];

/** The types the content check gives camera RAW files (file-type's names). */
export const RAW_MIME: Record<string, string> = {
  '.cr2': 'image/x-canon-cr2',
  '.cr3': 'image/x-canon-cr3',
  '.nef': 'image/x-nikon-nef',
  '.nrw': 'image/x-nikon-nrw',
  '.arw': 'image/x-sony-arw',
  '.dng': 'image/x-adobe-dng',
  '.raf': 'image/x-fujifilm-raf',
  '.rw2': 'image/x-panasonic-rw2',
  '.orf': 'image/x-olympus-orf',
  '.pef': 'image/x-pentax-pef',
  '.srw': 'image/x-samsung-srw',
};

/** Photos a browser shows as they are: their original is served (media_url) for zooming to 1:1. */
export const WEB_PICTURE_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'];

/** Refused with `unsupported_legacy_format` (SPEC 2.2). */
export const LEGACY_EXTENSIONS = ['.doc', '.ppt', '.xls'] as const;

// Worker side of the picture stages: each picture they look at (a photo's normalized frame, the
// picture pages of a document, or frames sampled from a video at the stage's rate), decoded once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { sampleFrames } from '../media/video.ts';
import type { StageAsset } from './stage.ts';
import type { PictureInput } from './picture-input.ts';

export interface Picture {
  timestamp: number;
  page: number | null;
  image: Sharp;
  rgb: { data: Buffer; width: number; height: number };
  /** Original pixels per analysed pixel. */
  scale: number;
}

async function decode(file: string, timestamp: number, page: number | null, scale: number): Promise<Picture> {
  const image = sharp(file).removeAlpha();
  const { data, info } = await image.clone().raw().toBuffer({ resolveWithObject: true });
  return { timestamp, page, image, rgb: { data, width: info.width, height: info.height }, scale };
}

/** Worker side: yields each picture decoded once, then frees it. */
export async function* pictures(asset: StageAsset, assetDir: string, input: PictureInput, fps: number): AsyncGenerator<Picture> {
  if (asset.kind === 'image') {
    yield await decode(path.join(assetDir, 'frame.jpg'), 0, null, input.scale);
  } else if (asset.kind === 'document') {
    for (const p of input.pages) yield await decode(p.file, p.page - 1, p.page, 1);
  } else {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mi-frames-'));
    try {
      for (const f of await sampleFrames(asset.filePath, fps, dir)) yield await decode(f.file, f.timestamp, null, 1);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }
}

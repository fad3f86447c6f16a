// extract: checks the stored original against the upload (size and sha256) before anything reads it.
// Reads: the original file. Writes: nothing beyond its report.
import fs from 'node:fs';
import { hashFile } from '../../media/hash.ts';
import { failed, ok, type StageDefinition } from '../stage.ts';

export const extractStage: StageDefinition = {
  name: 'extract',
  version: 1,
  kinds: ['video', 'image', 'document'],
  dependsOn: [],
  model: null,
  availability: () => ({ available: true, reason: null }),
  async run({ asset }) {
    let size: number;
    try {
      size = (await fs.promises.stat(asset.filePath)).size;
    } catch {
      return failed('file_missing: the stored original is gone');
    }
    if (size !== asset.sizeBytes) return failed(`file_changed: ${size} bytes stored, ${asset.sizeBytes} uploaded`);
    const { sha256 } = await hashFile(asset.filePath);
    if (sha256 !== asset.sha256) return failed('file_changed: checksum differs from the indexed file');
    return ok({ bytes: size });
  },
};

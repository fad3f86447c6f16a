// captions, the run: the image-to-text model on each picture (ml/captions.ts).
import sharp from 'sharp';
import { caption, summarize } from '../../ml/captions.ts';
import { modelsDir } from '../../ml/models.ts';
import { providerOf } from '../../ml/providers.ts';
import { ok, withModel } from '../stage.ts';
import { drawnPage } from '../pictures.ts';
import { captionsStage, type Caption } from './captions.stage.ts';

export const runCaptions = withModel(captionsStage, async ({ asset, input: pictures, dataDir }, model) => {
  const out: Caption[] = [];
  for (const p of pictures) {
    if (p.page !== null) await drawnPage(asset.filePath, p.page, p.file);
    const { data, info } = await sharp(p.file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const text = await caption(modelsDir(dataDir), model, { data, width: info.width, height: info.height });
    if (text) out.push({ timestamp: p.timestamp, page: p.page, text });
  }
  const summary = summarize(out.map((c) => c.text));
  return ok({ captions: out.length, pictures: pictures.length }, out, { model, provider: providerOf(model), summary });
});

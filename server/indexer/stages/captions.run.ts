// captions, the run: the image-to-text model on each picture (ml/captions.ts).
import sharp from 'sharp';
import { caption, summarize } from '../../ml/captions.ts';
import { modelsDir } from '../../ml/models.ts';
import { providerOf } from '../../ml/providers.ts';
import { ok, withModel } from '../stage.ts';
import { drawnPage } from '../pictures.ts';
import { captionsStage, type Caption } from './captions.stage.ts';

export const runCaptions = withModel(captionsStage, async ({ asset, input: pictures, dataDir, progress }, model) => {
  const out: Caption[] = [];
  const duration = asset.durationS ?? 0;
  for (const [i, p] of pictures.entries()) {
    // The pages or the video's seconds looked at before this picture.
    if (p.page !== null) progress?.({ done: i, total: pictures.length, unit: 'pages' });
    else if (duration > 0) progress?.({ done: Math.min(p.timestamp, duration), total: duration, unit: 'seconds' });
    if (p.page !== null) await drawnPage(asset.filePath, p.page, p.file);
    const { data, info } = await sharp(p.file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const text = await caption(modelsDir(dataDir), model, { data, width: info.width, height: info.height });
    if (text) out.push({ timestamp: p.timestamp, page: p.page, text });
  }
  const summary = summarize(out.map((c) => c.text));
  return ok({ captions: out.length, pictures: pictures.length }, out, { model, provider: providerOf(model), summary });
});

// faces: every face on a photo, a picture page or a sampled video frame (`fps`), with its box,
// landmarks, a 1024-d embedding, expression and a quality score (run: faces.run.ts). Writes face
// regions, face records (the owner's decisions about the faces found before carry over, see
// people/decisions.ts) and a search entry per face: its expression and who it looks like
// (search/face-words.ts).
import type { Box } from '../../contract/common.ts';
import type { NewFace } from '../../store/faces.repo.ts';
import { BUNDLED_MODELS } from '../../ml/catalogue.ts';
import { replaceFacesKeepingDecisions } from '../../people/decisions.ts';
import { personEntry } from '../../search/face-words.ts';
import { picturesOf, type PictureInput } from '../picture-input.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

export interface FoundFace extends NewFace {
  box: Box;
  confidence: number;
  page: number | null;
  /** The clockwise turn of its picture at which it was found (0: as stored); the box is in stored pixels. */
  orientation: 0 | 90 | 180 | 270;
}

export const facesStage = defineStage<PictureInput, FoundFace[], 'faces'>({
  name: 'faces',
  version: 3,
  kinds: ['video', 'image', 'document'],
  picturesOnly: true,
  // A video's frames are those its shots pass kept (media/types.ts, SAMPLED_DIR); without it, its own.
  dependsOn: ['extract', 'shots'],
  requires: ['extract'],
  model: BUNDLED_MODELS.faces,
  availability: ALWAYS_AVAILABLE,
  prepare: picturesOf,
  nothingToDo: (input, asset) => (asset.kind === 'document' && input.pages.length === 0 ? 'no picture pages to look at' : null),
  save(store, assetId, faces) {
    // A photo's way up: the turn its faces were found at (its pictures all share one).
    if (store.assets.byId(assetId)?.kind === 'image') store.assets.setOrientationDetected(assetId, faces[0]?.orientation ?? 0);
    let ids: string[] = [];
    replaceFacesKeepingDecisions(store, assetId, () => {
      ids = store.regions.replaceForStage(
        assetId,
        'faces',
        faces.map((f) => ({
          timestamp: f.timestamp,
          kind: 'face' as const,
          ...f.box,
          label: null,
          text: null,
          confidence: f.confidence,
          quality: f.quality,
          person_id: null,
          source: 'human-blazeface',
        })),
      );
      store.faces.replaceForAsset(assetId, ids, faces);
      return faces.map((f, i) => ({ id: ids[i], timestamp: f.timestamp, box: f.box }));
    });
    // A face the owner said is no face (carried over above) is not found as a person.
    const notFaces = store.people.notFacesOf(assetId);
    const entries = faces.flatMap((f, i) =>
      notFaces.has(ids[i])
        ? []
        : [
            personEntry(
              {
                timestamp: f.timestamp,
                page: f.page,
                age: f.age ?? null,
                gender: f.gender ?? null,
                gender_score: f.gender_score ?? null,
                emotion: f.emotion,
                emotion_score: f.emotion_score,
              },
              ids[i],
            ),
          ],
    );
    store.search.replaceForStage(assetId, 'faces', entries);
  },
});

// Object labels that can be trusted: the closed-set detector (CenterNet, COCO, bundled) measured on
// photos of ../shared/corpus labelled by hand here, through the real objects stage. The threshold
// (`min_confidence` 0.45, the default) and the face rule (an animal box that is a human face goes)
// were chosen on another half of the labelled photos (the tuning half); these are the held-out
// half. Labels are per photo: `present` (in the picture, a COCO class), `unsure` (partly visible or
// arguable: neither counted for nor against); every other COCO class is absent.
// Measured: `npx vitest run test/object-labels.test.ts` prints precision and recall.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { ALLOWED_DROP, BEFORE } from './fixtures/accuracy-before.ts';
import { archivePicture } from './helpers/text-photos.ts';

const HELD_OUT: Array<[string, string[], string[]]> = [
  ['faces/dlib-faces/2008_001009.jpg', ['person'], ['chair']], // A laughing girl hugging a seated woman in a restaurant.
  ['faces/dlib-faces/bald_guys.jpg', ['person'], []], // Collage of many photos of bald male celebrities.
  ['faces/dlib-johns/John_Salley/000179_02159509.jpg', ['person'], []], // Tight face crop of a smiling man.
  ['faces/dlib-johns/John_Salley/000186_02159346.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Salley/000190_02159501.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Salley/000194_02159572.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Salley/000197_02159525.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Salley/000200_02159354.jpg', ['person'], []], // Tight face crop of a smiling man in a cap.
  ['faces/dlib-johns/John_Savage/000274_01099061.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Savage/000289_01099139.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Savage/000290_01099090.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Savage/000291_01099214.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Savage/000296_01099007.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Schneider/000288_00925786.jpg', ['person'], []], // Tight face crop of a smiling man.
  ['faces/dlib-johns/John_Schneider/000307_00925823.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Schneider/000326_00925765.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Schneider/000326_00926128.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Schneider/000329_00925859.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/dlib-johns/John_Schneider/000331_00926012.jpg', ['person'], ['tie']], // Tight face crop of a man; a collar or tie may show at the edge.
  ['faces/face-api-samples/sample2.jpg', ['person', 'couch'], []], // Three young women sitting on a black leather sofa.
  ['faces/face-api-samples/sample4.jpg', ['person'], ['couch', 'chair']], // Four young women posing together in a room.
  ['faces/face-api-samples/sample6.jpg', ['person'], ['couch']], // Four women posing in front of window blinds.
  ['faces/portraits/O2.jpg', ['person'], []], // Old black-and-white photo of two small children standing together.
  ['faces/portraits/grace_hopper_512x512.jpg', ['person'], []], // Portrait of Grace Hopper in navy uniform in front of a US flag.
  ['scenes/opencv/apple.jpg', ['apple'], []], // A single red apple in front of a pencil on a green background.
  ['scenes/opencv/basketball1.png', ['person', 'chair'], ['tv', 'wine glass']], // Grayscale office: two men tossing a basketball, a tall chair behind one of them.
  ['scenes/opencv/box_in_scene.png', ['chair'], ['bowl']], // Grayscale: a book, cookie box and rice box in a plastic bag on a wooden chair.
  ['scenes/opencv/chicky_512.png', ['dog'], ['car']], // Close-up of a small brown long-haired dog with its tongue out.
  ['scenes/opencv/home.jpg', ['bird'], []], // Yellow ornate building against blue sky with many birds flying.
  ['scenes/opencv/leuvenB.jpg', ['bicycle'], []], // Cobbled street of brick houses with two bicycles parked against a wall.
  ['scenes/opencv/orange.jpg', ['orange'], []], // A single orange on a green background.
  ['scenes/opencv/smarties.png', [], []], // Coloured sugar-coated candies on a white background (hard negative for fruit).
  ['scenes/skimage/camera.png', ['person'], []], // Grayscale: a man in a coat filming with a camera on a tripod in a field.
  ['scenes/skimage/coffee.png', ['cup'], []], // Espresso in a red cup on a saucer with a spoon on a wooden table.
  ['scenes/skimage/rocket.jpg', [], []], // A rocket on its launch pad at dusk between lightning towers.
];

const ANIMALS = ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe', 'teddy bear'];
/** Only what these tests read. */
const OPTIONS = { ocr: false, faces: false, people: false, captions: false };

describe('object labels that can be trusted', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('labels');
  });
  afterAll(() => t?.close());

  const labelsOf = async (id: string): Promise<Set<string>> =>
    new Set(((await t.api('GET', `/videos/${id}/regions?timestamp=0`, { key })).body.data.objects as Array<{ label: string }>).map((o) => o.label));

  it('is precise on held-out photos labelled by hand (precision ≥ 0.9, recall ≥ 0.65) and calls no face an animal', async () => {
    expect(HELD_OUT.length).toBeGreaterThanOrEqual(20);
    const assets = await Promise.all(HELD_OUT.map(([file]) => t.index(key, corpus(file), OPTIONS)));
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const wrong: string[] = [];
    for (const [i, [file, present, unsure]] of HELD_OUT.entries()) {
      const found = await labelsOf(assets[i].video_id);
      for (const l of found) {
        if (present.includes(l)) tp++;
        else if (!unsure.includes(l)) {
          fp++;
          wrong.push(`${file}: ${l}`);
        }
      }
      fn += present.filter((l) => !found.has(l)).length;
      if (file.includes('dlib-johns'))
        expect(
          [...found].filter((l) => ANIMALS.includes(l)),
          file,
        ).toEqual([]);
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    console.log(
      `objects on ${HELD_OUT.length} held-out photos: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (tp ${tp}, fp ${fp}, fn ${fn}); wrong: ${wrong.join('; ')}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(precision, 'no more than 0.01 below the precision measured before').toBeGreaterThanOrEqual(BEFORE.objectLabelPrecision - ALLOWED_DROP);
    expect(recall).toBeGreaterThanOrEqual(0.65);
    // The face crop CenterNet calls a cat (0.53): the face rule takes the box off, and says so.
    const crop = assets[HELD_OUT.findIndex(([f]) => f.endsWith('000326_00926128.jpg'))];
    expect(crop.index.report.stages.objects.details.faces_not_taken_for_animals).toBe(1);
  }, 300_000);

  it('keeps the animals that are animals, even where a face detector sees a face on one of them', async () => {
    // dogs.jpg: four dogs; the face detector takes the bottom-left dog's face for a human face.
    const dogs = await t.index(key, corpus('faces/dlib-faces/dogs.jpg'), OPTIONS);
    const r = (await t.api('GET', `/videos/${dogs.video_id}/regions?timestamp=0`, { key })).body.data.objects as Array<{ label: string }>;
    expect(r.filter((o) => o.label === 'dog').length).toBeGreaterThanOrEqual(3);
    expect(dogs.index.report.stages.objects.details.faces_not_taken_for_animals).toBeUndefined();
    const cat = await t.index(key, corpus('scenes/skimage/chelsea.png'), OPTIONS);
    expect(await labelsOf(cat.video_id)).toEqual(new Set(['cat']));
  }, 120_000);

  it("finds the ball at a footballer's feet in a second look at the people, and takes no second look at a portrait", async () => {
    // messi5.jpg (OpenCV's samples, from Debian's source tarball): CenterNet scores the ball 0.43 on
    // the whole picture, under the 0.45 threshold; seen larger around the player, it passes.
    const messi = await t.index(key, await archivePicture('opencv_4.6.0+dfsg.orig.tar.xz', 'opencv-4.6.0/samples/data/messi5.jpg'), OPTIONS);
    const objects = (await t.api('GET', `/videos/${messi.video_id}/regions?timestamp=0`, { key })).body.data.objects as Array<{
      label: string;
      x: number;
      y: number;
      w: number;
      h: number;
    }>;
    const ball = objects.find((o) => o.label === 'sports ball');
    expect(ball, JSON.stringify(objects)).toBeDefined();
    // At the player's feet: the lower right of the picture (548 × 342; the ball about 336–389, 286–335).
    expect(ball!.x + ball!.w / 2).toBeGreaterThan(0.55);
    expect(ball!.y + ball!.h / 2).toBeGreaterThan(0.75);
    expect(messi.index.report.stages.objects.details).toMatchObject({ second_looks: 1, found_in_second_looks: 1 });
    const portrait = await t.index(key, corpus('faces/portraits/grace_hopper_512x512.jpg'), OPTIONS);
    expect(portrait.index.report.stages.objects.details).toMatchObject({ second_looks: 0, found_in_second_looks: 0 });
  }, 400_000); // the first run fetches Debian's OpenCV source tarball (74 MB) into the test-data cache

  it('finds labels by their broader words (WordNet): "fruit" finds the fruits, "citrus" the orange, "pome" the apple', async () => {
    // CenterNet sees the fruits of fruits.jpg at 0.29–0.37 only: this upload asks for boxes from 0.25.
    const fruit = await t.index(key, corpus('scenes/opencv/fruits.jpg'), { ...OPTIONS, objects: { min_confidence: 0.25 } });
    const search = async (query: string) =>
      (await t.api('POST', '/search', { key, json: { query, search_options: { modalities: ['object'] } } })).body.data.hits as Array<{
        video_id: string;
        region: { label: string } | null;
      }>;
    // One moment per photo: the box shown is the best of the labels the word covers.
    const fruits = await search('fruit');
    expect(fruits[0].video_id).toBe(fruit.video_id);
    expect(['orange', 'apple']).toContain(fruits[0].region?.label);
    // Narrower words pick their own fruit's box: an orange is a citrus, an apple a pome.
    const citrus = await search('citrus');
    expect(citrus[0]).toMatchObject({ video_id: fruit.video_id, region: { label: 'orange' } });
    const pome = await search('pome');
    expect(pome[0]).toMatchObject({ video_id: fruit.video_id, region: { label: 'apple' } });
  }, 120_000);
});

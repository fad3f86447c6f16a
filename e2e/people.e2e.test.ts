// People: re-grouping after a preview, naming unnamed groups by typing (keyboard only, and merging
// by an existing name after confirming in the field), merging by drag with undo, saying who
// waiting faces are in bulk, accepting a person's suggestions at once, "not this person", and
// saying who a face is from the viewer; axe-core on every People screen. Each test has a workspace
// of its own, seeded through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { JOHN, accessibilityProblems, addMadePhoto, namedJohn, seed, smallJohn, startApp, type App } from './harness.ts';
import type { TestServer } from '../test/helpers/server.ts';

const OPTIONS = { ocr: false, objects: false, labels: false };
const johns = (who: string, files: string[]) => files.map((f) => `faces/dlib-johns/${who}/${f}`);
const SALLEY = johns('John_Salley', ['000179_02159509.jpg', '000183_02159543.jpg', '000186_02159346.jpg']);
const SAVAGE = johns('John_Savage', ['000264_01099001.jpg', '000274_01099061.jpg', '000277_01099000.jpg']);

type PersonRow = { person_id: string; name: string; face_count: number; merged_into: string | null };
const peopleOf = async (t: TestServer, key: string): Promise<PersonRow[]> => (await t.api('GET', '/people', { key })).body.data.people;

/** The focused element's id, after pressing Tab until it is `id` (keyboard only). */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached #${id}`);
}
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe('People', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, 120_000);
  afterAll(async () => app?.close());

  it('groups after a preview, then names groups by typing: keyboard only, Tab to the next, an existing name merges after a second Enter', async () => {
    const key = app.t.key('people-naming');
    await seed(app.t, key, [...JOHN.slice(0, 3), ...SALLEY, ...SAVAGE], OPTIONS);
    const { page, shot } = await app.open(key, '#/people');
    await page.getByTestId('people').waitFor();
    await page.getByRole('button', { name: 'Re-group faces…' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').textContent()).toMatch(/3 new unnamed people from 9 faces/);
    await page.getByRole('button', { name: 'Re-group now' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=unnamed] [data-person]').length === 3, undefined, { timeout: 60_000 });

    // Keyboard only: Tab to the first group's field, type, Enter; the next group takes its place and the focus.
    await tabTo(page, 'group-name-0');
    await page.keyboard.type('Alpha');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=named] .person-name', { hasText: 'Alpha' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=unnamed] [data-person]').length === 2);
    await page.waitForFunction(() => document.activeElement?.id === 'group-name-0');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('group-name-1');
    await page.keyboard.press('Shift+Tab');
    expect(await focusedId(page)).toBe('group-name-0');
    await page.keyboard.type('Beta');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=named] .person-name', { hasText: 'Beta' }).waitFor();
    await page.locator('[data-testid=named] img.crop').first().waitFor();
    await shot('people');
    expect(await accessibilityProblems(page)).toEqual([]);

    // An existing name: the field asks, a second Enter merges.
    const alpha = (await peopleOf(app.t, key)).find((p) => p.name === 'Alpha')!;
    await page.waitForFunction(() => document.activeElement?.id === 'group-name-0');
    await page.keyboard.type('alpha');
    await page.keyboard.press('Enter');
    await page.getByText('Alpha exists: Enter again merges these 3 faces into Alpha').waitFor();
    expect((await peopleOf(app.t, key)).filter((p) => !p.name)).toHaveLength(1); // nothing merged yet
    await page.keyboard.press('Enter');
    await page.getByText('Merged into Alpha.').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=unnamed] [data-person]').length === 0);
    const after = await peopleOf(app.t, key);
    expect(after.map((p) => p.name).sort()).toEqual(['Alpha', 'Beta']);
    expect(after.find((p) => p.person_id === alpha.person_id)!.face_count).toBe(6);
  }, 300_000);

  it('merges by drag with a few seconds to undo; undone, nothing is merged; else the merge is sent', async () => {
    const key = app.t.key('people-drag');
    await seed(app.t, key, [...SALLEY, ...SAVAGE], OPTIONS);
    expect((await app.t.api('POST', '/people/recluster', { key })).status).toBe(202);
    await app.t.server.services.people.settled(app.t.server.store.workspaces.byName('people-drag')!.id);
    const [a, b] = await peopleOf(app.t, key);
    const { page } = await app.open(key, '#/people');
    const card = (id: string) => page.locator(`[data-person="${id}"]`);
    await card(b.person_id).waitFor();
    await card(a.person_id).dragTo(card(b.person_id));
    const undo = page.getByRole('button', { name: 'Undo' });
    await undo.waitFor();
    expect(await card(a.person_id).count()).toBe(0); // out of the list while the merge waits
    await undo.click();
    await page.getByText('Merge undone.').waitFor();
    await card(a.person_id).waitFor();
    await page.waitForTimeout(7000);
    expect((await peopleOf(app.t, key)).map((p) => p.merged_into)).toEqual([null, null]);

    await card(a.person_id).dragTo(card(b.person_id));
    await page.getByText('Merged into the other person.').waitFor({ timeout: 15_000 });
    const one = await peopleOf(app.t, key);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ person_id: b.person_id, face_count: 6 });
  }, 300_000);

  it('says who three waiting faces are in one go: select a range, "this is" a new name makes the person', async () => {
    const key = app.t.key('people-waiting');
    await seed(app.t, key, SAVAGE, OPTIONS);
    const { page, shot } = await app.open(key, '#/people?view=waiting');
    const tiles = page.locator('[data-testid=not-grouped] [role=option]');
    await tiles.nth(2).waitFor();
    expect(await tiles.count()).toBe(3);
    await tiles.nth(0).click();
    await tiles.nth(2).click({ modifiers: ['Shift'] });
    await page.getByText('3 of 3 selected').waitFor();
    expect(await page.locator('[data-testid=not-grouped] [aria-selected=true]').count()).toBe(3);
    await page.locator('.face-tile img').first().waitFor();
    await shot('people-not-grouped');
    expect(await accessibilityProblems(page)).toEqual([]);
    const field = page.getByRole('combobox', { name: 'this is' });
    await field.fill('Ada');
    await page.getByRole('option', { name: 'New person “Ada”' }).waitFor();
    await field.press('Enter');
    await page.getByText('3 faces now Ada.').waitFor();
    await page.getByText('Every face found is in a person, or ignored.').waitFor();
    const ada = (await peopleOf(app.t, key)).find((p) => p.name === 'Ada');
    expect(ada?.face_count).toBe(3);
    // Back on the list, Ada is named.
    await page.getByRole('link', { name: 'People', exact: true }).first().click();
    await page.locator('[data-testid=named] .person-name', { hasText: 'Ada' }).waitFor();
  }, 300_000);

  it('says a waiting face is no face from the keyboard: it leaves the picture and the waiting faces, marked among the ignored', async () => {
    const key = app.t.key('people-not-a-face');
    // The mandrill: one "face" found on it.
    const baboon = (await seed(app.t, key, ['scenes/opencv/baboon.jpg'], { ocr: false, objects: false }))[0].video_id as string;
    const { page, shot } = await app.open(key, '#/people?view=waiting');
    const tiles = page.locator('[data-testid=not-grouped] [role=option]');
    await tiles.first().waitFor();
    expect(await tiles.count()).toBe(1);
    await page.getByRole('listbox', { name: 'faces not grouped yet' }).focus();
    await page.keyboard.press('Space');
    await page.getByText('1 of 1 selected').waitFor();
    const button = page.getByRole('button', { name: 'Not a face' });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.getByText('1 face marked as no face: no longer shown or found as a person.').waitFor();
    await page.getByText('Every face found is in a person, or ignored.').waitFor();
    // Among the ignored faces, marked so.
    // A click, not Playwright's check(): the box follows the address, which a click changes a moment
    // later (the hashchange event), and check() reads the box at once.
    const box = page.getByRole('checkbox', { name: 'ignored faces' });
    await box.click();
    await page.waitForFunction(() => window.location.hash.includes('ignored=1'));
    expect(await box.isChecked()).toBe(true);
    await tiles.first().waitFor();
    expect(await tiles.first().getAttribute('title')).toMatch(/, not a face/);
    expect(await page.locator('.face-tile', { hasText: 'not a face' }).count()).toBe(1);
    // The tab counts faces waiting, not the ignored ones listed.
    expect(await page.getByRole('link', { name: /^Not grouped yet/ }).textContent()).toBe('Not grouped yet');
    await shot('people-not-a-face');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Its picture no longer shows it.
    const regions = (await app.t.api('GET', `/videos/${baboon}/regions?timestamp=0`, { key })).body.data;
    expect(regions.faces).toEqual([]);
  }, 300_000);

  it('says a face seen in the viewer is no face: its box and its line in the info go, and it waits among the ignored faces', async () => {
    const key = app.t.key('people-viewer-not-a-face');
    const baboon = (await seed(app.t, key, ['scenes/opencv/baboon.jpg'], { ocr: false, objects: false }))[0].video_id as string;
    const { page, shot } = await app.open(key, `#/view/${baboon}`);
    await page.getByTestId('viewer').filter({ hasText: 'baboon.jpg' }).waitFor();
    await page.locator('.box-face').first().waitFor();
    const button = page.getByRole('button', { name: 'not a face (face 1)' });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.getByText(/^No face: no longer shown or found as a person/).waitFor();
    await page.locator('.faces-here').waitFor({ state: 'detached' });
    expect(await page.locator('.box-face').count()).toBe(0);
    await shot('viewer-not-a-face');
    const ignored = (await app.t.api('GET', '/faces?ignored=true', { key })).body.data.faces;
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toMatchObject({ video_id: baboon, not_a_face: true });
  }, 300_000);

  it("accepts all of a person's suggestions at once from the strip on their page", async () => {
    const key = app.t.key('people-strip');
    const john = await namedJohn(app.t, key);
    const { page, shot } = await app.open(key);
    await addMadePhoto(page, 'small-44.jpg', smallJohn(44));
    await addMadePhoto(page, 'small-40.jpg', smallJohn(40));
    await page.evaluate((id) => (window.location.hash = `#/people/${id}`), john.person_id);
    await page.getByTestId('person').waitFor();
    // Where the person appears, in words: a photo, how many faces.
    await page.locator('section[data-testid=person] li', { hasText: 'photo · 1 face' }).first().waitFor();
    const strip = page.locator('.suggestion-strip');
    await strip.locator('[data-suggested]').nth(1).waitFor();
    await strip.locator('img').first().waitFor();
    await shot('person-suggestions');
    expect(await accessibilityProblems(page)).toEqual([]);
    await strip.getByRole('button', { name: 'Accept all 2' }).click();
    await page.getByText('2 faces added to John Schneider.').waitFor();
    await strip.waitFor({ state: 'detached' });
    expect((await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data.face_count).toBe(john.face_count + 2);
  }, 300_000);

  it('takes a face off a person as "not this person"', async () => {
    const key = app.t.key('people-not-this');
    const john = await namedJohn(app.t, key);
    const { page, shot } = await app.open(key, `#/people/${john.person_id}`);
    await page.locator('[data-face]').first().waitFor();
    const before = await page.locator('[data-face]').count();
    expect(before).toBe(john.face_count);
    await page.locator('[data-face]').last().click();
    await page.getByRole('button', { name: 'Not this person' }).click();
    await page.getByText('1 face marked as not this person.').waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('[data-face]').length === n, before - 1);
    await shot('person');
    const detail = await app.t.api('GET', `/people/${john.person_id}`, { key });
    expect(detail.body.data.face_count).toBe(before - 1);
  }, 180_000);

  it('says a face a person holds is no face, from their page with the keyboard: it leaves them and waits among the ignored, marked', async () => {
    const key = app.t.key('people-held-not-a-face');
    const john = await namedJohn(app.t, key);
    const { page, shot } = await app.open(key, `#/people/${john.person_id}`);
    await page.locator('[data-face]').first().waitFor();
    await page.getByRole('listbox', { name: 'faces of John Schneider' }).focus();
    await page.keyboard.press('Space');
    await page.getByText(`1 of ${john.face_count} selected`).waitFor();
    const button = page.getByRole('button', { name: 'Not a face' });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.getByText(/^1 face marked as no face and taken off John Schneider/).waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('[data-face]').length === n, john.face_count - 1);
    await shot('person-not-a-face');
    expect(await accessibilityProblems(page)).toEqual([]);
    expect((await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data.face_count).toBe(john.face_count - 1);
    const ignored = (await app.t.api('GET', '/faces?ignored=true', { key })).body.data.faces;
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toMatchObject({ ignored: true, not_a_face: true });
  }, 180_000);

  it('asks "Is this John Schneider?" about a face too small to join him by itself, and a yes adds it to him', async () => {
    const key = app.t.key('people-suggest');
    const john = await namedJohn(app.t, key);
    const { page, shot } = await app.open(key);
    await addMadePhoto(page, 'small-john.jpg', smallJohn(44));
    await page.getByRole('link', { name: 'People' }).click();
    const question = page.locator('.suggestion', { hasText: 'Is this John Schneider?' });
    await question.waitFor();
    await shot('people-suggestion');
    await question.getByRole('button', { name: 'yes, this is John Schneider' }).click();
    await page.getByText('Added to John Schneider.').waitFor();
    expect(await page.locator('.suggestion', { hasText: 'Is this John Schneider?' }).count()).toBe(0);
    const after = (await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data;
    expect(after.face_count).toBe(john.face_count + 1);
    expect(after.faces.some((f: { assigned_by: string }) => f.assigned_by === 'owner')).toBe(true);
  }, 180_000);

  it('lets the owner say who a face not grouped yet is from the viewer, and take it off again', async () => {
    const key = app.t.key('people-viewer');
    const john = await namedJohn(app.t, key);
    const { page, shot } = await app.open(key);
    const card = await addMadePhoto(page, 'small-john-2.jpg', smallJohn(40));
    await card.click();
    await page.getByTestId('viewer').filter({ hasText: 'small-john-2.jpg' }).waitFor();
    // Clicking the face box goes to its field.
    await page.locator('.box-face').first().click();
    const who = page.getByRole('combobox', { name: 'this is (face 1)' });
    expect(await who.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('john');
    await page.getByRole('option', { name: 'John Schneider' }).waitFor();
    await shot('viewer-this-is');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator('.faces-here a', { hasText: 'John Schneider' }).waitFor();
    // The name and its "not them" read as two words, not "John Schneidernot them".
    expect(await page.locator('.faces-here li').first().innerText()).toMatch(/^John Schneider not them /);
    await shot('viewer-named-face');
    expect(await who.count()).toBe(0);
    expect((await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data.face_count).toBe(john.face_count + 1);
    await page.getByRole('button', { name: 'not John Schneider (face 1)' }).click();
    await page.getByRole('combobox', { name: 'this is (face 1)' }).waitFor();
    expect((await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data.face_count).toBe(john.face_count);
    // Said again, and the owner steps on to the next photo before the answer comes (held 1 s): the
    // viewer stays on the photo stepped to.
    await page.locator('.box-face').first().click();
    await page.keyboard.type('john');
    await page.getByRole('option', { name: 'John Schneider' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const notThem = page.getByRole('button', { name: 'not John Schneider (face 1)' });
    await notThem.waitFor();
    const removal = /\/api\/v1\/people\/[^/]+\/remove$/;
    let answered = false;
    await page.route(removal, async (route) => {
      await new Promise((r) => setTimeout(r, 1000));
      await route.continue();
      answered = true;
    });
    const here = await page.evaluate(() => window.location.hash);
    await notThem.click();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((h) => window.location.hash !== h, here);
    const next = await page.evaluate(() => window.location.hash);
    await expect.poll(() => answered, { timeout: 10_000 }).toBe(true);
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => window.location.hash)).toBe(next);
    expect(await page.getByTestId('viewer').locator('h2').textContent()).not.toContain('small-john-2.jpg');
    await page.unroute(removal);
    expect((await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data.face_count).toBe(john.face_count);
  }, 180_000);
});

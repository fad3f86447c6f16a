// People: re-grouping after a preview and naming, "not this person", the suggestion for a face too
// small to join by itself, and saying who a face is from the viewer. Each test has a workspace of
// its own, seeded and (where it needs a named person) grouped and named through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOHN, addMadePhoto, namedJohn, seed, smallJohn, startApp, type App } from './harness.ts';

describe('People', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, 120_000);
  afterAll(async () => app?.close());

  it('re-groups faces after a preview, names the person, and shows the name in the grid', async () => {
    const key = app.t.key('people-regroup');
    await seed(app.t, key, JOHN);
    const { page, shot } = await app.open(key);
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByTestId('people').waitFor();
    await page.getByRole('button', { name: 'Re-group faces…' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').textContent()).toMatch(/1 new unnamed people from 4 faces/);
    await shot('people-preview');
    await page.getByRole('button', { name: 'Re-group now' }).click();
    await page.locator('[data-person]').first().waitFor({ timeout: 60_000 });
    await page.locator('[data-person]').first().click();
    await page.getByTestId('person').waitFor();
    await page.getByLabel('name').fill('John Schneider');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Named John Schneider.').waitFor();
    await page.getByRole('link', { name: 'People' }).click();
    await page.locator('.person-name', { hasText: 'John Schneider' }).waitFor();
    await page.locator('[data-person] .crop[role=img]').first().waitFor();
    await shot('people');
  }, 180_000);

  it('takes a face off a person as "not this person"', async () => {
    const key = app.t.key('people-not-this');
    const john = await namedJohn(app.t, key);
    const { page, shot } = await app.open(key, `#/people/${john.person_id}`);
    await page.locator('[data-face]').first().waitFor();
    const before = await page.locator('[data-face]').count();
    expect(before).toBe(john.face_count);
    await page.locator('[data-face]').last().click();
    await page.getByRole('button', { name: 'Not this person' }).click();
    await page.getByText('1 face(s) marked as not this person.').waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('[data-face]').length === n, before - 1);
    await shot('person');
    const detail = await app.t.api('GET', `/people/${john.person_id}`, { key });
    expect(detail.body.data.face_count).toBe(before - 1);
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

  it('lets the owner say who a face not grouped yet is, from the viewer', async () => {
    const key = app.t.key('people-viewer');
    const john = await namedJohn(app.t, key);
    const { page } = await app.open(key);
    const card = await addMadePhoto(page, 'small-john-2.jpg', smallJohn(40));
    await card.locator('.card-open').click();
    await page.getByTestId('viewer').filter({ hasText: 'small-john-2.jpg' }).waitFor();
    const who = page.getByLabel('who is this');
    await who.waitFor();
    await who.selectOption({ label: 'John Schneider' });
    await page.locator('.side li a', { hasText: 'John Schneider' }).first().waitFor();
    expect(await page.getByLabel('who is this').count()).toBe(0);
    expect((await app.t.api('GET', `/people/${john.person_id}`, { key })).body.data.face_count).toBe(john.face_count + 1);
  }, 180_000);
});

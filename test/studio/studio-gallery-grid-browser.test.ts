// Finding galleries in the grid in a real browser (chromium), at 1440×900 and 390×844: the
// header's Galleries opens the grid; search, sort and state go in the address (the back button
// returns to the whole list); the form works without script; on a desktop the controls sit in
// one row, on a phone they stack with the search the form's whole width under the Menu bar;
// axe clean, no sideways scroll. Screenshots in test-artifacts/studio/grid-find-*.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGallery } from '../support/media.js';
import type { World } from '../support/world.js';
import { axe, chromiumPresent, launchChromium } from '../site/site-support.js';
import { SQLITE_LOCAL, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser, studioNav } from './studio-support.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'studio');
const SIZES = [
  { name: 'desktop', viewport: { width: 1440, height: 900 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];

describe.skipIf(!chromiumPresent)('finding galleries in the grid', () => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;

  beforeAll(async () => {
    on = await startOn(SQLITE_LOCAL, {});
    w = on.w;
    const weddings = await createGallery(w, 'Weddings');
    for (const name of ['Anna & Ben wedding', 'Carla wedding', 'Dora <i>wedding</i>']) await createGallery(w, name, weddings);
    for (const name of ['Portraits', 'Landscapes', 'Studio tests']) await createGallery(w, name);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  async function signedIn(viewport: { width: number; height: number }, phone: boolean, javaScriptEnabled = true): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 2 : 1, isMobile: phone, hasTouch: phone, javaScriptEnabled });
    const page = await context.newPage();
    await signInBrowser(page, w.svc.url, w.user);
    return { page, close: () => context.close() };
  }

  /** How far the Apply button's bottom is from the order's box's bottom (0: level, as a row should be). */
  const offLevel = async (page: Page) => {
    const [apply, sort] = [(await page.getByRole('button', { name: 'Apply' }).boundingBox())!, (await page.locator('#sort').boundingBox())!];
    return Math.abs(apply.y + apply.height - (sort.y + sort.height));
  };
  const titles = (page: Page) => page.locator('h2.gtitle').allTextContents();
  const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const size of SIZES) {
    it(`searches, sorts and filters through the address (${size.name})`, async () => {
      const { page, close } = await signedIn(size.viewport, size.phone);
      const grid = `${w.svc.url}/studio/websites/${w.urlname}/galleries/grid`;
      // The header's Galleries (behind the Menu on a phone) opens the grid.
      await (await studioNav(page)).getByRole('link', { name: 'Galleries' }).click();
      await page.waitForURL(grid);
      expect(await titles(page)).toHaveLength(8);
      expect(await axe(page)).toEqual([]);
      expect(await sideways(page)).toBeLessThanOrEqual(0);

      const form = page.getByRole('search', { name: 'Find galleries' });
      const search = form.getByLabel('Search by name');
      const sort = form.getByLabel('Sort');
      const show = form.getByLabel('Show');
      const [box, field, sortBox] = [(await form.boundingBox())!, (await search.boundingBox())!, (await sort.boundingBox())!];
      if (size.phone) {
        // Stacked: the search as wide as the form's inside, the order below it; the Menu bar above.
        expect(field.width).toBeGreaterThan(box.width - 2 * 24);
        expect(sortBox.y).toBeGreaterThan(field.y + field.height);
        expect(await page.getByRole('button', { name: 'Menu', exact: true }).isVisible()).toBe(true);
      } else {
        // One row: the search, the order and the state side by side, the search the widest.
        expect(Math.abs(sortBox.y - field.y)).toBeLessThan(4);
        expect(field.width).toBeGreaterThan(sortBox.width);
        expect(await offLevel(page)).toBeLessThan(3);
      }
      await page.screenshot({ path: join(ARTIFACTS, `grid-find-all-${size.name}.png`), fullPage: true });

      await search.fill('WEDDING');
      await sort.selectOption('name');
      await show.selectOption('public');
      await form.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/\?q=WEDDING&sort=name&state=public$/);
      expect(await titles(page)).toEqual(['Anna & Ben wedding', 'Carla wedding', 'Dora <i>wedding</i>', 'Weddings']);
      expect(await page.locator('p.gcount').textContent()).toBe('4 galleries');
      expect(await search.inputValue()).toBe('WEDDING');
      expect(await sort.inputValue()).toBe('name');
      expect(await show.inputValue()).toBe('public');
      expect(await axe(page)).toEqual([]);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, `grid-find-searched-${size.name}.png`), fullPage: true });

      // Nothing found: said so; a refused value (typed into the address): the message at its field.
      await search.fill('no such gallery');
      await search.press('Enter');
      await page.waitForURL(/q=no\+such\+gallery/);
      expect(await page.locator('p.gcount').textContent()).toBe('No gallery matches.');
      const refused = await page.goto(`${grid}?sort=biggest`);
      expect(refused!.status()).toBe(422);
      expect(await page.locator('#sort-error').textContent()).toContain('The order must be one of');
      // The message under its field moves nothing else: the row stays level.
      if (!size.phone) expect(await offLevel(page)).toBeLessThan(3);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `grid-find-refused-${size.name}.png`), fullPage: true });

      // Back twice: the search that found nothing, then the one that found four, its form as it was.
      await page.goBack();
      await page.goBack();
      await page.waitForURL(/\?q=WEDDING&sort=name&state=public$/);
      expect(await titles(page)).toHaveLength(4);
      expect(await search.inputValue()).toBe('WEDDING');
      // Clear: the whole list again.
      await form.getByRole('link', { name: 'Clear' }).click();
      await page.waitForURL(grid);
      expect(await titles(page)).toHaveLength(8);
      await close();
    }, 120_000);
  }

  it('works without script', async () => {
    const { page, close } = await signedIn({ width: 1440, height: 900 }, false, false);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/galleries/grid`);
    const form = page.getByRole('search', { name: 'Find galleries' });
    await form.getByLabel('Search by name').fill('s');
    await form.getByLabel('Sort').selectOption('oldest');
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\?q=s&sort=oldest&state=all$/);
    const found = await titles(page);
    // The home gallery (the website's title, "Site …") is the oldest.
    expect(found[0]).toMatch(/^Site .* \(home\)$/);
    expect(found.slice(1)).toEqual(['Weddings', 'Portraits', 'Landscapes', 'Studio tests']);
    await close();
  }, 60_000);
  // Last: its galleries would change the counts above.
  it('keeps a state set on a gallery above short on a phone, its whole name in the title', async () => {
    const long = await createGallery(w, 'The Smith and Johnson wedding in Lake Como, June 2026');
    const child = await createGallery(w, 'Ceremony', long);
    await w.svc.db.updateTable('galleries').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('uuid', '=', long).execute();
    const { page, close } = await signedIn({ width: 390, height: 844 }, true);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/galleries/grid?q=ceremony`);
    const pill = page.locator(`li.gcard:has(a[href="/studio/galleries/${child}"]) li.state`);
    expect(await pill.getAttribute('title')).toBe('Expired, set on The Smith and Johnson wedding in Lake Como, June 2026');
    const card = (await page.locator(`li.gcard:has(a[href="/studio/galleries/${child}"])`).boundingBox())!;
    const box = (await pill.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    expect(box.height).toBeLessThan(30);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'grid-find-inherited-phone.png') });
    await close();
  }, 60_000);
});

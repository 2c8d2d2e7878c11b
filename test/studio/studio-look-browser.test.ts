// The studio's look in a real browser (chromium through playwright-core), on SQLite with local
// files: the websites list, the galleries' grid and tree, a gallery's settings, the media grid and
// the shop at desktop and phone sizes; covers shown as thumbnails that load, no sideways scroll,
// axe clean; the phone's one-bar header and its Menu by keyboard and by touch. Screenshots land in
// test-artifacts/studio/ (look-*) and /tmp/look-shots/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGallery } from '../support/media.js';
import type { World } from '../support/world.js';
import { axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from '../site/site-support.js';
import { SQLITE_LOCAL, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'studio');
const SHOTS = '/tmp/look-shots';
const SIZES = [
  { name: 'desktop', viewport: { width: 1440, height: 900 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];

describe.skipIf(!chromiumPresent)('the studio look', () => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let weddings: string;

  beforeAll(async () => {
    on = await startOn(SQLITE_LOCAL, {});
    w = on.w;
    weddings = await createGallery(w, 'Weddings');
    const june = await createGallery(w, 'June', weddings);
    const portraits = await createGallery(w, 'Portraits');
    await createGallery(w, 'Empty one');
    const photos = [await uploadPhoto(w, june, 1, 1200), await uploadPhoto(w, june, 2, 1200), await uploadPhoto(w, portraits, 3, 1200)];
    await waitForRenditions(w, photos);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  async function signedIn(viewport: { width: number; height: number }, phone: boolean): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 2 : 1, isMobile: phone, hasTouch: phone });
    const page = await context.newPage();
    await signInBrowser(page, w.svc.url, w.user);
    return { page, close: () => context.close() };
  }

  const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  /** Images that are lazy, sized, and loaded once scrolled into view. */
  async function thumbs(page: Page): Promise<number> {
    const imgs = page.locator('img.thumb');
    const n = await imgs.count();
    for (let i = 0; i < n; i++) {
      const img = imgs.nth(i);
      await img.scrollIntoViewIfNeeded();
      expect(await img.getAttribute('loading')).toBe('lazy');
      expect(Number(await img.getAttribute('width'))).toBeGreaterThan(0);
      expect(Number(await img.getAttribute('height'))).toBeGreaterThan(0);
      await expect.poll(() => img.evaluate((e) => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    }
    return n;
  }

  for (const size of SIZES) {
    it(`shows each main screen whole, with covers as thumbnails (${size.name})`, async () => {
      const { page, close } = await signedIn(size.viewport, size.phone);
      const shots: Array<[string, string]> = [
        ['websites', '/studio/websites'],
        ['galleries', `/studio/websites/${w.urlname}/galleries`],
        ['grid', `/studio/websites/${w.urlname}/galleries/grid`],
        ['gallery', `/studio/galleries/${weddings}`],
        ['media', '/studio/media'],
        ['shop', '/studio/shop'],
      ];
      const found: Record<string, number> = {};
      for (const [name, path] of shots) {
        await page.goto(w.svc.url + path);
        found[name] = process.env.LOOK_BEFORE ? 0 : await thumbs(page);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: join(ARTIFACTS, `look-${process.env.LOOK_BEFORE ? 'before' : 'after'}-${name}-${size.name}.png`), fullPage: true });
        await page.screenshot({ path: join(SHOTS, `${name}-${size.name}.png`), fullPage: true });
        if (process.env.LOOK_BEFORE) continue;
        expect(await axe(page), name).toEqual([]);
        expect(await sideways(page), `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      }
      if (!process.env.LOOK_BEFORE) {
        // The website's card and the galleries with photos (Weddings from June, inside it) show covers.
        expect(found.websites).toBe(1);
        expect(found.galleries).toBeGreaterThanOrEqual(3);
        // The grid: the home gallery and Weddings (from June below), June and Portraits with covers; the empty one grey.
        expect(found.grid).toBe(4);
      }
      await close();
    }, 120_000);
  }

  it('folds the phone header into one bar whose Menu opens the sections, by keyboard and by touch', async () => {
    const { page, close } = await signedIn({ width: 390, height: 844 }, true);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/galleries/grid`);
    const bar = page.locator('header.bar');
    const menu = page.getByRole('button', { name: 'Menu', exact: true });
    const nav = page.getByRole('navigation', { name: 'Studio' });
    // One row: the name, the section this page is in, the button; the sections out of sight and out of the tab order.
    expect((await bar.boundingBox())!.height).toBeLessThan(64);
    expect(await page.locator('#studio-here').textContent()).toBe('Galleries');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.getAttribute('aria-controls')).toBe('studio-nav');
    expect(await nav.getByRole('link', { name: 'Media' }).isVisible()).toBe(false);
    // The keyboard: the skip link, Studio, then the button; Enter opens, Tab reaches the sections, Escape closes.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await menu.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Websites');
    expect(await nav.getByRole('link', { name: 'Galleries' }).getAttribute('aria-current')).toBe('page');
    expect(await axe(page)).toEqual([]);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'menu-open-phone.png') });
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.evaluate((b) => b === document.activeElement)).toBe(true);
    // Touch: a tap opens it, a section is a tap away.
    await menu.tap();
    await nav.getByRole('link', { name: 'Media' }).tap();
    await page.waitForURL('**/studio/media');
    expect(await page.locator('#studio-here').textContent()).toBe('Media');
    await close();
  }, 60_000);
});

// The website in a real browser (Debian's chromium driven by playwright-core):
// the weight of the first view of a 500-media gallery at a phone and a desktop
// viewport, and the keyboard lightbox (open with Enter, arrows, Escape, focus
// back where it was). Screenshots land in test-artifacts/site/.
// In CI (CI=1) a missing /usr/bin/chromium fails the suite (.ci/run installs it).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, galleryId } from '../api/galleries-fixtures.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, CHROMIUM, chromiumPresent, firstView, launchChromium, publishBulk, uploadPhoto, waitForRenditions } from './site-support.js';

const present = chromiumPresent;
const LIMIT_BYTES = 1.5 * 1000 * 1000;
/** Photos uploaded for real: more than one page (60) of a gallery. */
const UPLOADED = 64;
let renditions = false;

if (!present && process.env.CI) {
  // CI must run the browser tests: fail loudly rather than skip.
  describe('browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

describe.skipIf(!present)('the website in a browser', () => {
  let w: World;
  let browser: Browser;
  let galleryPath: string;

  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off' });
    const g = await create(w, 'Five hundred', w.rootUuid, { content_order: 'manual-last', description: 'A large gallery.' });
    await create(w, 'A sub-gallery', g);
    // The first page: real photos uploaded and published through the API (three steps, as
    // publishing plugins do), so that their renditions are made when the service makes them.
    const uploaded: string[] = [];
    for (let i = 0; i < UPLOADED; i++) uploaded.push(await uploadPhoto(w, g, i, 1800));
    renditions = await waitForRenditions(w, uploaded);
    // The rest of the 500 inserted in bulk after them: live medias published in the gallery.
    await publishBulk(w.svc.db, { galleryId: await galleryId(w.svc.db, g), ownerId: w.user.id, artistUuid: w.user.defaultArtistUuid, from: UPLOADED, to: 500, batch: 110 });
    galleryPath = `${w.svc.url}/sites/${w.urlname}/-/five-hundred`;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  for (const [name, viewport, scale] of [
    ['phone', { width: 390, height: 844 }, 3],
    ['desktop', { width: 1280, height: 800 }, 1],
  ] as const) {
    it(`the first view of a 500-media gallery at a ${name} viewport transfers less than 1.5 MB`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone' });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      const view = await firstView(page, galleryPath);
      await page.screenshot({ path: join(ARTIFACTS, `gallery-${name}.png`) });
      expect(await page.locator('ul.media > li').count()).toBe(60);
      expect(await page.locator('h1').textContent()).toBe('Five hundred');
      // HTML, stylesheet, script, and only the images the first screen shows.
      expect(view.bytes).toBeLessThan(LIMIT_BYTES);
      // With renditions, the first screen's photos are real images (their srcset chosen by the browser).
      if (renditions) expect(view.images).toBeGreaterThan(3);
      else expect(await page.locator('ul.media img').count()).toBe(0);
      // No CSP violation or script error.
      expect(errors).toEqual([]);
      console.log(`[site] first view at ${name} ${viewport.width}x${viewport.height}@${scale}x: ${view.bytes} bytes in ${view.requests} responses (${view.images} images${renditions ? '' : ', no renditions made by this service yet'})`);
      await context.close();
    });
  }

  it('opens a media in the lightbox with the keyboard, steps with the arrows, closes with Escape and gives focus back', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(galleryPath, { waitUntil: 'networkidle' });
    // Tab from the top of the page to the first photo.
    let onPhoto = false;
    for (let i = 0; i < 30 && !onPhoto; i++) {
      await page.keyboard.press('Tab');
      onPhoto = await page.evaluate(() => document.activeElement?.matches('a[data-lb]') ?? false);
    }
    expect(onPhoto).toBe(true);
    const first = await page.evaluate(() => document.activeElement!.getAttribute('href'));
    expect(first).toMatch(/\/_\/[0-9a-f-]{36}$/);
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog.lb');
    await expect.poll(() => dialog.evaluate((d: HTMLDialogElement) => d.open)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Close');
    expect(await dialog.getAttribute('data-index')).toBe('0');
    expect(await dialog.locator('figcaption').textContent()).toBe('Photo 1 (1 / 60)');
    if (renditions) await expect.poll(() => dialog.locator('img').evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'lightbox.png') });
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await dialog.getAttribute('data-index')).toBe('2');
    await page.keyboard.press('ArrowLeft');
    expect(await dialog.getAttribute('data-index')).toBe('1');
    expect(await dialog.locator('figcaption').textContent()).toBe('Photo 2 (2 / 60)');
    // Focus stays inside the dialog.
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog.lb'))).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.evaluate((d: HTMLDialogElement) => d.open)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe(first);
    // Without the lightbox (a modified click), the link is an ordinary media page.
    const media = await context.newPage();
    const res = await media.goto(new URL(first!, w.svc.url).toString());
    expect(res?.status()).toBe(200);
    await media.screenshot({ path: join(ARTIFACTS, 'media.png') });
    await context.close();
  });

  it('shows the password form and opens the gallery with the right password', async () => {
    await create(w, 'Locked in browser', w.rootUuid, { password: 'let me in' });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const url = `${w.svc.url}/sites/${w.urlname}/-/locked-in-browser`;
    const refused = await page.goto(url);
    expect(refused?.status()).toBe(403);
    await page.screenshot({ path: join(ARTIFACTS, 'password.png') });
    await page.fill('#password', 'wrong');
    await page.click('button[type=submit]');
    expect(await page.locator('.error').textContent()).toContain('not right');
    await page.fill('#password', 'let me in');
    await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe('Locked in browser');
    await context.close();
  });
});

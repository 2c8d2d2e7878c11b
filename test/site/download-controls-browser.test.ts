// A gallery's download controls in Chromium at desktop and phone sizes (docs/delivery.md
// "Download controls"): the PIN page in the website's brand (wrong PIN told, the right one
// starting the download), the download limit's page, and the studio's card that sets them;
// whole on the screen, axe clean. Screenshots: test-artifacts/site/download-*.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '../api/galleries-fixtures.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from './site-support.js';

const SIZES: Array<[string, BrowserContextOptions]> = [
  ['desktop', { viewport: { width: 1280, height: 800 } }],
  ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
];

describe.skipIf(!chromiumPresent && !process.env.CI)('download controls in a browser', () => {
  let w: World;
  let browser: Browser;
  let gallery: string;
  let photos: string[];
  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Ann Lee Photography', 'website[theme]': 'editorial' });
    gallery = await create(w, 'Smith wedding', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }], download_pin: '4821', download_limit: 1 });
    photos = [await uploadPhoto(w, gallery, 1, 2400), await uploadPhoto(w, gallery, 2, 2400)];
    expect(await waitForRenditions(w, photos)).toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  const whole = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  const mediaUrl = (i: number) => `${w.svc.url}/sites/${w.urlname}/-/smith-wedding/_/${photos[i]}`;

  it.each(SIZES)('at %s size: the PIN page, a wrong PIN, the download, then the limit page', async (size, options) => {
    const context = await browser.newContext({ ...options, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(mediaUrl(0));
    await page.getByRole('link', { name: /Download the original/ }).click();
    await page.waitForURL('**/_download/**');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Enter the download PIN');
    expect(await page.locator('header.site').getByText('Ann Lee Photography').isVisible()).toBe(true);
    expect(await page.getByLabel('PIN (4 to 8 digits)').isVisible()).toBe(true);
    expect(await whole(page), 'the page scrolls sideways').toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `download-pin-${size}.png`), fullPage: true });

    await page.getByLabel('PIN (4 to 8 digits)').fill('1111');
    await page.getByRole('button', { name: 'Download' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('That PIN is not right.');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `download-pin-wrong-${size}.png`), fullPage: true });

    await page.getByLabel('PIN (4 to 8 digits)').fill('4821');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.jpe?g$/i);

    // The second photo: the PIN is remembered, the limit of one is spent.
    await page.goto(mediaUrl(1));
    await page.getByRole('link', { name: /Download the original/ }).click();
    await page.waitForURL('**/_download/**');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('You have reached this gallery’s download limit');
    expect(await page.getByRole('link', { name: 'Back to the gallery' }).isVisible()).toBe(true);
    expect(await whole(page), 'the page scrolls sideways').toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `download-limit-${size}.png`), fullPage: true });
    await context.close();
  });

  it.each(SIZES)('at %s size: the studio card sets them', async (size, options) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    await page.goto(`${w.svc.url}/studio/signin`);
    await page.getByLabel('E-mail address').fill(w.user.email);
    await page.getByLabel('Password').fill(w.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/studio/websites');
    await page.goto(`${w.svc.url}/studio/galleries/${gallery}#downloads`);
    await page.getByLabel('Downloads per client').fill('20');
    await page.getByRole('button', { name: 'Save downloads' }).click();
    await page.waitForURL('**done=downloads*');
    expect(await page.getByText('The download settings were saved.').isVisible()).toBe(true);
    expect(await page.getByLabel('Download PIN').inputValue()).toBe('4821');
    expect(await whole(page), 'the page scrolls sideways').toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.locator('#downloads').screenshot({ path: join(ARTIFACTS, `download-studio-${size}.png`) });
    await w.client.updateGallery(w.urlname, gallery, { download_limit: 1 });
    await context.close();
  });
});

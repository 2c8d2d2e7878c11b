// One media's screen in a real browser, at desktop and phone sizes, on SQLite with local files and
// PostgreSQL with S3: a photo uploaded with EXIF (camera's time, author, copyright, camera, lens, exposure) shows those
// facts and the galleries it is in (links); its title, caption, alt text and keywords are edited
// through the form, the API agrees, and the website's <img> takes the alt text; a too-long alt
// text is refused at its field with what was sent kept. axe clean on each screen. Screenshots go
// to /tmp/shots-media-edit/ (outside the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { createGallery, getMedia } from '../support/media.js';
import { taggedJpeg } from '../support/file-metadata.js';
import type { World } from '../support/world.js';
import { chromiumPresent, launchChromium, uploadJpeg, axe, visit } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = process.env.STUDIO_MEDIA_EDIT_SHOTS ?? '/tmp/shots-media-edit';

describe.skipIf(!chromiumPresent).each(BACKENDS)('one media edited in the studio, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let media: string;
  let wedding: string;

  beforeAll(async () => {
    on = await startOn(backend, { SITE_CACHE_SECONDS: '0' });
    w = on.w;
    wedding = await createGallery(w, 'Wedding');
    const data = await taggedJpeg({ exif: { artist: 'Ann Lee', copyright: 'Ann Lee, all rights reserved', shot: '2024:05:06 07:08:09', offset: '+02:00', camera: { make: 'Canon', model: 'Canon EOS R5', lens: 'RF24-70mm F2.8 L IS USM', focalLength: '50/1', fNumber: '28/10', exposureTime: '1/250', iso: '400' } } });
    media = await uploadJpeg(w, wedding, data, 'IMG_4711-secret-name.jpg', '');
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  async function signedIn(viewport: { width: number; height: number }, phone: boolean) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 3 : 1, isMobile: phone, hasTouch: phone });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('response', (r) => {
      if (r.status() >= 400 && r.status() !== 422 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await signInBrowser(page, w.svc.url, w.user);
    return { context, page, problems };
  }

  it('shows the facts and galleries, edits title, caption, alt text and keywords; the API and the website agree (desktop)', async () => {
    const { context, page, problems } = await signedIn({ width: 1280, height: 800 }, false);
    await page.goto(`${w.svc.url}/studio/media/${media}`);
    const facts = page.getByRole('region', { name: 'From the file' });
    await expect.poll(() => facts.textContent()).toContain('Ann Lee');
    expect(await facts.textContent()).toContain('Ann Lee, all rights reserved');
    expect(await facts.textContent()).toContain('2024-05-06 05:08 UTC');
    // The camera as the file names it (the make not repeated), the lens and the exposure.
    expect(await facts.textContent()).toContain('Canon EOS R5');
    expect(await facts.textContent()).not.toContain('Canon Canon');
    expect(await facts.textContent()).toContain('RF24-70mm F2.8 L IS USM');
    expect(await facts.textContent()).toContain('50 mm · ƒ/2.8 · 1/250 s · ISO 400');
    const galleries = page.getByRole('region', { name: 'In galleries' });
    expect(await galleries.getByRole('link', { name: 'Wedding' }).getAttribute('href')).toBe(`/studio/media?gallery=${wedding}`);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'detail-desktop.png'), fullPage: true });

    await page.getByLabel('Title', { exact: true }).fill('First dance');
    await page.getByLabel('Caption', { exact: true }).fill('The couple & their <friends>');
    await page.getByLabel('Alt text', { exact: true }).fill('A bride and groom dancing under string lights');
    await page.getByLabel('Keywords', { exact: true }).fill('dance, night, Dance');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/studio/media/${media}?done=saved`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('First dance');
    expect(await page.getByLabel('Alt text', { exact: true }).inputValue()).toBe('A bride and groom dancing under string lights');

    const doc = (await getMedia(w.client, media)).doc;
    expect(text(doc, 'media/title')).toBe('First dance');
    expect(text(doc, 'media/description')).toBe('The couple & their <friends>');
    expect(text(doc, 'media/alt-text')).toBe('A bride and groom dancing under string lights');
    expect(all(doc, 'media/keywords/keyword').map((k) => k.text)).toEqual(['dance', 'night']);

    // The website: the alt text on the photo's page, and no file name anywhere.
    const site = await visit(w.svc, `/sites/${w.urlname}/-/wedding/_/${media}`);
    expect(site.status).toBe(200);
    expect(site.body).toMatch(/(alt|aria-label)="A bride and groom dancing under string lights"/);
    expect(site.body).not.toContain('IMG_4711');

    // Clearing the alt text: the website falls back to the title.
    await page.getByLabel('Alt text', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/studio/media/${media}?done=saved`);
    expect(text((await getMedia(w.client, media)).doc, 'media/alt-text')).toBeUndefined();
    expect((await visit(w.svc, `/sites/${w.urlname}/-/wedding/_/${media}`)).body).toMatch(/(alt|aria-label)="First dance"/);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('refuses a too-long alt text at its field, keeping what was typed; whole and axe clean on a phone', async () => {
    const { context, page, problems } = await signedIn({ width: 390, height: 844 }, true);
    await page.goto(`${w.svc.url}/studio/media/${media}`);
    expect(await axe(page)).toEqual([]);
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(SHOTS, 'detail-phone.png'), fullPage: true });
    await page.getByLabel('Title', { exact: true }).fill('Not saved');
    // maxlength bounds typing; a crafted form is what the server must refuse.
    await page.getByLabel('Alt text', { exact: true }).evaluate((el) => el.removeAttribute('maxlength'));
    await page.getByLabel('Alt text', { exact: true }).fill('x'.repeat(1001));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#alt_text-error').waitFor();
    expect(await page.locator('#alt_text-error').textContent()).toContain('The alt text is longer than 1000 characters');
    expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe('Not saved');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'detail-phone-refused.png'), fullPage: true });
    expect(text((await getMedia(w.client, media)).doc, 'media/title')).not.toBe('Not saved');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});

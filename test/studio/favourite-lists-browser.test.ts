// Named lists (docs/delivery.md "Named lists"; docs/studio.md "Proofing") in Chromium at 1280×800
// and 390×844, on SQLite + local files and PostgreSQL + S3: in a password gallery offering "Album"
// and "Prints", a client hearts photos, puts them in the lists and sends; the photographer sees both
// lists in proofing and copies the names of one (the clipboard read back). axe clean; screenshots
// in /tmp/shots-lists/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import type { World } from '../support/world.js';
import { axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-lists';
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];

describe.skipIf(!chromiumPresent).each(BACKENDS)('named lists in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let proofs: string;
  let home: string;
  const photos: string[] = [];

  beforeAll(async () => {
    on = await startOn(backend, { SITE_CACHE_SECONDS: '0', VISITOR_RATE_LIMIT: 'off', JOB_POLL_MS: '50' });
    w = on.w;
    home = `${w.svc.url}/sites/${w.urlname}`;
    proofs = text((await w.client.createGallery(w.urlname, { name: 'Wedding', parent: w.rootUuid, password: 'rings', favourite_lists: 'Album\nPrints' })).doc, 'gallery/uuid')!;
    for (let i = 0; i < 3; i++) photos.push(await uploadPhoto(w, proofs, i, 600));
    expect(await waitForRenditions(w, photos)).toBe(true);
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  async function open(size: (typeof SIZES)[number], allowed: number[] = []): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400 && !allowed.includes(r.status())) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    return { context, page, problems };
  }

  for (const size of SIZES) {
    it(`a client sorts picks into Album and Prints and sends; the photographer copies the Prints, at ${size.name} size`, async () => {
      const email = `lists-${size.name}@example.com`;
      // The password page answers 403, and the first heart before saying who one is too.
      const { context, page, problems } = await open(size, [403]);
      await page.goto(`${home}/-/wedding`);
      await page.getByLabel('Password').fill('rings');
      await Promise.all([page.waitForURL(`${home}/-/wedding`), page.getByRole('button', { name: 'Open the gallery' }).click()]);
      await page.locator(`button.fav[value="${photos[0]}"]`).click();
      await page.getByLabel('Your name').fill(`Bea ${size.name}`);
      await page.getByLabel('Your e-mail address').fill(email);
      await Promise.all([page.waitForURL(`${home}/-/wedding`), page.getByRole('button', { name: 'Start choosing' }).click()]);
      await expect.poll(() => page.locator(`button.fav[value="${photos[0]}"]`).getAttribute('aria-pressed')).toBe('true');

      // On a photo's own page: its lists as toggles; Prints picks the second photo too.
      await page.goto(`${home}/-/wedding/_/${photos[1]}`);
      const toggles = page.getByRole('group', { name: 'Lists for this photo' });
      await Promise.all([page.waitForLoadState('load'), toggles.getByRole('button', { name: 'Prints' }).click()]);
      await expect.poll(() => page.getByRole('group', { name: 'Lists for this photo' }).getByRole('button', { name: 'Prints' }).getAttribute('aria-pressed')).toBe('true');
      await page.screenshot({ path: join(SHOTS, `${backend.db}-media-${size.name}.png`), fullPage: true });
      expect(await axe(page)).toEqual([]);

      // On the selection page: the first photo in Album and Prints.
      await page.goto(`${home}/_favourites/${proofs}`);
      const first = page.locator('.picks li').nth(0).locator('.list-toggles');
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), first.getByRole('button', { name: 'Album' }).click()]);
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.locator('.picks li').nth(0).locator('.list-toggles').getByRole('button', { name: 'Prints' }).click()]);
      await expect.poll(() => page.locator('[data-list-counts]').textContent()).toBe('Album: 1 · Prints: 2');
      await page.screenshot({ path: join(SHOTS, `${backend.db}-selection-${size.name}.png`), fullPage: true });
      expect(await axe(page)).toEqual([]);
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Send my selection' }).click()]);
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.getByRole('button', { name: 'Yes, send it' }).click()]);
      await page.locator('p.sent').waitFor();
      expect(problems).toEqual([]);
      await context.close();

      // The photographer: both lists in proofing, the Prints copied for Lightroom.
      const studio = await open(size);
      await studio.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.svc.url });
      const p = studio.page;
      await signInBrowser(p, w.svc.url, w.user);
      await p.goto(`${w.svc.url}/studio/galleries/${proofs}/proofing`);
      await p.getByRole('navigation', { name: 'Clients’ selections' }).getByRole('link', { name: new RegExp(`Bea ${size.name}`) }).click();
      const lists = p.getByRole('navigation', { name: 'Lists' });
      await expect.poll(() => lists.getByRole('link').allTextContents()).toEqual(['All favourites 2', 'Album 1', 'Prints 2']);
      await lists.getByRole('link', { name: /Prints/ }).click();
      await p.getByRole('heading', { name: 'Prints (2)' }).waitFor();
      const names = ['UPLOAD_0001', 'UPLOAD_0002'];
      await expect.poll(() => p.locator('.proof-picks .fname').allTextContents()).toEqual(names.map((n) => `${n}.jpg`));
      await p.getByRole('button', { name: 'Copy Prints for Lightroom' }).click();
      await expect.poll(() => p.evaluate(() => navigator.clipboard.readText())).toBe(names.join(', '));
      await p.screenshot({ path: join(SHOTS, `${backend.db}-proofing-${size.name}.png`), fullPage: true });
      expect(await axe(p)).toEqual([]);
      await lists.getByRole('link', { name: /Album/ }).click();
      await p.getByRole('heading', { name: 'Album (1)' }).waitFor();
      await p.getByRole('button', { name: 'Copy Album for Capture One' }).click();
      await expect.poll(() => p.evaluate(() => navigator.clipboard.readText())).toBe('UPLOAD_0001');
      // The gallery's Favourites card: the setting and the lists, as typed.
      await p.goto(`${w.svc.url}/studio/galleries/${proofs}#favourites-card`);
      expect(await p.locator('#favourite_lists').inputValue()).toBe('Album\nPrints');
      expect(await p.locator('select#favourites').inputValue()).toBe('default');
      await p.locator('#favourites-card').screenshot({ path: join(SHOTS, `${backend.db}-settings-${size.name}.png`) });
      expect(await axe(p)).toEqual([]);
      expect(studio.problems).toEqual([]);
      await studio.context.close();
    }, 180_000);
  }
});

// The whole visitor journey in a real browser (Debian's chromium driven by
// playwright-core), against a started service with a real SMTP server: a
// photographer publishes through the API (three-step upload, as the desktop
// plugin does; a default watermark on the library), a visitor browses the
// tree, opens a photo in the lightbox with the keyboard, is refused a
// password gallery then opens it, is refused a client gallery, signs in with
// the link the mail brought, downloads the comp its rights allow and nothing
// more, and a copied signed image address stops working once expired.
// On SQLite and PostgreSQL. Screenshots land in test-artifacts/site/journey-<db>-*.png.
// In CI (CI=1) a missing /usr/bin/chromium fails the suite (.ci/run installs it).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { eachDatabase, TestService, type DbKind } from '../support/service.js';
import { linkIn, startSmtp, type TestSmtp } from '../support/smtp.js';
import { worldOn, type World } from '../support/world.js';
import { ARTIFACTS, CHROMIUM, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from './site-support.js';

const CLIENT = 'client@example.com';

if (!chromiumPresent && process.env.CI) {
  describe('browser journey', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

eachDatabase((kind: DbKind) => describe.skipIf(!chromiumPresent)('a visitor journey in a browser', () => {
  let smtp: TestSmtp;
  let w: World;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let home: string;
  const errors: string[] = [];
  const g: Record<'travels' | 'dunes' | 'locked' | 'proofs', string> = { travels: '', dunes: '', locked: '', proofs: '' };
  const photos: Record<'dunes' | 'locked' | 'proofs', string[]> = { dunes: [], locked: [], proofs: [] };

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `journey-${kind}-${name}.png`), fullPage: true });
  const h1 = () => page.locator('h1').textContent();
  const gallery = async (name: string, parent: string, attrs: Record<string, unknown> = {}) =>
    text((await w.client.createGallery(w.urlname, { name, parent, ...attrs })).doc, 'gallery/uuid')!;

  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
    const svc = await TestService.start(kind, {
      SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Photos <photos@example.com>',
      VISITOR_RATE_LIMIT: 'off',
      SITE_CACHE_SECONDS: '0',
    });
    w = await worldOn(svc);
    home = `${w.svc.url}/sites/${w.urlname}`;
    // The photographer's setup: a default text watermark on the library, a tree of galleries.
    await w.svc.core.artists.createWatermark({ artistUuid: w.user.defaultArtistUuid, isDefault: true, text: 'PROOF' });
    g.travels = await gallery('Travels', w.rootUuid, { description: 'Far away.' });
    g.dunes = await gallery('Dunes', g.travels);
    g.locked = await gallery('Family', w.rootUuid, { password: 'let me in' });
    g.proofs = await gallery('Proofs', w.rootUuid, {
      acl: [
        { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
        { email: CLIENT, read: 1, comp_download: 1, hires_download: 0 },
      ],
    });
    // Three-step uploads, published to the galleries as a desktop plugin publishes them.
    for (let i = 0; i < 3; i++) photos.dunes.push(await uploadPhoto(w, g.dunes, i, 2400));
    photos.locked.push(await uploadPhoto(w, g.locked, 3, 2400));
    photos.proofs.push(await uploadPhoto(w, g.proofs, 4, 2400));
    // A second proof published afterwards to a gallery (media update, as plugins do for a photo already uploaded).
    const also = photos.dunes[2];
    const res = await w.client.request('PUT', `/medias/${also}.xml`, { 'media[publish_to_galleries]': [g.proofs] }, { multipart: true, methodOverride: true });
    expect(res.status).toBe(200);
    photos.proofs.push(also);
    expect(await waitForRenditions(w, [...photos.dunes, ...photos.locked, ...photos.proofs])).toBe(true);

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('console', (m) => {
      // A refused page (403) is reported as a failed load: that one is expected.
      if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 403/.test(m.text())) errors.push(`${m.text()} at ${m.location().url}`);
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
    await smtp?.close();
  });

  it('browses the tree from the home page to a sub-gallery, its photos in order', async () => {
    const res = await page.goto(`${home}/`);
    expect(res?.status()).toBe(200);
    expect(await h1()).toBe(`Site ${w.urlname}`);
    // Travels alone: the password and access-list galleries stay off the home page unless featured (issue 30).
    await expect.poll(() => page.locator('ul.subs a').count()).toBe(1);
    await shot('home');
    await Promise.all([page.waitForURL(`${home}/-/travels`), page.locator('ul.subs a', { hasText: 'Travels' }).click()]);
    expect(await h1()).toBe('Travels');
    await Promise.all([page.waitForURL(`${home}/-/travels/dunes`), page.locator('ul.subs a', { hasText: 'Dunes' }).click()]);
    expect(await h1()).toBe('Dunes');
    // The three uploads, in the gallery's order, each a real image (its rendition) once loaded.
    const links = await page.locator('ul.media a[data-uuid]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(links.map((h) => h.slice(h.lastIndexOf('/') + 1))).toEqual(photos.dunes);
    await expect.poll(() => page.locator('ul.media img').evaluateAll((is) => is.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
    await shot('gallery');
    expect(errors).toEqual([]);
  });

  it('opens a photo in the lightbox with the keyboard, with its watermarked large size', async () => {
    let onPhoto = false;
    for (let i = 0; i < 30 && !onPhoto; i++) {
      await page.keyboard.press('Tab');
      onPhoto = await page.evaluate(() => document.activeElement?.matches('a[data-uuid]') ?? false);
    }
    expect(onPhoto).toBe(true);
    await page.keyboard.press('Enter');
    const viewer = page.locator('.pswp');
    await expect.poll(() => viewer.count()).toBe(1);
    // The slide in view: its image loaded.
    const current = () =>
      page.evaluate(() => {
        // Not PhotoSwipe's placeholder (the thumbnail shown while the slide loads).
        const img = Array.from(document.querySelectorAll<HTMLImageElement>('.pswp__item img.pswp__img:not(.pswp__img--placeholder)')).find((i) => {
          const r = i.getBoundingClientRect();
          return r.left < window.innerWidth / 2 && r.right > window.innerWidth / 2;
        });
        return img && img.complete && img.naturalWidth > 0 ? img.currentSrc : '';
      });
    await expect.poll(current, { timeout: 10_000 }).not.toBe('');
    // The size shown at this screen is a watermarked rendition.
    const key = new URL(await current()).pathname.slice('/files/'.length);
    const row = await w.svc.db.selectFrom('renditions').select(['name', 'watermarked']).where('storage_key', '=', key).executeTakeFirstOrThrow();
    expect(Number(row.name)).toBeGreaterThanOrEqual(1280);
    expect(row.watermarked).toBe(1);
    await shot('lightbox');
    await page.locator('.pswp.pswp--ready').waitFor();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#photo=${photos.dunes[1]}`);
    await page.keyboard.press('Escape');
    await expect.poll(() => viewer.count(), { timeout: 10_000 }).toBe(0);
  });

  it('is refused the password gallery, then opens it with the password', async () => {
    const url = `${home}/-/family`;
    const refused = await page.goto(url);
    expect(refused?.status()).toBe(403);
    expect(await page.locator('ul.media').count()).toBe(0);
    await shot('password');
    await page.fill('#password', 'not it');
    await page.click('button[type=submit]');
    expect(await page.locator('.error').textContent()).toContain('not right');
    await page.fill('#password', 'let me in');
    await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
    expect(await h1()).toBe('Family');
    const links = await page.locator('ul.media a[data-uuid]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(links.map((h) => h.slice(h.lastIndexOf('/') + 1))).toEqual(photos.locked);
  });

  it('is refused the client gallery, signs in with the link the mail brought, and sees it', async () => {
    const url = `${home}/-/proofs`;
    const refused = await page.goto(url);
    expect(refused?.status()).toBe(403);
    expect(await page.locator('ul.media').count()).toBe(0);
    await shot('signin-needed');
    await page.locator('a', { hasText: 'Sign in with your e-mail address' }).click();
    await page.waitForURL(/\/_signin\?back=/);
    // The sign-in form wears the website's look: its stylesheets (the base one and the brand's theme) and its header.
    expect(await page.locator('link[rel=stylesheet]').count()).toBe(2);
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).not.toBe('"Times New Roman"');
    await shot('signin');
    await page.fill('input[type=email]', CLIENT);
    const before = smtp.mails.length;
    await page.click('button[type=submit]');
    expect(await h1(), await page.locator('main').textContent() ?? '').toBe('Check your mail');
    await expect.poll(() => smtp.mails.length, { timeout: 10_000 }).toBe(before + 1);
    const mail = smtp.mails[before];
    expect(mail.to).toEqual([CLIENT]);
    const link = linkIn(mail);
    expect(link.startsWith(`${home}/_signin/`)).toBe(true);
    // The browser follows the link and lands back on the gallery it was refused.
    await page.goto(link);
    expect(page.url()).toBe(url);
    expect(await h1()).toBe('Proofs');
    const links = await page.locator('ul.media a[data-uuid]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(links.map((h) => h.slice(h.lastIndexOf('/') + 1)).sort()).toEqual([...photos.proofs].sort());
    await expect.poll(() => page.locator('ul.media img').evaluateAll((is) => is.length > 0 && is.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
    await shot('client-gallery');
    expect(errors).toEqual([]);
  });

  it('downloads the watermarked comp its rights allow, and no original reaches it', async () => {
    const media = photos.proofs[0];
    await page.goto(`${home}/-/proofs/_/${media}`);
    await shot('media');
    const downloads = page.locator('a[download]');
    expect(await downloads.count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), downloads.first().click()]);
    // Named after the photo, not its storage hash.
    expect(download.suggestedFilename()).toMatch(/^[^/]+\.(jpg|webp)$/);
    expect(download.suggestedFilename()).not.toMatch(/[0-9a-f]{16}/);
    const file = await download.path();
    const meta = await sharp(file).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(1280);
    const compHref = await downloads.first().getAttribute('href');
    const comp = new URL(compHref!, home);
    const compKey = comp.pathname.slice('/files/'.length);
    const compRow = await w.svc.db.selectFrom('renditions').select('watermarked').where('storage_key', '=', compKey).executeTakeFirstOrThrow();
    expect(compRow.watermarked).toBe(1);

    // The original: nowhere on the page, and a forged address (the comp's signature on the original's key) refused.
    const original = await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', media).executeTakeFirstOrThrow();
    expect(await page.content()).not.toContain(original.storage_key!);
    const forged = new URL(comp);
    forged.pathname = `/files/${original.storage_key}`;
    const refusedSigned = await page.request.get(forged.toString());
    expect(refusedSigned.status()).toBe(404);
    const refusedPlain = await page.request.get(`${w.svc.url}/files/${original.storage_key}`);
    expect(refusedPlain.status()).toBe(404);
    // Through the API's media record (what a browser cannot sign), the original stays the photographer's.
    const rec = await w.client.request('GET', `/medias/${media}.xml`);
    expect(all(find(rec.doc, 'media')!, 'renditions/rendition').length).toBeGreaterThan(0);
  });

  it('a copied signed image address works in another browser until it expires, and not once altered', async () => {
    await page.goto(`${home}/-/proofs`);
    const src = await page.locator('ul.media img').first().evaluate((i: HTMLImageElement) => i.currentSrc);
    const copied = new URL(src);
    const e = Number(copied.searchParams.get('e'));
    const now = Date.now() / 1000;
    // Good until the end of the next hour at most.
    expect(e).toBeGreaterThan(now);
    expect(e).toBeLessThanOrEqual(now + 2 * 3600);
    expect(copied.searchParams.get('s')).toBeTruthy();

    // Pasted in another browser (no cookie): the signature is the proof while it lasts.
    const other = await browser.newContext();
    try {
      const ok = await other.request.get(copied.toString());
      expect(ok.status()).toBe(200);
      // Its lifetime stretched: the signature no longer matches.
      const stretched = new URL(copied);
      stretched.searchParams.set('e', String(e + 365 * 24 * 3600));
      expect((await other.request.get(stretched.toString())).status()).toBe(404);
      // Without its signature: a protected gallery's file is not public.
      expect((await other.request.get(`${copied.origin}${copied.pathname}`)).status()).toBe(404);
      // The same address once its time is over (signed as the service signs, an hour ago): refused.
      const urls = new FileUrls(w.svc.service.uploadSecret, w.svc.url);
      const key = copied.pathname.slice('/files/'.length);
      const expired = urls.signed(key, new Date(Date.now() - 3600_000), copied.searchParams.get('v')!, copied.searchParams.get('g')!);
      const late = await other.request.get(expired);
      expect(late.status()).toBe(403);
      expect(await late.text()).toContain('expired');
    } finally {
      await other.close();
    }
  });
}));

// A lightbox's share links in a real browser (chromium through playwright-core), at desktop
// (1440x900) and phone (390x844) sizes: the link made from the lightbox in the studio (reached
// from the collections screen; its address shown once), the recipient's page (the token gone from
// the address bar, the lightbox's photos in the website's frame, the viewer opening with the
// original's download at `originals`, no referrer carrying the token), the link revoked in the
// studio and the page refused at once. Every screen passes axe-core with no serious or critical
// violation. Screenshots land in /tmp/shots-lightbox-share-links/ (outside the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '../api/galleries-fixtures.js';
import { axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';

const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-lightbox-share-links';
const VIEWPORTS = [
  ['desktop', { width: 1440, height: 900 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

describe.skipIf(!chromiumPresent).each(BACKENDS)('lightbox share links in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let browser: Browser;
  let lightbox = '';
  let medias: string[] = [];

  beforeAll(async () => {
    on = await startOn(backend);
    // The photos live in a gallery closed to everyone: the lightbox's link alone shows them.
    const gallery = await create(on.w, 'Library', on.w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }] });
    medias = [await uploadPhoto(on.w, gallery, 1), await uploadPhoto(on.w, gallery, 2), await uploadPhoto(on.w, gallery, 3)];
    expect(await waitForRenditions(on.w, medias)).toBe(true);
    lightbox = (await on.w.svc.core.lightboxes.create({ id: on.w.user.id }, 'Album picks', medias)).uuid;
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  for (const [name, viewport, scale] of VIEWPORTS) {
    it(`makes a link from the lightbox, the recipient sees its photos in the viewer, the link is revoked, at ${name} size; axe`, async () => {
      const w = on.w;
      const context = { viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' };
      const studio = await browser.newContext(context);
      const page = await studio.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      await page.goto(`${w.svc.url}/studio/signin`);
      await page.getByLabel('E-mail address').fill(w.user.email);
      await page.getByLabel('Password').fill(w.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/studio/websites');
      // Where the lightbox is shown: the collections screen, then its medias in the grid.
      await page.goto(`${w.svc.url}/studio/collections`);
      await page.getByRole('link', { name: 'Share links of Album picks' }).click();
      await page.waitForURL(`**/studio/lightboxes/${lightbox}/share-links`);
      expect(await page.locator('.crumbs a').getAttribute('href')).toBe(`/studio/media?lightbox=${lightbox}`);
      await page.goto(`${w.svc.url}/studio/media?lightbox=${lightbox}`);
      await page.getByRole('link', { name: 'Share links' }).click();
      await page.waitForURL(`**/studio/lightboxes/${lightbox}/share-links`);
      expect(await axe(page), `empty at ${name}`).toEqual([]);

      await page.getByLabel('Recipient').fill(`Ann Smith (${name})`);
      await page.getByLabel('Visits allowed').fill('0');
      await page.getByRole('button', { name: 'Make the link' }).click();
      await expect.poll(() => page.locator('#max_views-error').textContent()).toMatch(/visits allowed|max_views|view limit/i);
      expect(await axe(page), `refusal at ${name}`).toEqual([]);
      await page.getByLabel('Visits allowed').fill('5');
      await page.getByLabel('Downloads', { exact: true }).selectOption('originals');
      await page.getByRole('button', { name: 'Make the link' }).click();
      const url = await page.locator('#new-link').inputValue();
      expect(url).toMatch(/\/_share\/[A-Za-z0-9_-]{43}$/);
      await page.screenshot({ path: join(SHOTS, `studio-created-${name}.png`), fullPage: true });
      expect(await axe(page), `created at ${name}`).toEqual([]);
      const list = `${w.svc.url}/studio/lightboxes/${lightbox}/share-links`;
      await page.goto(list);
      const row = page.locator('tr', { hasText: `Ann Smith (${name})` });
      await expect.poll(() => row.textContent()).toContain('0 / 5');
      // A lightbox's screens belong to Collections, where lightboxes are listed (the phone's header names it).
      if (name === 'phone') expect(await page.locator('#studio-here').textContent()).toBe('Collections');

      // The recipient, in a browser of their own.
      const recipient = await browser.newContext(context);
      const visit = await recipient.newPage();
      visit.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`recipient: ${m.text()}`);
      });
      const referrers: string[] = [];
      visit.on('request', (r) => {
        const ref = r.headers()['referer'];
        if (ref) referrers.push(ref);
      });
      await visit.goto(url);
      expect(visit.url()).not.toContain('_share');
      expect(visit.url()).toMatch(new RegExp(`/_lightbox/${lightbox}$`));
      await expect.poll(() => visit.locator('main ul.media img').count()).toBe(3);
      expect(await visit.locator('h1').textContent()).toBe('Album picks');
      await visit.waitForLoadState('networkidle');
      // Every photo loaded (signed for the link, served by /files).
      await expect.poll(() => visit.locator('main ul.media img').evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
      await visit.screenshot({ path: join(SHOTS, `recipient-lightbox-${name}.png`), fullPage: true });
      expect(await axe(visit), `the recipient's lightbox at ${name}`).toEqual([]);
      // The viewer opens over the page, with the original's download.
      await visit.locator(`ul.media a[data-uuid="${medias[1]}"]`).click();
      await visit.locator('.pswp.pswp--ready').waitFor();
      expect(await visit.locator('.pswp').getAttribute('aria-label')).toBe('Photo viewer');
      expect(await visit.locator(`ul.media a[data-uuid="${medias[1]}"]`).getAttribute('data-download')).toMatch(/^\/files\/.*d=1/);
      await visit.screenshot({ path: join(SHOTS, `recipient-viewer-${name}.png`) });
      await visit.keyboard.press('Escape');
      await expect.poll(() => visit.locator('.pswp').count()).toBe(0);
      expect(referrers.filter((r) => r.includes('_share'))).toEqual([]);
      await visit.reload();
      await page.goto(list);
      await expect.poll(() => row.textContent()).toContain('1 / 5');

      await row.getByRole('button', { name: /Revoke/ }).click();
      await page.waitForURL('**?done=revoked');
      await expect.poll(() => row.textContent()).toContain('revoked');
      await page.screenshot({ path: join(SHOTS, `studio-revoked-${name}.png`), fullPage: true });
      expect(await axe(page), `revoked at ${name}`).toEqual([]);
      const after = await visit.reload();
      expect(after?.status()).toBe(404);
      const again = await visit.goto(url);
      expect(again?.status()).toBe(410);
      expect(await axe(visit), `the revoked link at ${name}`).toEqual([]);
      expect(problems).toEqual([]);
      await recipient.close();
      await studio.close();
    }, 180_000);
  }
});

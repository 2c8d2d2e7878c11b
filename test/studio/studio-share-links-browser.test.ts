// A gallery's share links in a real browser (chromium through playwright-core), at desktop and phone
// sizes: a link made in the studio (its address shown once, copied by its button), the recipient's
// visit (the token gone from the address bar, the photos shown, no referrer sent), the link revoked
// in the studio and the visit refused at once. Every screen passes axe-core with no serious or
// critical violation. Screenshots land in /tmp/shots-share-links/ (outside the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '../api/galleries-fixtures.js';
import { axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-share-links';
const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

describe.skipIf(!chromiumPresent).each(BACKENDS)('share links in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let browser: Browser;
  let gallery = '';

  beforeAll(async () => {
    on = await startOn(backend);
    // Closed to everyone but its access list: only a share link opens it to the recipient.
    gallery = await create(on.w, 'Smith wedding', on.w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }] });
    const medias = [await uploadPhoto(on.w, gallery, 1), await uploadPhoto(on.w, gallery, 2), await uploadPhoto(on.w, gallery, 3)];
    expect(await waitForRenditions(on.w, medias)).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  for (const [name, viewport, scale] of VIEWPORTS) {
    it(`makes a link, the recipient visits it, the link is revoked, at ${name} size; the screens pass axe`, async () => {
      const w = on.w;
      const studio = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      await studio.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.svc.url });
      const page = await studio.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      await signInBrowser(page, w.svc.url, w.user);
      await page.goto(`${w.svc.url}/studio/galleries/${gallery}`);
      await page.getByRole('link', { name: 'Share links' }).click();
      await page.waitForURL(`**/studio/galleries/${gallery}/share-links`);
      expect(await axe(page), `empty at ${name}`).toEqual([]);

      // A refusal at its field: a view limit of 0.
      await page.getByLabel('Recipient').fill(`Ann Smith (${name})`);
      await page.getByLabel('Visits allowed').fill('0');
      await page.getByRole('button', { name: 'Make the link' }).click();
      await expect.poll(() => page.locator('#max_views-error').textContent()).toMatch(/visits allowed|max_views|view limit/i);
      expect(await axe(page), `refusal at ${name}`).toEqual([]);
      await page.getByLabel('Visits allowed').fill('5');
      await page.getByLabel('Downloads', { exact: true }).selectOption('comps');
      await page.getByRole('button', { name: 'Make the link' }).click();
      const url = await page.locator('#new-link').inputValue();
      expect(url).toMatch(/\/_share\/[A-Za-z0-9_-]{43}$/);
      await page.getByRole('button', { name: 'Copy the link' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);
      await page.screenshot({ path: join(SHOTS, `studio-created-${name}.png`), fullPage: true });
      expect(await axe(page), `created at ${name}`).toEqual([]);
      // The list read again (not a reload: that would post the form again).
      const list = `${w.svc.url}/studio/galleries/${gallery}/share-links`;
      await page.goto(list);
      // Listed without its address: recipient, 0 of 5 visits, the download level.
      const row = page.locator('tr', { hasText: `Ann Smith (${name})` });
      await expect.poll(() => row.textContent()).toContain('0 / 5');
      expect(await page.locator('#new-link').count()).toBe(0);

      // The recipient, in a browser of their own.
      const recipient = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const visit = await recipient.newPage();
      const referrers: string[] = [];
      visit.on('request', (r) => {
        const ref = r.headers()['referer'];
        if (ref) referrers.push(ref);
      });
      await visit.goto(url);
      expect(visit.url()).not.toContain('_share');
      expect(visit.url()).toMatch(/\/-\/smith-wedding$/);
      await expect.poll(() => visit.locator('main img').count()).toBeGreaterThanOrEqual(3);
      await visit.waitForLoadState('networkidle');
      await visit.screenshot({ path: join(SHOTS, `recipient-gallery-${name}.png`), fullPage: true });
      expect(await axe(visit), `the recipient's gallery at ${name}`).toEqual([]);
      expect(referrers.filter((r) => r.includes('_share'))).toEqual([]);
      // Reloading is the same visit: one view counted.
      await visit.reload();
      await page.goto(list);
      await expect.poll(() => row.textContent()).toContain('1 / 5');
      await page.screenshot({ path: join(SHOTS, `studio-list-${name}.png`), fullPage: true });

      await row.getByRole('button', { name: /Revoke/ }).click();
      await page.waitForURL('**?done=revoked');
      await expect.poll(() => row.textContent()).toContain('revoked');
      expect(await axe(page), `revoked at ${name}`).toEqual([]);
      const after = await visit.reload();
      expect(after?.status()).not.toBe(200);
      const again = await visit.goto(url);
      expect(again?.status()).toBe(410);
      await visit.screenshot({ path: join(SHOTS, `recipient-revoked-${name}.png`), fullPage: true });
      expect(await axe(visit), `the revoked link at ${name}`).toEqual([]);
      expect(problems).toEqual([]);
      await recipient.close();
      await studio.close();
    }, 180_000);
  }
});

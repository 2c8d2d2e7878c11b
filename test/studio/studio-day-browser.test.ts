// Issue 30's studio screens in Chromium at desktop (1280×800) and phone (390×844) sizes, axe
// clean: the navigation shows every section on a phone without sideways scrolling (defect 7),
// a client's selection in the grid with the client's notes (defect 3), the logo picker's latest
// images (defect 4), an invitation's link when no mail server is set (defect 5). Screenshots in
// /tmp/shots-studio-day/ (not in the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studioNav } from './studio-support.js';
import { NAV } from '../../src/studio/pages/layout.js';
import { insertLightbox, mediaId } from '../support/media.js';
import type { World } from '../support/world.js';
import { startWorld } from '../support/world.js';
import { chromiumPresent, launchChromium, axe } from '../site/site-support.js';
import { seedLibrary } from './studio-budget-support.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-studio-day';
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];


describe.skipIf(!chromiumPresent)('issue 30’s studio screens in a browser', () => {
  let w: World;
  let browser: Browser;
  let lightbox: string;
  let medias: string[];

  beforeAll(async () => {
    w = await startWorld('sqlite');
    // An operator: the navigation's nine sections.
    await w.svc.db.updateTable('users').set({ is_admin: 1 }).where('id', '=', w.user.id).execute();
    medias = await seedLibrary(w, 40);
    lightbox = await insertLightbox(w.svc.db, w.user, medias.slice(10, 16));
    const lb = await w.svc.db.selectFrom('lightboxes').select('id').where('uuid', '=', lightbox).executeTakeFirstOrThrow();
    const root = await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', w.rootUuid).executeTakeFirstOrThrow();
    await w.svc.db.updateTable('lightboxes').set({ gallery_id: root.id, client_key: 'ann@example.com', client_email: 'ann@example.com', client_name: 'Ann Client', name: 'Ann Client — Wedding', state: 'sent', sent_at: '2026-11-20T10:00:00.000Z' }).where('id', '=', lb.id).execute();
    for (const [i, note] of [
      [11, 'Crop a little tighter, please'],
      [13, 'For the album cover: could it be warmer and a touch brighter on the left?'],
    ] as const) {
      await w.svc.db.updateTable('lightbox_medias').set({ note }).where('lightbox_id', '=', lb.id).where('media_id', '=', await mediaId(w.svc.db, medias[i])).execute();
    }
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  async function signedIn(size: (typeof SIZES)[number]) {
    const context = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    await signInBrowser(page, w.svc.url, w.user);
    return { context, page, problems };
  }

  for (const size of SIZES) {
    it(`shows every section of the navigation whole and in view at ${size.name} size, with no request for a missing icon`, async () => {
      const { context, page, problems } = await signedIn(size);
      // The header is one bar; on a phone the sections open under its Menu button.
      const bar = (await page.locator('header.bar').boundingBox())!;
      if (size.viewport.width < 640) expect(bar.height).toBeLessThan(size.viewport.height / 12);
      const nav = await studioNav(page);
      for (const n of NAV) {
        const link = nav.getByRole('link', { name: n.label, exact: true });
        const box = await link.boundingBox();
        expect(box, n.label).not.toBeNull();
        // Inside the window, and not clipped by a scrolling row.
        expect(box!.x, n.label).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, n.label).toBeLessThanOrEqual(size.viewport.width);
        const clipped = await link.evaluate((a) => {
          const r = a.getBoundingClientRect();
          for (let el = a.parentElement; el; el = el.parentElement) {
            const style = getComputedStyle(el);
            if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
            const c = el.getBoundingClientRect();
            if (r.left < c.left || r.right > c.right || r.top < c.top || r.bottom > c.bottom) return true;
          }
          return false;
        });
        expect(clipped, `${n.label} is clipped`).toBe(false);
      }
      // The header leaves most of a phone's screen to the page: on a phone, Escape folds the open
      // menu back into its one bar and gives the focus back to the Menu button.
      if (size.viewport.width < 640) {
        await page.keyboard.press('Escape');
        const menu = page.getByRole('button', { name: 'Menu', exact: true });
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        expect(await menu.evaluate((b) => b === document.activeElement)).toBe(true);
      }
      const header = await page.locator('header.bar').boundingBox();
      expect(header!.height).toBeLessThan(size.viewport.height / 4);
      await page.screenshot({ path: join(SHOTS, `nav-${size.name}.png`) });
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it(`shows a client's selection with their notes at ${size.name} size`, async () => {
      const { context, page, problems } = await signedIn(size);
      await page.goto(`${w.svc.url}/studio/media?lightbox=${lightbox}`);
      await page.getByRole('heading', { name: 'Selection: Ann Client — Wedding' }).waitFor();
      await page.locator('#grid .note', { hasText: 'Crop a little tighter, please' }).waitFor();
      expect(await page.locator('#grid [role=option]').count()).toBe(6);
      await expect.poll(() => page.locator('#grid img[src]').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length)).toBe(6);
      await page.screenshot({ path: join(SHOTS, `selection-${size.name}.png`), fullPage: true });
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it(`offers the latest images first in the logo picker at ${size.name} size`, async () => {
      const { context, page, problems } = await signedIn(size);
      await page.goto(`${w.svc.url}/studio/websites/${w.urlname}`);
      const picker = page.locator('#logo-picker');
      await expect.poll(() => picker.locator('label').nth(1).textContent()).toContain('IMG_00040.jpg');
      await page.getByRole('link', { name: 'Older images' }).click();
      await expect.poll(() => picker.locator('label').last().textContent()).toContain('IMG_00001.jpg');
      await picker.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `pickers-${size.name}.png`) });
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it(`shows an invitation's link to copy when no mail server is set, at ${size.name} size`, async () => {
      const { context, page, problems } = await signedIn(size);
      await page.goto(`${w.svc.url}/studio/galleries/${w.rootUuid}`);
      await page.getByLabel('Their e-mail address').fill(`client-${size.name}@example.com`);
      await page.getByRole('button', { name: 'Send the invitation' }).click();
      await page.getByText('No mail server is set up', { exact: true }).waitFor();
      expect(await page.locator('#invite-link').textContent()).toMatch(/\/_signin\/[A-Za-z0-9_-]{43}$/);
      await page.locator('#invite').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `invite-nomail-${size.name}.png`) });
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});

// The studio keeps up with its owner (issue 30, defects 1 and 2) in Chromium, with the service's
// default limits (RATE_LIMIT 60/60s, STUDIO_RATE_LIMIT unset): a library of 10 000 photos
// (seeded in bulk with tiny renditions: test/studio/studio-budget-support.ts) scrolled end to
// end in the grid, stopping at every screen until its thumbnails are drawn, and 300 small photos
// uploaded through the upload screen: no 429, no broken thumbnail, every upload done. At phone
// size the grid's first screens and its end. axe on both screens; screenshots in
// /tmp/shots-budget/ (not in the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../support/world.js';
import { chromiumPresent, launchChromium, axe } from '../site/site-support.js';
import { seedLibrary } from './studio-budget-support.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-budget';
const LIBRARY = 10_000;
const UPLOADS = 300;


/** The grid's thumbnails in view: how many, and how many are drawn (loaded, with pixels). */
function inView(page: Page) {
  return page.locator('#grid').evaluate((box) => {
    const top = box.getBoundingClientRect().top;
    const bottom = top + box.clientHeight;
    const imgs = [...box.querySelectorAll('img')].filter((i) => {
      const r = i.getBoundingClientRect();
      return i.dataset.src && r.bottom > top && r.top < bottom;
    }) as HTMLImageElement[];
    return {
      shown: imgs.length,
      drawn: imgs.filter((i) => i.getAttribute('src') && i.complete && i.naturalWidth > 0).length,
      atEnd: box.scrollTop + box.clientHeight >= box.scrollHeight - 2,
    };
  });
}

describe.skipIf(!chromiumPresent)('the studio keeps up with its owner, default limits', () => {
  let w: World;
  let browser: Browser;
  /** Every answer of the service the pages saw that was not a success, and every broken image. */
  const refusals: string[] = [];

  beforeAll(async () => {
    w = await startWorld('sqlite', { RATE_LIMIT: '60/60s' });
    await seedLibrary(w, LIBRARY);
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  async function signedIn(viewport: { width: number; height: number }, phone = false) {
    const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone, deviceScaleFactor: phone ? 2 : 1 });
    const page = await context.newPage();
    page.on('response', (r) => {
      if (r.status() >= 400) refusals.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => refusals.push(String(e)));
    await signInBrowser(page, w.svc.url, w.user);
    return { context, page };
  }

  it(`scrolls a library of ${LIBRARY} photos end to end, every screen's thumbnails drawn, no 429`, async () => {
    const { context, page } = await signedIn({ width: 1280, height: 800 });
    let thumbnails = 0;
    page.on('requestfinished', (r) => {
      if (r.url().includes('/studio/thumbs/')) thumbnails++;
    });
    await page.goto(`${w.svc.url}/studio/media`);
    await page.locator('#grid img').first().waitFor({ state: 'attached' });
    expect(await axe(page)).toEqual([]);
    await expect.poll(async () => {
      const v = await inView(page);
      return v.shown > 0 && v.drawn === v.shown;
    }, { timeout: 20_000, interval: 50 }).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'grid-desktop.png') });
    // A tall window for the scroll itself: the same grid, fewer stops (each screen's thumbnails are waited for).
    await page.setViewportSize({ width: 1280, height: 2400 });
    const started = Date.now();
    let stops = 0;
    for (;;) {
      // Every thumbnail of the screen drawn before going on.
      await expect.poll(async () => {
        const v = await inView(page);
        return v.shown > 0 && v.drawn === v.shown;
      }, { timeout: 20_000, interval: 50 }).toBe(true);
      stops++;
      if ((await inView(page)).atEnd) break;
      await page.locator('#grid').evaluate((el) => el.scrollBy(0, el.clientHeight));
    }
    await page.locator('#grid').getByText(`IMG_${LIBRARY}.jpg`, { exact: true }).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(SHOTS, 'grid-end-desktop.png') });
    // Every row passed under the window; most thumbnails were asked for once.
    expect(thumbnails).toBeGreaterThan(LIBRARY * 0.9);
    console.info(`[studio budget] ${LIBRARY} photos scrolled in ${((Date.now() - started) / 1000).toFixed(1)} s: ${stops} screens, ${thumbnails} thumbnails`);
    expect(refusals).toEqual([]);
    await context.close();
  }, 600_000);

  it('shows the grid at phone size, its first screens and its end drawn, no 429', async () => {
    const { context, page } = await signedIn({ width: 390, height: 844 }, true);
    await page.goto(`${w.svc.url}/studio/media`);
    await page.locator('#grid img').first().waitFor({ state: 'attached' });
    for (let stop = 0; stop < 10; stop++) {
      await expect.poll(async () => {
        const v = await inView(page);
        return v.shown > 0 && v.drawn === v.shown;
      }, { timeout: 20_000, interval: 50 }).toBe(true);
      await page.locator('#grid').evaluate((el) => el.scrollBy(0, el.clientHeight));
    }
    await page.locator('#grid').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(async () => {
      const v = await inView(page);
      return v.atEnd && v.shown > 0 && v.drawn === v.shown;
    }, { timeout: 20_000 }).toBe(true);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'grid-end-phone.png') });
    expect(refusals).toEqual([]);
    await context.close();
  }, 120_000);

  it(`uploads ${UPLOADS} small photos through the studio, every one done, no 429`, async () => {
    const { context, page } = await signedIn({ width: 1280, height: 800 });
    await page.goto(`${w.svc.url}/studio/upload`);
    const files = await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => ({
        name: `wedding-${String(i + 1).padStart(3, '0')}.jpg`,
        mimeType: 'image/jpeg',
        // A size of its own each (the same bytes twice would be skipped as already in the library).
        buffer: await sharp({ create: { width: 64 + (i % 20), height: 48 + Math.floor(i / 20), channels: 3, background: { r: (i * 37) % 256, g: 120, b: 90 } } }).jpeg().toBuffer(),
      })),
    );
    expect(new Set(files.map((f) => f.buffer.toString('base64'))).size).toBe(UPLOADS);
    const started = Date.now();
    await page.locator('#up-files').setInputFiles(files);
    // While the first three are sent, the others say why they wait.
    await expect.poll(() => page.locator('#up-queue li[data-state="queued"] .up-status').first().textContent(), { timeout: 60_000 }).toBe('Waiting: 3 uploads at once');
    await page.screenshot({ path: join(SHOTS, 'upload-waiting-desktop.png') });
    expect(await axe(page)).toEqual([]);
    await expect.poll(() => page.locator('#up-queue li[data-state="done"]').count(), { timeout: 560_000, interval: 1000 }).toBe(UPLOADS);
    expect(await page.locator('#up-summary').textContent()).toContain(`${UPLOADS} of ${UPLOADS} finished`);
    // A figure for the report, not an assertion (the machine's load decides it).
    console.info(`[studio budget] ${UPLOADS} uploads through the studio in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const listed = await w.svc.db.selectFrom('medias').select((eb) => eb.fn.countAll<number>().as('n')).where('file_name', 'like', 'wedding-%').executeTakeFirstOrThrow();
    expect(Number(listed.n)).toBe(UPLOADS);
    expect(refusals).toEqual([]);
    await context.close();
  }, 600_000);
});

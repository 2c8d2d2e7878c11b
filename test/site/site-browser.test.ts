// The website in a real browser (Debian's chromium driven by playwright-core),
// at a desktop (1280×800) and a touch phone (390×844 at 3x, hasTouch, isMobile):
// the first view of a 60-photo gallery of realistic photos (bytes, images
// drawn above their rendition's pixels, fetched beyond twice their drawn size,
// cropped area, layout shift, LCP), the viewer (keyboard, an address per
// photo, back button, shared address, swipe, pinch zoom into a larger
// rendition, slideshow), the pages without JavaScript, and an axe-core check
// and screenshots of every page type at both sizes (test-artifacts/site/).
// In CI (CI=1) a missing /usr/bin/chromium fails the suite (.ci/run installs it).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '../api/galleries-fixtures.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, CHROMIUM, chromiumPresent, firstView, launchChromium, quality, uploadRealistic, waitForRenditions } from './site-support.js';

const present = chromiumPresent;
const LIMIT_BYTES = 1.5 * 1000 * 1000;
const PHOTOS = 60;
/** Distinct photos made (and cached) for the 60: generating is the slow part, uploading is not. */
const DISTINCT = 12;
const AXE = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');

const PROFILES = {
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 },
} as const;
type ProfileName = keyof typeof PROFILES;

if (!present && process.env.CI) {
  describe('browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

describe.skipIf(!present)('the website in a browser', () => {
  let w: World;
  let browser: Browser;
  let home: string;
  let sixty: string;
  let uuids: string[] = [];
  let renditions = false;

  beforeAll(async () => {
    // The WebP first view (AVIF has its own suite, site-avif-browser.test.ts): 63 ladders without their AVIF encodes.
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', VISITOR_FILES_RATE_LIMIT: 'off', RENDITION_AVIF: 'off' });
    home = `${w.svc.url}/sites/${w.urlname}`;
    const g = await create(w, 'Sixty', w.rootUuid, { content_order: 'manual-last', description: 'Sixty photos, as they came out of the camera.' });
    await create(w, 'Sub-gallery', g);
    // Every fifth photo a portrait; 3000-px photos with grain (their 1280 size weighs about as
    // much as a 24 MP photo's: bench/site-weight.ts measures those).
    for (let i = 0; i < PHOTOS; i++) uuids.push(await uploadRealistic(w, g, i % DISTINCT, { width: 3000, portrait: i % 5 === 3 }));
    const cover = uuids[0];
    await create(w, 'Private', w.rootUuid, { password: 'let me in', public_cover_media: cover });
    await create(w, 'Clients', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0 }], public_cover_media: cover });
    const slides = await create(w, 'Slides', w.rootUuid, { content_order: 'manual-last', display_style: await slideshowStyle(w) });
    const shown: string[] = [];
    for (let i = 0; i < 3; i++) shown.push(await uploadRealistic(w, slides, i, { width: 1600 }));
    // Sixty 6 MP ladders on a shared machine: minutes, not seconds.
    renditions = await waitForRenditions(w, [...uuids, ...shown], 480_000);
    sixty = `${home}/-/sixty`;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  const context = (name: ProfileName, opts: { javaScriptEnabled?: boolean; bypassCSP?: boolean } = {}): Promise<BrowserContext> => browser.newContext({ ...PROFILES[name], ...opts });

  for (const name of ['phone', 'desktop'] as const) {
    it(`the first view of a 60-photo gallery at ${name} size: within 1.5 MB, no image drawn above its pixels, nothing cropped, no layout shift`, async () => {
      const ctx = await context(name);
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      const view = await firstView(page, sixty);
      const q = await quality(page);
      await page.screenshot({ path: join(ARTIFACTS, `gallery-${name}.png`) });
      await page.screenshot({ path: join(ARTIFACTS, `gallery-${name}-full.png`), fullPage: true });
      expect(await page.locator('ul.media > li').count()).toBe(60);
      expect(view.bytes).toBeLessThan(LIMIT_BYTES);
      expect(errors).toEqual([]);
      expect(q.cls).toBe(0);
      if (renditions) {
        expect(q.shown).toBeGreaterThanOrEqual(2);
        expect(q.drawnAbove).toBe(0);
        expect(q.croppedShare).toBe(0);
        expect(q.maxFetchRatio).toBeLessThan(2.2);
        expect(q.lcp).toBeGreaterThan(0);
      }
      // Justified rows: the photos of a row share one height and fill the width (but the last row's).
      const rows = await page.locator('ul.media > li').evaluateAll((lis) => {
        const byTop = new Map<number, DOMRect[]>();
        for (const li of lis) {
          const r = li.getBoundingClientRect();
          const key = Math.round(r.top);
          byTop.set(key, [...(byTop.get(key) ?? []), r]);
        }
        const width = lis[0].parentElement!.getBoundingClientRect().width;
        return [...byTop.values()].slice(0, -1).map((row) => ({
          spread: Math.max(...row.map((r) => r.height)) - Math.min(...row.map((r) => r.height)),
          gap: width - (row[row.length - 1].right - row[0].left),
        }));
      });
      expect(rows.length).toBeGreaterThan(5);
      for (const r of rows) {
        expect(r.spread).toBeLessThan(2);
        expect(Math.abs(r.gap)).toBeLessThan(2);
      }
      if (name === 'phone') {
        // A landscape photo is alone on its row, the full width of the page.
        const [first, main] = await Promise.all([page.locator('ul.media > li').first().boundingBox(), page.locator('ul.media').boundingBox()]);
        expect(Math.abs(first!.width - main!.width)).toBeLessThan(1);
      }
      // Scrolling to the end loads the rest (the loader), still without layout shift or images drawn above their pixels.
      for (let y = 0; y < 40 && !(await page.evaluate(() => window.scrollY + window.innerHeight >= document.body.scrollHeight - 2)); y++) {
        await page.mouse.wheel(0, 700);
        await page.waitForTimeout(50);
      }
      if (renditions) {
        await expect.poll(() => page.locator('ul.media svg.lazy').count()).toBe(0);
        await page.waitForLoadState('networkidle');
        const after = await quality(page);
        expect(after.drawnAbove).toBe(0);
        expect(after.croppedShare).toBe(0);
        expect(after.cls).toBe(0);
      }
      console.log(
        `[site] first view at ${name}: ${view.bytes} bytes in ${view.requests} responses, ${view.images} images; shown ${q.shown}, drawn above ${q.drawnAbove}, max fetched/drawn ${q.maxFetchRatio.toFixed(2)}, cropped ${q.croppedShare}, CLS ${q.cls}, LCP ${Math.round(q.lcp)} ms`,
      );
      await ctx.close();
    });
  }

  it('the viewer on a desktop: an address per photo, keyboard, back button closes it, a shared address opens that photo', async () => {
    const ctx = await context('desktop');
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(sixty, { waitUntil: 'networkidle' });
    await page.locator('ul.media a').first().click();
    const viewer = page.locator('.pswp');
    await expect.poll(() => viewer.count()).toBe(1);
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#photo=${uuids[0]}`);
    expect(await page.locator('.pswp__caption').textContent()).toBe('Photo 1');
    if (renditions) await expect.poll(() => page.locator('.pswp__item img.pswp__img').first().evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-desktop.png') });
    // The keyboard works once the viewer has opened.
    await page.locator('.pswp.pswp--ready').waitFor();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#photo=${uuids[1]}`);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#photo=${uuids[2]}`);
    expect(await page.locator('.pswp__counter').textContent()).toContain('3 / 60');
    // The neighbours are loaded before they are shown.
    await expect.poll(() => page.locator('.pswp__item img.pswp__img:not(.pswp__img--placeholder)').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    // One history entry for the viewer, whatever was seen in it: back closes it.
    await page.goBack();
    await expect.poll(() => viewer.count(), { timeout: 10_000 }).toBe(0);
    expect(await page.evaluate(() => location.hash)).toBe('');
    expect(page.url()).toBe(sixty);
    // A shared address opens that photo.
    const shared = await ctx.newPage();
    await shared.goto(`${sixty}#photo=${uuids[7]}`);
    await expect.poll(() => shared.locator('.pswp__caption').textContent()).toBe('Photo 8');
    await shared.locator('.pswp.pswp--ready').waitFor();
    await shared.keyboard.press('Escape');
    await expect.poll(() => shared.locator('.pswp').count(), { timeout: 10_000 }).toBe(0);
    expect(await shared.evaluate(() => location.hash)).toBe('');
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('the viewer on a touch phone: swipe to the next photo, pinch zoom loads a larger rendition', async () => {
    const ctx = await context('phone');
    const page = await ctx.newPage();
    await page.goto(sixty, { waitUntil: 'networkidle' });
    await page.locator('ul.media a').first().tap();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#photo=${uuids[0]}`);
    if (renditions) await expect.poll(() => page.locator('.pswp__item img.pswp__img').first().evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-phone.png') });
    // PhotoSwipe is loaded on the first open: touch once it listens (under load a swipe came too early).
    await page.locator('.pswp.pswp--ready').waitFor();
    const cdp = await ctx.newCDPSession(page);
    const touch = async (type: 'touchStart' | 'touchMove' | 'touchEnd', points: Array<{ x: number; y: number }>) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((p, id) => ({ ...p, id })) });
    // Swipe from right to left.
    await touch('touchStart', [{ x: 330, y: 420 }]);
    for (let x = 300; x >= 60; x -= 40) await touch('touchMove', [{ x, y: 420 }]);
    await touch('touchEnd', []);
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#photo=${uuids[1]}`);
    if (!renditions) return ctx.close();
    await expect.poll(() => page.evaluate(() => (document.querySelector('.pswp__zoom-wrap img.pswp__img') as HTMLImageElement | null)?.complete)).toBe(true);
    const widthNow = () => viewerPixels(page);
    await expect.poll(widthNow).toBeGreaterThan(0);
    const before = await widthNow();
    // Pinch out: two fingers moving apart.
    await touch('touchStart', [
      { x: 180, y: 420 },
      { x: 210, y: 420 },
    ]);
    for (let d = 30; d <= 300; d += 30)
      await touch('touchMove', [
        { x: 195 - d / 2, y: 420 },
        { x: 195 + d / 2, y: 420 },
      ]);
    await touch('touchEnd', []);
    await expect.poll(widthNow, { timeout: 15_000 }).toBeGreaterThan(before);
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-phone-zoomed.png') });
    // Back closes the viewer on a phone too.
    await page.goBack();
    await expect.poll(() => page.locator('.pswp').count(), { timeout: 10_000 }).toBe(0);
    await ctx.close();
  });

  it('the slideshow layout: visible progress, and the viewer plays it', async () => {
    const ctx = await context('desktop');
    const page = await ctx.newPage();
    await page.goto(`${home}/-/slides`, { waitUntil: 'networkidle' });
    expect(await page.locator('ul.media.slideshow progress').first().getAttribute('value')).toBe('1');
    await page.screenshot({ path: join(ARTIFACTS, 'slideshow-desktop.png') });
    await page.locator('button[data-play]').click();
    await expect.poll(() => page.locator('.pswp__counter').textContent()).toContain('1 / 3');
    expect(await page.locator('.pswp__button--play').getAttribute('aria-label')).toBe('Pause the slideshow');
    // It moves on by itself (a photo every 4 s), and the arrow keys take over.
    await expect.poll(() => page.locator('.pswp__counter').textContent(), { timeout: 20_000 }).toContain('2 / 3');
    await page.locator('.pswp.pswp--ready').waitFor();
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('.pswp__button--play').getAttribute('aria-label')).toBe('Play the slideshow');
    await ctx.close();
  });

  it('without JavaScript every photo shows and its link opens the media page', async () => {
    const ctx = await context('desktop', { javaScriptEnabled: false });
    const page = await ctx.newPage();
    await page.goto(sixty, { waitUntil: 'networkidle' });
    // The placeholders of the loader are hidden; the <noscript> images show in their place.
    expect(await page.locator('ul.media svg.lazy:visible').count()).toBe(0);
    if (renditions) expect(await page.locator('ul.media img').count()).toBe(60);
    await Promise.all([page.waitForURL(`${sixty}/_/${uuids[0]}`), page.locator('ul.media a').first().click()]);
    expect(await page.locator('h1').textContent()).toBe('Photo 1');
    await ctx.close();
  });

  it('every page type passes axe-core (no serious or critical violation), with screenshots at both sizes', async () => {
    const pages: Record<string, string> = {
      home: `${home}/`,
      gallery: sixty,
      media: `${sixty}/_/${uuids[4]}`,
      password: `${home}/-/private`,
      signin: `${home}/-/clients`,
      'signin-form': `${home}/_signin?back=${encodeURIComponent(`/sites/${w.urlname}/-/clients`)}`,
      'not-found': `${home}/-/nothing-here`,
    };
    const failures: string[] = [];
    for (const name of ['phone', 'desktop'] as const) {
      // axe-core is added as an inline script, which the pages' CSP forbids: this context alone bypasses it.
      const ctx = await context(name, { bypassCSP: true });
      for (const [kind, url] of Object.entries(pages)) {
        const page = await ctx.newPage();
        await page.goto(url, { waitUntil: 'networkidle' });
        await page.screenshot({ path: join(ARTIFACTS, `${kind}-${name}.png`) });
        for (const v of await axe(page)) failures.push(`${kind} at ${name}: ${v.id} (${v.impact}) ${v.help} — ${v.targets.join(', ')}`);
        await page.close();
      }
      await ctx.close();
    }
    expect(failures).toEqual([]);
  });
});

/**
 * The pixels (its srcset w descriptor, not the density-corrected naturalWidth) of the image the
 * viewer shows in the middle of the screen, once loaded; 0 before. PhotoSwipe's placeholder
 * (the thumbnail, shown while the slide loads) does not count.
 */
async function viewerPixels(page: Page): Promise<number> {
  return page.evaluate(() => {
    const img = Array.from(document.querySelectorAll<HTMLImageElement>('.pswp__item img.pswp__img:not(.pswp__img--placeholder)')).find((i) => {
      const r = i.getBoundingClientRect();
      return r.left < window.innerWidth / 2 && r.right > window.innerWidth / 2;
    });
    if (!img || !img.complete || img.naturalWidth === 0) return 0;
    const candidate = img.srcset
      .split(',')
      .map((c) => c.trim().split(/\s+/))
      .find(([url]) => new URL(url, location.href).href === img.currentSrc);
    return candidate ? Number(candidate[1].replace('w', '')) : img.naturalWidth;
  });
}

async function slideshowStyle(w: World): Promise<string> {
  const { all, text } = await import('../../src/client/xml.js');
  const styles = all((await w.client.request('GET', `/websites/${w.urlname}/gallery_display_styles.xml`, { view: 'details' })).doc, 'gallery-display-styles/gallery-display-style');
  return text(styles.find((s) => text(s, 'layout') === 'slideshow')!, 'uuid')!;
}

/** axe-core's serious and critical violations on the page (its script is added from node_modules). */
async function axe(page: Page): Promise<Array<{ id: string; impact: string; help: string; targets: string[] }>> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

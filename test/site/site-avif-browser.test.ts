// AVIF on the website (issue 31): a gallery's <picture> offers the AVIF made for the small rungs
// to browsers that decode it, and the WebP/JPEG ladder to every other client; each address keeps
// one type (magic bytes), no Accept negotiation. In chromium (which asks for image/avif), the
// first view of a 60-photo gallery at three phone sizes: the phone's rung (WebP) where it is
// enough, AVIF where the 1280 is drawn, nothing drawn above its pixels, axe clean; the bytes with
// and without AVIF are printed (the 0.6 MB budget: site-first-view-browser.test.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { create, galleryId } from '../api/galleries-fixtures.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, axe, CHROMIUM, chromiumPresent, firstView, launchChromium, publishBulk, quality, uploadRealistic, visit, waitForRenditions } from './site-support.js';

const LIMIT_BYTES = 0.6 * 1000 * 1000;
/** Photos uploaded (and laddered); the rest of the sixty are published after them without files (placeholders, never in a phone's first view). */
const UPLOADED = 10;
const PHONES = {
  'iphone-390x844@3': { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
  'android-412x915@2.6': { viewport: { width: 412, height: 915 }, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true },
  // Full width at 3x is 1242 device pixels here: beyond the phone's rung (1152), the 1280, which has an AVIF.
  'iphone-max-430x932@3': { viewport: { width: 430, height: 932 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
} as const;
/** The phone's rung (src/renditions/ladder.ts). */
const PHONE_RUNG = 1152;

const isAvif = (b: Buffer) => b.subarray(4, 12).toString('latin1') === 'ftypavif';
const isWebp = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP';
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8;
const urlsOf = (srcset: string) => srcset.split(',').map((c) => c.trim().split(/\s+/)[0]!).filter((u) => u !== '');
const decode = (s: string) => s.replace(/&amp;/g, '&');
/** A file's answer, as bytes. */
async function file(base: string, url: string, accept = '*/*'): Promise<{ status: number; type: string; vary: string; body: Buffer }> {
  const res = await fetch(new URL(url, base), { headers: { accept } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', vary: res.headers.get('vary') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

if (!chromiumPresent && process.env.CI) {
  describe('avif browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

describe.skipIf(!chromiumPresent)('AVIF where the browser asks for it', () => {
  let w: World;
  let browser: Browser;
  let path: string;
  let uuids: string[] = [];

  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', VISITOR_FILES_RATE_LIMIT: 'off', RENDITION_AVIF: 'on' });
    const g = await create(w, 'Sixty', w.rootUuid, { content_order: 'manual-last' });
    // 3000-px photos with grain (their 1280 weighs about as much as a 24 MP photo's), every fifth a portrait.
    for (let i = 0; i < UPLOADED; i++) uuids.push(await uploadRealistic(w, g, i, { width: 3000, portrait: i % 5 === 3 }));
    await publishBulk(w.svc.db, { galleryId: await galleryId(w.svc.db, g), ownerId: w.user.id, artistUuid: w.user.defaultArtistUuid, from: UPLOADED, to: 60, batch: 50 });
    expect(await waitForRenditions(w, uuids, 480_000)).toBe(true);
    // The AVIF alternates come after the ladder (the page shows WebP meanwhile): wait for them too.
    const deadline = Date.now() + 480_000;
    for (;;) {
      const rows = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select('m.uuid').where('m.uuid', 'in', uuids).where('r.mime_type', '=', 'image/avif').execute();
      if (rows.length >= uuids.length * 3) break;
      if (Date.now() > deadline) throw new Error(`AVIF alternates: ${rows.length} of ${uuids.length * 3}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    path = `/sites/${w.urlname}/-/sixty`;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 1_000_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  it('offers AVIF in a <picture> source for the sizes where it was made, never in the <img>; each address answers one type, whatever Accept says', async () => {
    const page = await visit(w.svc, path, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const pictures = [...page.body.matchAll(/<picture><source type="image\/avif" srcset="([^"]+)"[^>]*\/?><img[^>]*srcset="([^"]+)"/g)];
    expect(pictures.length).toBeGreaterThanOrEqual(3);
    for (const [, avifSet, imgSet] of pictures.slice(0, 3)) {
      const avif = urlsOf(decode(avifSet!));
      const img = urlsOf(decode(imgSet!));
      // The same ladder: AVIF for the 320, the phone's 1152 and the 1280 (where it was smaller at equal quality), WebP for the others.
      expect(avif).toHaveLength(img.length);
      expect(avif.filter((u) => u.endsWith('.avif'))).toHaveLength(3);
      expect(img.every((u) => u.endsWith('.webp'))).toBe(true);
      for (const [i, url] of avif.entries()) {
        // A browser that asks for AVIF, and one that does not: the address decides the type, not Accept.
        for (const accept of ['image/avif,image/webp,*/*', 'image/webp,*/*', '*/*']) {
          const res = await file(w.svc.url, url, accept);
          expect(res.status).toBe(200);
          expect(res.vary).not.toMatch(/accept/i);
          if (url.endsWith('.avif')) {
            expect(res.type).toBe('image/avif');
            expect(isAvif(res.body)).toBe(true);
          } else {
            expect(res.type).toBe('image/webp');
            expect(isWebp(res.body)).toBe(true);
          }
        }
        // The <img> (what a browser without AVIF takes) is WebP at every size.
        const plain = await file(w.svc.url, img[i]!, 'image/avif,image/webp,*/*');
        expect(plain.type).toBe('image/webp');
        expect(isWebp(plain.body)).toBe(true);
      }
    }
    // Nowhere an AVIF address in an <img> or its fallback src.
    for (const m of page.body.matchAll(/<img[^>]*>/g)) expect(m[0]).not.toMatch(/\.avif/);
  });

  it('keeps API replies as they were: the media record lists the WebP and JPEG ladder, not the AVIF alternates', async () => {
    const media = find((await w.client.request('GET', `/medias/${uuids[0]}.xml`)).doc, 'media')!;
    const types = all(media, 'renditions/rendition').map((r) => text(r, 'type'));
    expect(types.length).toBeGreaterThan(0);
    expect(types.every((t) => t === 'image/webp' || t === 'image/jpeg')).toBe(true);
    const jpeg = all(media, 'renditions/rendition').find((r) => text(r, 'type') === 'image/jpeg')!;
    const res = await file(w.svc.url, new URL(text(jpeg, 'url')!).pathname, 'image/avif,*/*');
    expect(res.type).toBe('image/jpeg');
    expect(isJpeg(res.body)).toBe(true);
  });

  /** The bytes of each image type a page fetches (bodies), from the network responses. */
  function imageBytes(page: Page): () => Promise<Record<string, number>> {
    const got: Array<Promise<[string, number]>> = [];
    page.on('requestfinished', (req) => {
      if (req.resourceType() !== 'image') return;
      got.push(Promise.all([req.response(), req.sizes()]).then(([res, sizes]) => [res?.headers()['content-type'] ?? '', sizes.responseBodySize]));
    });
    return async () => {
      const out: Record<string, number> = {};
      for (const [type, bytes] of await Promise.all(got)) out[type] = (out[type] ?? 0) + bytes;
      return out;
    };
  }

  /** The first view a browser without AVIF gets: the same page without its AVIF sources. */
  async function withoutAvif(profile: (typeof PHONES)[keyof typeof PHONES]): Promise<{ bytes: number; images: Record<string, number> }> {
    const ctx = await browser.newContext(profile);
    try {
      const page = await ctx.newPage();
      const url = `${w.svc.url}${path}`;
      await page.route(url, async (route) => {
        const res = await route.fetch();
        await route.fulfill({ response: res, body: (await res.text()).replace(/<source type="image\/avif"[^>]*>/g, '') });
      });
      const images = imageBytes(page);
      const bytes = (await firstView(page, url)).bytes;
      await page.screenshot({ path: join(ARTIFACTS, `avif-gallery-${profile.viewport.width}-webp.png`) });
      return { bytes, images: await images() };
    } finally {
      await ctx.close();
    }
  }

  for (const [name, profile] of Object.entries(PHONES)) {
    it(`the first view of a 60-photo gallery on a phone (${name}) is AVIF where made, sharp and uncropped, axe clean; its bytes against the same page without AVIF`, async () => {
      const ctx = await browser.newContext(profile);
      try {
        const page = await ctx.newPage();
        // The site's script (the loader, the viewer) must run: a syntax error in it once left every lazy photo a placeholder.
        const errors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        const types: string[] = [];
        const files: string[] = [];
        page.on('response', (r) => {
          if (r.request().resourceType() === 'image') types.push(r.headers()['content-type'] ?? '');
          if (r.request().resourceType() === 'image' && r.url().includes('/files/')) files.push(new URL(r.url()).pathname);
        });
        const images = imageBytes(page);
        const view = await firstView(page, `${w.svc.url}${path}`);
        const q = await quality(page);
        await page.screenshot({ path: join(ARTIFACTS, `avif-gallery-${name}.png`) });
        const avifImages = await images();
        const webp = await withoutAvif(profile);
        // The figures docs/renditions.md quotes (the 0.6 MB budget is asserted by site-first-view-browser.test.ts).
        console.log(`first view ${name}: ${view.bytes} bytes with AVIF (images ${JSON.stringify(avifImages)}), ${webp.bytes} without (images ${JSON.stringify(webp.images)}); target ${LIMIT_BYTES}`);
        // Equal quality, so about equal bytes on these grainy photos (docs/renditions.md): no assertion on the difference.
        expect(Object.keys(webp.images)).toEqual(['image/webp']);
        // Full width: the phone's rung when it is enough, else the 1280, both in AVIF; never JPEG.
        expect(types.filter((t) => t === 'image/avif').length).toBeGreaterThanOrEqual(2);
        expect(files.length).toBeGreaterThanOrEqual(2);
        expect(files.every((u) => u.endsWith(`-${(profile.viewport.width - 16) * profile.deviceScaleFactor <= PHONE_RUNG ? PHONE_RUNG : 1280}.avif`))).toBe(true);
        expect(types.filter((t) => t === 'image/jpeg')).toEqual([]);
        expect(q.shown).toBeGreaterThanOrEqual(2);
        expect(q.drawnAbove).toBe(0);
        expect(q.croppedShare).toBe(0);
        expect(q.cls).toBe(0);
        expect(await axe(page)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await ctx.close();
      }
    });
  }

  it('at a desktop size too: AVIF, none drawn above its pixels (screenshot)', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await firstView(page, `${w.svc.url}${path}`);
      const q = await quality(page);
      await page.screenshot({ path: join(ARTIFACTS, 'avif-gallery-desktop.png') });
      expect(errors).toEqual([]);
      // The second row comes through the loader (a <picture> out of its <noscript>): shown too.
      expect(q.shown).toBeGreaterThanOrEqual(6);
      expect(q.drawnAbove).toBe(0);
      expect(q.croppedShare).toBe(0);
      expect(await axe(page)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});

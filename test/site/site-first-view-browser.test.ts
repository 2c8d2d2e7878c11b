// The first view of a 60-photo gallery on a phone (issue 31): at most 0.6 MB (every response's
// headers and body until the load event and network idle, without scrolling), in chromium at
// 390×844@3 and 412×915@2.625, for two kinds of photos (the grainy corpus, hard to compress, and
// natural ones: a smooth sky, a ridge, soft colour, mild noise), with AVIF alternates made (a
// browser that asks for AVIF) and without them (one that does not).
// Only what the first screen shows loads; the first photo eager with fetchpriority=high; every
// photo drawn at no more than its rendition's pixels, uncropped. What loaded is printed.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compress } from '../../src/core/content-coding.js';
import { create, galleryId } from '../api/galleries-fixtures.js';
import { startWorld, type World } from '../support/world.js';
import { CHROMIUM, chromiumPresent, launchChromium, naturalPhoto, publishBulk, quality, uploadJpeg, uploadRealistic, waitForRenditions } from './site-support.js';

const BUDGET = 600 * 1000;
const UPLOADED = 10;
const PHONES = {
  '390x844@3': { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
  '412x915@2.625': { viewport: { width: 412, height: 915 }, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true },
} as const;

if (!chromiumPresent && process.env.CI) {
  describe('first view', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

interface Loaded { url: string; kind: string; type: string; bytes: number }

describe.skipIf(!chromiumPresent)('the first view of a 60-photo gallery on a phone', () => {
  let w: World;
  let browser: Browser;
  const paths: Record<string, string> = {};

  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', VISITOR_FILES_RATE_LIMIT: 'off', RENDITION_AVIF: 'on' });
    const uuids: string[] = [];
    for (const kind of ['grain', 'natural'] as const) {
      const g = await create(w, kind === 'grain' ? 'Grain' : 'Natural', w.rootUuid, { content_order: 'manual-last' });
      // 3000-px photos, every fifth a portrait; the other fifty are published without files (placeholders, never in the first view).
      for (let i = 0; i < UPLOADED; i++) {
        const o = { width: 3000, portrait: i % 5 === 3 };
        uuids.push(kind === 'grain' ? await uploadRealistic(w, g, i, o) : await uploadJpeg(w, g, await naturalPhoto(i, o), `IMG_${i + 1}.jpg`, `Photo ${i + 1}`));
      }
      await publishBulk(w.svc.db, { galleryId: await galleryId(w.svc.db, g), ownerId: w.user.id, artistUuid: w.user.defaultArtistUuid, from: UPLOADED, to: 60, batch: 50 });
      paths[kind] = `/sites/${w.urlname}/-/${kind}`;
    }
    expect(await waitForRenditions(w, uuids, 600_000)).toBe(true);
    // The AVIF alternates come after the ladder: wait for them too.
    const deadline = Date.now() + 600_000;
    for (;;) {
      const rows = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select('m.uuid').where('m.uuid', 'in', uuids).where('r.mime_type', '=', 'image/avif').groupBy('m.uuid').execute();
      if (rows.length >= uuids.length) break;
      if (Date.now() > deadline) throw new Error(`AVIF alternates: ${rows.length} of ${uuids.length}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    browser = await launchChromium();
  }, 1_300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  /** Every response until load and network idle (no scrolling), and what the page's photos are. */
  async function firstView(page: Page, url: string) {
    const loaded: Array<Promise<Loaded>> = [];
    page.on('requestfinished', (req) => {
      loaded.push(
        Promise.all([req.response(), req.sizes()]).then(([res, s]) => ({
          url: req.url().replace(w.svc.url, ''),
          kind: req.resourceType(),
          type: (res?.headers()['content-type'] ?? '').split(';')[0]!,
          bytes: s.responseBodySize + s.responseHeadersSize,
        })),
      );
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForLoadState('networkidle');
    const all = await Promise.all(loaded);
    const photos = await page.evaluate(() =>
      Array.from(document.querySelectorAll('ul.media > li')).map((li) => {
        const img = li.querySelector('img');
        const box = li.getBoundingClientRect();
        return {
          top: Math.round(box.top),
          width: Math.round(box.width),
          height: Math.round(box.height),
          visible: box.top < window.innerHeight && box.bottom > 0,
          loading: img?.getAttribute('loading') ?? 'placeholder',
          priority: img?.getAttribute('fetchpriority') ?? '',
          sizes: img?.getAttribute('sizes') ?? '',
          src: img?.currentSrc.replace(location.origin, '') ?? '',
        };
      }),
    );
    return { all, bytes: all.reduce((a, l) => a + l.bytes, 0), photos };
  }

  for (const kind of ['grain', 'natural'] as const) {
    for (const [name, profile] of Object.entries(PHONES)) {
      it(`${kind} photos, ${name}: at most ${BUDGET / 1000} kB with AVIF and without, only the first screen's photos, none drawn above its pixels, none cropped`, async () => {
        const figures: Record<string, number> = {};
        for (const avif of [true, false]) {
          const ctx = await browser.newContext(profile);
          try {
            const page = await ctx.newPage();
            const errors: string[] = [];
            page.on('pageerror', (e) => errors.push(e.message));
            const url = `${w.svc.url}${paths[kind]}`;
            // The page's bytes as the browser would get them from the service: a fulfilled body goes
            // out as given (chromium decodes none), so it is counted at the service's brotli size.
            let unsent = 0;
            if (!avif) {
              // A browser that does not ask for AVIF: the same page without its AVIF sources.
              await page.route(url, async (route) => {
                const res = await route.fetch();
                const body = Buffer.from((await res.text()).replace(/<source type="image\/avif"[^>]*>/g, ''));
                unsent = body.length - compress(body, 'br', 'cached').length;
                await route.fulfill({ response: res, body });
              });
            }
            const v = await firstView(page, url);
            v.bytes -= unsent;
            for (const l of v.all) if (l.kind === 'document') l.bytes -= unsent;
            const q = await quality(page);
            const label = `${kind} ${name} ${avif ? 'AVIF' : 'WebP'}`;
            figures[avif ? 'avif' : 'webp'] = v.bytes;
            console.log(
              `first view ${label}: ${v.bytes} bytes, ${v.all.length} responses\n` +
                v.all.map((l) => `  ${l.kind.padEnd(10)} ${l.type.padEnd(24)} ${String(l.bytes).padStart(8)}  ${l.url.slice(0, 110)}`).join('\n') +
                '\n  photos (top, box, loading, fetchpriority, shown file, sizes):\n' +
                v.photos
                  .slice(0, 8)
                  .map((p, i) => `  #${i + 1} ${p.top} ${p.width}x${p.height} ${p.visible ? 'on screen' : 'below'} ${p.loading} ${p.priority} ${p.src.split('/').pop()} [${p.sizes}]`)
                  .join('\n'),
            );
            expect(errors).toEqual([]);
            // The page comes compressed (about 40 kB as it is, about 5 in brotli).
            const documentBytes = v.all.find((l) => l.kind === 'document')!.bytes;
            if (avif) expect(documentBytes).toBeLessThan(12_000);
            // Only the photos of the first screen load; every one of them does.
            const images = v.all.filter((l) => l.kind === 'image' && /^\/files\//.test(l.url));
            const onScreen = v.photos.filter((p) => p.visible);
            expect(onScreen.length).toBeGreaterThanOrEqual(2);
            expect(images.length).toBe(onScreen.length);
            expect(v.photos[0]!.priority).toBe('high');
            expect(q.drawnAbove).toBe(0);
            expect(q.croppedShare).toBe(0);
            expect(q.cls).toBe(0);
            // Large: a landscape photo full width on a phone.
            expect(v.photos[0]!.width).toBeGreaterThanOrEqual(profile.viewport.width - 20);
            // The phone's rung, AVIF for a browser that asks for it, else WebP; never JPEG.
            expect(images.map((l) => l.type)).toEqual(images.map(() => (avif ? 'image/avif' : 'image/webp')));
            expect(images.every((l) => /-1152\.(avif|webp)$/.test(l.url))).toBe(true);
          } finally {
            await ctx.close();
          }
        }
        console.log(`first view ${kind} ${name}: ${figures.avif} bytes with AVIF, ${figures.webp} without; budget ${BUDGET}`);
        expect(figures.avif).toBeLessThanOrEqual(BUDGET);
        expect(figures.webp).toBeLessThanOrEqual(BUDGET);
      }, 120_000);
    }
  }
});

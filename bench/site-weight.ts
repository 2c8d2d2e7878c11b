// The first view of a 60-photo public gallery of realistic photos (24 MP
// JPEGs with grain, made with sharp and kept in a temp-dir cache, uploaded in
// three steps and published through the API, so their renditions are the
// service's own) in chromium, at 1280×800 and at a touch phone's 390×844@3x:
// bytes of every response of the first view (target: at most 1.5 MB at each),
// images drawn above their rendition's pixels (target 0), the largest ratio
// of a fetched image to its drawn size, the cropped share of the default
// layout (target 0), cumulative layout shift (target 0) and LCP; and the phone
// first view (390×844@3, 412×915@2.625) with AVIF (target 0.6 MB) and as a
// browser without AVIF gets it (the page's AVIF sources taken out).
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { text } from '../src/client/xml.js';
import { chromiumPresent, CHROMIUM, firstView, launchChromium, quality, uploadRealistic, waitForRenditions } from '../test/site/site-support.js';
import type { BenchContext, BenchLine } from './lib.js';

const PHOTOS = 60;
/** Distinct 24 MP photos (generating one takes seconds; they are cached between runs). */
const DISTINCT = Number(process.env.BENCH_WEIGHT_DISTINCT ?? 12);
const LIMIT_BYTES = 1.5 * 1000 * 1000;
const PHONE_LIMIT_BYTES = 0.6 * 1000 * 1000;

export async function benchSiteWeight(b: BenchContext): Promise<BenchLine[]> {
  if (!chromiumPresent) return [{ name: `first view of a ${PHOTOS}-photo gallery: ${CHROMIUM} missing`, value: 0, unit: 'kB', target: '<= 1500 kB', ok: false }];
  const urlname = 'bench';
  const website = await b.db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow();
  const root = await b.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const created = await b.client.createGallery(urlname, { name: 'Weight', parent: root.uuid, url_path: 'site-weight', content_order: 'manual-last' });
  const galleryUuid = text(created.doc, 'gallery/uuid')!;

  const uploaded: string[] = [];
  // Every fifth a portrait, as a shoot has them.
  for (let i = 0; i < PHOTOS; i++) uploaded.push(await uploadRealistic(b, galleryUuid, i % DISTINCT, { portrait: i % 5 === 3 }));
  if (!(await waitForRenditions({ svc: { db: b.db } }, uploaded, 900_000))) throw new Error('the service made no renditions');

  const url = `${b.url}/sites/${urlname}/-/site-weight`;
  const browser = await launchChromium();
  try {
    const measure = async (viewport: { width: number; height: number }, scale: number, withoutAvif = false) => {
      // A fresh context each time: an empty cache, as a first visit.
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: scale > 1, hasTouch: scale > 1 });
      try {
        const page = await context.newPage();
        if (withoutAvif) {
          // What a browser that does not ask for AVIF gets: the page without its AVIF sources.
          await page.route(url, async (route) => {
            const res = await route.fetch();
            await route.fulfill({ response: res, body: (await res.text()).replace(/<source type="image\/avif"[^>]*>/g, '') });
          });
        }
        const view = await firstView(page, url);
        // Each response, to stderr: what the bytes are made of.
        process.stderr.write(
          `first view ${viewport.width}x${viewport.height}@${scale}${withoutAvif ? ' without AVIF' : ''}: ${view.bytes} bytes\n` +
            view.responses.map((l) => `  ${l.kind.padEnd(10)} ${l.type.padEnd(24)} ${String(l.bytes).padStart(8)}  ${l.url.replace(b.url, '').slice(0, 100)}`).join('\n') +
            '\n',
        );
        return { ...view, ...(await quality(page)) };
      } finally {
        await context.close();
      }
    };
    const lines: BenchLine[] = [];
    for (const [name, viewport, scale] of [
      ['1280x800', { width: 1280, height: 800 }, 1],
      ['390x844@3x', { width: 390, height: 844 }, 3],
    ] as const) {
      const v = await measure(viewport, scale);
      lines.push(
        { name: `first view, ${PHOTOS} photos of 24 MP, ${name} (${v.images} images, ${v.requests} responses)`, value: v.bytes / 1000, unit: 'kB', target: '<= 1500 kB', ok: v.bytes <= LIMIT_BYTES },
        { name: `first view ${name}: images drawn above their rendition's pixels (of ${v.shown} shown)`, value: v.drawnAbove, unit: '', target: '0', ok: v.drawnAbove === 0 },
        { name: `first view ${name}: largest fetched / drawn width`, value: Number(v.maxFetchRatio.toFixed(2)), unit: 'x', target: '<= ~2', ok: v.maxFetchRatio <= 2.2 },
        { name: `first view ${name}: cropped share of the default layout`, value: v.croppedShare, unit: '', target: '0', ok: v.croppedShare === 0 },
        { name: `first view ${name}: cumulative layout shift`, value: v.cls, unit: '', target: '0', ok: v.cls === 0 },
        { name: `first view ${name}: largest contentful paint`, value: Math.round(v.lcp), unit: 'ms' },
      );
    }
    for (const [name, viewport, scale] of [
      ['390x844@3', { width: 390, height: 844 }, 3],
      ['412x915@2.625', { width: 412, height: 915 }, 2.625],
    ] as const) {
      const avif = await measure(viewport, scale);
      const webp = await measure(viewport, scale, true);
      lines.push(
        { name: `phone first view ${name}, AVIF where made (${avif.images} images)`, value: avif.bytes / 1000, unit: 'kB', target: '<= 600 kB', ok: avif.bytes <= PHONE_LIMIT_BYTES },
        { name: `phone first view ${name}, without AVIF (WebP)`, value: webp.bytes / 1000, unit: 'kB' },
        { name: `phone first view ${name}: AVIF / WebP bytes`, value: Number((avif.bytes / webp.bytes).toFixed(2)), unit: 'x' },
        { name: `phone first view ${name} (AVIF): images drawn above their rendition's pixels`, value: avif.drawnAbove, unit: '', target: '0', ok: avif.drawnAbove === 0 },
      );
    }
    // The page is sent as it is (a front may compress it): what it would weigh compressed.
    const html = Buffer.from(await (await fetch(url)).arrayBuffer());
    const gzip = gzipSync(html, { level: 6 }).length;
    const br = brotliCompressSync(html, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }).length;
    lines.push({ name: `the gallery page: ${(html.length / 1000).toFixed(1)} kB as sent, gzip 6 / brotli 5`, value: Number((gzip / 1000).toFixed(1)), unit: `/ ${(br / 1000).toFixed(1)} kB` });
    return lines;
  } finally {
    await browser.close();
  }
}

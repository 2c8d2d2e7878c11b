// The bytes of the first view of a 500-media gallery page in chromium at a
// 1280×800 viewport (target: at most 1.5 MB), the way the site's browser test
// measures it: the first 64 photos uploaded for real in three steps and
// published through the API (so their renditions are the service's own), the
// rest inserted after them; every response of the first view summed (HTML,
// CSS, JS, icon, and the images the browser loads without scrolling).
// A phone viewport (390×844 at 3×) is printed alongside, for information.
import { text } from '../src/client/xml.js';
import { chromiumPresent, CHROMIUM, firstView, launchChromium, publishBulk, uploadPhoto, waitForRenditions } from '../test/site/site-support.js';
import type { BenchContext, BenchLine } from './lib.js';

const MEDIAS = 500;
/** Uploaded for real: more than the first page (60). */
const UPLOADED = 64;
const LIMIT_BYTES = 1.5 * 1000 * 1000;

export async function benchSiteWeight(b: BenchContext): Promise<BenchLine[]> {
  if (!chromiumPresent) return [{ name: `first view of a ${MEDIAS}-media gallery: ${CHROMIUM} missing`, value: 0, unit: 'kB', target: '<= 1500 kB', ok: false }];
  const urlname = 'bench';
  const website = await b.db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow();
  const root = await b.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const created = await b.client.createGallery(urlname, { name: 'Weight', parent: root.uuid, url_path: 'site-weight', content_order: 'manual-last' });
  const galleryUuid = text(created.doc, 'gallery/uuid')!;

  const uploaded: string[] = [];
  for (let i = 0; i < UPLOADED; i++) uploaded.push(await uploadPhoto(b, galleryUuid, i, 1800));
  if (!(await waitForRenditions({ svc: { db: b.db } }, uploaded))) throw new Error('the service made no renditions');

  const gallery = await b.db.selectFrom('galleries').select('id').where('uuid', '=', galleryUuid).executeTakeFirstOrThrow();
  await publishBulk(b.db, { galleryId: gallery.id, ownerId: b.user.id, artistUuid: b.user.defaultArtistUuid, from: UPLOADED, to: MEDIAS, batch: 109 });

  const url = `${b.url}/sites/${urlname}/-/site-weight`;
  const browser = await launchChromium();
  try {
    const measure = async (viewport: { width: number; height: number }, scale: number) => {
      // A fresh context each time: an empty cache, as a first visit.
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: scale > 1 });
      try {
        return await firstView(await context.newPage(), url);
      } finally {
        await context.close();
      }
    };
    const desktop = await measure({ width: 1280, height: 800 }, 1);
    const phone = await measure({ width: 390, height: 844 }, 3);
    return [
      {
        name: `first view, ${MEDIAS}-media gallery, 1280x800 (${desktop.images} images, ${desktop.requests} responses)`,
        value: desktop.bytes / 1000,
        unit: 'kB',
        target: '<= 1500 kB',
        ok: desktop.bytes <= LIMIT_BYTES,
      },
      { name: `first view, ${MEDIAS}-media gallery, 390x844@3x (${phone.images} images, ${phone.requests} responses)`, value: phone.bytes / 1000, unit: 'kB' },
    ];
  } finally {
    await browser.close();
  }
}

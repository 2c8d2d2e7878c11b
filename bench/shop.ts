// `npm run bench -- shop` (issue 33): a buyer's cart of 50 downloads becomes an order, is paid by
// hand through the API, and the delivery job makes every file (sized ones from the original as
// sRGB JPEGs, originals byte for byte): the order's placing, the time from payment to delivered,
// files per second, the service's RSS growth while the job runs; and a cart page against a gallery page.
import { randomFillSync } from 'node:crypto';
import sharp from 'sharp';
import { find, text } from '../src/client/xml.js';
import { uploadJpeg } from '../test/site/site-support.js';
import { attachProfile, openShop, placeOrder } from '../test/support/shop.js';
import { median, runLoad, type BenchContext, type BenchLine } from './lib.js';
import { measure } from './uploads.js';

const FILES = Number(process.env.BENCH_SHOP_FILES ?? 50);
const MiB = 1024 * 1024;

/** A distinct 3000×2000 photo of noise (about 2–3 MB as a JPEG: the originals a buyer pays for). */
async function photo(): Promise<Buffer> {
  const noise = Buffer.alloc(300 * 200 * 3);
  randomFillSync(noise);
  return sharp(noise, { raw: { width: 300, height: 200, channels: 3 } }).resize(3000, 2000, { kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer();
}

export async function benchShop(b: BenchContext): Promise<BenchLine[]> {
  const website = await b.db.selectFrom('websites').select('id').where('urlname', '=', 'bench').executeTakeFirstOrThrow();
  const root = (await b.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow()).uuid;
  const medias: string[] = [];
  for (let i = 0; i < FILES; i++) medias.push(await uploadJpeg(b, root, await photo(), `SHOP_${String(i).padStart(3, '0')}.jpg`, `Shop ${i}`));
  const shop = await openShop(b.core, b.user, { media: medias[0] });
  for (const m of medias.slice(1)) await attachProfile(b.db, m, shop.downloads);

  // Half the lines a 1200-pixel JPEG, half the original file.
  const lines = medias.map((media, i) => ({ media, item: i % 2 === 0 ? 'Web' : 'Original file' }));
  const t0 = performance.now();
  const order = await placeOrder(b.core, shop, { email: 'buyer@example.com', lines });
  const placedMs = performance.now() - t0;

  const delivered = async () => text(find((await b.client.request('GET', `/orders/${order}.xml`)).doc, 'order')!, 'delivered-at');
  const run = await measure(b.pid, async () => {
    await b.client.request('PUT', `/orders/${order}.xml`, { 'order[status]': 'paid' });
    const deadline = Date.now() + 600_000;
    while (!(await delivered())) {
      if (Date.now() > deadline) throw new Error('the order was not delivered within 10 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  const growth = run.rssGrowth / MiB;

  // The same photos sold as one whole gallery (docs/shop.md "Whole galleries"): every photo made at
  // 1200 px by the job, then the buyer's ZIP of all of them, streamed.
  await b.client.request('PUT', `/galleries/${root}/sale.xml`, { 'sale[pricing_profile]': shop.downloads, 'sale[item]': 'Web', 'sale[price]': '9900' });
  const cart = await b.core.orders.createCart(website.id);
  await b.core.orders.setCartGallery(cart.uuid, root, true);
  const whole = (await b.core.orders.placeOrder(cart.uuid, { email: 'gallery@example.com' })).uuid;
  const galleryDelivered = async () => text(find((await b.client.request('GET', `/orders/${whole}.xml`)).doc, 'order')!, 'delivered-at');
  const wholeRun = await measure(b.pid, async () => {
    await b.client.request('PUT', `/orders/${whole}.xml`, { 'order[status]': 'paid' });
    const deadline = Date.now() + 600_000;
    while (!(await galleryDelivered())) {
      if (Date.now() > deadline) throw new Error('the whole gallery was not delivered within 10 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  const made = await b.db.selectFrom('order_files').select('id').where('order_id', '=', (await b.db.selectFrom('orders').select('id').where('uuid', '=', whole).executeTakeFirstOrThrow()).id).execute();
  const token = (await b.db.selectFrom('orders').select('download_token').where('uuid', '=', whole).executeTakeFirstOrThrow()).download_token!;
  const z0 = performance.now();
  const zip = await fetch(`${b.url}/downloads/${token}/all.zip`);
  const zipBytes = (await zip.arrayBuffer()).byteLength;
  const zipMs = performance.now() - z0;
  const pages = await cartAgainstGallery(b, website.id, shop.downloads, medias.slice(0, 3));
  return [
    ...pages,
    { name: `shop: whole gallery of ${made.length} photos, paid to delivered at 1200 px`, value: wholeRun.ms / 1000, unit: 's' },
    { name: 'shop: whole gallery, service RSS growth while delivering', value: wholeRun.rssGrowth / MiB, unit: 'MiB', target: '<= 128', ok: wholeRun.rssGrowth / MiB <= 128 },
    { name: `shop: whole gallery ZIP (${(zipBytes / MiB).toFixed(1)} MiB) streamed`, value: zipMs, unit: 'ms' },
    { name: `shop: a cart of ${FILES} downloads placed as an order`, value: placedMs, unit: 'ms' },
    { name: `shop: paid to delivered, ${FILES} files (${FILES / 2} sized from 3000×2000, ${FILES / 2} originals)`, value: run.ms / 1000, unit: 's' },
    { name: 'shop: delivery rate', value: (FILES * 1000) / run.ms, unit: 'files/s' },
    { name: 'shop: service RSS growth while delivering', value: growth, unit: 'MiB', target: '<= 128', ok: growth <= 128 },
  ];
}

/**
 * The cart page with three lines (what a buyer meets before checkout: rendered for each visitor, never
 * cached) against the website's gallery page of the same photos as a visitor meets it; alternating
 * rounds, the median ratio with its spread. Target: the cart costs no more than the gallery page.
 */
async function cartAgainstGallery(b: BenchContext, websiteId: number, profile: string, medias: string[]): Promise<BenchLine[]> {
  const cart = await b.core.orders.createCart(websiteId);
  for (const media of medias) await b.core.orders.setCartLine(cart.uuid, { media, profile, item: 'Web', quantity: 1 });
  const cartUrl = `${b.url}/sites/bench/_cart`;
  const galleryUrl = `${b.url}/sites/bench/`;
  const headers = { cookie: `cart=${cart.uuid}` };
  const first = await fetch(cartUrl, { headers });
  if (first.status !== 200 || !(await first.text()).includes(medias[0])) throw new Error(`the cart page answered ${first.status} without its lines`);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const ratios: number[] = [];
  const rates = { cart: [] as number[], gallery: [] as number[] };
  await runLoad(cartUrl, headers, undefined, 1);
  await runLoad(galleryUrl, {}, undefined, 1);
  for (let i = 0; i < rounds; i++) {
    const c = await runLoad(cartUrl, headers, undefined, 2);
    const g = await runLoad(galleryUrl, {}, undefined, 2);
    if (c.non2xx + c.errors + g.non2xx + g.errors > 0) throw new Error('the cart or the gallery page failed under load');
    ratios.push(c.rps / g.rps);
    rates.cart.push(c.rps);
    rates.gallery.push(g.rps);
  }
  const r = median(ratios);
  return [
    { name: 'shop: cart page, 3 lines (rendered per visitor)', value: median(rates.cart), unit: 'req/s' },
    // SITE_CACHE_SECONDS=0 (passed on to the service): the gallery page rendered for each request, as the cart page is.
    { name: `shop: the same website's gallery page, ${process.env.SITE_CACHE_SECONDS === '0' ? 'rendered (no micro-cache)' : 'as a visitor meets it (micro-cache)'}`, value: median(rates.gallery), unit: 'req/s' },
    { name: `shop: cart / gallery page (median of ${rounds}; ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`, value: r, unit: 'x', target: '>= 1', ok: r >= 1 },
  ];
}

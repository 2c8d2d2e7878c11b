// The studio's pictures in docs/studio.md (and shop.md, integrations.md) for the screens added
// lately: `npx tsx scripts/studio-screenshots.ts [name …]` (no name: all of them; a name: only the
// pictures whose file starts with it, e.g. `studio-galleries`). A developer reruns it when these
// screens change; CI does not. Like scripts/screenshots.ts it starts the service on a temporary
// DATA_DIR, makes a user, a website with galleries of the seeded photos (scripts/photos.ts), a
// lightbox, price lists, and drives chromium (/usr/bin/chromium, CHROMIUM=… for another) through
// the studio at 1440×900 and, where the screen differs, 390×844. Stored as palette PNGs (sharp),
// phones at 2x, each below MAX_PNG_BYTES.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { buildApp } from '../src/app.js';
import { find, MediaPortfolioClient, text } from '../src/client/index.js';
import { loadConfig } from '../src/config.js';
import { photo, SCENES, waitForRenditions } from './photos.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs', 'images');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const MAX_PNG_BYTES = 160 * 1024;
/** A page that is mostly photos (the recipient's lightbox). */
const MAX_PHOTO_PNG_BYTES = 240 * 1024;
const ONLY = process.argv.slice(2);

const DESKTOP = { viewport: { width: 1440, height: 900 }, scale: 1, phone: false } as const;
const PHONE = { viewport: { width: 390, height: 844 }, scale: 2, phone: true } as const;
type Size = typeof DESKTOP | typeof PHONE;

let browser: Browser;
let baseUrl = '';
const user = { email: 'ann.lee@example.com', password: 'screenshots only' };
const made: Array<{ file: string; bytes: number; width: number; height: number }> = [];

const wanted = (file: string) => ONLY.length === 0 || ONLY.some((p) => file.startsWith(p));

/** A signed-in studio page at a size. */
async function studio(size: Size): Promise<Page> {
  const context = await browser.newContext({ viewport: size.viewport, deviceScaleFactor: size.scale, isMobile: size.phone, hasTouch: size.phone });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/studio/signin`);
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/studio/websites');
  return page;
}

/** Every image in the page decoded (lazy ones too), then the picture, stored as a palette PNG. */
async function shoot(page: Page, file: string, opts: { fullPage?: boolean; maxHeight?: number; photos?: boolean } = {}): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.evaluate(async () => {
    await Promise.all([...document.images].map((img) => ((img.loading = 'eager'), img.decode().catch(() => undefined))));
  });
  const raw = await page.screenshot({ type: 'png', fullPage: opts.fullPage ?? false });
  let img = sharp(raw);
  const meta = await img.metadata();
  const scale = page.viewportSize()!.width < 600 ? 2 : 1;
  // A full page that runs long is cut at maxHeight CSS pixels: the picture shows the screen's top.
  if (opts.maxHeight && meta.height! > opts.maxHeight * scale) img = sharp(await img.extract({ left: 0, top: 0, width: meta.width!, height: opts.maxHeight * scale }).toBuffer());
  const target = join(OUT, file);
  // Pages of photos take fewer colours (their grain costs bytes, not legibility).
  await img.png({ palette: true, quality: opts.photos ? 40 : 70, effort: 10, compressionLevel: 9 }).toFile(target);
  const bytes = (await stat(target)).size;
  const out = await sharp(target).metadata();
  const max = opts.photos ? MAX_PHOTO_PNG_BYTES : MAX_PNG_BYTES;
  if (bytes > max) throw new Error(`${file} is ${bytes} bytes, over ${max}: lower its quality or height here`);
  made.push({ file, bytes, width: out.width!, height: out.height! });
  console.log(`docs/images/${file}: ${out.width}x${out.height}, ${Math.round(bytes / 1024)} kB`);
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM} (set CHROMIUM)`);
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-studio-screenshots-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RATE_LIMIT: 'off', VISITOR_RATE_LIMIT: 'off', LOG_LEVEL: 'warn' });
  const service = await buildApp(config);
  try {
    await service.fastify.listen({ port: 0, host: '127.0.0.1' });
    const address = service.fastify.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    config.publicUrl = baseUrl;

    const { user: owner } = await service.core.users.create({ ...user, firstName: 'Ann', lastName: 'Lee' });
    const keys = await service.core.apps.create('screenshots');
    const site = await service.core.websites.create(owner, { urlname: 'ann-lee', title: 'Ann Lee Photography' });
    const client = new MediaPortfolioClient({ baseUrl, apiKey: keys.key, apiSecret: keys.secret, login: user.email, password: user.password, throttle: false, retry429: false });
    const gallery = async (name: string, parent: string, extra: Record<string, string> = {}) =>
      text((await client.request('POST', '/websites/ann-lee/galleries.xml', { 'gallery[name]': name, 'gallery[parent]': parent, ...extra })).doc, 'gallery/uuid')!;

    // A tree worth a picture: portfolio galleries, a client gallery with sub-galleries.
    const coast = await gallery('Coast and light', site.rootGalleryUuid, { 'gallery[description]': 'Twelve walks along the coast.' });
    const travel = await gallery('Travel', site.rootGalleryUuid);
    const north = await gallery('The north', travel);
    const markets = await gallery('Markets', travel);
    const clients = await gallery('Clients', site.rootGalleryUuid);
    // The client gallery behind a password: the grid's badge and the tree's lock say so.
    const wedding = await gallery('Smith wedding', clients, { 'gallery[password]': 'smith-2026' });
    const ceremony = await gallery('Ceremony', wedding);
    const party = await gallery('Party', wedding);
    const homes = [coast, coast, coast, coast, north, north, markets, markets, ceremony, ceremony, party, party];
    const uuids: string[] = [];
    for (let i = 0; i < SCENES.length; i++) {
      const reply = await client.request(
        'POST',
        '/medias.xml',
        { 'media[title]': SCENES[i].title, 'media[keywords]': 'coast, walk', 'media[publish_to_galleries]': i < 4 ? coast : `${homes[i]},${coast}` },
        { file: { field: 'media[content]', fileName: `coast-${String(i + 1).padStart(2, '0')}.jpg`, contentType: 'image/jpeg', data: await photo(i) } },
      );
      uuids.push(text(find(reply.doc, 'media')!, 'uuid')!);
    }
    await waitForRenditions(client, uuids);
    const lightbox = (await service.core.lightboxes.create({ id: owner.id }, 'Album picks', uuids.slice(8, 12))).uuid;
    // The shop: a download list and a print list, for the price lists, coupons and the sale card.
    await service.core.pricingProfiles.createList(owner, {
      name: 'Downloads',
      kind: 'download',
      currency: 'EUR',
      items: [
        { param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] },
        { param: 'c', label: 'Original file', longEdge: null, price: 4900, options: [] },
      ],
    });
    await service.core.pricingProfiles.createList(owner, {
      name: 'Fine art prints',
      kind: 'print',
      currency: 'EUR',
      minimumPrice: 1500,
      items: [{ param: 'a', label: 'Baryta paper', longEdge: null, price: 2500, options: [{ param: 'o', label: 'A3', price: null, ratio: 300 }] }],
    });

    await mkdir(OUT, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      for (const [size, tag] of [[DESKTOP, 'desktop'], [PHONE, 'phone']] as const) {
        const page = await studio(size);
        // Galleries: the tree and the grid (the switch at the top of both).
        if (wanted(`studio-galleries-tree-${tag}`)) {
          await page.goto(`${baseUrl}/studio/websites/ann-lee/galleries`);
          await shoot(page, `studio-galleries-tree-${tag}.png`, { fullPage: size.phone, maxHeight: 1300 });
        }
        if (wanted(`studio-galleries-grid-${tag}`)) {
          await page.goto(`${baseUrl}/studio/websites/ann-lee/galleries/grid`);
          await shoot(page, `studio-galleries-grid-${tag}.png`, { fullPage: size.phone, maxHeight: 1300, photos: true });
        }
        // The phone's header: the Menu button closed, then open.
        if (size.phone && wanted('studio-nav-phone')) {
          await page.goto(`${baseUrl}/studio/websites`);
          await shoot(page, 'studio-nav-phone.png');
          await page.getByRole('button', { name: 'Menu', exact: true }).click();
          await page.getByRole('navigation', { name: 'Studio' }).getByRole('link').first().waitFor();
          await shoot(page, 'studio-nav-phone-open.png');
        }
        // Share links of a gallery and of a lightbox, each with a link just made.
        // (On a phone it is the lightbox's screen below, but for its crumb.)
        if (!size.phone && wanted('studio-share-links-gallery-desktop')) {
          await page.goto(`${baseUrl}/studio/galleries/${wedding}/share-links`);
          await page.getByLabel('Recipient').fill('Jo Smith');
          await page.getByLabel('Visits allowed').fill('20');
          await page.getByRole('button', { name: 'Make the link' }).click();
          await page.locator('#new-link').waitFor();
          await shoot(page, 'studio-share-links-gallery-desktop.png', { fullPage: true, maxHeight: 1400 });
        }
        if (wanted(`studio-share-links-lightbox-${tag}`) || wanted(`site-lightbox-${tag}`)) {
          await page.goto(`${baseUrl}/studio/lightboxes/${lightbox}/share-links`);
          await page.getByLabel('Recipient').fill('Jo Smith');
          await page.getByLabel('Downloads', { exact: true }).selectOption('originals');
          await page.getByRole('button', { name: 'Make the link' }).click();
          const link = await page.locator('#new-link').inputValue();
          if (wanted(`studio-share-links-lightbox-${tag}`)) await shoot(page, `studio-share-links-lightbox-${tag}.png`, { fullPage: true, maxHeight: 1400 });
          // The recipient, in a browser of their own: /_share/<token> lands on /_lightbox/<uuid>.
          if (wanted(`site-lightbox-${tag}`)) {
            const visitor = await browser.newContext({ viewport: size.viewport, deviceScaleFactor: size.scale, isMobile: size.phone, hasTouch: size.phone });
            const visit = await visitor.newPage();
            await visit.goto(link);
            await visit.waitForURL(`**/_lightbox/${lightbox}`);
            await shoot(visit, `site-lightbox-${tag}.png`, { photos: true });
            await visitor.close();
          }
        }
        // Account → Webhooks, with an endpoint just added (its secret shown once).
        if (!size.phone && wanted('studio-webhooks-desktop')) {
          await page.goto(`${baseUrl}/studio/account`);
          await page.getByRole('link', { name: 'Webhooks' }).click();
          await page.getByLabel('Address').fill('https://hooks.example.com/portfolio');
          await page.getByRole('checkbox', { name: 'gallery.published' }).check();
          await page.getByRole('button', { name: 'Add the endpoint' }).click();
          await page.locator('#new-secret').waitFor();
          await shoot(page, 'studio-webhooks-desktop.png', { fullPage: true, maxHeight: 1400 });
        }
        // The website's home editor: a hero chosen, galleries featured.
        if (wanted(`studio-website-home-${tag}`)) {
          await page.goto(`${baseUrl}/studio/websites/ann-lee/home`);
          if (!size.phone) {
            await page.locator('#library input[name=hero]').first().check();
            await page.getByLabel('Headline over the hero').fill('Light, people, places');
            await page.getByLabel('Tagline under the headline').fill('Ann Lee, photographer on the coast');
            for (const [name, order] of [['Coast and light', 1], ['Travel', 2]] as const) {
              const row = page.locator('.feature-list li', { hasText: name }).first();
              await row.locator('input[type=checkbox]').check();
              await row.locator('input[type=number]').fill(String(order));
            }
            await page.getByRole('button', { name: 'Save the home page' }).click();
            await page.waitForURL('**/home?done=saved');
          }
          await shoot(page, `studio-website-home-${tag}.png`, { fullPage: true, maxHeight: size.phone ? 1500 : 2000 });
        }
        // The shop: price lists, coupons, tax/terms/lab, the whole-gallery sale card.
        if (!size.phone && wanted('studio-shop-price-lists-desktop')) {
          await page.goto(`${baseUrl}/studio/shop/price-lists`);
          await shoot(page, 'studio-shop-price-lists-desktop.png', { fullPage: true, maxHeight: 1200 });
        }
        if (!size.phone && wanted('studio-shop2-coupons-desktop')) {
          await page.goto(`${baseUrl}/studio/shop/coupons?website=ann-lee`);
          await page.getByLabel('Code').fill('SPRING');
          await page.getByLabel('Percent off').fill('15');
          await page.getByLabel('Valid until (UTC)').fill('2027-03-31');
          await page.getByLabel('Maximum uses').fill('100');
          await page.getByRole('button', { name: 'Create the coupon' }).click();
          await page.getByText('The coupon was created.').waitFor();
          await shoot(page, 'studio-shop2-coupons-desktop.png', { fullPage: true, maxHeight: 1200 });
        }
        if (!size.phone && wanted('studio-shop2-settings-desktop')) {
          await page.goto(`${baseUrl}/studio/shop/settings?website=ann-lee`);
          await page.getByLabel('Tax rate (%)').fill('20');
          await page.getByLabel('Its name on receipts').fill('VAT');
          await page.getByLabel('Terms of sale (Markdown)').fill('# Terms of sale\n\nPrints ship within **10 days**.');
          await page.getByRole('button', { name: 'Save tax and terms' }).click();
          await page.getByText('Tax and terms were saved.').waitFor();
          await page.getByLabel(/Lab.s e-mail/).fill('orders@lab.example');
          await page.getByLabel('Send paid print orders automatically').check();
          await page.getByRole('button', { name: 'Save the lab' }).click();
          await page.getByText('The lab was saved.').waitFor();
          await shoot(page, 'studio-shop2-settings-desktop.png', { fullPage: true, maxHeight: 1500 });
        }
        if (!size.phone && wanted('studio-shop2-gallery-sale-desktop')) {
          await page.goto(`${baseUrl}/studio/galleries/${coast}`);
          await page.getByLabel('Size of the files').selectOption({ label: 'Downloads: Web (1200 px), EUR' });
          await page.getByLabel('Price of the whole gallery').fill('49');
          await page.getByRole('button', { name: /Sell the gallery whole|Save the sale/ }).click();
          await page.locator('#whole-state').getByText('For sale whole').waitFor();
          // The card a little below the top, the one before it ("Sell these photos") partly in view.
          await page.locator('#whole-sale').evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 260));
          await shoot(page, 'studio-shop2-gallery-sale-desktop.png');
        }
        await page.context().close();
      }
    } finally {
      await browser.close();
    }
    const total = made.reduce((s, m) => s + m.bytes, 0);
    console.log(`${made.length} pictures, ${Math.round(total / 1024)} kB in all`);
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

// The README's pictures of a website: `npx tsx scripts/screenshots.ts`.
// Starts the service on a temporary DATA_DIR, makes a user, a website and a
// gallery of photos generated here (seeded: the same photos every run),
// publishes them through the API as a client does, waits for their renditions,
// and saves the gallery page as chromium shows it at 1280×800 and at
// 390×844 @3x into docs/images/ (website-desktop.png, website-phone.png).
// Rerun it whenever the website's look changes. Needs chromium at
// /usr/bin/chromium (CHROMIUM=… for another).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
import { buildApp } from '../src/app.js';
import { find, MediaPortfolioClient, text } from '../src/client/index.js';
import { photo, SCENES, waitForRenditions } from './photos.js';
import { loadConfig } from '../src/config.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs', 'images');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** Each PNG stays below this (the README loads them). */
const MAX_PNG_BYTES = 400 * 1024;

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM} (set CHROMIUM)`);
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-screenshots-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RATE_LIMIT: 'off', VISITOR_RATE_LIMIT: 'off', LOG_LEVEL: 'warn' });
  const service = await buildApp(config);
  try {
    await service.fastify.listen({ port: 0, host: '127.0.0.1' });
    const address = service.fastify.server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    config.publicUrl = baseUrl;

    const email = 'ann.lee@example.com';
    const password = 'screenshots only';
    const { user } = await service.core.users.create({ email, password, firstName: 'Ann', lastName: 'Lee' });
    const keys = await service.core.apps.create('screenshots');
    const site = await service.core.websites.create(user, { urlname: 'ann-lee', title: 'Ann Lee Photography' });
    const client = new MediaPortfolioClient({ baseUrl, apiKey: keys.key, apiSecret: keys.secret, login: email, password, throttle: false, retry429: false });

    const styles = await client.request('GET', '/websites/ann-lee/gallery_display_styles.xml', { view: 'details' });
    const masonry = styles.doc.children
      .find((c) => c.name === 'gallery-display-styles')
      ?.children.find((s) => text(s, 'layout') === 'masonry');
    const created = await client.request('POST', '/websites/ann-lee/galleries.xml', {
      'gallery[name]': 'Coast and light',
      'gallery[parent]': site.rootGalleryUuid,
      'gallery[description]': 'Twelve walks along the coast, from the dunes at first light to the night market.',
      ...(masonry ? { 'gallery[display_style]': text(masonry, 'uuid')! } : {}),
    });
    const galleryUuid = text(created.doc, 'gallery/uuid')!;
    const fullUrlPath = text(created.doc, 'gallery/full-url-path')!;

    const uuids: string[] = [];
    for (let i = 0; i < SCENES.length; i++) {
      const data = await photo(i);
      const reply = await client.request(
        'POST',
        '/medias.xml',
        { 'media[title]': SCENES[i].title, 'media[keywords]': 'coast, walk', 'media[publish_to_galleries]': galleryUuid },
        { file: { field: 'media[content]', fileName: `coast-${String(i + 1).padStart(2, '0')}.jpg`, contentType: 'image/jpeg', data } },
      );
      uuids.push(text(find(reply.doc, 'media')!, 'uuid')!);
    }
    await waitForRenditions(client, uuids);

    await mkdir(OUT, { recursive: true });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const url = `${baseUrl}/sites/ann-lee/-/${fullUrlPath}`;
      for (const shot of [
        { file: 'website-desktop.png', viewport: { width: 1280, height: 800 }, scale: 1, mobile: false },
        { file: 'website-phone.png', viewport: { width: 390, height: 844 }, scale: 3, mobile: true },
      ]) {
        const context = await browser.newContext({ viewport: shot.viewport, deviceScaleFactor: shot.scale, isMobile: shot.mobile });
        const page = await context.newPage();
        const res = await page.goto(url, { waitUntil: 'networkidle' });
        if (res?.status() !== 200) throw new Error(`${url} answered ${res?.status()}`);
        // Every image of the first screen decoded, lazy ones included.
        await page.evaluate(async () => {
          await Promise.all([...document.images].filter((img) => img.getBoundingClientRect().top < innerHeight).map((img) => (img.loading = 'eager', img.decode().catch(() => undefined))));
        });
        const raw = await page.screenshot({ type: 'png' });
        await context.close();
        // Stored as a palette PNG (a fraction of the size of a full-colour one), at most 2x: the
        // phone's 3x capture of full-width photos is over the size bound, and 2x still reads sharp.
        const target = join(OUT, shot.file);
        const width = shot.viewport.width * Math.min(shot.scale, 2);
        await sharp(raw).resize({ width }).png({ palette: true, quality: 80, effort: 10, compressionLevel: 9 }).toFile(target);
        const bytes = (await stat(target)).size;
        if (bytes > MAX_PNG_BYTES) throw new Error(`${shot.file} is ${bytes} bytes, over ${MAX_PNG_BYTES}: lower its quality here`);
        console.log(`${target.slice(ROOT.length + 1)}: ${shot.viewport.width}x${shot.viewport.height}@${shot.scale}x, stored ${width} px wide, ${Math.round(bytes / 1024)} kB`);
      }
    } finally {
      await browser.close();
    }
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();

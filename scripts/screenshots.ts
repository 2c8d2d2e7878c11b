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
import { loadConfig } from '../src/config.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs', 'images');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** Each PNG stays below this (the README loads them). */
const MAX_PNG_BYTES = 400 * 1024;

/** A small seeded PRNG (mulberry32): the same photos on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hsl = (h: number, s: number, l: number) => `hsl(${Math.round(h)}, ${Math.round(s)}%, ${Math.round(l)}%)`;

/** Scenes: a sky, a sun or moon, ridges of hills or dunes, water, a few figures: then grain. */
const SCENES = [
  { title: 'Dunes at first light', hue: 32, ratio: 3 / 2 },
  { title: 'Harbour wall', hue: 205, ratio: 2 / 3 },
  { title: 'Salt marsh', hue: 150, ratio: 4 / 3 },
  { title: 'Evening ridge', hue: 12, ratio: 16 / 9 },
  { title: 'Fog on the lake', hue: 190, ratio: 1 },
  { title: 'Red cliffs', hue: 8, ratio: 4 / 5 },
  { title: 'Pine coast', hue: 120, ratio: 3 / 2 },
  { title: 'Blue hour', hue: 230, ratio: 3 / 4 },
  { title: 'Wheat field', hue: 45, ratio: 5 / 4 },
  { title: 'Glacier tongue', hue: 195, ratio: 2 / 1 },
  { title: 'Olive grove', hue: 80, ratio: 2 / 3 },
  { title: 'Night market', hue: 280, ratio: 3 / 2 },
];

async function photo(i: number): Promise<Buffer> {
  const rnd = random(1000 + i);
  const { hue, ratio } = SCENES[i];
  const width = ratio >= 1 ? 1800 : Math.round(1800 * ratio);
  const height = ratio >= 1 ? Math.round(1800 / ratio) : 1800;
  const horizon = height * (0.45 + rnd() * 0.2);
  const parts: string[] = [];
  parts.push(
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${hsl(hue + 180 * rnd(), 45, 22 + rnd() * 25)}"/><stop offset="1" stop-color="${hsl(hue + 20, 70, 62 + rnd() * 20)}"/></linearGradient>` +
      `<filter id="soft"><feGaussianBlur stdDeviation="${6 + rnd() * 10}"/></filter></defs>`,
    `<rect width="${width}" height="${height}" fill="url(#sky)"/>`,
    `<circle cx="${width * (0.2 + rnd() * 0.6)}" cy="${horizon * (0.3 + rnd() * 0.4)}" r="${Math.min(width, height) * (0.05 + rnd() * 0.07)}" fill="${hsl(hue + 30, 90, 85)}" filter="url(#soft)"/>`,
  );
  // Clouds: soft ellipses.
  for (let c = 0; c < 6; c++) {
    parts.push(`<ellipse cx="${width * rnd()}" cy="${horizon * rnd() * 0.7}" rx="${width * (0.08 + rnd() * 0.2)}" ry="${height * (0.015 + rnd() * 0.04)}" fill="${hsl(hue, 20, 90)}" opacity="${0.15 + rnd() * 0.35}" filter="url(#soft)"/>`);
  }
  // Ridges, darker towards the front.
  const ridges = 3 + Math.floor(rnd() * 3);
  for (let r = 0; r < ridges; r++) {
    const base = horizon + ((height - horizon) * r) / ridges;
    let d = `M0 ${height} L0 ${base}`;
    const steps = 12 + Math.floor(rnd() * 10);
    for (let s = 1; s <= steps; s++) d += ` L${(width * s) / steps} ${base - height * (0.02 + rnd() * 0.12) * (1 - r / (ridges + 1))}`;
    d += ` L${width} ${height} Z`;
    parts.push(`<path d="${d}" fill="${hsl(hue + r * 8 - 10, 35 + rnd() * 30, 42 - r * (30 / ridges))}"/>`);
  }
  // A few figures or posts against the front ridge.
  for (let f = 0; f < 3; f++) {
    const x = width * (0.1 + rnd() * 0.8);
    const h = height * (0.04 + rnd() * 0.08);
    parts.push(`<rect x="${x}" y="${height - h - height * 0.08 * rnd()}" width="${Math.max(3, h * 0.12)}" height="${h}" fill="${hsl(hue, 30, 10)}"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
  const scene = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  // Grain, seeded like the rest: mostly luminance, a little colour, as film or a small sensor has.
  const grainy = Buffer.alloc(scene.length);
  for (let p = 0; p < scene.length; p += 3) {
    // The sum of three uniforms: close enough to a gaussian, and cheap.
    const luma = (rnd() + rnd() + rnd() - 1.5) * 26;
    for (let c = 0; c < 3; c++) grainy[p + c] = Math.max(0, Math.min(255, scene[p + c] + luma + (rnd() - 0.5) * 10));
  }
  return sharp(grainy, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function waitForRenditions(client: MediaPortfolioClient, uuids: string[]): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (const uuid of uuids) {
    for (;;) {
      const state = text((await client.request('GET', `/medias/${uuid}.xml`)).doc, 'media/renditions-state');
      if (state === 'ready') break;
      if (state === 'failed') throw new Error(`renditions of ${uuid} failed`);
      if (Date.now() > deadline) throw new Error(`renditions of ${uuid} not ready after 300 s (${state})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

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

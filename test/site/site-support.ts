// Visiting a website as a browser would: plain requests without signature,
// a cookie jar of one cookie, and requests with any Host header.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { chromium, type Browser, type Page as BrowserPage } from 'playwright-core';
import sharp from 'sharp';
import { find, text } from '../../src/client/xml.js';
import { postUpload, uploadParamsOf } from '../api/uploads-support.js';
import { nowIso } from '../../src/database/db.js';
import type { Database } from '../../src/database/schema.js';
import type { TestService } from '../support/service.js';
import type { DbKind } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';

/** A world with its website's home path (`/sites/<urlname>`). */
export async function startSite(kind: DbKind, env: Record<string, string>): Promise<{ w: World; home: string }> {
  const w = await startWorld(kind, env);
  return { w, home: `/sites/${w.urlname}` };
}

/** Debian's chromium, driven by playwright-core (.ci/run installs the package). */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumPresent = existsSync(CHROMIUM);
/** Screenshots of the browser tests (gitignored). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'site');

/** Headless chromium as the browser tests and the bench run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const AXE_SOURCE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical findings on the page as it stands: each rule with its count of
 * nodes and the first three of them (their selectors), so a failure says where to look.
 */
export async function axe(page: BrowserPage): Promise<Array<{ id: string; impact: string; nodes: number; targets: string[] }>> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** One response of a first view: its resource type, content type, bytes (headers and body) and address. */
export interface Loaded { url: string; kind: string; type: string; bytes: number }

/**
 * Opens a page and sums the bytes of every response of its first view (headers and bodies):
 * HTML, stylesheet, script, icon and the images the browser loads without scrolling
 * (lazy ones within its loading distance included), and each of them.
 */
export async function firstView(page: BrowserPage, url: string): Promise<{ bytes: number; requests: number; images: number; responses: Loaded[] }> {
  const loaded: Array<Promise<Loaded>> = [];
  page.on('requestfinished', (req) => {
    loaded.push(
      Promise.all([req.response(), req.sizes()]).then(([res, s]) => ({
        url: req.url(),
        kind: req.resourceType(),
        type: (res?.headers()['content-type'] ?? '').split(';')[0]!,
        bytes: s.responseBodySize + s.responseHeadersSize,
      })),
    );
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  const responses = await Promise.all(loaded);
  return { bytes: responses.reduce((a, l) => a + l.bytes, 0), requests: responses.length, images: responses.filter((l) => l.kind === 'image').length, responses };
}

export interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to the service with full control of the Host header (fetch cannot set it). */
export function visit(svc: TestService, path: string, opts: { method?: string; host?: string; cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Page> {
  const url = new URL(svc.url);
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = { ...opts.headers, host: opts.host ?? url.host };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The name=value of a Set-Cookie header. */
export function cookieOf(page: Page): string | undefined {
  const set = page.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  return first?.split(';')[0];
}

/** Media UUIDs linked from a page, in page order (each once). */
export function mediaLinks(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/href="[^"]*\/_\/([0-9a-f-]{36})"/g)) if (!out.includes(m[1])) out.push(m[1]);
  return out;
}

/**
 * A photo-like JPEG, different for each `seed`: smooth colour fields with grain, about as heavy
 * as a detailed photograph once made small (about 22 kB at 320 px and 60 kB at 640 px in WebP
 * q80; pure noise would be twice that, a flat colour next to nothing).
 */
export async function photo(seed: number, width = 1800): Promise<Buffer> {
  let x = seed * 2654435761 + 1;
  const next = () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return (x >>> 24) & 0xff;
  };
  const low = Buffer.alloc(24 * 16 * 3);
  for (let i = 0; i < low.length; i++) low[i] = next();
  const base = await sharp(low, { raw: { width: 24, height: 16, channels: 3 } }).resize(240, 160, { kernel: 'cubic' }).raw().toBuffer();
  for (let i = 0; i < base.length; i++) base[i] = Math.max(0, Math.min(255, base[i] + ((next() - 128) * 40) / 128));
  return sharp(base, { raw: { width: 240, height: 160, channels: 3 } }).blur(1.2).resize(width, Math.round((width * 2) / 3), { kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer();
}

/** The three upload steps of one photo, published to a gallery; its media UUID. */
export async function uploadPhoto(w: Pick<World, 'client'>, galleryUuid: string, i: number, width = 1800): Promise<string> {
  return uploadJpeg(w, galleryUuid, await photo(i, width), `UPLOAD_${String(i + 1).padStart(4, '0')}.jpg`, `Photo ${i + 1}`);
}

/** A JPEG through the three upload steps, titled and published to a gallery; its media UUID. */
export async function uploadJpeg(w: Pick<World, 'client'>, galleryUuid: string, data: Buffer, fileName: string, title: string): Promise<string> {
  const r1 = await w.client.request('POST', '/medias.xml', {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': fileName,
    'media[content][file_size]': data.length,
    'media[content][mime_type]': 'image/jpeg',
    'media[title]': title,
    'media[publish_to_galleries]': galleryUuid,
  });
  const media = find(r1.doc, 'media')!;
  const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data, name: 'photo.jpg', type: 'image/jpeg' });
  // The service answers 200; an S3 bucket answers a presigned POST with 204.
  if (r2.status < 200 || r2.status >= 300) throw new Error(`upload step 2 answered ${r2.status}`);
  await w.client.completeUpload(media, data.length);
  return text(media, 'uuid')!;
}

/**
 * Waits until the uploaded photos have their renditions, when this service makes them; false
 * when it does not (every media stays at renditions_state 'none'): the weight then counts
 * HTML, CSS, JS and the icon only.
 */
export async function waitForRenditions(w: { svc: { db: Kysely<Database> } }, uuids: string[], timeoutMs = 100_000): Promise<boolean> {
  const states = async () => (await w.svc.db.selectFrom('medias').select('renditions_state').where('uuid', 'in', uuids).execute()).map((r) => r.renditions_state);
  await new Promise((r) => setTimeout(r, 500));
  if ((await states()).every((s) => s === 'none')) return false;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await states();
    if (now.includes('failed')) throw new Error('renditions failed');
    if (now.every((s) => s === 'ready')) return true;
    if (Date.now() > deadline) throw new Error(`renditions not ready: ${now.filter((s) => s !== 'ready').length} left`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Medias `from`+1 … `to` of a big gallery inserted in bulk after the photos
 * uploaded through the API: live, published in the gallery after them, in
 * statements of `batch` rows.
 */
export async function publishBulk(
  db: Kysely<Database>,
  o: { galleryId: number; ownerId: number; artistUuid: string; from: number; to: number; batch: number },
): Promise<void> {
  const artist = await db.selectFrom('artists').select('id').where('uuid', '=', o.artistUuid).executeTakeFirstOrThrow();
  const now = nowIso();
  for (let start = o.from; start < o.to; start += o.batch) {
    const count = Math.min(o.batch, o.to - start);
    const rows = Array.from({ length: count }, (_, i) => ({
      uuid: randomUUID(),
      owner_id: o.ownerId,
      artist_id: artist.id,
      status: 'live',
      file_name: `IMG_${String(start + i + 1).padStart(4, '0')}.jpg`,
      title: `Photo ${start + i + 1}`,
      width: i % 3 === 0 ? 2000 : 3000,
      height: i % 3 === 0 ? 3000 : 2000,
      created_at: now,
      updated_at: now,
    }));
    const ids = await db.insertInto('medias').values(rows).returning('id').execute();
    await db
      .insertInto('media_galleries')
      .values(ids.map((r, i) => ({ gallery_id: o.galleryId, media_id: r.id, position: 1000 + start + i, published_at: now })))
      .execute();
  }
}

/**
 * A realistic photo (the weight budgets are measured on these): a smooth colour field with
 * mid-scale texture and per-pixel grain, as a sensor's image of a detailed scene is, at full
 * size (24 MP by default), `portrait` turned on its side. Made with sharp's native noise, and
 * kept in a cache directory under the system's temp dir, so a second run reads it back.
 */
export async function realisticPhoto(seed: number, o: { width?: number; height?: number; portrait?: boolean } = {}): Promise<Buffer> {
  const long = o.width ?? 6000;
  const short = o.height ?? Math.round((long * 2) / 3);
  const [width, height] = o.portrait ? [short, long] : [long, short];
  const dir = join(tmpdir(), 'mps-realistic-photos');
  const file = join(dir, `${width}x${height}-${seed}.jpg`);
  const cached = await readFile(file).catch(() => undefined);
  if (cached) return cached;
  const small = await photo(seed, 240);
  const field = await sharp(small).rotate(o.portrait ? 90 : 0).resize(width, height, { kernel: 'cubic', fit: 'fill' }).raw().toBuffer();
  const texture = await sharp({ create: { width: Math.ceil(width / 6), height: Math.ceil(height / 6), channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .resize(width, height, { kernel: 'cubic', fit: 'fill' })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const grain = await sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 18 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const out = await sharp(field, { raw: { width, height, channels: 3 } })
    .composite([
      { input: texture, blend: 'soft-light' },
      { input: grain, blend: 'soft-light' },
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
  await mkdir(dir, { recursive: true });
  await writeFile(file, out);
  return out;
}

/**
 * A photo of the other kind (issue 31, the first view): what most photographs have and the grainy
 * corpus above has not — a smooth sky (a gradient), a sharp ridge against it, soft out-of-focus
 * colour below, mild mid-scale texture and the fine noise of a low-ISO sensor (sigma 4, against
 * 18). No real photographs are in the repository; this one is easier to compress than they often
 * are, the grainy one harder: the first view is measured on both. 24 MP by default, cached like it.
 */
export async function naturalPhoto(seed: number, o: { width?: number; portrait?: boolean } = {}): Promise<Buffer> {
  const long = o.width ?? 6000;
  const short = Math.round((long * 2) / 3);
  const [width, height] = o.portrait ? [short, long] : [long, short];
  const dir = join(tmpdir(), 'mps-realistic-photos');
  const file = join(dir, `natural-${width}x${height}-${seed}.jpg`);
  const cached = await readFile(file).catch(() => undefined);
  if (cached) return cached;
  let x = seed * 40503 + 7;
  const next = () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return ((x >>> 16) & 0x7fff) / 0x7fff;
  };
  const hue = Math.round(next() * 360);
  const ridge = Array.from({ length: 13 }, (_, i) => `${Math.round((i / 12) * width)},${Math.round(height * (0.3 + next() * 0.2))}`).join(' ');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${(hue + 200) % 360},55%,42%)"/><stop offset="1" stop-color="hsl(${(hue + 180) % 360},45%,82%)"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#s)"/>
<polygon points="0,${height} ${ridge} ${width},${height}" fill="hsl(${hue},35%,28%)"/></svg>`;
  const scene = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  // Soft colour below the ridge: the grain corpus's colour field, blurred as a lens out of focus draws it.
  const bokeh = await sharp(await photo(seed, 240)).rotate(o.portrait ? 90 : 0).resize(width, height, { kernel: 'cubic', fit: 'fill' }).blur(12).png({ compressionLevel: 0 }).toBuffer();
  // The ridge's shape as an alpha channel (55 %): the soft colour only below it.
  const mask = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#000"/><polygon points="0,${height} ${ridge} ${width},${height}" fill="#8c8c8c"/></svg>`))
    .extractChannel(0)
    .raw()
    .toBuffer();
  const masked = await sharp(bokeh).joinChannel(mask, { raw: { width, height, channels: 1 } }).png({ compressionLevel: 0 }).toBuffer();
  const texture = await sharp({ create: { width: Math.ceil(width / 4), height: Math.ceil(height / 4), channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 14 } } })
    .resize(width, height, { kernel: 'cubic', fit: 'fill' })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const grain = await sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 4 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const out = await sharp(scene, { raw: { width, height, channels: 3 } })
    .composite([
      { input: masked, blend: 'over' },
      { input: texture, blend: 'soft-light' },
      { input: grain, blend: 'soft-light' },
    ])
    .jpeg({ quality: 92 })
    .toBuffer();
  await mkdir(dir, { recursive: true });
  await writeFile(file, out);
  return out;
}

/** Uploads a realistic photo (three steps) and publishes it; its media UUID. */
export async function uploadRealistic(w: Pick<World, 'client'>, galleryUuid: string, i: number, o: { width?: number; portrait?: boolean } = {}): Promise<string> {
  return uploadJpeg(w, galleryUuid, await realisticPhoto(i, o), `DSC_${String(i + 1).padStart(4, '0')}.jpg`, `Photo ${i + 1}`);
}

/** What the first view shows, measured in the page after it settled (see `quality`). */
export interface ViewQuality {
  /** Images shown (loaded and at least partly in the viewport). */
  shown: number;
  /** Images drawn at more device pixels than their rendition has (beyond 1 % of rounding). */
  drawnAbove: number;
  /** The largest ratio of a loaded image's width to the device pixels it is drawn at. */
  maxFetchRatio: number;
  /** Share of the shown images' area cut off by cropping (object-fit: cover on another shape). */
  croppedShare: number;
  /** Cumulative layout shift (layout-shift entries without recent input). */
  cls: number;
  /** Largest contentful paint, ms after navigation start; -1 when none was reported. */
  lcp: number;
}

/** Measures the images of a page's photo list (`ul.media img`, the covers of `.subs`) as drawn now. */
export async function quality(page: BrowserPage): Promise<ViewQuality> {
  // Run under tsx (the bench), esbuild names inner functions with a helper the page does not have.
  await page.evaluate('window.__name = window.__name || ((f) => f)');
  return page.evaluate(async () => {
    const entries = (type: string) =>
      new Promise<PerformanceEntry[]>((resolve) => {
        const got: PerformanceEntry[] = [];
        try {
          new PerformanceObserver((l) => got.push(...l.getEntries())).observe({ type, buffered: true });
        } catch {
          /* not supported */
        }
        setTimeout(() => resolve(got), 200);
      });
    const [shifts, paints] = await Promise.all([entries('layout-shift'), entries('largest-contentful-paint')]);
    const cls = shifts.reduce((a, e) => a + ((e as unknown as { hadRecentInput: boolean }).hadRecentInput ? 0 : (e as unknown as { value: number }).value), 0);
    const lcp = paints.length > 0 ? paints[paints.length - 1].startTime : -1;
    const dpr = window.devicePixelRatio;
    let shown = 0;
    let drawnAbove = 0;
    let maxFetchRatio = 0;
    let area = 0;
    let cropped = 0;
    for (const img of Array.from(document.querySelectorAll<HTMLImageElement>('ul.media img, .subs img'))) {
      const box = img.getBoundingClientRect();
      if (!img.complete || img.naturalWidth === 0 || box.width === 0 || box.bottom <= 0 || box.top >= window.innerHeight) continue;
      shown++;
      const fit = getComputedStyle(img).objectFit;
      const boxRatio = box.width / box.height;
      const imgRatio = img.naturalWidth / img.naturalHeight;
      // Drawn width of the picture itself (with cover, the picture is larger than its box).
      const drawnWidth = fit === 'cover' ? Math.max(box.width, box.height * imgRatio) : fit === 'contain' ? Math.min(box.width, box.height * imgRatio) : box.width;
      const device = drawnWidth * dpr;
      // naturalWidth is corrected for the srcset candidate's density: the file's own width is its w descriptor.
      // In a <picture>, the candidate may be its AVIF source's.
      const source = img.parentElement?.tagName === 'PICTURE' ? (img.parentElement.querySelector('source')?.srcset ?? '') : '';
      const candidate = [img.srcset, source]
        .join(',')
        .split(',')
        .filter((c) => c.trim() !== '')
        .map((c) => c.trim().split(/\s+/))
        .find(([url]) => new URL(url, location.href).href === img.currentSrc);
      const pixels = candidate && /^\d+w$/.test(candidate[1] ?? '') ? Number(candidate[1].slice(0, -1)) : img.naturalWidth;
      if (device > pixels * 1.01) drawnAbove++;
      maxFetchRatio = Math.max(maxFetchRatio, pixels / device);
      area += box.width * box.height;
      if (fit === 'cover') cropped += box.width * box.height * (1 - Math.min(boxRatio / imgRatio, imgRatio / boxRatio));
    }
    return { shown, drawnAbove, maxFetchRatio, croppedShare: area > 0 ? cropped / area : 0, cls, lcp };
  });
}

// The studio's media grid at 10 000 medias (issue 21): in chromium, a fresh browser signs in
// and opens the library; measured: the JavaScript and CSS transferred (compressed, as the
// wire carries them) by the first screen after sign-in and by the grid (target: at most
// 250 kB), then the grid scrolled to its end a screen at a time (a pause of 60 ms each) and
// flung back in one motion: the most cells and thumbnails in the DOM at once and the most
// thumbnail requests in flight, against one screenful of rows plus the overscan (half a screen
// above and below). Medias are seeded by SQL, each with a copy of one real thumbnail.
import { linkSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { nowIso } from '../src/database/db.js';
import { insertMedias } from '../test/support/media.js';
import type { TestUser } from '../test/support/service.js';
import { chromiumPresent, CHROMIUM, launchChromium, uploadPhoto, waitForRenditions } from '../test/site/site-support.js';
import type { BenchContext, BenchLine } from './lib.js';

const MEDIAS = Number(process.env.BENCH_GRID_MEDIAS ?? 10_000);
const RUNS = Number(process.env.BENCH_GRID_RUNS ?? 3);
const LIMIT_BYTES = 250 * 1000;

function findFile(dir: string, key: string): string {
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath, e.name);
    if (e.isFile() && path.endsWith(key)) return path;
  }
  throw new Error(`no stored file for ${key}`);
}

export async function benchStudioGrid(b: BenchContext): Promise<BenchLine[]> {
  if (!chromiumPresent) return [{ name: `studio grid: ${CHROMIUM} missing`, value: 0, unit: 'kB', target: '<= 250 kB', ok: false }];
  const website = await b.db.selectFrom('websites').select('id').where('urlname', '=', 'bench').executeTakeFirstOrThrow();
  const root = await b.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const photo = await uploadPhoto(b, root.uuid, 0, 800);
  await waitForRenditions({ svc: { db: b.db } }, [photo]);
  const source = await b.db.selectFrom('medias').select('id').where('uuid', '=', photo).executeTakeFirstOrThrow();
  const [view] = await b.db.selectFrom('renditions').selectAll().where('media_id', '=', source.id).orderBy('width').limit(1).execute();
  const file = findFile(b.dataDir, view.storage_key);
  const storeRoot = file.slice(0, file.length - view.storage_key.length);
  const seeded = await insertMedias(b.db, b.user as unknown as TestUser, MEDIAS - 1);
  for (let i = 0; i < seeded.length; i += 500) {
    const ids = await b.db.selectFrom('medias').select('id').where('uuid', 'in', seeded.slice(i, i + 500)).execute();
    const rows = ids.map((m) => {
      const key = `${view.storage_key}-g${m.id}`;
      linkSync(file, storeRoot + key);
      return { media_id: m.id, name: view.name, width: view.width, height: view.height, mime_type: view.mime_type, storage_key: key, bytes: view.bytes, created_at: nowIso() };
    });
    for (let j = 0; j < rows.length; j += 100) await b.db.insertInto('renditions').values(rows.slice(j, j + 100)).execute();
  }
  await b.db.updateTable('medias').set({ renditions_state: 'ready' }).where('owner_id', '=', b.user.id).execute();

  const browser = await launchChromium();
  const runs: Array<{ firstScreen: number; grid: number; cells: number; images: number; inFlight: number; ownInFlight: number; bound: number; flingThumbs: number; total: number }> = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const assets: Array<{ url: string; bytes: Promise<number> }> = [];
      let inFlight = 0;
      let mostInFlight = 0;
      let thumbs = 0;
      page.on('request', (r) => {
        if (r.url().includes('/studio/thumbs/')) {
          inFlight++;
          thumbs++;
          mostInFlight = Math.max(mostInFlight, inFlight);
        }
      });
      const settled = (r: { url(): string }) => {
        if (r.url().includes('/studio/thumbs/')) inFlight--;
      };
      page.on('requestfinished', (r) => {
        settled(r);
        const type = r.resourceType();
        if (type === 'script' || type === 'stylesheet') assets.push({ url: r.url(), bytes: r.sizes().then((s) => s.responseBodySize) });
      });
      page.on('requestfailed', settled);
      await page.goto(`${b.url}/studio/signin`);
      await page.getByLabel('E-mail address').fill(b.user.email);
      await page.getByLabel('Password').fill(b.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/studio/websites');
      await page.waitForLoadState('networkidle');
      const sum = async () => (await Promise.all(assets.map((a) => a.bytes))).reduce((x, y) => x + y, 0);
      const firstScreen = await sum();
      await page.goto(`${b.url}/studio/media`);
      await page.locator('#grid .vcell').first().waitFor();
      await page.waitForLoadState('networkidle');
      const grid = await sum();
      let cells = 0;
      let images = 0;
      let bound = 0;
      let ownInFlight = 0;
      for (let step = 0; step < 5000; step++) {
        const c = await page.evaluate(() => {
          const box = document.getElementById('grid')!;
          const all = box.querySelectorAll('.vcell');
          const first = all[0] as HTMLElement | undefined;
          const rowH = first ? first.offsetHeight : 1;
          const cols = Math.max(1, Math.round(box.clientWidth / (first ? first.offsetWidth : 1)));
          const inView = Math.ceil(box.clientHeight / rowH) + 1;
          const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
          const loading = box.querySelectorAll('img[data-loading]').length;
          if (!atEnd) box.scrollBy(0, box.clientHeight);
          return { loading, cells: all.length, images: box.querySelectorAll('img[src]').length, bound: (inView + 2 * Math.ceil(inView / 2)) * cols, atEnd };
        });
        cells = Math.max(cells, c.cells);
        images = Math.max(images, c.images);
        bound = c.bound;
        ownInFlight = Math.max(ownInFlight, c.loading);
        if (c.atEnd) break;
        await page.waitForTimeout(60);
      }
      await page.waitForTimeout(500);
      const flung: string[] = [];
      const note = (r: { url(): string }) => {
        if (r.url().includes('/studio/thumbs/')) flung.push(new URL(r.url()).pathname);
      };
      page.on('request', note);
      await page.locator('#grid').evaluate(async (el) => {
        for (let i = 0; i < 60; i++) {
          el.scrollTop = el.scrollHeight * (1 - i / 60);
          await new Promise((r) => requestAnimationFrame(r));
        }
        el.scrollTop = 0;
      });
      await page.waitForTimeout(800);
      page.off('request', note);
      // Asked for rows the fling passed: not those of the window where it stopped.
      const shown = new Set(await page.locator('#grid img[src]').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).dataset.src ?? '')));
      runs.push({ firstScreen, grid, cells, images, inFlight: mostInFlight, ownInFlight, bound, flingThumbs: flung.filter((u) => !shown.has(u)).length, total: thumbs });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const span = (pick: (r: (typeof runs)[number]) => number) => {
    const v = runs.map(pick);
    return `${Math.min(...v)}–${Math.max(...v)}`;
  };
  const worst = (pick: (r: (typeof runs)[number]) => number) => Math.max(...runs.map(pick));
  const bound = worst((r) => r.bound);
  return [
    { name: `studio first screen after sign-in: JS+CSS transferred (${RUNS} runs: ${span((r) => r.firstScreen)} B)`, value: worst((r) => r.firstScreen) / 1000, unit: 'kB', target: '<= 250 kB', ok: worst((r) => r.firstScreen) <= LIMIT_BYTES },
    { name: `studio grid of ${MEDIAS}: JS+CSS transferred (sign-in to grid, ${span((r) => r.grid)} B)`, value: worst((r) => r.grid) / 1000, unit: 'kB', target: '<= 250 kB', ok: worst((r) => r.grid) <= LIMIT_BYTES },
    { name: `grid of ${MEDIAS} scrolled to the end: most cells in the DOM (${span((r) => r.cells)})`, value: worst((r) => r.cells), unit: '', target: `<= ${bound} (screen + overscan)`, ok: worst((r) => r.cells) <= bound },
    { name: `grid scrolled: most thumbnails in the DOM (${span((r) => r.images)})`, value: worst((r) => r.images), unit: '', target: `<= ${bound}`, ok: worst((r) => r.images) <= bound },
    { name: `grid scrolled: most thumbnail loads the page holds at once (${span((r) => r.ownInFlight)})`, value: worst((r) => r.ownInFlight), unit: '', target: '<= 12', ok: worst((r) => r.ownInFlight) <= 12 },
    { name: `grid scrolled: most thumbnail requests open, as the browser reports them (${span((r) => r.inFlight)})`, value: worst((r) => r.inFlight), unit: '', target: `<= ${bound}`, ok: worst((r) => r.inFlight) <= bound },
    { name: `grid flung from end to top: thumbnails asked for rows passed (${span((r) => r.flingThumbs)})`, value: worst((r) => r.flingThumbs), unit: '', target: `<= ${bound}`, ok: worst((r) => r.flingThumbs) <= bound },
    { name: `grid: thumbnails asked in all, of ${MEDIAS} (${span((r) => r.total)})`, value: worst((r) => r.total), unit: '' },
  ];
}

// The media library in a real browser (chromium through playwright-core): a library of 400
// medias with thumbnails; shift-click a range, ctrl-click, keyboard selection; bulk keywords
// through the batch job, its progress seen to complete and the API agreeing; the virtualised
// grid keeps at most a screenful of rows plus overscan in the DOM while scrolling to the end;
// a manual gallery reordered by drag and drop and by keyboard ("Move later"); axe on every screen at desktop and
// phone sizes. All of it on SQLite with local files and on PostgreSQL with S3
// (test/studio/studio-backends.ts). Screenshots go to /tmp/shots-media/ (outside the repository).
import { CopyObjectCommand } from '@aws-sdk/client-s3';
import { linkSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find } from '../../src/client/xml.js';
import { nowIso } from '../../src/database/db.js';
import { createGallery, getMedia, insertMedias, uuidsOf } from '../support/media.js';
import type { World } from '../support/world.js';
import { chromiumPresent, launchChromium, uploadPhoto, waitForRenditions, axe } from '../site/site-support.js';
import { BACKENDS, bucketClient, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = process.env.STUDIO_MEDIA_SHOTS ?? '/tmp/shots-media';
const LIBRARY = 400;


/** Cells and thumbnails in the DOM now, and the most the window may hold (rows in view, half a screen above and below). */
function census(page: Page) {
  return page.evaluate(() => {
    const box = document.getElementById('grid')!;
    const cells = box.querySelectorAll('.vcell');
    const first = cells[0] as HTMLElement | undefined;
    const rowH = first ? first.offsetHeight : 1;
    const cols = Math.max(1, Math.round(box.clientWidth / (first ? first.offsetWidth : 1)));
    const inView = Math.ceil(box.clientHeight / rowH) + 1;
    return { cells: cells.length, images: box.querySelectorAll('img[src]').length, bound: (inView + 2 * Math.ceil(inView / 2)) * cols, atEnd: box.scrollTop + box.clientHeight >= box.scrollHeight - 2 };
  });
}

/** The path of a stored object in the local store under `dir`. */
function findFile(dir: string, key: string): string {
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath, e.name);
    if (e.isFile() && path.endsWith(key)) return path;
  }
  throw new Error(`no stored file for ${key}`);
}

describe.skipIf(!chromiumPresent).each(BACKENDS)('the media library in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let medias: string[];
  let gallery: string;

  beforeAll(async () => {
    on = await startOn(backend);
    w = on.w;
    // One real photo and its renditions; the library's other medias share them (seeded in bulk).
    const photo = await uploadPhoto(w, w.rootUuid, 0, 800);
    await waitForRenditions(w, [photo]);
    const db = w.svc.db;
    const source = await db.selectFrom('medias').select('id').where('uuid', '=', photo).executeTakeFirstOrThrow();
    // Its smallest rendition, copied under a key of each media's own (keys are unique): a hard link in
    // the local store, an object copied in the bucket.
    const [view] = await db.selectFrom('renditions').selectAll().where('media_id', '=', source.id).orderBy('width').limit(1).execute();
    medias = await insertMedias(db, w.user, Array.from({ length: LIBRARY - 1 }, (_, i) => ({ title: `Photo ${i + 2}` })));
    const ids = await db.selectFrom('medias').select('id').where('uuid', 'in', medias).execute();
    const keyOf = (id: number) => `${view.storage_key}-copy-${id}`;
    if (on.s3) {
      const s3 = on.s3;
      const bucket = bucketClient(s3);
      for (let i = 0; i < ids.length; i += 10) {
        await Promise.all(ids.slice(i, i + 10).map((m) => bucket.send(new CopyObjectCommand({ Bucket: s3.bucket, CopySource: `${s3.bucket}/${view.storage_key}`, Key: keyOf(m.id) }))));
      }
      bucket.destroy();
    } else {
      const file = findFile(w.svc.config.dataDir, view.storage_key);
      const root = file.slice(0, file.length - view.storage_key.length);
      for (const m of ids) linkSync(file, root + keyOf(m.id));
    }
    const rows = ids.map((m) => ({ media_id: m.id, name: view.name, width: view.width, height: view.height, mime_type: view.mime_type, storage_key: keyOf(m.id), bytes: view.bytes, created_at: nowIso() }));
    for (let i = 0; i < rows.length; i += 100) await db.insertInto('renditions').values(rows.slice(i, i + 100)).execute();
    await db.updateTable('medias').set({ renditions_state: 'ready' }).where('uuid', 'in', medias).execute();
    medias = [photo, ...medias];
    gallery = await createGallery(w, 'Wedding');
    await w.client.request('PUT', '/medias/batch_update.xml', { select: medias.slice(0, 8).join(','), 'medias[publish_to_galleries]': gallery });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  async function signedIn(viewport: { width: number; height: number }, scale: number, phone: boolean) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: phone, hasTouch: phone });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      // Refusals the browser reports (the CSP's among them); the answers' statuses are listed apart.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('response', (r) => {
      // The browser's own favicon request is no page's (the studio has none).
      if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await signInBrowser(page, w.svc.url, w.user);
    return { context, page, problems };
  }

  it('selects with shift-click, edits the keywords of the selection in bulk and sees the job complete; the grid stays a window while scrolling', async () => {
    const { context, page, problems } = await signedIn({ width: 1280, height: 800 }, 1, false);
    const thumbs = new Set<string>();
    // Thumbnail requests open at once, as the browser reports them (not the page's own count).
    let open = 0;
    let mostOpen = 0;
    page.on('request', (r) => {
      if (!r.url().includes('/studio/thumbs/')) return;
      thumbs.add(r.url());
      mostOpen = Math.max(mostOpen, ++open);
    });
    const settled = (r: { url(): string }) => {
      if (r.url().includes('/studio/thumbs/')) open--;
    };
    page.on('requestfinished', settled);
    page.on('requestfailed', settled);
    await page.getByRole('link', { name: 'Media' }).click();
    await page.waitForURL('**/studio/media');
    const grid = page.getByRole('listbox', { name: /Medias/ });
    await grid.getByRole('option', { name: 'Photo 3', exact: true }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, 'library-desktop.png') });

    // Click the 2nd, shift-click the 5th: four selected; ctrl-click adds the 7th.
    await grid.getByRole('option', { name: 'Photo 2', exact: true }).click();
    await grid.getByRole('option', { name: 'Photo 5', exact: true }).click({ modifiers: ['Shift'] });
    await expect.poll(() => page.locator('#selected-count').textContent()).toBe('4 selected');
    await grid.getByRole('option', { name: 'Photo 7', exact: true }).click({ modifiers: ['Control'] });
    await expect.poll(() => page.locator('#selected-count').textContent()).toBe('5 selected');
    expect(await grid.locator('[aria-selected=true]').count()).toBe(5);
    // The keyboard: shift+right from the 7th extends to the 8th (a new range from the anchor).
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => page.locator('#selected-count').textContent()).toBe('2 selected');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press(' ');
    await expect.poll(() => page.locator('#selected-count').textContent()).toBe('3 selected');

    await page.getByText('Edit title, description, keywords, location, galleries, price lists').click();
    await page.getByLabel('Keywords', { exact: true }).fill('bride, rings');
    await page.screenshot({ path: join(SHOTS, 'batch-desktop.png') });
    await page.getByRole('button', { name: 'Apply to the selection' }).click();
    await expect.poll(() => page.locator('#job-text').textContent(), { timeout: 20_000 }).toBe('Done: 3 of 3 medias.');
    expect(await page.locator('#job-progress').evaluate((p: HTMLProgressElement) => [p.value, p.max])).toEqual([3, 3]);
    await expect.poll(() => page.locator('#batch-message').textContent()).toBe('Edited 3 medias.');
    await page.screenshot({ path: join(SHOTS, 'job-done-desktop.png') });
    // Photos 6, 7 and 8 (the 6th by space, 7th and 8th by shift+arrow), as the API reads them.
    for (const i of [5, 6, 7]) expect(all(find((await getMedia(w.client, medias[i], 'details')).doc, 'media')!, 'keywords/keyword').map((n) => n.text)).toEqual(['bride', 'rings']);
    expect(all(find((await getMedia(w.client, medias[4], 'details')).doc, 'media')!, 'keywords/keyword')).toHaveLength(0);

    // Scroll to the end in steps: never more than the window in the DOM, and not every thumbnail asked for.
    let most = 0;
    for (let step = 0; step < 200; step++) {
      const c = await census(page);
      expect(c.cells).toBeLessThanOrEqual(c.bound);
      expect(c.images).toBeLessThanOrEqual(c.bound);
      most = Math.max(most, c.cells);
      if (c.atEnd) break;
      await page.locator('#grid').evaluate((el) => el.scrollBy(0, el.clientHeight * 0.9));
      // Now and then a pause long enough for the thumbnails to be asked for, then on before they arrive.
      await page.waitForTimeout(step % 3 === 2 ? 170 : 40);
    }
    expect((await census(page)).atEnd).toBe(true);
    await grid.getByRole('option', { name: `Photo ${LIBRARY}`, exact: true }).waitFor();
    expect(most).toBeLessThan(LIBRARY / 2);
    // A scroll that left rows behind cancelled their requests: the network never held more than the page's 12.
    expect(mostOpen).toBeGreaterThan(0);
    expect(mostOpen).toBeLessThanOrEqual(12);
    // Where it stopped, the thumbnails show (fetched, then drawn from memory under the studio's CSP).
    await expect.poll(() => page.locator('#grid img[src]').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length)).toBeGreaterThan(0);
    // A fling back to the top, a frame per step: the rows passed ask for no thumbnail (only where it stops).
    await page.waitForTimeout(500);
    const before = thumbs.size;
    const seen = new Set(thumbs);
    thumbs.clear();
    await page.locator('#grid').evaluate(async (el) => {
      for (let i = 0; i < 30; i++) {
        el.scrollTop = el.scrollHeight * (1 - i / 30);
        await new Promise((r) => requestAnimationFrame(r));
      }
      el.scrollTop = el.scrollHeight / 2;
    });
    await page.waitForTimeout(600);
    const bound = (await census(page)).bound;
    expect(before).toBeGreaterThan(0);
    expect([...thumbs].filter((t) => !seen.has(t)).length).toBeLessThanOrEqual(bound);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('reorders a manual gallery by drag and drop at desktop size, as the API lists it', async () => {
    const { context, page, problems } = await signedIn({ width: 1280, height: 800 }, 1, false);
    const order = async () => uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: gallery }));
    const before = await order();
    // The thumbnails are held back until the drop: a cell is grabbed by its picture's place before
    // the picture has come (a slow network, a media with no thumbnail yet). Chromium would not start
    // a drag from an <img> still without its image, inside a draggable cell, until the cell's
    // pictures were made not draggable of their own.
    const held: Route[] = [];
    let holding = true;
    await page.route('**/studio/thumbs/**', (route) => (holding ? void held.push(route) : route.continue()));
    await page.goto(`${w.svc.url}/studio/media?gallery=${gallery}`);
    const grid = page.getByRole('listbox', { name: /Medias/ });
    const first = grid.locator('#m-0');
    const fifth = grid.locator('#m-4');
    await expect.poll(() => fifth.locator('.cap').textContent()).toBe('Photo 5');
    await expect.poll(() => held.length).toBeGreaterThan(0);
    const box = (await fifth.boundingBox())!;
    // Dropped on the left half of the fifth: just before it, the cell taken by the middle of its picture.
    await first.dragTo(fifth, { sourcePosition: { x: box.width / 2, y: box.width / 2 }, targetPosition: { x: 5, y: box.height / 2 } });
    await expect.poll(order).toEqual([...before.slice(1, 4), before[0], ...before.slice(4)]);
    // The grid reloads in the new order.
    await expect.poll(() => grid.locator('#m-3 .cap').textContent()).toBe('Photo 1');
    holding = false;
    for (const route of held) await route.continue().catch(() => undefined);
    // And by its picture once the pictures have come: Photo 1 back to the front.
    const moved = grid.locator('#m-3');
    await expect.poll(() => moved.locator('img').evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)).toBe(true);
    await moved.dragTo(grid.locator('#m-0'), { sourcePosition: { x: box.width / 2, y: box.width / 2 }, targetPosition: { x: 5, y: box.height / 2 } });
    await expect.poll(order).toEqual(before);
    await expect.poll(() => grid.locator('#m-0 .cap').textContent()).toBe('Photo 1');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("reorders a manual gallery with the keyboard's Move later, as the API lists it; phone size passes axe", async () => {
    const { context, page, problems } = await signedIn({ width: 390, height: 844 }, 3, true);
    const order = async () => uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: gallery }));
    const before = await order();
    const at = before.indexOf(medias[1]);
    await page.goto(`${w.svc.url}/studio/media?gallery=${gallery}`);
    const grid = page.getByRole('listbox', { name: /Medias/ });
    await grid.getByRole('option', { name: 'Photo 2', exact: true }).click();
    await page.getByRole('button', { name: 'Move later' }).click();
    const after = [...before];
    [after[at], after[at + 1]] = [after[at + 1], after[at]];
    await expect.poll(order).toEqual(after);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'gallery-phone.png') });
    await page.goto(`${w.svc.url}/studio/media/${medias[0]}`);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'detail-phone.png'), fullPage: true });
    // Without script: the forms' page (the same screen, its paged grid).
    await page.goto(`${w.svc.url}/studio/media`);
    await page.screenshot({ path: join(SHOTS, 'library-phone.png') });
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});

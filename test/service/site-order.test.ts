// Website pages cost their slice (issue 22): a gallery's visible order is kept
// under its order_stamp, which triggers move in every writing transaction
// (migration 010). Checked against a brute-force expectation (every visible
// media sorted by the content order's comparator) for every content order and
// direction: each page's medias, the last page, the page after it, and every
// media page's previous and next; then that each kind of write moves the order
// at once; and the sitemap's parts beyond its limit. On SQLite, and on
// PostgreSQL when TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/app.js';
import { sortByContentOrder, type OrderableMedia } from '../../src/galleries/content-order.js';
import { CONTENT_ORDERS, DIRECTIONS } from '../../src/galleries/input.js';
import { VisitorAccess } from '../../src/site/access.js';
import type { SiteAddress } from '../../src/site/address.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { SiteRepository } from '../../src/site/repository.js';
import { sitemapXml } from '../../src/site/pages/routes.js';
import { MEDIAS_PER_PAGE, SiteService, type GalleryView, type MediaView } from '../../src/site/service.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;
const N = 137; // 3 pages of 60: 60, 60, 17 visible (and a few invisible ones besides)

interface Seeded extends OrderableMedia {
  visible: boolean;
}

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`website gallery order and sitemap (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    let core: Core;
    let site: SiteService;
    let small: SiteService;
    let at: SiteAddress;
    let galleryId: number;
    let rows: Seeded[] = [];

    beforeAll(async () => {
      core = w.core;
      const { user } = await core.users.create({ email: 'order@example.com', password: 'correct horse battery staple' });
      await core.websites.create(user, { urlname: 'order', title: 'Order' });
      const d = core.store.db;
      const website = await d.selectFrom('websites').select(['id', 'uuid', 'urlname', 'title', 'hostname', 'owner_id']).where('urlname', '=', 'order').executeTakeFirstOrThrow();
      const root = await d.selectFrom('galleries').select('id').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
      galleryId = root.id;
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
      // Ties, missing values, mixed case and numbers in names: what each order must settle the same way.
      const names = ['IMG_2.jpg', 'img_10.jpg', 'IMG_1.jpg', 'b.jpg', 'A.jpg', 'a.JPG', 'img_002.jpg'];
      const day = (n: number) => new Date(Date.UTC(2024, 0, 1 + n)).toISOString();
      const planned = Array.from({ length: N + 10 }, (_, i) => ({
        uuid: randomUUID(),
        owner_id: user.id,
        artist_id: artist.id,
        status: i % 31 === 7 ? 'pending' : 'live',
        renditions_state: i % 29 === 5 ? 'failed' : 'ready',
        file_name: `${names[i % names.length].replace('.', `_${i % 11}.`)}`,
        shot_at: i % 5 === 0 ? null : day((i * 13) % 40),
        artist_rating: i % 4 === 0 ? null : i % 6,
        created_at: day((i * 7) % 50),
        updated_at: day((i * 3) % 20),
      }));
      const inserted = await d.insertInto('medias').values(planned).returning(['id', 'uuid']).execute();
      const mg = inserted.map((m, i) => ({ gallery_id: galleryId, media_id: m.id, position: (i * 17) % 40, published_at: day((i * 11) % 30) }));
      await d.insertInto('media_galleries').values(mg).execute();
      rows = inserted.map((m, i) => ({
        media_id: m.id,
        uuid: m.uuid,
        position: mg[i].position,
        file_name: planned[i].file_name,
        mg_published_at: mg[i].published_at,
        shot_at: planned[i].shot_at,
        created_at: planned[i].created_at,
        updated_at: planned[i].updated_at,
        artist_rating: planned[i].artist_rating,
        visible: planned[i].status === 'live' && planned[i].renditions_state !== 'failed',
      }));
      expect(rows.filter((r) => r.visible)).toHaveLength(N);
      const repo = new SiteRepository(d);
      const urls = new FileUrls(Buffer.alloc(32, 1), '');
      const config = { publicUrl: 'https://svc.example' };
      site = new SiteService(repo, new VisitorAccess(repo, urls), urls, config);
      small = new SiteService(repo, new VisitorAccess(repo, urls), urls, config, 50);
      at = { website, home: 'https://svc.example/sites/order', homePath: '/sites/order' };
    });

    const expected = (order: string, direction: string) => sortByContentOrder(rows.filter((r) => r.visible).map((r) => ({ ...r })), order, direction).map((r) => r.uuid);

    async function galleryPages(): Promise<string[][]> {
      const first = (await site.gallery(at, '', 1, undefined)) as GalleryView;
      expect(first.kind).toBe('gallery');
      const pages = [first.medias.map((m) => m.uuid)];
      for (let p = 2; p <= first.pages; p++) {
        const v = (await site.gallery(at, '', p, undefined)) as GalleryView;
        expect(v.pages).toBe(first.pages);
        pages.push(v.medias.map((m) => m.uuid));
      }
      expect(await site.gallery(at, '', first.pages + 1, undefined)).toEqual({ kind: 'not-found' });
      return pages;
    }

    async function setOrder(order: string, direction: string) {
      await core.store.db.updateTable('galleries').set({ content_order: order, content_order_direction: direction }).where('id', '=', galleryId).execute();
    }

    for (const order of CONTENT_ORDERS) {
      for (const direction of DIRECTIONS) {
        it(`pages, the last page and every previous/next in ${order} ${direction}`, async () => {
          await setOrder(order, direction);
          const want = expected(order, direction);
          const pages = await galleryPages();
          expect(pages).toHaveLength(Math.ceil(N / MEDIAS_PER_PAGE));
          expect(pages.at(-1)).toEqual(want.slice((pages.length - 1) * MEDIAS_PER_PAGE));
          expect(pages.flat()).toEqual(want);
          for (let i = 0; i < want.length; i++) {
            const v = (await site.media(at, '', want[i], undefined)) as MediaView;
            expect(v.kind).toBe('media');
            expect(v.prev?.split('/_/')[1]).toBe(want[i - 1]);
            expect(v.next?.split('/_/')[1]).toBe(want[i + 1]);
          }
          for (const hidden of rows.filter((r) => !r.visible)) expect(await site.media(at, '', hidden.uuid, undefined)).toEqual({ kind: 'not-found' });
        });
      }
    }

    it('shows each write at once: a field of the order, a failed rendition, a media gone live, unpublished, moved, published', async () => {
      const d = core.store.db;
      await setOrder('shot_at', 'asc');
      await galleryPages(); // the order is now kept
      const check = async () => expect((await galleryPages()).flat()).toEqual(expected('shot_at', 'asc'));
      const [a, b, c] = rows.filter((r) => r.visible);
      rows.find((r) => r.uuid === a.uuid)!.shot_at = '1999-01-01T00:00:00.000Z';
      await d.updateTable('medias').set({ shot_at: '1999-01-01T00:00:00.000Z' }).where('id', '=', a.media_id).execute();
      await check();
      rows.find((r) => r.uuid === b.uuid)!.visible = false;
      await d.updateTable('medias').set({ renditions_state: 'failed' }).where('id', '=', b.media_id).execute();
      await check();
      const pending = rows.find((r) => !r.visible && r.uuid !== b.uuid)!;
      const p = await d.selectFrom('medias').select(['status', 'renditions_state']).where('id', '=', pending.media_id).executeTakeFirstOrThrow();
      await d.updateTable('medias').set({ status: 'live', renditions_state: 'ready' }).where('id', '=', pending.media_id).execute();
      pending.visible = true;
      await check();
      await d.updateTable('medias').set(p).where('id', '=', pending.media_id).execute();
      pending.visible = false;
      await check();
      await d.deleteFrom('media_galleries').where('gallery_id', '=', galleryId).where('media_id', '=', c.media_id).execute();
      rows = rows.filter((r) => r.uuid !== c.uuid);
      await check();
      await setOrder('manual-last', 'asc');
      await d.updateTable('media_galleries').set({ position: -5 }).where('gallery_id', '=', galleryId).where('media_id', '=', a.media_id).execute();
      rows.find((r) => r.uuid === a.uuid)!.position = -5;
      expect((await galleryPages()).flat()).toEqual(expected('manual-last', 'asc'));
      await d.insertInto('media_galleries').values({ gallery_id: galleryId, media_id: c.media_id, position: 1000, published_at: c.mg_published_at }).execute();
      rows.push({ ...c, position: 1000 });
      expect((await galleryPages()).flat()).toEqual(expected('manual-last', 'asc'));
      // A media deleted leaves the order (its membership goes with it).
      await d.deleteFrom('media_galleries').where('media_id', '=', c.media_id).execute();
      await d.deleteFrom('medias').where('id', '=', c.media_id).execute();
      rows = rows.filter((r) => r.uuid !== c.uuid);
      expect((await galleryPages()).flat()).toEqual(expected('manual-last', 'asc'));
    });

    it('lists media pages in the sitemap, and beyond its limit answers an index of parts that hold every address once', async () => {
      const visible = rows.filter((r) => r.visible).map((r) => r.uuid);
      const whole = await site.sitemap(at.website);
      expect(whole?.kind).toBe('urls');
      const locs = whole!.kind === 'urls' ? whole!.entries.map((e) => e.loc) : [];
      expect(locs[0]).toBe('https://svc.example/sites/order/');
      expect(locs.slice(1).sort()).toEqual(visible.map((u) => `https://svc.example/sites/order/_/${u}`).sort());
      expect(await site.sitemap(at.website, 1)).toBeUndefined();

      const index = await small.sitemap(at.website);
      const parts = Math.ceil((visible.length + 1) / 50);
      expect(index).toEqual({ kind: 'index', parts: Array.from({ length: parts }, (_, i) => `https://svc.example/sites/order/sitemap-${i + 1}.xml`) });
      const all: string[] = [];
      for (let p = 1; p <= parts; p++) {
        const part = await small.sitemap(at.website, p);
        expect(part?.kind).toBe('urls');
        const entries = part!.kind === 'urls' ? part!.entries : [];
        expect(entries.length).toBe(p < parts ? 50 : visible.length + 1 - 50 * (parts - 1));
        all.push(...entries.map((e) => e.loc));
      }
      expect(all).toEqual(locs);
      expect(await small.sitemap(at.website, parts + 1)).toBeUndefined();
      expect(await small.sitemap(at.website, 0)).toBeUndefined();

      // As served: a <sitemapindex> of the parts, each part a <urlset>.
      const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
      const partLocs = index?.kind === 'index' ? index.parts : [];
      expect(sitemapXml(index!)).toBe(
        `${head}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
          partLocs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('') +
          '</sitemapindex>',
      );
      const last = (await small.sitemap(at.website, parts))!;
      expect(sitemapXml(last).startsWith(`${head}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://svc.example/sites/order/_/`)).toBe(true);
    });

    it('cuts the sitemap into parts across galleries, each part a window of the galleries\' orders', async () => {
      const d = core.store.db;
      const visible = rows.filter((r) => r.visible);
      // Two sub-galleries: 37 and 23 of the visible medias (a media may be in several galleries: one address in each).
      const subs: Array<{ path: string; uuids: string[] }> = [];
      for (const [name, from, n] of [['Second', 0, 37], ['Third', 50, 23]] as const) {
        const now = new Date().toISOString();
        const path = name.toLowerCase();
        const g = await d
          .insertInto('galleries')
          .values({ uuid: randomUUID(), website_id: at.website.id, parent_id: galleryId, list_pos: from, name, url_path: path, full_url_path: path, description: null, password_hash: null, display_style_id: null, cover_media_id: null, published_at: now, created_at: now, updated_at: now })
          .returning(['id', 'full_url_path'])
          .executeTakeFirstOrThrow();
        const id = g.id;
        const some = visible.slice(from, from + n);
        await d.insertInto('media_galleries').values(some.map((r, i) => ({ gallery_id: id, media_id: r.media_id, position: i, published_at: r.mg_published_at }))).execute();
        subs.push({ path: g.full_url_path, uuids: some.map((r) => r.uuid) });
      }
      const whole = await site.sitemap(at.website);
      const locs = whole!.kind === 'urls' ? whole!.entries.map((e) => e.loc) : [];
      expect(locs).toHaveLength(3 + visible.length + 37 + 23);
      for (const sub of subs) {
        expect(locs).toContain(`https://svc.example/sites/order/-/${sub.path}`);
        for (const u of sub.uuids) expect(locs).toContain(`https://svc.example/sites/order/-/${sub.path}/_/${u}`);
      }
      const parts = Math.ceil(locs.length / 50);
      const all: string[] = [];
      for (let p = 1; p <= parts; p++) {
        const part = (await small.sitemap(at.website, p))!;
        all.push(...(part.kind === 'urls' ? part.entries.map((e) => e.loc) : []));
      }
      expect(all).toEqual(locs);
      // A media that leaves a gallery leaves the sitemap at once (its gallery's stamp moved).
      const gone = subs[0]!.uuids[0]!;
      const goneId = visible[0]!.media_id;
      await d.deleteFrom('media_galleries').where('media_id', '=', goneId).where('gallery_id', '!=', galleryId).execute();
      const after = await site.sitemap(at.website);
      const afterLocs = after!.kind === 'urls' ? after!.entries.map((e) => e.loc) : [];
      expect(afterLocs).toHaveLength(locs.length - 1);
      expect(afterLocs).not.toContain(`https://svc.example/sites/order/-/${subs[0]!.path}/_/${gone}`);
    });
  });
}

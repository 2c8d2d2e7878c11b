// The cart, checkout and order pages are set-based (issue 33: "a checkout page costs no more than a
// gallery page of the same site"): the lines' medias, offers, whole galleries and one access
// decision for all their photos in a fixed number of reads, so a cart of 1 line and one of 20 lines
// send the same statements; on SQLite and PostgreSQL, through HTTP against a started service.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eachDatabase } from '../support/service.js';
import { readsOf, shapeOf } from '../support/statements.js';
import { attachProfile } from '../support/shop.js';
import { startWorld, type World } from '../support/world.js';
import { create, galleryId, publishMedias } from '../api/galleries-fixtures.js';
import { visit } from './site-support.js';

eachDatabase((kind) => {
  let w: World;
  let open: string[];
  let locked: string[];
  let profile: string;
  let whole: string;
  let websiteId: number;
  const cartPage = () => `/sites/${w.urlname}/_cart`;

  beforeAll(async () => {
    w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    const db = w.svc.db;
    websiteId = (await db.selectFrom('websites').select('id').where('urlname', '=', w.urlname).executeTakeFirstOrThrow()).id;
    // Photos in an open gallery and behind a password: the lines' photos cross two access decisions.
    const shown = await create(w, 'Shown');
    const family = await create(w, 'Family', w.rootUuid, { password: 'let me in' });
    open = await publishMedias(db, w.user, shown, Array.from({ length: 16 }, (_, i) => `open-${i}.jpg`));
    locked = await publishMedias(db, w.user, family, Array.from({ length: 4 }, (_, i) => `locked-${i}.jpg`));
    const list = await w.svc.core.pricingProfiles.createList({ id: w.user.id }, { name: 'Files', kind: 'download', currency: 'EUR', items: [{ param: 'a', label: 'Original file', longEdge: null, price: 900, options: [] }] });
    profile = list.uuid;
    for (const m of [...open, ...locked]) await attachProfile(db, m, profile);
    // A gallery sold whole, in both carts (its line shows its first photo).
    whole = await create(w, 'Whole');
    await publishMedias(db, w.user, whole, ['whole-1.jpg']);
    const listId = (await db.selectFrom('pricing_profiles').select('id').where('uuid', '=', profile).executeTakeFirstOrThrow()).id;
    await db.insertInto('gallery_sales').values({ gallery_id: await galleryId(db, whole), profile_id: listId, item_label: 'Original file', price: 4900, updated_at: new Date().toISOString() }).execute();
  }, 120_000);
  afterAll(() => w?.svc.close());

  /** A new cart of this website holding one line per media and the whole gallery; its cookie. */
  async function cartOf(medias: readonly string[]): Promise<string> {
    const cart = await w.svc.core.orders.createCart(websiteId);
    for (const media of medias) await w.svc.core.orders.setCartLine(cart.uuid, { media, profile, item: 'Original file', quantity: 2 });
    await w.svc.core.orders.setCartGallery(cart.uuid, whole, true);
    return `cart=${cart.uuid}`;
  }

  /**
   * The reads one request sends: on SQLite every statement the handle runs (the compile-once
   * lookups run there directly, past the query builder), on PostgreSQL every query the builder
   * executes; and its answer.
   */
  async function reads(send: () => ReturnType<typeof visit>): Promise<{ page: Awaited<ReturnType<typeof visit>>; statements: string[] }> {
    const { answer, statements } = await readsOf(kind, w.svc.db, send);
    return { page: answer, statements };
  }

  const shape = shapeOf;

  it('reads a cart of 20 lines with the statements of a cart of 1, and shows every line', async () => {
    const one = await cartOf([open[0]]);
    const twenty = await cartOf([...open, ...locked]);
    // Warm: the first visit of each may read what later ones find remembered (the website, its brand).
    await visit(w.svc, cartPage(), { cookie: one });
    await visit(w.svc, cartPage(), { cookie: twenty });
    const small = await reads(() => visit(w.svc, cartPage(), { cookie: one }));
    const big = await reads(() => visit(w.svc, cartPage(), { cookie: twenty }));
    expect(small.page.status).toBe(200);
    expect(big.page.status).toBe(200);
    expect(shape(big.statements)).toEqual(shape(small.statements));
    // Counted (the lookups are seen), and bounded: a cart page is a handful of reads.
    expect(small.statements.length).toBeGreaterThan(10);
    expect(big.statements.length).toBeLessThanOrEqual(30);
    // Each open photo links to its page; a photo behind the password is listed without its page or picture.
    for (const m of open) expect(big.page.body).toContain(`/-/shown/_/${m}`);
    for (const m of locked) expect(big.page.body).not.toContain(`/_/${m}`);
    expect(big.page.body).toContain('Whole');
    // 20 lines of 2 × €9.00 and the whole gallery at €49.00.
    expect(big.page.body).toContain('€409.00');
  });

  it('places an order of 20 lines and shows its page with the statements of an order of 1', async () => {
    const placed = async (cookie: string) => {
      const res = await reads(() => visit(w.svc, `${cartPage()}/checkout`, { form: { email: 'ann@example.com', method: 'manual' }, cookie, headers: { origin: w.svc.url } }));
      expect(res.page.status, res.page.body).toBe(303);
      const href = String(res.page.headers.location);
      const orders = String(res.page.headers['set-cookie']).match(/orders=[^;]+/)![0];
      return { checkout: res.statements, href, orders };
    };
    // Warm: the first order's mail reads what later ones find remembered (the website's brand and navigation).
    await placed(await cartOf([open[2]]));
    const small = await placed(await cartOf([open[1]]));
    const big = await placed(await cartOf([...open, ...locked]));
    expect(shape(big.checkout)).toEqual(shape(small.checkout));
    const pageOf = (o: { href: string; orders: string }) => reads(() => visit(w.svc, new URL(o.href, w.svc.url).pathname, { cookie: o.orders }));
    await pageOf(small);
    const [smallPage, bigPage] = [await pageOf(small), await pageOf(big)];
    expect(bigPage.page.status).toBe(200);
    expect(shape(bigPage.statements)).toEqual(shape(smallPage.statements));
    for (const m of open) expect(bigPage.page.body).toContain(`/-/shown/_/${m}`);
  });
});

// A website's coupons and shop settings through HTTP (API extension, docs/shop.md "Coupons, taxes
// and terms"): create, read, change, delete; 422 naming the field with nothing written; another's
// 404; uses counted on placed, non-cancelled orders, the last use claimed by one of two orders at
// once; the tax and terms copied into orders; fuzzed fields never a 5xx. SQLite and PostgreSQL.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, int, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';

const coupon = (doc: XmlNode) => find(doc, 'coupon')!;

eachDatabase((kind) => {
  let w: World;
  let other: World;
  let shop: Shop;
  const base = () => `/websites/${shop.urlname}`;
  const count = async () => Number((await w.svc.db.selectFrom('coupons').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    w = await startWorld(kind);
    other = await worldOn(w.svc);
    shop = await openShop(w.svc.core, w.user);
  });
  afterAll(() => w?.svc.close());

  it('creates, reads, lists, changes and deletes a coupon', async () => {
    const made = await w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'Spring-10', 'coupon[percent]': '10', 'coupon[valid_until]': '2099-12-31T23:59:59Z', 'coupon[max_uses]': '5' });
    const c = coupon(made.doc);
    const uuid = text(c, 'uuid')!;
    expect([text(c, 'code'), text(c, 'kind'), int(c, 'percent'), text(c, 'amount') ?? null, int(c, 'max-uses'), int(c, 'uses'), text(c, 'active')]).toEqual(['SPRING-10', 'percent', 10, null, 5, 0, 'true']);
    expect(text(made.doc, 'location')).toBe(`${base()}/coupons/${uuid}.xml`);
    expect(text(coupon((await w.client.request('GET', `${base()}/coupons/${uuid}.xml`)).doc), 'valid-until')).toMatch(/^2099-12-31T23:59:59/);
    const list = (await w.client.request('GET', `${base()}/coupons.xml`)).doc;
    expect(all(list, 'coupons/coupon').map((x) => text(x, 'uuid'))).toEqual([uuid]);
    // An amount coupon needs its currency; switching kind drops the percent.
    const changed = coupon((await w.client.request('PUT', `${base()}/coupons/${uuid}.xml`, { 'coupon[amount]': '500', 'coupon[currency]': 'EUR', 'coupon[active]': '0' })).doc);
    expect([text(changed, 'kind'), text(changed, 'percent') ?? null, int(changed, 'amount'), text(changed, 'currency'), text(changed, 'active')]).toEqual(['amount', null, 500, 'EUR', 'false']);
    await w.client.request('DELETE', `${base()}/coupons/${uuid}.xml`);
    expect((await failure(w.client.request('GET', `${base()}/coupons/${uuid}.xml`))).status).toBe(404);
  });

  it('refuses a wrong value with a 422 naming the field, and writes nothing', async () => {
    const before = await count();
    const refusals: Array<[Record<string, string>, string]> = [
      [{ 'coupon[percent]': '10' }, 'coupon[code]'],
      [{ 'coupon[code]': 'A'.repeat(33), 'coupon[percent]': '10' }, 'coupon[code]'],
      [{ 'coupon[code]': 'WITH SPACE', 'coupon[percent]': '10' }, 'coupon[code]'],
      [{ 'coupon[code]': 'ÉTÉ', 'coupon[percent]': '10' }, 'coupon[code]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '0' }, 'coupon[percent]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '101' }, 'coupon[percent]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '12.5' }, 'coupon[percent]'],
      [{ 'coupon[code]': 'X', 'coupon[amount]': '-100', 'coupon[currency]': 'EUR' }, 'coupon[amount]'],
      [{ 'coupon[code]': 'X', 'coupon[amount]': '1000000001', 'coupon[currency]': 'EUR' }, 'coupon[amount]'],
      [{ 'coupon[code]': 'X', 'coupon[amount]': '100' }, 'coupon[currency]'],
      [{ 'coupon[code]': 'X', 'coupon[amount]': '100', 'coupon[currency]': 'eur' }, 'coupon[currency]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '5', 'coupon[amount]': '100', 'coupon[currency]': 'EUR' }, 'coupon[percent]'],
      [{ 'coupon[code]': 'X' }, 'coupon[percent]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '5', 'coupon[valid_from]': '2026-12-02T00:00:00Z', 'coupon[valid_until]': '2026-12-01T00:00:00Z' }, 'coupon[valid_until]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '5', 'coupon[valid_from]': 'tomorrow' }, 'coupon[valid_from]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '5', 'coupon[max_uses]': '0' }, 'coupon[max_uses]'],
      [{ 'coupon[code]': 'X', 'coupon[percent]': '5', 'coupon[active]': 'maybe' }, 'coupon[active]'],
    ];
    for (const [params, field] of refusals) {
      const f = await failure(w.client.request('POST', `${base()}/coupons.xml`, params));
      expect([f.status, f.message], JSON.stringify(params)).toEqual([422, expect.stringContaining(field)]);
    }
    // A code is the photographer's, whatever its case.
    await w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'taken', 'coupon[percent]': '5' });
    const dup = await failure(w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'TAKEN', 'coupon[percent]': '5' }));
    expect([dup.status, dup.message]).toEqual([422, expect.stringContaining('coupon[code]')]);
    expect((await failure(w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'Y', 'coupon[percent]': '5', 'coupon[discount]': '5' }))).status).toBe(400);
    expect(await count()).toBe(before + 1);
  });

  it("answers 404 for another user's website or coupon, and for a coupon under another website", async () => {
    const c = coupon((await w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'MINE', 'coupon[percent]': '5' })).doc);
    const uuid = text(c, 'uuid')!;
    expect((await failure(other.client.request('GET', `${base()}/coupons.xml`))).status).toBe(404);
    expect((await failure(other.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'THEIRS', 'coupon[percent]': '5' }))).status).toBe(404);
    expect((await failure(other.client.request('PUT', `${base()}/coupons/${uuid}.xml`, { 'coupon[percent]': 'nope' }))).status).toBe(404);
    expect((await failure(other.client.request('DELETE', `${base()}/coupons/${uuid}.xml`))).status).toBe(404);
    expect((await failure(w.client.request('GET', `/websites/${w.urlname}/coupons/${uuid}.xml`))).status).toBe(404);
    expect((await failure(w.client.request('GET', `${base()}/coupons/not-a-uuid.xml`))).status).toBe(404);
    expect(int(coupon((await w.client.request('GET', `${base()}/coupons/${uuid}.xml`)).doc), 'percent')).toBe(5);
  });

  it('counts uses on placed orders that are not cancelled; a used-up coupon is refused, a cancellation gives the use back', async () => {
    const c = coupon((await w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': 'ONCE', 'coupon[amount]': '300', 'coupon[currency]': 'EUR', 'coupon[max_uses]': '1' })).doc);
    const uuid = text(c, 'uuid')!;
    const first = await placeOrder(w.svc.core, shop, { coupon: 'once', lines: [{ item: 'Web' }] });
    expect(int(coupon((await w.client.request('GET', `${base()}/coupons/${uuid}.xml`)).doc), 'uses')).toBe(1);
    const o = find((await w.client.request('GET', `/orders/${first}.xml`)).doc, 'order')!;
    expect([int(o, 'subtotal'), int(o, 'discount'), int(o, 'total'), text(o, 'coupon')]).toEqual([900, 300, 600, 'ONCE']);
    const refused = await w.svc.core.orders.createCart(shop.websiteId);
    await w.svc.core.orders.setCartLine(refused.uuid, { media: shop.media, profile: shop.downloads, item: 'Web', quantity: 1 });
    await expect(w.svc.core.orders.setCartCoupon(refused.uuid, 'ONCE')).rejects.toThrow(/cart\[coupon\].*used up/);
    await w.client.request('PUT', `/orders/${first}.xml`, { 'order[status]': 'cancelled' });
    expect(int(coupon((await w.client.request('GET', `${base()}/coupons/${uuid}.xml`)).doc), 'uses')).toBe(0);
    await w.svc.core.orders.setCartCoupon(refused.uuid, 'ONCE');
    // Expired and switched off: refused with the reason.
    await w.client.request('PUT', `${base()}/coupons/${uuid}.xml`, { 'coupon[valid_until]': '2020-01-01T00:00:00Z' });
    await expect(w.svc.core.orders.setCartCoupon(refused.uuid, 'ONCE')).rejects.toThrow(/expired/);
    await w.client.request('PUT', `${base()}/coupons/${uuid}.xml`, { 'coupon[valid_until]': '', 'coupon[active]': '0' });
    await expect(w.svc.core.orders.setCartCoupon(refused.uuid, 'ONCE')).rejects.toThrow(/not active/);
  });

  it('gives the last use to one of two orders placed at once; the other is refused whole', async () => {
    for (let round = 0; round < 5; round++) {
      const code = `LAST${round}`;
      const c = coupon((await w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': code, 'coupon[percent]': '50', 'coupon[max_uses]': '1' })).doc);
      const carts = await Promise.all([0, 1].map(() => w.svc.core.orders.createCart(shop.websiteId)));
      for (const cart of carts) {
        await w.svc.core.orders.setCartLine(cart.uuid, { media: shop.media, profile: shop.downloads, item: 'Web', quantity: 2 });
        await w.svc.core.orders.setCartCoupon(cart.uuid, code);
      }
      const results = await Promise.allSettled(carts.map((cart) => w.svc.core.orders.placeOrder(cart.uuid, { email: 'race@example.com' })));
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const lost = results.findIndex((r) => r.status === 'rejected');
      expect(String((results[lost] as PromiseRejectedResult).reason)).toMatch(/cart\[coupon\].*used up/);
      expect(int(coupon((await w.client.request('GET', `${base()}/coupons/${text(c, 'uuid')}.xml`)).doc), 'uses')).toBe(1);
      const withCode = await w.svc.db.selectFrom('orders').select('id').where('coupon_code', '=', code).execute();
      expect(withCode).toHaveLength(1);
      // The losing cart is still there with its line: nothing of its order was written.
      const left = await w.svc.db.selectFrom('carts').innerJoin('cart_items', 'cart_items.cart_id', 'carts.id').select(['carts.coupon_code', 'cart_items.quantity']).where('carts.uuid', '=', carts[lost].uuid).execute();
      expect(left.map((r) => [r.coupon_code, Number(r.quantity)])).toEqual([[code, 2]]);
    }
  });

  it.runIf(kind === 'postgres')('waits for a use being claimed by another transaction, then is refused when that one commits (PostgreSQL)', async () => {
    const code = 'HELD';
    const c = coupon((await w.client.request('POST', `${base()}/coupons.xml`, { 'coupon[code]': code, 'coupon[percent]': '50', 'coupon[max_uses]': '1' })).doc);
    const id = (await w.svc.db.selectFrom('coupons').select('id').where('uuid', '=', text(c, 'uuid')!).executeTakeFirstOrThrow()).id;
    const cart = await w.svc.core.orders.createCart(shop.websiteId);
    await w.svc.core.orders.setCartLine(cart.uuid, { media: shop.media, profile: shop.downloads, item: 'Web', quantity: 1 });
    await w.svc.core.orders.setCartCoupon(cart.uuid, code);
    let placing: Promise<unknown> | undefined;
    await w.svc.db.transaction().execute(async (trx) => {
      // Another checkout has claimed the last use and not committed yet: this order's pricing still sees it free.
      await trx.updateTable('coupons').set((eb) => ({ times_used: eb('times_used', '+', 1) })).where('id', '=', id).execute();
      placing = w.svc.core.orders.placeOrder(cart.uuid, { email: 'late@example.com' }).then(
        () => 'placed',
        (e: Error) => e.message,
      );
      // Until the order's own claim waits on that row's lock (no clock: the server says so).
      for (;;) {
        const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(w.svc.db);
        if (waiting.rows[0].n > 0) break;
        await new Promise((r) => setImmediate(r));
      }
    });
    expect(await placing).toMatch(/cart\[coupon\].*used up/);
    expect(await w.svc.db.selectFrom('orders').select('id').where('email', '=', 'late@example.com').execute()).toEqual([]);
    expect(int(coupon((await w.client.request('GET', `${base()}/coupons/${text(c, 'uuid')}.xml`)).doc), 'uses')).toBe(1);
  });

  it('reads and changes the shop settings; copies tax, label and the terms acceptance into orders', async () => {
    const taxed = await openShop(w.svc.core, w.user);
    const at = `/websites/${taxed.urlname}/shop_settings.xml`;
    const blank = find((await w.client.request('GET', at)).doc, 'shop-settings')!;
    expect([int(blank, 'tax-rate'), text(blank, 'tax-included'), text(blank, 'terms') ?? null]).toEqual([0, 'true', null]);
    const s = find((await w.client.request('PUT', at, { 'shop_settings[tax_rate]': '2000', 'shop_settings[tax_included]': '0', 'shop_settings[tax_label]': 'VAT', 'shop_settings[terms]': '# Terms\n\nNo refunds on downloads.' })).doc, 'shop-settings')!;
    expect([int(s, 'tax-rate'), text(s, 'tax-included'), text(s, 'tax-label'), text(s, 'terms')]).toEqual([2000, 'false', 'VAT', '# Terms\n\nNo refunds on downloads.']);
    for (const [params, field] of [
      [{ 'shop_settings[tax_rate]': '-1' }, 'shop_settings[tax_rate]'],
      [{ 'shop_settings[tax_rate]': '10001' }, 'shop_settings[tax_rate]'],
      [{ 'shop_settings[tax_rate]': '20%' }, 'shop_settings[tax_rate]'],
      [{ 'shop_settings[tax_included]': 'yes please' }, 'shop_settings[tax_included]'],
      [{ 'shop_settings[tax_label]': 'V\nAT' }, 'shop_settings[tax_label]'],
      [{ 'shop_settings[terms]': 'x'.repeat(20_001) }, 'shop_settings[terms]'],
    ] as const) {
      const f = await failure(w.client.request('PUT', at, params));
      expect([f.status, f.message], JSON.stringify(params).slice(0, 80)).toEqual([422, expect.stringContaining(field)]);
    }
    expect(int(find((await w.client.request('GET', at)).doc, 'shop-settings')!, 'tax-rate')).toBe(2000);
    expect((await failure(other.client.request('GET', at))).status).toBe(404);
    expect((await failure(other.client.request('PUT', at, { 'shop_settings[tax_rate]': '0' }))).status).toBe(404);

    // Terms set: an order without their acceptance is refused, naming the field, and nothing is written.
    const orders = async () => Number((await w.svc.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await orders();
    await expect(placeOrder(w.svc.core, taxed, { lines: [{ item: 'Web' }] })).rejects.toThrow(/order\[accept_terms\]/);
    expect(await orders()).toBe(before);
    const uuid = await placeOrder(w.svc.core, taxed, { acceptTerms: true, lines: [{ item: 'Web' }] });
    const o = find((await w.client.request('GET', `/orders/${uuid}.xml`)).doc, 'order')!;
    expect([int(o, 'subtotal'), int(o, 'tax'), int(o, 'tax-rate'), text(o, 'tax-included'), text(o, 'tax-label'), int(o, 'total')]).toEqual([900, 180, 2000, 'false', 'VAT', 1080]);
    expect(text(o, 'terms-accepted-at')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The export carries them too.
    const csv = await w.svc.core.orders.export(w.user);
    expect(csv.report.split('\r\n')[0]).toContain('"tax label"');
    expect(csv.report).toContain('"VAT"');
  });

  it('takes manual-payment instructions of 4000 characters and refuses 4001, the studio\'s one limit (MAX_INSTRUCTIONS)', async () => {
    const at = `/websites/${shop.urlname}/shop_settings.xml`;
    // Line endings count once, as stored: 3999 characters and a CRLF are 4000.
    const longest = `${'x'.repeat(2000)}\r\n${'y'.repeat(1999)}`;
    const s = find((await w.client.request('PUT', at, { 'shop_settings[manual_instructions]': longest })).doc, 'shop-settings')!;
    expect(text(s, 'manual-instructions')).toBe(`${'x'.repeat(2000)}\n${'y'.repeat(1999)}`);
    const f = await failure(w.client.request('PUT', at, { 'shop_settings[manual_instructions]': 'z'.repeat(4001) }));
    expect([f.status, f.message]).toEqual([422, 'shop_settings[manual_instructions] must be at most 4000 characters long']);
    expect(text(find((await w.client.request('GET', at)).doc, 'shop-settings')!, 'manual-instructions')).toHaveLength(4000);
  });

  it('fuzzed coupon fields: a 2xx or a 4xx, never a 5xx; a refusal writes nothing', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }).map(String),
      fc.constantFrom('', ' ', '1e3', '0x10', 'NaN', '-0', '100.0', '%00', '\u0000', 'ß'.repeat(5000), 'A'.repeat(10_000)),
    );
    const keys = ['code', 'percent', 'amount', 'currency', 'valid_from', 'valid_until', 'max_uses', 'active'];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 5 }), async (fields) => {
        const params = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`coupon[${k}]`, v]));
        const before = await count();
        const res = await w.client.request('POST', `${base()}/coupons.xml`, params).then(
          () => 200,
          (e: { status?: number }) => e.status ?? 0,
        );
        expect(res === 200 || (res >= 400 && res < 500), `${res} for ${JSON.stringify(params).slice(0, 200)}`).toBe(true);
        expect(await count()).toBe(before + (res === 200 ? 1 : 0));
      }),
      { numRuns: 60, seed: 33 },
    );
  });
});

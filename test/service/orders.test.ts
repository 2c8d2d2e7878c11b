// Orders placed from a server-side cart (docs/shop.md "Orders"): prices, taxes
// and coupons computed on the server at order time and copied into the order;
// every refusal a 4xx naming the field with nothing written; a payment applied
// once. On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { withCore } from '../support/core.js';
import { insertMedia, openShop, placeOrder } from '../support/shop.js';

const PG = process.env.TEST_DATABASE_URL;

async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const e = await call.then(
    () => expect.fail('the call succeeded'),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return { status: (e as ApiError).status, message: (e as ApiError).message };
}

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`orders (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    const count = async (table: 'orders' | 'order_items' | 'cart_items' | 'payments') =>
      Number((await w.core.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const counts = async () => [await count('orders'), await count('order_items'), await count('cart_items'), await count('payments')];

    it('prices the cart on the server at order time, copies the prices, and a later price change leaves the order', async () => {
      const shop = await openShop(w.core, await w.user());
      await w.core.shopSettings.update(shop.owner, shop.urlname, { taxRate: 2000, taxIncluded: true });
      const uuid = await placeOrder(w.core, shop);
      const order = await w.core.orders.get(shop.owner, uuid);
      // Web 900 + 2 × A3 (1000 × 300 / 200 = 1500) = 3900, 20 % included: 3900 − round(3900 / 1.2) = 650.
      expect([order.status, order.currency, Number(order.subtotal), Number(order.tax), Number(order.total)]).toEqual(['pending', 'EUR', 3900, 650, 3900]);
      expect(order.items.map((i) => [i.kind, i.label, i.option_label, i.long_edge, i.unit_price, i.quantity, Number(i.total)])).toEqual([
        ['download', 'Web', null, 1200, 900, 1, 900],
        ['print', 'Paper', 'A3', null, 1500, 2, 3000],
      ]);
      await w.core.pricingProfiles.update(shop.owner, shop.downloads, { items: [{ param: 'x', label: 'Web', longEdge: 1200, price: 5 }].map((i) => ({ ...i, options: [] })) });
      const again = await w.core.orders.get(shop.owner, uuid);
      expect([again.items[0].unit_price, Number(again.total)]).toEqual([900, 3900]);
    });

    it('applies a coupon and added tax, and counts its use', async () => {
      const shop = await openShop(w.core, await w.user());
      await w.core.shopSettings.update(shop.owner, shop.urlname, { taxRate: 1000, taxIncluded: false });
      await w.core.orders.createCoupon(shop.owner, { code: 'Spring10', kind: 'percent', value: 1000, usageLimit: 1 });
      const uuid = await placeOrder(w.core, shop, { coupon: 'spring10' });
      const order = await w.core.orders.get(shop.owner, uuid);
      // 3900 − 390 = 3510, + 10 % = 351 → 3861.
      expect([Number(order.discount), Number(order.tax), Number(order.total), order.coupon_code]).toEqual([390, 351, 3861, 'SPRING10']);
      // The limit is reached: the next order with it is refused and nothing is written.
      const before = await counts();
      expect(await refusal(placeOrder(w.core, shop, { coupon: 'SPRING10' }))).toMatchObject({ status: 422, message: expect.stringContaining('cart[coupon]') });
      const after = await counts();
      expect([after[0], after[1], after[3]]).toEqual([before[0], before[1], before[3]]);
    });

    it('refuses foreign, unpriced and unknown medias, bad quantities, an unknown coupon and sizes larger than the original, naming the field', async () => {
      const shop = await openShop(w.core, await w.user());
      const other = await openShop(w.core, await w.user('other'));
      const small = await insertMedia(w.core.store.db, shop.owner.id, { width: 800, height: 600 });
      await w.core.store.db
        .insertInto('media_pricing_profiles')
        .values({ media_id: small.id, pricing_profile_id: (await w.core.store.db.selectFrom('pricing_profiles').select('id').where('uuid', '=', shop.downloads).executeTakeFirstOrThrow()).id })
        .execute();
      const cart = (await w.core.orders.createCart(shop.websiteId)).uuid;
      const line = { media: shop.media, profile: shop.downloads, item: 'Web', quantity: 1 };
      const before = await counts();
      const cases: Array<[Partial<typeof line> & { option?: string }, string]> = [
        [{ media: other.media }, 'cart_item[media]'],
        [{ media: shop.unpriced }, 'cart_item[media]'],
        [{ media: 'not-a-uuid' }, 'cart_item[media]'],
        [{ profile: other.downloads }, 'cart_item[profile]'],
        [{ quantity: -1 }, 'cart_item[quantity]'],
        [{ quantity: 101 }, 'cart_item[quantity]'],
        [{ quantity: 1.5 }, 'cart_item[quantity]'],
        [{ quantity: 1e20 }, 'cart_item[quantity]'],
        [{ item: 'Nope' }, 'cart_item[item]'],
        [{ item: '' }, 'cart_item[item]'],
        [{ item: 'Web', option: 'A3' }, 'cart_item[option]'],
        [{ media: small.uuid, item: 'Web' }, 'larger than the original'],
        [{ item: 'Huge' }, 'larger than the original'],
      ];
      for (const [change, named] of cases) {
        const r = await refusal(w.core.orders.setCartLine(cart, { ...line, ...change }));
        expect([r.status, r.message]).toEqual([422, expect.stringContaining(named)]);
      }
      expect((await refusal(w.core.orders.setCartCoupon(cart, 'NOPE'))).message).toContain('cart[coupon]: unknown coupon');
      // Another photographer's coupon is unknown here.
      await w.core.orders.createCoupon(other.owner, { code: 'THEIRS', kind: 'amount', value: 100, currency: 'EUR' });
      expect((await refusal(w.core.orders.setCartCoupon(cart, 'THEIRS'))).status).toBe(422);
      expect((await refusal(w.core.orders.placeOrder(cart, { email: 'b@example.com' }))).message).toContain('empty');
      await w.core.orders.setCartLine(cart, line);
      for (const email of ['', 'nope', 'a@b', `${'x'.repeat(250)}@example.com`, 'a@b.c\n<x>']) {
        expect((await refusal(w.core.orders.placeOrder(cart, { email }))).message).toContain('order[email]');
      }
      expect((await refusal(w.core.orders.placeOrder('0c6f5a8e-0000-4000-8000-000000000000', { email: 'b@example.com' }))).status).toBe(404);
      const after = await counts();
      expect([after[0], after[1], after[3]]).toEqual([before[0], before[1], before[3]]);
      expect(after[2]).toBe(before[2] + 1);
    });

    it('refuses a line whose item left the price list before the order, writing nothing', async () => {
      const shop = await openShop(w.core, await w.user());
      const cart = (await w.core.orders.createCart(shop.websiteId)).uuid;
      await w.core.orders.setCartLine(cart, { media: shop.media, profile: shop.downloads, item: 'Web', quantity: 1 });
      await w.core.pricingProfiles.update(shop.owner, shop.downloads, { items: [{ param: 'x', label: 'Other', longEdge: 100, price: 5, options: [] }] });
      const before = await counts();
      expect((await refusal(w.core.orders.placeOrder(cart, { email: 'b@example.com' }))).message).toContain('cart[items][0][item]');
      expect(await counts()).toEqual(before);
    });

    it('applies a payment once, cancels only pending orders, and keeps other owners out (404)', async () => {
      const shop = await openShop(w.core, await w.user());
      const stranger = await w.user('stranger');
      const uuid = await placeOrder(w.core, shop);
      expect((await refusal(w.core.orders.get(stranger, uuid))).status).toBe(404);
      expect((await refusal(w.core.orders.setStatus(stranger, uuid, 'paid'))).status).toBe(404);
      const order = await w.core.orders.get(shop.owner, uuid);
      const payment = { provider: 'stripe', reference: 'cs_1', amount: Number(order.total), currency: 'EUR' };
      const results = await Promise.all([w.core.orders.markPaid(order.id, payment), w.core.orders.markPaid(order.id, payment)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const paid = await w.core.orders.get(shop.owner, uuid);
      expect([paid.status, paid.payments.length, paid.download_token?.length]).toEqual(['paid', 1, 32]);
      expect((await refusal(w.core.orders.setStatus(shop.owner, uuid, 'cancelled'))).status).toBe(409);
      const second = await placeOrder(w.core, shop);
      expect((await w.core.orders.setStatus(shop.owner, second, 'cancelled')).status).toBe('cancelled');
      expect((await refusal(w.core.orders.setStatus(shop.owner, second, 'paid'))).status).toBe(409);
    });

    it('exports the accounting CSV files: one row per order and per item, quoted, semicolon-separated, formulas defused', async () => {
      const owner = await w.user();
      const shop = await openShop(w.core, owner);
      await w.core.shopSettings.update(shop.owner, shop.urlname, { taxRate: 2000, taxIncluded: true });
      const first = await placeOrder(w.core, shop, { email: 'ann@example.com' });
      const cart = (await w.core.orders.createCart(shop.websiteId)).uuid;
      await w.core.orders.setCartLine(cart, { media: shop.media, profile: shop.downloads, item: 'Original file', quantity: 1 });
      const second = (await w.core.orders.placeOrder(cart, { email: 'eve@example.com', name: '=HYPERLINK("http://x")' })).uuid;
      await w.core.orders.setStatus(owner, first, 'paid');
      const e = await w.core.orders.export(owner, new Date('2026-03-04T10:00:00Z'));
      expect([e.reportName, e.itemsName, e.orders]).toEqual(['orders_Report_2026-03-04.csv', 'orders_items_2026-03-04.csv', 2]);
      const lines = e.report.split('\r\n');
      expect(lines[0]).toBe('"id";"client";"payment state";"date";"paid at";"subtotal";"discount";"tax";"total";"currency";"coupon";"tax rate";"tax label";"terms accepted at"');
      // The first order holds a print: its postal address follows the buyer's name and e-mail.
      expect(lines[1]).toMatch(new RegExp(`^"${first}";"Ann Buyer\nann@example.com\n1 Harbour Lane\nSW1A 1AA London\nUnited Kingdom";"paid";"\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";"[^"]+";"39.00";"0.00";"6.50";"39.00";"EUR";"";"20";"";""$`));
      expect(lines[2]).toContain(`"${second}";"'=HYPERLINK(""http://x"")\neve@example.com";"pending"`);
      const items = e.items.split('\r\n');
      expect(items[0]).toBe('"order id";"media file name";"media uuid";"description";"option";"quantity";"unit price";"price";"currency"');
      expect(items.slice(1, 4).map((l) => l.split(';').slice(3, 8).join(';'))).toEqual(['"Web";"";"1";"9.00";"9.00"', '"Paper";"A3";"2";"15.00";"30.00"', '"Original file";"";"1";"49.00";"49.00"']);
      expect(items[1]).toMatch(/^"[0-9a-f-]{36}";"photo-[0-9a-f]{4}\.jpg";/);
      // Another photographer's export has none of them.
      expect((await w.core.orders.export(await w.user('x'))).orders).toBe(0);
    });
  });
}

// The orders API (an extension, docs/shop.md "Orders") through HTTP: list with
// filters and pages, one order with its items and payments, a manual payment
// and a cancellation by PUT; another user's order a 404; every malformed value
// a 4xx, never a 5xx, with nothing changed.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, int, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';

const order = (doc: XmlNode) => find(doc, 'order')!;

eachDatabase((kind) => {
  let w: World;
  let other: World;
  let shop: Shop;
  const uuids: string[] = [];

  beforeAll(async () => {
    w = await startWorld(kind);
    other = await worldOn(w.svc);
    shop = await openShop(w.svc.core, w.user);
    await w.svc.core.shopSettings.update(shop.owner, shop.urlname, { taxRate: 2000, taxIncluded: true });
    uuids.push(await placeOrder(w.svc.core, shop, { email: 'ann@example.com' }));
    uuids.push(await placeOrder(w.svc.core, shop, { email: 'bob@example.com', lines: [{ item: 'Original file' }] }));
    uuids.push(await placeOrder(w.svc.core, shop, { email: 'ann@example.com', lines: [{ item: 'Web', quantity: 3 }] }));
  });
  afterAll(() => w?.svc.close());

  it('replies <order> with its status, currency, total, e-mail, items and payments', async () => {
    const res = await w.client.request('GET', `/orders/${uuids[0]}.xml`);
    const o = order(res.doc);
    expect([text(o, 'uuid'), text(o, 'status'), text(o, 'currency'), int(o, 'total'), int(o, 'tax'), text(o, 'email')]).toEqual([uuids[0], 'pending', 'EUR', 3900, 650, 'ann@example.com']);
    expect(all(o, 'items/item').map((i) => [text(i, 'media-uuid'), text(i, 'label'), text(i, 'option') ?? null, int(i, 'unit-price'), int(i, 'quantity'), int(i, 'price')])).toEqual([
      [shop.media, 'Web', null, 900, 1, 900],
      [shop.media, 'Paper', 'A3', 1500, 2, 3000],
    ]);
    expect(all(o, 'payments/payment')).toEqual([]);
    expect(text(res.doc, 'location')).toBe(`/orders/${uuids[0]}.xml`);
  });

  it('lists orders newest first, filtered by status, e-mail and date, paged', async () => {
    const list = async (q: Record<string, string | number>) => {
      const doc = (await w.client.request('GET', '/orders.xml', q)).doc;
      return { uuids: all(doc, 'orders/order').map((o) => text(o, 'uuid')), pages: int(doc, 'total-pages'), entries: int(doc, 'total-entries') };
    };
    expect((await list({})).uuids).toEqual([...uuids].reverse());
    expect((await list({ email: 'ANN@example.com' })).uuids).toEqual([uuids[2], uuids[0]]);
    expect(await list({ per_page: 2, page: 2 })).toEqual({ uuids: [uuids[0]], pages: 2, entries: 3 });
    const today = new Date().toISOString().slice(0, 10);
    expect((await list({ date: today })).entries).toBe(3);
    expect((await list({ date: '2001-01-01' })).entries).toBe(0);
    expect((await list({ date_from: '2001-01-01', date_to: today })).entries).toBe(3);
    expect((await list({ status: 'paid' })).entries).toBe(0);
    // Another user sees none of them.
    expect(int((await other.client.request('GET', '/orders.xml')).doc, 'total-entries')).toBe(0);
  });

  it('marks an order paid by hand (a manual payment) and cancels another; a paid order cannot be cancelled', async () => {
    const paid = order((await w.client.request('PUT', `/orders/${uuids[1]}.xml`, { 'order[status]': 'paid' })).doc);
    expect(text(paid, 'status')).toBe('paid');
    expect(all(paid, 'payments/payment').map((p) => [text(p, 'provider'), text(p, 'kind'), int(p, 'amount'), text(p, 'currency')])).toEqual([['manual', 'payment', 4900, 'EUR']]);
    expect(text(paid, 'downloads-expire-at')).toBeTruthy();
    expect(await failure(w.client.request('PUT', `/orders/${uuids[1]}.xml`, { 'order[status]': 'cancelled' }))).toMatchObject({ status: 409, message: expect.stringContaining('order[status]') });
    expect(text(order((await w.client.request('PUT', `/orders/${uuids[2]}.xml`, { 'order[status]': 'cancelled' })).doc), 'status')).toBe('cancelled');
    expect((await failure(w.client.request('PUT', `/orders/${uuids[2]}.xml`, { 'order[status]': 'paid' }))).status).toBe(409);
    const filtered = (await w.client.request('GET', '/orders.xml', { status: 'paid' })).doc;
    expect(all(filtered, 'orders/order').map((o) => text(o, 'uuid'))).toEqual([uuids[1]]);
  });

  it("answers 404 for another user's order, whatever the method, and changes nothing", async () => {
    expect((await failure(other.client.request('GET', `/orders/${uuids[0]}.xml`))).status).toBe(404);
    expect((await failure(other.client.request('PUT', `/orders/${uuids[0]}.xml`, { 'order[status]': 'paid' }))).status).toBe(404);
    // Even with a bad value: the missing order comes first.
    expect((await failure(other.client.request('PUT', `/orders/${uuids[0]}.xml`, { 'order[status]': 'nope' }))).status).toBe(404);
    expect((await failure(w.client.request('GET', '/orders/not-a-uuid.xml'))).status).toBe(404);
    expect(text(order((await w.client.request('GET', `/orders/${uuids[0]}.xml`)).doc), 'status')).toBe('pending');
  });

  it('refuses malformed filters and statuses with a 4xx naming the parameter', async () => {
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ['GET', '/orders.xml', { status: 'sent' }, 'status'],
      ['GET', '/orders.xml', { email: 'nope' }, 'email'],
      ['GET', '/orders.xml', { date: '2024-02-30' }, 'date'],
      ['GET', '/orders.xml', { date: '2024-1-1' }, 'date'],
      ['GET', '/orders.xml', { date_from: '2024-02-02', date_to: '2024-02-01' }, 'date_to'],
      ['GET', '/orders.xml', { per_page: '501' }, 'per_page'],
      ['GET', '/orders.xml', { 'order[total]': '1' }, 'order[total]'],
      ['PUT', `/orders/${uuids[0]}.xml`, { 'order[status]': 'pending' }, 'order[status]'],
      ['PUT', `/orders/${uuids[0]}.xml`, {}, 'order[status]'],
      ['PUT', `/orders/${uuids[0]}.xml`, { 'order[total]': '0' }, 'order[total]'],
    ];
    for (const [method, path, params, named] of cases) {
      const f = await failure(w.client.request(method as 'GET', path, params));
      expect([f.status >= 400 && f.status < 500, f.message]).toEqual([true, expect.stringContaining(named)]);
    }
    expect(text(order((await w.client.request('GET', `/orders/${uuids[0]}.xml`)).doc), 'status')).toBe('pending');
  });

  it('answers every fuzzed filter and status with a 2xx or a 4xx, never a 5xx', async () => {
    const value = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', 'paid', 'cancelled', '2024-01-01', '-1', '9'.repeat(30), 'a@b.co', '\u0000', '%', '[]'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('status', 'email', 'date', 'date_from', 'date_to', 'page', 'per_page', 'order[status]', 'order[download_days]', 'order[resend]'), value, fc.boolean(), async (name, v, put) => {
        const res = await w.svc.raw(w.app, put ? 'PUT' : 'GET', put ? `/orders/${uuids[0]}.xml` : `/orders.xml?${new URLSearchParams({ [name]: v })}`, {
          headers: { authorization: `Basic ${Buffer.from(`${w.user.email}:${w.user.password}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: put ? new URLSearchParams({ [name]: v }).toString() : undefined,
        });
        expect(res.status, `${name}=${JSON.stringify(v)}`).toBeLessThan(500);
        await res.arrayBuffer();
      }),
      { numRuns: 60 },
    );
    // A fuzzed PUT may have paid or cancelled the order, never anything else.
    expect(['pending', 'paid', 'cancelled', 'refunded']).toContain(text(order((await w.client.request('GET', `/orders/${uuids[0]}.xml`)).doc), 'status'));
  });
});

// A buyer's data on request (issue 33 item 7, docs/shop.md "Privacy"): the photographer's
// DELETE /activity.xml?client=<email> also forgets that buyer's orders — name and address gone,
// the e-mail replaced, the order page's link dead — while the amounts, items and statuses stay
// for accounting; other buyers' orders and other photographers' are untouched. Both databases.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { startWorld, worldOn, type World } from '../support/world.js';

eachDatabase((kind) => {
  let w: World;
  let other: World;
  let shop: Shop;
  let otherShop: Shop;
  const ann: string[] = [];
  let bob: string;
  let foreign: string;

  beforeAll(async () => {
    w = await startWorld(kind);
    other = await worldOn(w.svc);
    shop = await openShop(w.svc.core, w.user);
    otherShop = await openShop(w.svc.core, other.user);
    ann.push(await placeOrder(w.svc.core, shop, { email: 'Ann@Example.com' }));
    ann.push(await placeOrder(w.svc.core, shop, { email: 'ann@example.com', lines: [{ item: 'Web', quantity: 2 }] }));
    bob = await placeOrder(w.svc.core, shop, { email: 'bob@example.com' });
    foreign = await placeOrder(w.svc.core, otherShop, { email: 'ann@example.com' });
    await w.client.request('PUT', `/orders/${ann[0]}.xml`, { 'order[status]': 'paid' });
  });
  afterAll(() => w?.svc.close());

  const orderOf = async (world: World, uuid: string) => find((await world.client.request('GET', `/orders/${uuid}.xml`)).doc, 'order')!;

  it('forgets the buyer in the owner’s orders and keeps what accounting needs', async () => {
    const before = await Promise.all(ann.map((u) => orderOf(w, u)));
    const token = (await w.svc.db.selectFrom('orders').select('download_token').where('uuid', '=', ann[0]).executeTakeFirstOrThrow()).download_token;
    expect(token).toBeTruthy();

    const r = await w.client.request('DELETE', '/activity.xml', { client: 'ANN@example.com' });
    expect(int(r.doc, 'deleted-orders')).toBe(2);

    for (const [i, uuid] of ann.entries()) {
      const after = await orderOf(w, uuid);
      expect(text(after, 'email')).toBe('forgotten@invalid');
      // The sale as it was: status, currency, total and every item.
      for (const field of ['status', 'currency', 'total']) expect(text(after, field)).toBe(text(before[i], field));
      expect(all(after, 'items/item').length).toBe(all(before[i], 'items/item').length);
    }
    const rows = await w.svc.db.selectFrom('orders').select(['name', 'download_token']).where('uuid', 'in', ann).execute();
    expect(rows.every((o) => o.name === null && o.download_token === null)).toBe(true);
    // The paid order's page no longer answers.
    expect((await fetch(`${w.svc.url}/downloads/${token}`)).status).toBe(404);
    // Not found by the e-mail any more.
    expect(int((await w.client.request('GET', '/orders.xml', { email: 'ann@example.com' })).doc, 'total-entries')).toBe(0);
  });

  it('leaves other buyers and other photographers’ orders as they were', async () => {
    expect(text(await orderOf(w, bob), 'email')).toBe('bob@example.com');
    expect(text(await orderOf(other, foreign), 'email')).toBe('ann@example.com');
  });
});

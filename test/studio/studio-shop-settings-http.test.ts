// The studio's coupons, tax and terms, print lab, order shipping and whole-gallery sale over HTTP
// (docs/studio.md "Shop"), on SQLite and PostgreSQL: written through the forms and read back through
// the services the API uses; refusals at their field with nothing written; another photographer's
// website, coupon or order is a 404; every form refused without its CSRF token.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase, type TestUser } from '../support/service.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let csrf: string;
  let shop: Shop;
  let stranger: TestUser;
  let s2: StudioBrowser;
  let csrf2: string;

  beforeAll(async () => {
    w = await startWorld(kind);
    shop = await openShop(w.svc.core, w.user);
    b = await new StudioBrowser(w.svc).signIn(w.user);
    csrf = StudioBrowser.csrf(await b.get('/studio/shop/coupons'));
    stranger = await w.svc.user();
    s2 = await new StudioBrowser(w.svc).signIn(stranger);
    csrf2 = StudioBrowser.csrf(await s2.get('/studio/shop/coupons'));
  }, 60_000);
  afterAll(async () => {
    await w?.svc.close();
  });

  const coupons = async () => (await w.svc.core.coupons.list(shop.owner, shop.urlname, 100, 0)).rows;
  const blank = { code: '', percent: '', amount: '', currency: '', valid_from: '', valid_until: '', max_uses: '' };

  let spring: string;
  it('creates a percent coupon and an amount coupon, listed with their discount, validity and uses', async () => {
    const made = await b.post(`/studio/shop/coupons/${shop.urlname}`, { csrf, ...blank, code: 'spring15', percent: '15', valid_until: '2027-03-31', max_uses: '100', active: '1' });
    expect(made.status).toBe(303);
    const fixed = await b.post(`/studio/shop/coupons/${shop.urlname}`, { csrf, ...blank, code: 'FIVE', amount: '5.50', currency: 'EUR', active: '1' });
    expect(fixed.status).toBe(303);
    const rows = await coupons();
    const s = rows.find((c) => c.code === 'SPRING15')!;
    spring = s.uuid;
    expect([s.kind, s.value, s.valid_until?.slice(0, 19), s.usage_limit, s.active]).toEqual(['percent', 1500, '2027-03-31T23:59:59', 100, 1]);
    const f = rows.find((c) => c.code === 'FIVE')!;
    expect([f.kind, f.value, f.currency]).toEqual(['amount', 550, 'EUR']);
    const page = await b.get(`/studio/shop/coupons?website=${shop.urlname}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('SPRING15');
    expect(page.body).toContain('15 % off');
    expect(page.body).toContain('€5.50 off');
    expect(page.body).toContain('0 of 100 uses');
    expect(page.body).not.toContain('coupon[');
  });

  it('refuses a bad coupon at its field, worded for people, and writes nothing', async () => {
    const before = (await coupons()).length;
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ code: 'bad code!', percent: '10' }, 'code', /code must be letters/i],
      [{ code: 'X1', percent: '150' }, 'percent', /percent/i],
      [{ code: 'X2', amount: '5.999', currency: 'EUR' }, 'amount', /such as 5\.00/i],
      [{ code: 'X3', amount: '5' }, 'currency', /currency/i],
      [{ code: 'X4', percent: '10', amount: '5', currency: 'EUR' }, 'percent', /one of the two/i],
      [{ code: 'X5', percent: '10', valid_from: '2027-02-01', valid_until: '2027-01-01' }, 'valid_until', /last day/i],
      [{ code: 'spring15', percent: '10' }, 'code', /./],
    ];
    for (const [fields, field, message] of cases) {
      const res = await b.post(`/studio/shop/coupons/${shop.urlname}`, { csrf, ...blank, ...fields });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(fieldError(res.body, field), JSON.stringify(fields)).toMatch(message);
      expect(res.body).not.toContain('coupon[');
    }
    expect((await coupons()).length).toBe(before);
  });

  it('edits, deactivates and deletes a coupon (delete only when confirmed)', async () => {
    const base = `/studio/shop/coupons/${shop.urlname}/${spring}`;
    const page = await b.get(base);
    expect(page.status).toBe(200);
    expect(page.body).toContain('value="SPRING15"');
    const saved = await b.post(base, { csrf, ...blank, code: 'SPRING20', percent: '20', max_uses: '', active: '1' });
    expect(saved.status).toBe(303);
    let c = await w.svc.core.coupons.get(shop.owner, shop.urlname, spring);
    expect([c.code, c.value, c.usage_limit, c.active]).toEqual(['SPRING20', 2000, null, 1]);
    expect((await b.post(`${base}/active`, { csrf, active: '0' })).status).toBe(303);
    c = await w.svc.core.coupons.get(shop.owner, shop.urlname, spring);
    expect(c.active).toBe(0);
    expect((await b.get(`/studio/shop/coupons?website=${shop.urlname}`)).body).toContain('Inactive');
    expect((await b.post(`${base}/delete`, { csrf })).status).toBe(422);
    expect(await coupons()).toHaveLength(2);
    expect((await b.post(`${base}/delete`, { csrf, confirm: 'yes' })).status).toBe(303);
    expect((await coupons()).map((x) => x.code)).toEqual(['FIVE']);
  });

  it("gives another photographer's website and coupon the 404, whatever the method, and changes nothing", async () => {
    const five = (await coupons())[0]!;
    const base = `/studio/shop/coupons/${shop.urlname}/${five.uuid}`;
    expect((await s2.get(`/studio/shop/coupons?website=${shop.urlname}`)).status).toBe(404);
    expect((await s2.get(base)).status).toBe(404);
    expect((await s2.post(`/studio/shop/coupons/${shop.urlname}`, { csrf: csrf2, ...blank, code: 'MINE', percent: '10', active: '1' })).status).toBe(404);
    expect((await s2.post(base, { csrf: csrf2, ...blank, code: 'MINE', percent: '10', active: '1' })).status).toBe(404);
    expect((await s2.post(`${base}/active`, { csrf: csrf2, active: '0' })).status).toBe(404);
    expect((await s2.post(`${base}/delete`, { csrf: csrf2, confirm: 'yes' })).status).toBe(404);
    expect((await s2.get(`/studio/shop/settings?website=${shop.urlname}`)).status).toBe(404);
    expect((await s2.post(`/studio/shop/settings/${shop.urlname}`, { csrf: csrf2, tax_rate: '5', tax_label: 'X', tax_included: '1', terms: 'x' })).status).toBe(404);
    expect((await coupons()).map((x) => [x.code, x.active])).toEqual([['FIVE', 1]]);
    expect((await w.svc.core.shopSettings.get(shop.owner, shop.urlname)).terms).toBeNull();
  });

  it('saves tax and terms, refuses a bad rate at its field, and links the instructions on Payments', async () => {
    const page = await b.get(`/studio/shop/settings?website=${shop.urlname}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('/_cart/terms');
    expect(page.body).toContain('href="/studio/shop/payments"');
    const saved = await b.post(`/studio/shop/settings/${shop.urlname}`, { csrf, tax_rate: '7,7', tax_label: 'MwSt', tax_included: '0', terms: '# Terms\r\n\r\nBe kind.' });
    expect(saved.status).toBe(303);
    const s = await w.svc.core.shopSettings.get(shop.owner, shop.urlname);
    expect([s.tax_rate_bp, s.tax_label, s.tax_included, s.terms?.replace(/\r\n/g, '\n')]).toEqual([770, 'MwSt', 0, '# Terms\n\nBe kind.']);
    for (const [rate, message] of [
      ['abc', /percent such as/],
      ['150', /0 to 100/],
      ['7.777', /percent such as/],
    ] as const) {
      const res = await b.post(`/studio/shop/settings/${shop.urlname}`, { csrf, tax_rate: rate, tax_label: 'VAT', tax_included: '1', terms: '' });
      expect(res.status).toBe(422);
      expect(fieldError(res.body, 'tax_rate')).toMatch(message);
    }
    const long = await b.post(`/studio/shop/settings/${shop.urlname}`, { csrf, tax_rate: '20', tax_label: 'VAT', tax_included: '1', terms: 'x'.repeat(20_001) });
    expect(long.status).toBe(422);
    expect(fieldError(long.body, 'terms')).toMatch(/terms/i);
    const after = await w.svc.core.shopSettings.get(shop.owner, shop.urlname);
    expect([after.tax_rate_bp, after.tax_label]).toEqual([770, 'MwSt']);
  });

  it('sets the lab and its automatic sending, refuses a bad address at its field, and removes it', async () => {
    expect((await b.post('/studio/shop/lab', { csrf, lab_email: 'Orders@Lab.example', auto: '1' })).status).toBe(303);
    expect(await w.svc.core.orders.lab(shop.owner)).toMatchObject({ email: 'orders@lab.example', auto: true });
    expect((await b.get('/studio/shop/settings')).body).toContain('value="orders@lab.example"');
    const bad = await b.post('/studio/shop/lab', { csrf, lab_email: 'not an address' });
    expect(bad.status).toBe(422);
    expect(fieldError(bad.body, 'lab_email')).toMatch(/e-mail address/);
    // The API's spec (orders/fields.ts) under the form's words: too long is refused at the same field.
    const long = await b.post('/studio/shop/lab', { csrf, lab_email: `${'a'.repeat(250)}@lab.example` });
    expect(long.status).toBe(422);
    expect(fieldError(long.body, 'lab_email')).toBe('The lab’s e-mail must be at most 254 characters.');
    expect(await w.svc.core.orders.lab(shop.owner)).toMatchObject({ email: 'orders@lab.example', auto: true });
    expect((await s2.post('/studio/shop/lab', { csrf: csrf2, lab_email: 'x@y.example' })).status).toBe(303);
    expect(await w.svc.core.orders.lab(shop.owner)).toMatchObject({ email: 'orders@lab.example' });
    expect((await b.post('/studio/shop/lab', { csrf, lab_email: '' })).status).toBe(303);
    expect(await w.svc.core.orders.lab(shop.owner)).toBeUndefined();
  });

  it('shows a print order’s address, sends its sheet to the lab, downloads the sheet and marks it shipped with a tracking link', async () => {
    const uuid = await placeOrder(w.svc.core, shop, { acceptTerms: true });
    const base = `/studio/shop/orders/${uuid}`;
    let page = await b.get(base);
    expect(page.body).toContain('1 Harbour Lane');
    expect(page.body).toContain('Once the order is paid');
    expect((await b.post(`${base}/ship`, { csrf, tracking_url: 'https://track.example/1' })).status).toBe(409);
    await w.svc.core.orders.setStatus(shop.owner, uuid, 'paid');
    page = await b.get(base);
    expect(page.body).toContain('Mark shipped');
    expect(page.body).toContain('No lab yet');
    const sheet = await b.get(`${base}/sheet`);
    expect(sheet.status).toBe(200);
    expect(sheet.headers.get('content-disposition')).toMatch(/attachment; filename="order_[0-9a-f]{8}_prints\.csv"/);
    expect(sheet.body).toContain('1 Harbour Lane');
    expect((await b.post(`${base}/lab`, { csrf })).status).toBe(409);
    expect((await b.post('/studio/shop/lab', { csrf, lab_email: 'orders@lab.example' })).status).toBe(303);
    expect((await b.post(`${base}/lab`, { csrf })).status).toBe(303);
    expect((await w.svc.core.orders.get(shop.owner, uuid)).lab_sent_at).not.toBeNull();
    for (const bad of ['', 'javascript:alert(1)', 'https://user:pw@track.example/x', 'not a link']) {
      const res = await b.post(`${base}/ship`, { csrf, tracking_url: bad });
      expect(res.status, bad).toBe(422);
      expect(fieldError(res.body, 'tracking_url'), bad).toMatch(/^The tracking link/);
      expect(res.body).not.toContain('order[');
    }
    expect((await w.svc.core.orders.get(shop.owner, uuid)).status).toBe('paid');
    for (const [path, fields] of [[`${base}/ship`, { tracking_url: 'https://evil.example/' }], [`${base}/lab`, {}]] as const) {
      expect((await s2.post(path, { ...fields, csrf: csrf2 })).status).toBe(404);
      expect((await b.post(path, { ...fields })).status).toBe(403);
    }
    expect((await s2.get(`${base}/sheet`)).status).toBe(404);
    expect((await s2.get(base)).status).toBe(404);
    const shipped = await b.post(`${base}/ship`, { csrf, tracking_url: 'https://track.example/parcel/42' });
    expect(shipped.status).toBe(303);
    const o = await w.svc.core.orders.get(shop.owner, uuid);
    expect([o.status, o.tracking_url]).toEqual(['shipped', 'https://track.example/parcel/42']);
    page = await b.get(`${base}?done=shipped`);
    expect(page.body).toContain('Shipped');
    expect(page.body).toContain('https://track.example/parcel/42');
    expect(page.body).toContain('Save the new link');
    expect((await b.post('/studio/shop/lab', { csrf, lab_email: '' })).status).toBe(303);
  });

  it('has no order sheet for an order without prints', async () => {
    const uuid = await placeOrder(w.svc.core, shop, { acceptTerms: true, lines: [{ item: 'Web' }] });
    const page = await b.get(`/studio/shop/orders/${uuid}`);
    expect(page.body).not.toContain('Mark shipped');
    expect((await b.get(`/studio/shop/orders/${uuid}/sheet`)).status).toBe(409);
  });

  it('sells a gallery whole from its settings, refuses a bad price or a print list at its field, and stops the sale', async () => {
    const g = { uuid: text((await w.client.createGallery(w.urlname, { name: 'Wedding', parent: w.rootUuid })).doc, 'gallery/uuid')! };
    const path = `/studio/galleries/${g.uuid}`;
    let page = await b.get(path);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Sell the whole gallery');
    expect(page.body).toContain('Sell these photos');
    expect(page.body).toContain(`value="${shop.downloads}:0"`);
    expect(page.body).not.toContain(`value="${shop.prints}:`);
    for (const [fields, field, message] of [
      [{ sale_item: `${shop.downloads}:0`, sale_price: '-3' }, 'sale_price', /amount such as/],
      [{ sale_item: `${shop.downloads}:0`, sale_price: '19.999' }, 'sale_price', /amount such as/],
      [{ sale_item: `${shop.prints}:0`, sale_price: '19' }, 'sale_item', /size/i],
      [{ sale_item: `${shop.downloads}:9`, sale_price: '19' }, 'sale_item', /size/i],
      // Beyond the API's bound (orders/fields.ts): the same refusal at the card's field.
      [{ sale_item: `${shop.downloads}:0`, sale_price: '10000001' }, 'sale_price', /^The price must be at most 1000000000\.$/],
    ] as const) {
      const res = await b.post(`${path}/sale`, { csrf, do: 'sell', ...fields });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(fieldError(res.body, field), JSON.stringify(fields)).toMatch(message);
      expect(res.body).not.toContain('sale[');
    }
    expect((await w.svc.core.orders.gallerySale(shop.owner, g.uuid)).sale).toBeUndefined();
    expect((await s2.post(`${path}/sale`, { csrf: csrf2, do: 'sell', sale_item: `${shop.downloads}:0`, sale_price: '19' })).status).toBe(404);
    expect((await b.post(`${path}/sale`, { do: 'sell', sale_item: `${shop.downloads}:0`, sale_price: '19' })).status).toBe(403);
    expect((await b.post(`${path}/sale`, { csrf, do: 'sell', sale_item: `${shop.downloads}:0`, sale_price: '19.50' })).status).toBe(303);
    const sold = (await w.svc.core.orders.gallerySale(shop.owner, g.uuid)).sale!;
    expect([sold.profile, sold.item, sold.price]).toEqual([shop.downloads, 'Web', 1950]);
    page = await b.get(`${path}?done=sale`);
    expect(page.body).toContain('For sale whole: Web (1200 px), €19.50');
    expect(page.body).toContain('value="19.50"');
    expect((await s2.post(`${path}/sale`, { csrf: csrf2, do: 'stop' })).status).toBe(404);
    expect((await b.post(`${path}/sale`, { csrf, do: 'stop' })).status).toBe(303);
    expect((await w.svc.core.orders.gallerySale(shop.owner, g.uuid)).sale).toBeUndefined();
  });

  it('refuses every new form without the token, with another session’s, or from another origin, and changes nothing', async () => {
    const five = (await coupons())[0]!;
    const forms: Array<[string, Record<string, string>]> = [
      [`/studio/shop/coupons/${shop.urlname}`, { ...blank, code: 'NEW', percent: '5', active: '1' }],
      [`/studio/shop/coupons/${shop.urlname}/${five.uuid}`, { ...blank, code: 'NEW', percent: '5', active: '1' }],
      [`/studio/shop/coupons/${shop.urlname}/${five.uuid}/active`, { active: '0' }],
      [`/studio/shop/coupons/${shop.urlname}/${five.uuid}/delete`, { confirm: 'yes' }],
      [`/studio/shop/settings/${shop.urlname}`, { tax_rate: '1', tax_label: 'T', tax_included: '1', terms: 'x' }],
      ['/studio/shop/lab', { lab_email: 'x@y.example', auto: '1' }],
    ];
    for (const [path, fields] of forms) {
      expect((await b.post(path, fields)).status, path).toBe(403);
      expect((await b.post(path, { ...fields, csrf: csrf2 })).status, path).toBe(403);
      expect((await b.post(path, { ...fields, csrf }, { origin: 'https://evil.example' })).status, path).toBe(403);
    }
    expect((await coupons()).map((x) => [x.code, x.active])).toEqual([['FIVE', 1]]);
    expect((await w.svc.core.shopSettings.get(shop.owner, shop.urlname)).tax_rate_bp).toBe(770);
    expect(await w.svc.core.orders.lab(shop.owner)).toBeUndefined();
  });
});

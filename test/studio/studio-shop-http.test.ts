// The studio's shop over HTTP (docs/studio.md "Shop"), on SQLite and PostgreSQL: price lists
// created, edited (amounts typed in major units, empty rows left out, refusals at their field,
// nothing written) and deleted, read back through the signed API; attached through the library's
// batch edit; Stripe connected (never echoed), instructions saved; orders listed, filtered, marked
// paid, cancelled, extended, resent, refunded by card against the Stripe stand-in; the exports;
// the sales per month. Another photographer's list, order or website is a 404; CSRF refused.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { eachDatabase, type TestUser } from '../support/service.js';
import { createGallery, insertMedias, mediaId } from '../support/media.js';
import { insertMedia, openShop, placeOrder, type Shop } from '../support/shop.js';
import { signedEvent, startStripe, type StripeStandIn } from '../support/stripe.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

const SK = `sk_test_${randomBytes(16).toString('hex')}`;
const WHSEC = `whsec_${randomBytes(16).toString('hex')}`;

eachDatabase((kind) => {
  let stripe: StripeStandIn;
  let w: World;
  let b: StudioBrowser;
  let csrf: string;
  let shop: Shop;
  let stranger: TestUser;
  let s2: StudioBrowser;
  let csrf2: string;

  beforeAll(async () => {
    stripe = await startStripe();
    w = await startWorld(kind, { STRIPE_API_BASE: stripe.base, PAYMENT_SECRETS_KEY: randomBytes(32).toString('hex') });
    shop = await openShop(w.svc.core, w.user);
    b = await new StudioBrowser(w.svc).signIn(w.user);
    csrf = StudioBrowser.csrf(await b.get('/studio/shop/price-lists'));
    stranger = await w.svc.user();
    s2 = await new StudioBrowser(w.svc).signIn(stranger);
    csrf2 = StudioBrowser.csrf(await s2.get('/studio/shop/price-lists'));
  }, 60_000);
  afterAll(async () => {
    await w?.svc.close();
    await stripe?.close();
  });

  const apiList = async (uuid: string) => {
    const res = await w.client.request('GET', `/pricing_profiles/${uuid}.xml`);
    return {
      name: text(res.doc, 'pricing-profile/name'),
      currency: text(res.doc, 'pricing-profile/currency'),
      minimum: text(res.doc, 'pricing-profile/minimum-price'),
      items: all(res.doc, 'pricing-profile/items/item').map((i) => [text(i, 'label'), text(i, 'long-edge'), text(i, 'price'), all(i, 'options/option').map((o) => [text(o, 'label'), text(o, 'price'), text(o, 'ratio'), text(o, 'unit-price')])]),
    };
  };
  const order = (uuid: string) => w.svc.core.orders.get(shop.owner, uuid);

  it('has a Shop entry in the navigation and an overview', async () => {
    const page = await b.get('/studio/shop');
    expect(page.status).toBe(200);
    expect(page.body).toContain('href="/studio/shop"');
    expect(page.body).toContain('Sales per month');
  });

  let downloads: string;
  it('creates a download list, edits its sizes in major units and reads them back through the API', async () => {
    const made = await b.post('/studio/shop/price-lists', { csrf, name: 'Wedding downloads', kind: 'download', currency: 'EUR' });
    expect(made.status).toBe(303);
    downloads = /price-lists\/([0-9a-f-]{36})/.exec(made.headers.get('location')!)![1];
    expect((await apiList(downloads)).items).toEqual([]);
    const saved = await b.post(`/studio/shop/price-lists/${downloads}`, {
      csrf,
      name: 'Wedding downloads',
      kind: 'download',
      currency: 'EUR',
      'items[0][label]': 'Web',
      'items[0][long_edge]': '1200',
      'items[0][price]': '9',
      'items[1][label]': '',
      'items[1][long_edge]': '',
      'items[1][price]': '',
      'items[2][label]': 'Original file',
      'items[2][long_edge]': '',
      'items[2][price]': '49,50',
    });
    expect(saved.status, saved.body.slice(0, 400)).toBe(303);
    expect(await apiList(downloads)).toEqual({
      name: 'Wedding downloads',
      currency: 'EUR',
      minimum: undefined,
      items: [
        ['Web', '1200', '900', []],
        ['Original file', undefined, '4950', []],
      ],
    });
    const page = await b.get(`/studio/shop/price-lists/${downloads}`);
    expect(page.body).toContain('value="49.50"');
  });

  it('refuses a bad price, a bad long edge and a blank label at their field, and writes nothing', async () => {
    const before = await apiList(downloads);
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ 'items[0][label]': 'Web', 'items[0][price]': '-1' }, 'items-0-price', /price of size 1 must be an amount/i],
      [{ 'items[0][label]': 'Web', 'items[0][price]': '9.999' }, 'items-0-price', /amount/],
      [{ 'items[0][label]': 'Web', 'items[0][long_edge]': '0', 'items[0][price]': '9' }, 'items-0-long_edge', /long edge of size 1 must be at least 1/i],
      [{ 'items[0][label]': '', 'items[0][price]': '9' }, 'items-0-label', /label of size 1 is required/i],
      [{ 'items[0][label]': 'Web', 'items[0][price]': '9', currency: 'eur' }, 'currency', /currency must be a supported ISO 4217 code/i],
      [{ 'items[0][label]': 'Web', 'items[0][price]': '', 'items[0][long_edge]': '300' }, 'items-0-price', /price of size 1 is required/i],
    ];
    for (const [fields, field, message] of cases) {
      const res = await b.post(`/studio/shop/price-lists/${downloads}`, { csrf, name: 'Changed', kind: 'download', currency: 'EUR', ...fields });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(fieldError(res.body, field), `${JSON.stringify(fields)}: ${res.body.slice(res.body.indexOf('role="alert"') - 200, res.body.indexOf('role="alert"') + 200)}`).toMatch(message);
      expect(res.body).not.toContain('pricing_profile[');
    }
    expect(await apiList(downloads)).toEqual(before);
  });

  let prints: string;
  it('creates a print list with products, options by price or by ratio and a minimum price', async () => {
    const made = await b.post('/studio/shop/price-lists', { csrf, name: 'Prints', kind: 'print', currency: 'GBP' });
    prints = /price-lists\/([0-9a-f-]{36})/.exec(made.headers.get('location')!)![1];
    const form = {
      csrf,
      name: 'Fine art prints',
      kind: 'print',
      currency: 'GBP',
      minimum_price: '25',
      'items[0][label]': 'Photo Rag',
      'items[0][price]': '100.00',
      'items[0][options][0][label]': 'A4',
      'items[0][options][0][ratio]': '200',
      'items[0][options][1][label]': 'A3',
      'items[0][options][1][ratio]': '300',
      'items[0][options][2][label]': 'Framed A3',
      'items[0][options][2][price]': '299',
      'items[0][options][3][label]': '',
      'items[1][label]': '',
      'items[1][price]': '',
      'items[1][options][0][label]': '',
    };
    const saved = await b.post(`/studio/shop/price-lists/${prints}`, form);
    expect(saved.status, saved.body.slice(0, 300)).toBe(303);
    expect(await apiList(prints)).toEqual({
      name: 'Fine art prints',
      currency: 'GBP',
      minimum: '2500',
      items: [
        [
          'Photo Rag',
          undefined,
          '10000',
          [
            ['A4', undefined, '200', '10000'],
            ['A3', undefined, '300', '15000'],
            ['Framed A3', '29900', undefined, '29900'],
          ],
        ],
      ],
    });
    // Both a price and a ratio: the API's rule, at the option's price.
    const both = await b.post(`/studio/shop/price-lists/${prints}`, { ...form, 'items[0][options][0][price]': '10' });
    expect(both.status).toBe(422);
    expect(fieldError(both.body, 'items-0-options-0-price')).toMatch(/^Option 1 of product 1: an option has either a price or a ratio/);
    expect(both.body).toContain('value="Framed A3"');
    expect((await apiList(prints)).items[0][3]).toHaveLength(3);
  });

  it('shows the lists, and deletes one only when confirmed', async () => {
    const page = await b.get('/studio/shop/price-lists');
    expect(page.body).toContain('Wedding downloads');
    expect(page.body).toContain('Fine art prints');
    const extra = /price-lists\/([0-9a-f-]{36})/.exec((await b.post('/studio/shop/price-lists', { csrf, name: 'To delete', kind: 'download', currency: 'USD' })).headers.get('location')!)![1];
    const unconfirmed = await b.post(`/studio/shop/price-lists/${extra}/delete`, { csrf });
    expect(unconfirmed.status).toBe(422);
    expect((await b.post(`/studio/shop/price-lists/${extra}/delete`, { csrf, confirm: 'yes' })).status).toBe(303);
    expect(((await w.svc.core.pricingProfiles.get(w.user, extra).catch((e: unknown) => e)) as { status: number }).status).toBe(404);
    // A new list's refused name, at its field.
    const blank = await b.post('/studio/shop/price-lists', { csrf, name: '  ', kind: 'download', currency: 'EUR' });
    expect(blank.status).toBe(422);
    expect(fieldError(blank.body, 'name')).toMatch(/name is required/i);
  });

  it('attaches a price list to medias through the batch edit, and takes it off', async () => {
    const media = await insertMedia(w.svc.db, w.user.id);
    const grid = await b.get('/studio/media');
    expect(grid.body).toContain('name="add_price_list"');
    expect(grid.body).toContain('Wedding downloads (downloads, EUR)');
    const run = async (fields: Record<string, string>) => {
      const res = await b.post('/studio/media/batch', { csrf, media: media.uuid, ...fields });
      expect(res.status, res.body.slice(0, 300)).toBe(303);
      const job = /job=([0-9a-f-]{36})/.exec(res.headers.get('location')!)![1];
      for (;;) {
        const state = JSON.parse((await b.get(`/studio/media/jobs/${job}`, { accept: 'application/json' })).body) as { state: string };
        if (state.state === 'done' || state.state === 'failed') return state.state;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const attached = async () => (await w.svc.db.selectFrom('media_pricing_profiles').innerJoin('pricing_profiles', 'pricing_profiles.id', 'media_pricing_profiles.pricing_profile_id').select('pricing_profiles.uuid').where('media_id', '=', media.id).execute()).map((r) => r.uuid);
    expect(await run({ add_price_list: downloads })).toBe('done');
    expect(await attached()).toEqual([downloads]);
    expect(await run({ remove_price_list: downloads })).toBe('done');
    expect(await attached()).toEqual([]);
    // Another photographer's list is the API's 422 naming it, nothing attached.
    const theirs = await w.svc.core.pricingProfiles.create(stranger, 'Theirs');
    const refused = await b.post('/studio/media/batch', { csrf, media: media.uuid, add_price_list: theirs.uuid });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(await attached()).toEqual([]);
  });

  it('sells a whole gallery: its settings attach a price list to every photo in it, through the batch edit', async () => {
    const gallery = await createGallery(w, 'Smith wedding');
    const medias = await insertMedias(w.svc.db, w.user, 3);
    const follow = async (res: { status: number; headers: Headers; body: string }) => {
      expect(res.status, res.body.slice(0, 300)).toBe(303);
      const job = /job=([0-9a-f-]{36})/.exec(res.headers.get('location')!)![1];
      for (;;) {
        const state = JSON.parse((await b.get(`/studio/media/jobs/${job}`, { accept: 'application/json' })).body) as { state: string };
        if (state.state === 'done' || state.state === 'failed') return state.state;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    for (const m of medias) expect(await follow(await b.post('/studio/media/batch', { csrf, media: m, publish: gallery }))).toBe('done');
    const settings = await b.get(`/studio/galleries/${gallery}`);
    expect(settings.body).toContain('Sell these photos');
    expect(settings.body).toContain('Attached to the 3 photos in the gallery now');
    const carrying = async () => {
      const ids = await Promise.all(medias.map((m) => mediaId(w.svc.db, m)));
      return (await w.svc.db.selectFrom('media_pricing_profiles').innerJoin('pricing_profiles', 'pricing_profiles.id', 'media_pricing_profiles.pricing_profile_id').select('media_id').where('pricing_profiles.uuid', '=', prints).where('media_id', 'in', ids).execute()).length;
    };
    // A count that changed since the page was shown: the batch's 409, nothing attached.
    const stale = await b.post('/studio/media/batch', { csrf, all: '1', gallery, count: '2', add_price_list: prints });
    expect(stale.status).toBe(409);
    expect(await carrying()).toBe(0);
    expect(await follow(await b.post('/studio/media/batch', { csrf, all: '1', gallery, count: '3', add_price_list: prints }))).toBe('done');
    expect(await carrying()).toBe(3);
  });

  it('answers 404 for another photographer\'s price list, whatever the method, and changes nothing', async () => {
    expect((await s2.get(`/studio/shop/price-lists/${downloads}`)).status).toBe(404);
    expect((await s2.post(`/studio/shop/price-lists/${downloads}`, { csrf: csrf2, name: 'Mine now', kind: 'download', currency: 'EUR' })).status).toBe(404);
    expect((await s2.post(`/studio/shop/price-lists/${downloads}/delete`, { csrf: csrf2, confirm: 'yes' })).status).toBe(404);
    expect((await s2.get('/studio/shop/price-lists')).body).not.toContain('Wedding downloads');
    expect((await apiList(downloads)).name).toBe('Wedding downloads');
  });

  it('refuses every shop form without the token, with another session\'s, or from another origin', async () => {
    const o = await placeOrder(w.svc.core, shop);
    const posts: Array<[string, Record<string, string>]> = [
      ['/studio/shop/price-lists', { name: 'X', kind: 'download', currency: 'EUR' }],
      [`/studio/shop/price-lists/${downloads}`, { name: 'X', kind: 'download', currency: 'EUR' }],
      [`/studio/shop/price-lists/${downloads}/delete`, { confirm: 'yes' }],
      ['/studio/shop/payments/stripe', { secret_key: SK, webhook_secret: WHSEC }],
      ['/studio/shop/payments/stripe/remove', { confirm: 'yes' }],
      ['/studio/shop/payments/instructions', { website: w.urlname, instructions: 'x' }],
      [`/studio/shop/orders/${o}/paid`, {}],
      [`/studio/shop/orders/${o}/cancel`, { confirm: 'yes' }],
    ];
    for (const [path, fields] of posts) {
      expect((await b.post(path, fields)).status, path).toBe(403);
      expect((await b.post(path, { ...fields, csrf: csrf2 })).status, path).toBe(403);
      expect((await b.post(path, { ...fields, csrf }, { origin: 'https://evil.example' })).status, path).toBe(403);
      expect((await b.post(path, { ...fields, csrf }, { site: 'cross-site' })).status, path).toBe(403);
    }
    expect((await order(o)).status).toBe('pending');
    expect((await apiList(downloads)).name).toBe('Wedding downloads');
    expect(await w.svc.core.stripe.isConfigured(w.user.id)).toBe(false);
  });

  it('connects Stripe without ever showing a key back, shows the webhook address, and saves the instructions', async () => {
    const bad = await b.post('/studio/shop/payments/stripe', { csrf, secret_key: 'pk_test_notasecret123', webhook_secret: WHSEC });
    expect(bad.status).toBe(422);
    expect(fieldError(bad.body, 'secret_key')).toMatch(/not a Stripe secret key/);
    expect(bad.body).not.toContain('notasecret');
    expect(bad.body).not.toContain(WHSEC);
    expect((await b.post('/studio/shop/payments/stripe', { csrf, secret_key: SK, webhook_secret: WHSEC })).status).toBe(303);
    const page = await b.get('/studio/shop/payments');
    const account = (await w.svc.core.stripe.account(w.user))!;
    expect(page.body).toContain(`Set, ending in …${SK.slice(-4)}`);
    expect(page.body).toContain(`Set, ending in …${WHSEC.slice(-4)}`);
    expect(page.body).toContain(account.webhookUrl);
    expect(page.body).not.toContain(SK.slice(0, -4));
    expect(page.body).not.toContain(WHSEC.slice(0, -4));
    // The instructions of a website the user owns; another's website is a 404.
    const saved = await b.post('/studio/shop/payments/instructions', { csrf, website: w.urlname, instructions: 'IBAN FR76 0000\r\nReference: your order number' });
    expect(saved.status).toBe(303);
    const site = await w.svc.db.selectFrom('websites').select('id').where('urlname', '=', w.urlname).executeTakeFirstOrThrow();
    expect((await w.svc.core.orders.websiteSettings(site.id))?.manual_instructions).toBe('IBAN FR76 0000\nReference: your order number');
    expect((await b.get('/studio/shop/payments')).body).toContain('Reference: your order number');
    expect((await s2.post('/studio/shop/payments/instructions', { csrf: csrf2, website: w.urlname, instructions: 'Pay me instead' })).status).toBe(404);
    const tooLong = await b.post('/studio/shop/payments/instructions', { csrf, website: w.urlname, instructions: 'x'.repeat(4001) });
    expect(tooLong.status).toBe(422);
    // The API's rule and words (shop_settings[manual_instructions], MAX_INSTRUCTIONS), in the form's name for the field.
    expect(fieldError(tooLong.body, `instructions-${w.urlname}`)).toBe('The instructions must be at most 4000 characters long.');
    expect((await w.svc.core.orders.websiteSettings(site.id))?.manual_instructions).toBe('IBAN FR76 0000\nReference: your order number');
    // 4000 characters (a CRLF counting once) are taken, and the tax set through the API stays as it was.
    await w.client.request('PUT', `/websites/${w.urlname}/shop_settings.xml`, { 'shop_settings[tax_rate]': '700' });
    const longest = `${'x'.repeat(2000)}\r\n${'y'.repeat(1999)}`;
    expect((await b.post('/studio/shop/payments/instructions', { csrf, website: w.urlname, instructions: longest })).status).toBe(303);
    const kept = await w.svc.core.orders.websiteSettings(site.id);
    expect([kept?.manual_instructions?.length, kept?.tax_rate_bp]).toEqual([4000, 700]);
    await b.post('/studio/shop/payments/instructions', { csrf, website: w.urlname, instructions: 'IBAN FR76 0000\r\nReference: your order number' });
    // Another photographer's screen shows nothing of it.
    expect((await s2.get('/studio/shop/payments')).body).not.toContain(account.webhookUrl);
  });

  let manual: string;
  it('lists and filters orders, paged, and refuses a malformed filter at its field', async () => {
    manual = await placeOrder(w.svc.core, shop, { email: 'ann@example.com' });
    const other = await placeOrder(w.svc.core, shop, { email: 'bob@example.com' });
    const list = await b.get('/studio/shop/orders');
    expect(list.body).toContain(`/studio/shop/orders/${manual}`);
    expect(list.body).toContain(`/studio/shop/orders/${other}`);
    const byEmail = await b.get('/studio/shop/orders?email=ANN%40example.com');
    expect(byEmail.body).toContain(manual);
    expect(byEmail.body).not.toContain(other);
    const today = new Date().toISOString().slice(0, 10);
    expect((await b.get(`/studio/shop/orders?from=${today}&to=${today}`)).body).toContain(manual);
    expect((await b.get('/studio/shop/orders?from=2001-01-01&to=2001-01-02')).body).not.toContain(manual);
    expect((await b.get('/studio/shop/orders?status=paid')).body).not.toContain(manual);
    const bad = await b.get('/studio/shop/orders?from=2024-02-30');
    expect(bad.status).toBe(422);
    expect(fieldError(bad.body, 'from')).toMatch(/From must be a day as YYYY-MM-DD/);
    const backwards = await b.get(`/studio/shop/orders?from=${today}&to=2001-01-01`);
    expect(fieldError(backwards.body, 'to')).toMatch(/To must not be before From/);
    expect(fieldError((await b.get('/studio/shop/orders?status=lost')).body, 'status')).toMatch(/must be one of/);
    // Paged by 25: 27 orders in all make two pages (one placed by the CSRF test).
    for (let i = 0; i < 24; i++) await placeOrder(w.svc.core, shop, { email: 'many@example.com' });
    const first = await b.get('/studio/shop/orders?email=many%40example.com');
    expect((first.body.match(/class="or-link"/g) ?? []).length).toBe(24);
    const all25 = await b.get('/studio/shop/orders');
    expect((all25.body.match(/class="or-link"/g) ?? []).length).toBe(25);
    expect(all25.body).toContain('page=2');
    expect(((await b.get('/studio/shop/orders?page=2')).body.match(/class="or-link"/g) ?? []).length).toBeGreaterThan(0);
    // Another photographer sees none of them.
    expect((await s2.get('/studio/shop/orders')).body).not.toContain(manual);
  });

  it('shows an order and marks it paid, extends and resends its links; cancels another; refuses what its state does not allow', async () => {
    const detail = await b.get(`/studio/shop/orders/${manual}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toContain('ann@example.com');
    expect(detail.body).toContain(`/studio/thumbs/${shop.media}`);
    expect(detail.body).toContain('Nothing to download before payment.');
    expect((await b.post(`/studio/shop/orders/${manual}/paid`, { csrf })).status).toBe(303);
    const paid = await order(manual);
    expect([paid.status, paid.payments.map((p) => [p.provider, p.kind])]).toEqual(['paid', [['manual', 'payment']]]);
    // A paid order cannot be cancelled: the service's 409, on the page.
    const refused = await b.post(`/studio/shop/orders/${manual}/cancel`, { csrf, confirm: 'yes' });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain('A paid order cannot be cancelled: refund it.');
    // Extend: the links work 30 days from now (shorten them first, as the API can).
    await w.svc.core.orders.downloads(w.user, manual, { days: 1 });
    expect((await b.post(`/studio/shop/orders/${manual}/extend`, { csrf })).status).toBe(303);
    const until = new Date((await order(manual)).downloads_expire_at!).getTime();
    expect(until).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    // Resend once the files are made (the delivery job sets delivered_at; here set by hand: these medias have no file).
    await w.svc.db.updateTable('orders').set({ delivered_at: new Date().toISOString() }).where('uuid', '=', manual).execute();
    expect((await b.post(`/studio/shop/orders/${manual}/resend`, { csrf })).status).toBe(303);
    expect((await b.get(`/studio/shop/orders/${manual}?done=resent`)).body).toContain('The download mail was sent again.');
    // Cancel needs its confirmation.
    const other = await placeOrder(w.svc.core, shop);
    expect((await b.post(`/studio/shop/orders/${other}/cancel`, { csrf })).status).toBe(422);
    expect((await order(other)).status).toBe('pending');
    expect((await b.post(`/studio/shop/orders/${other}/cancel`, { csrf, confirm: 'yes' })).status).toBe(303);
    expect((await order(other)).status).toBe('cancelled');
    expect((await b.post(`/studio/shop/orders/${other}/paid`, { csrf })).status).toBe(409);
    expect((await b.post(`/studio/shop/orders/${other}/nonsense`, { csrf })).status).toBe(404);
  });

  it('refunds a card payment through Stripe', async () => {
    const uuid = await placeOrder(w.svc.core, shop);
    const session = await w.svc.core.stripe.checkout(shop.owner, uuid, { successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/back' });
    stripe.pay(session.id);
    const { webhookUrl } = (await w.svc.core.stripe.account(w.user))!;
    const event = signedEvent('checkout.session.completed', stripe.sessions.get(session.id)!.session, WHSEC);
    expect((await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body })).status).toBe(200);
    expect((await order(uuid)).status).toBe('paid');
    const page = await b.get(`/studio/shop/orders/${uuid}`);
    expect(page.body).toContain('card (Stripe)');
    expect(page.body).toContain("to the buyer's card");
    expect((await b.post(`/studio/shop/orders/${uuid}/refund`, { csrf })).status).toBe(422);
    expect((await b.post(`/studio/shop/orders/${uuid}/refund`, { csrf, confirm: 'yes' })).status).toBe(303);
    const refunded = await order(uuid);
    expect(refunded.status).toBe('refunded');
    expect(stripe.refunds.map((r) => [r.amount, r.key])).toEqual([[Number(refunded.total), SK]]);
    expect((await b.get(`/studio/shop/orders/${uuid}`)).body).toContain('Refunded: the links no longer work.');
  });

  it('answers 404 for another photographer\'s order, whatever the method', async () => {
    expect((await s2.get(`/studio/shop/orders/${manual}`)).status).toBe(404);
    for (const action of ['paid', 'cancel', 'refund', 'extend', 'resend']) expect((await s2.post(`/studio/shop/orders/${manual}/${action}`, { csrf: csrf2, confirm: 'yes' })).status, action).toBe(404);
    expect((await s2.get('/studio/shop/orders/not-a-uuid')).status).toBe(404);
    expect((await order(manual)).status).toBe('paid');
  });

  it('exports the two accounting files, as the admin command writes them', async () => {
    const made = await w.svc.core.orders.export(w.user);
    for (const [file, name, body] of [['report', made.reportName, made.report], ['items', made.itemsName, made.items]] as const) {
      const res = await b.get(`/studio/shop/orders/export/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${name}"`);
      expect(res.body).toBe(body);
    }
    expect(made.report).toContain(manual);
    expect((await s2.get('/studio/shop/orders/export/report')).body).not.toContain(manual);
    expect((await b.get('/studio/shop/orders/export/other')).status).toBe(404);
  });

  it('shows the sales of the month per currency; another photographer sees none', async () => {
    const months = await w.svc.core.orders.monthlySales(w.user);
    const now = months.at(-1)!.currencies.find((c) => c.currency === 'EUR')!;
    expect(now.orders).toBe(2);
    expect(now.refunded).toBe(1);
    const page = await b.get('/studio/shop');
    expect(page.body).toContain('Sales in EUR per month');
    expect(page.body).toMatch(/from 2 orders/);
    expect((await s2.get('/studio/shop')).body).toContain('No sales yet');
    // Disconnect Stripe (confirmed).
    expect((await b.post('/studio/shop/payments/stripe/remove', { csrf })).status).toBe(422);
    expect((await b.post('/studio/shop/payments/stripe/remove', { csrf, confirm: 'yes' })).status).toBe(303);
    expect(await w.svc.core.stripe.isConfigured(w.user.id)).toBe(false);
  });
});

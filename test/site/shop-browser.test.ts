// The shop on the website in a real browser (docs/shop.md "On the website"): a
// visitor adds two downloads from their media pages to the cart, applies a
// coupon, checks out manually and sees the order page; the photographer marks it
// paid through the API and the buyer's mail arrives (real SMTP server). Then a
// card checkout through the Stripe stand-in, the success page confirming only,
// a signed webhook paying. Desktop and phone sizes, axe clean, strict CSP; the
// forms refused with a clear 4xx. SQLite and PostgreSQL, local files. Screenshots
// go to test-artifacts/site/shop-<database>-*.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { attachProfile } from '../support/shop.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { signedEvent, startStripe, type StripeStandIn } from '../support/stripe.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, axe, CHROMIUM, chromiumPresent, cookieOf, launchChromium, uploadPhoto, visit, waitForRenditions } from './site-support.js';

const SK = `sk_test_${randomBytes(16).toString('hex')}`;
const WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const BUYER = 'buyer@example.com';

if (!chromiumPresent && process.env.CI) {
  describe('the shop in a browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

eachDatabase((kind: DbKind) =>
describe.skipIf(!chromiumPresent)('the shop in a browser', () => {
  let smtp: TestSmtp;
  let stripe: StripeStandIn;
  let w: World;
  let browser: Browser;
  let home: string;
  let profile: string;
  let foreignMedia: string;
  const photos: string[] = [];
  const errors: string[] = [];
  const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `shop-${kind}-${name}.png`), fullPage: true });
  const mediaPage = (uuid: string) => `${home}/-/prints/_/${uuid}`;

  async function newPage(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`${m.text()} at ${m.location().url}`);
    });
    return page;
  }

  async function add(page: Page, uuid: string, item: string) {
    await page.goto(mediaPage(uuid));
    await page.locator('.offer label', { hasText: item }).locator('input').check();
    await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('.offer button', { hasText: 'Add to cart' }).click()]);
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
    stripe = await startStripe();
    w = await startWorld(kind, {
      SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Photos <photos@example.com>',
      VISITOR_RATE_LIMIT: 'off',
      SITE_CACHE_SECONDS: '0',
      JOB_POLL_MS: '50',
      STRIPE_API_BASE: stripe.base,
      PAYMENT_SECRETS_KEY: randomBytes(32).toString('hex'),
    });
    home = `${w.svc.url}/sites/${w.urlname}`;
    const g = await w.client.createGallery(w.urlname, { name: 'Prints', parent: w.rootUuid });
    const gallery = text(g.doc, 'gallery/uuid')!;
    for (let i = 0; i < 3; i++) photos.push(await uploadPhoto(w, gallery, i, 1800));
    expect(await waitForRenditions(w, photos)).toBe(true);
    const core = w.svc.core;
    const list = await core.pricingProfiles.createList(w.user, {
      name: 'Digital downloads',
      kind: 'download',
      currency: 'EUR',
      items: [
        { param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] },
        { param: 'b', label: 'Poster', longEdge: 6000, price: 2900, options: [] },
        { param: 'c', label: 'Original', longEdge: null, price: 4900, options: [] },
      ],
    });
    profile = list.uuid;
    await attachProfile(w.svc.db, photos[0], profile);
    await attachProfile(w.svc.db, photos[1], profile);
    const websiteId = (await w.svc.db.selectFrom('websites').select('id').where('urlname', '=', w.urlname).executeTakeFirstOrThrow()).id;
    await core.orders.createCoupon(w.user, { websiteId, code: 'SPRING', kind: 'percent', value: 1000 });
    await core.shopSettings.update(w.user, w.urlname, { taxRate: 2000, taxIncluded: true });
    // Another photographer's priced media: never in this website's cart.
    const other = await w.svc.user();
    await w.svc.website(other);
    const { insertMedia } = await import('../support/shop.js');
    foreignMedia = (await insertMedia(w.svc.db, other.id)).uuid;
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
    await stripe?.close();
    await smtp?.close();
  });

  it('shows the offer of a priced media only, in euros, with the sizes its original can give', async () => {
    const page = await newPage(1280, 800);
    await page.goto(mediaPage(photos[0]));
    const offer = page.locator('section.offer');
    expect((await offer.locator('label').allTextContents()).map((t) => t.trim())).toEqual(['Web (1200 px)€9.00', 'Original (original file)€49.00']);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'media-desktop');
    await page.goto(mediaPage(photos[2]));
    expect(await page.locator('section.offer').count()).toBe(0);
    await page.context().close();
  });

  it('offers a priced photo in the viewer: its buy button leads to the offer; an unpriced one has none', async () => {
    const page = await newPage(1280, 800);
    await page.goto(`${home}/-/prints`);
    const buy = page.locator('.pswp__button--buy');
    await page.locator(`ul.media a[data-uuid="${photos[2]}"]`).click();
    await page.locator('.pswp.pswp--ready').waitFor();
    expect(await buy.isHidden()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.pswp').count()).toBe(0);
    await page.locator(`ul.media a[data-uuid="${photos[0]}"]`).click();
    await page.locator('.pswp.pswp--ready').waitFor();
    expect(await buy.isVisible()).toBe(true);
    expect(await buy.getAttribute('aria-label')).toBe('Buy this photo');
    await shot(page, 'viewer-desktop');
    await Promise.all([page.waitForURL(`${mediaPage(photos[0])}#buy-h`), buy.click()]);
    expect(await page.locator('section.offer').isVisible()).toBe(true);
    await page.context().close();
  });

  it('adds two downloads, applies a coupon, checks out manually; marked paid through the API, the buyer is mailed', async () => {
    const page = await newPage(1280, 800);
    await add(page, photos[0], 'Web');
    await add(page, photos[1], 'Original');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'cart')!;
    expect([cookie.httpOnly, cookie.sameSite, cookie.path]).toEqual([true, 'Lax', `/sites/${w.urlname}`]);
    expect(await page.locator('ul.cart li').count()).toBe(2);
    expect(await page.locator('ul.cart li img').count()).toBe(2);
    // An unknown coupon: said on the page, nothing changed.
    await page.locator('#coupon').fill('NOPE');
    await Promise.all([page.waitForLoadState('load'), page.locator('form.inline button').click()]);
    expect(await page.locator('p.error[role="alert"]').textContent()).toContain('not valid');
    await page.locator('#coupon').fill('spring');
    await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('form.inline button').click()]);
    // 9 + 49 = 58.00, 10 % off = 52.20, of which 20 % tax included: 8.70.
    expect(await page.locator('dl.totals').textContent()).toBe('Subtotal€58.00Coupon SPRING−€5.80Tax included (20 %)€8.70Total€52.20');
    // Quantities change on the server.
    await page.locator('#q0').fill('2');
    await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('ul.cart li').nth(0).locator('button', { hasText: 'Update' }).click()]);
    expect(await page.locator('dd.total').textContent()).toBe('€60.30');
    await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('ul.cart li').nth(0).locator('button', { hasText: 'Update' }).click()]);
    await page.locator('#q0').fill('1');
    await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('ul.cart li').nth(0).locator('button', { hasText: 'Update' }).click()]);
    expect(await page.locator('dd.total').textContent()).toBe('€52.20');
    // No card provider: only the manual payment is offered.
    expect(await page.locator('input[name="method"]').count()).toBe(1);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'cart-desktop');
    await page.locator('#email').fill(BUYER);
    await Promise.all([page.waitForURL(/\/_cart\/order\/[0-9a-f-]{36}$/), page.locator('form.shop button[type="submit"]').click()]);
    const uuid = /order\/([0-9a-f-]{36})$/.exec(page.url())![1];
    expect(await page.locator('.notice').textContent()).toContain('will contact you');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'order-desktop');
    const order = await w.svc.core.orders.get(w.user, uuid);
    expect([order.status, Number(order.total), order.coupon_code, order.items.length]).toEqual(['pending', 5220, 'SPRING', 2]);
    // The cart is gone with the order.
    await page.goto(`${home}/_cart`);
    expect(await page.locator('main').textContent()).toContain('Your cart is empty');

    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
    // The downloads mail (the order's "order received" came at checkout).
    await expect.poll(() => smtp.mails.find((m) => m.to.includes(BUYER) && /^Subject: Your downloads from /m.test(m.raw)), { timeout: 30_000 }).toBeDefined();
    await page.goto(`${home}/_cart/order/${uuid}`);
    expect(await page.locator('.notice').textContent()).toContain('Paid, thank you');
    // Another browser cannot open it.
    expect((await visit(w.svc, `/sites/${w.urlname}/_cart/order/${uuid}`)).status).toBe(404);
    await page.context().close();
  });

  it('pays by card on a phone: redirected to Stripe Checkout, the return confirms only, a signed webhook pays', async () => {
    const { webhookUrl } = await w.svc.core.stripe.configure(w.user, { secretKey: SK, webhookSecret: WHSEC });
    const page = await newPage(390, 844);
    await page.goto(mediaPage(photos[1]));
    await shot(page, 'media-phone');
    await add(page, photos[1], 'Web');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'cart-phone');
    await page.locator('#email').fill(BUYER);
    await page.locator('input[name="method"][value="card"]').check();
    const sessions = stripe.sessions.size;
    await Promise.all([page.waitForURL((u) => u.href.startsWith(`${stripe.base}/pay/`)), page.locator('form.shop button[type="submit"]').click()]);
    expect(stripe.sessions.size).toBe(sessions + 1);
    const session = [...stripe.sessions.values()].at(-1)!.session;
    const uuid = session.client_reference_id!;
    expect([session.amount_total, session.currency]).toEqual([900, 'eur']);
    // The buyer comes back before Stripe said anything: nothing is paid.
    stripe.pay(session.id);
    await page.goto(session.success_url);
    expect(await page.locator('.notice').textContent()).toContain('confirming your payment');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'order-phone');
    expect((await w.svc.core.orders.get(w.user, uuid)).status).toBe('pending');
    const event = signedEvent('checkout.session.completed', session, WHSEC);
    const res = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(res.status).toBe(200);
    expect((await w.svc.core.orders.get(w.user, uuid)).status).toBe('paid');
    await page.reload();
    expect(await page.locator('.notice').textContent()).toContain('Paid, thank you');
    await page.context().close();
  });

  it('keeps the strict CSP on the shop pages, and no console error', async () => {
    const added = await visit(w.svc, `/sites/${w.urlname}/_cart/add`, { form: { media: photos[0], choice: `${profile}:Web` }, headers: { origin: w.svc.url } });
    const res = await visit(w.svc, `/sites/${w.urlname}/_cart`, { cookie: cookieOf(added) });
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).not.toContain('unsafe-inline');
    // The checkout form may end at the card provider's checkout, and nowhere else.
    expect(csp).toContain(`form-action 'self' ${new URL(stripe.base).origin};`);
    expect(errors).toEqual([]);
  });

  it('refuses tampered and foreign forms with a clear 4xx, never a 5xx, and writes nothing then', async () => {
    const origin = { origin: w.svc.url };
    const path = (sub: string) => `/sites/${w.urlname}/_cart/${sub}`;
    const first = await visit(w.svc, path('add'), { form: { media: photos[0], choice: `${profile}:Web` }, headers: origin });
    expect(first.status).toBe(303);
    const cookie = cookieOf(first)!;
    expect(first.headers['set-cookie']!.toString()).toMatch(/HttpOnly; SameSite=Lax/);
    const lines = async () => (await w.svc.db.selectFrom('cart_items').select(['quantity']).execute()).length;
    const before = await lines();
    const refused: Array<[string, Record<string, string>, Record<string, string>?]> = [
      ['add', { media: foreignMedia, choice: `${profile}:Web` }],
      ['add', { media: photos[2], choice: `${profile}:Web` }],
      ['add', { media: photos[0], choice: `${profile}:Poster` }],
      ['add', { media: photos[0], choice: `${profile}:Nope` }],
      ['add', { media: photos[0], choice: 'not-a-uuid:Web' }],
      ['add', { media: 'x'.repeat(40), choice: `${profile}:Web` }],
      ['update', { media: photos[0], choice: `${profile}:Web`, quantity: '-1' }],
      ['update', { media: photos[0], choice: `${profile}:Web`, quantity: '101' }],
      ['update', { media: photos[0], choice: `${profile}:Web`, quantity: '1e3' }],
      ['update', { media: foreignMedia, choice: `${profile}:Web`, quantity: '1' }],
      // A priced photo of the photographer, but not in the cart: only `add` (from a page the visitor may see) adds.
      ['update', { media: photos[1], choice: `${profile}:Web`, quantity: '1' }],
      ['checkout', { email: 'not-an-email', method: 'manual' }],
      ['checkout', { email: BUYER, method: 'cash' }],
      ['coupon', { coupon: 'x'.repeat(5000).slice(0, 3000) }],
      ['nothing', {}],
    ];
    for (const [sub, form, headers] of refused) {
      const res = await visit(w.svc, path(sub), { form, cookie, headers: headers ?? origin });
      expect(res.status, `${sub} ${JSON.stringify(form).slice(0, 120)}: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    // A cross-site post, and one without a cart.
    expect((await visit(w.svc, path('add'), { form: { media: photos[0], choice: `${profile}:Web` }, cookie, headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await visit(w.svc, path('checkout'), { form: { email: BUYER }, headers: origin })).status).toBe(409);
    expect(await lines()).toBe(before);
    expect(await w.svc.db.selectFrom('orders').select('id').execute()).toHaveLength(2);
    // The photographer takes the price list off the photo: the line leaves the cart, and the page says so.
    const m = await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', photos[0]).executeTakeFirstOrThrow();
    await w.svc.db.deleteFrom('media_pricing_profiles').where('media_id', '=', m.id).execute();
    const stale = await visit(w.svc, `/sites/${w.urlname}/_cart`, { cookie });
    expect([stale.status, stale.body.includes('no longer for sale')]).toEqual([200, true]);
    expect(stale.body).toContain('Your cart is empty');
    await attachProfile(w.svc.db, photos[0], profile);
    // A huge form is refused before it is read.
    const huge = await visit(w.svc, path('add'), { form: { media: photos[0], choice: `${profile}:Web`, pad: 'x'.repeat(10_000) }, cookie, headers: origin });
    expect(huge.status).toBe(413);
  });

  it('at its own host name (https), the cart cookie is Secure and for the whole host', async () => {
    const host = `shop-${randomBytes(4).toString('hex')}.example.test`;
    await w.svc.db.updateTable('websites').set({ hostname: host }).where('urlname', '=', w.urlname).execute();
    const added = await visit(w.svc, '/_cart/add', { host, form: { media: photos[0], choice: `${profile}:Web` }, headers: { origin: `https://${host}` } });
    expect(added.status).toBe(303);
    expect(added.headers.location).toBe('/_cart');
    expect(String(added.headers['set-cookie'])).toMatch(/^cart=[0-9a-f-]{36}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/);
    const cart = await visit(w.svc, '/_cart', { host, cookie: cookieOf(added) });
    expect([cart.status, cart.body.includes('Web (1200 px)')]).toEqual([200, true]);
  });
}),
);

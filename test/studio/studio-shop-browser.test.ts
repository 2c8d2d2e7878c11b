// The studio's shop in Chromium (docs/studio.md "Shop"), at 1280×800 and 390×844 with touch, axe
// clean on every screen: the Shop entry, the sales per month, a price list made by the form, Stripe
// connected, the orders filtered, an order's thumbnails, marked paid, a card order refunded against
// the Stripe stand-in; nothing wider than the phone. SQLite + local files, and PostgreSQL + S3
// (desktop). Screenshots in /tmp/shots-shop/ and test-artifacts/studio/.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studioNav } from './studio-support.js';
import { axe, chromiumPresent, launchChromium, uploadRealistic, waitForRenditions } from '../site/site-support.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { signedEvent, startStripe, type StripeStandIn } from '../support/stripe.js';
import type { World } from '../support/world.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-shop';
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'studio');
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];
const SK = `sk_test_${randomBytes(16).toString('hex')}`;
const WHSEC = `whsec_${randomBytes(16).toString('hex')}`;

describe.skipIf(!chromiumPresent).each(BACKENDS)('the studio’s shop in a browser, on $name', (backend) => {
  // PostgreSQL + S3 runs the desktop size: the same screens, the thumbnails read from the bucket.
  const sizes = backend.db === 'sqlite' ? SIZES : SIZES.slice(0, 1);
  const tag = backend.db === 'sqlite' ? '' : '-postgres';
  let stripe: StripeStandIn;
  let bw: BackendWorld;
  let w: World;
  let browser: Browser;
  let shop: Shop;
  let photos: string[];

  beforeAll(async () => {
    stripe = await startStripe();
    bw = await startOn(backend, { STRIPE_API_BASE: stripe.base, PAYMENT_SECRETS_KEY: randomBytes(32).toString('hex') });
    w = bw.w;
    photos = [await uploadRealistic(w, w.rootUuid, 1), await uploadRealistic(w, w.rootUuid, 2, { portrait: true })];
    await waitForRenditions(w, photos);
    shop = await openShop(w.svc.core, w.user, { media: photos[0] });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await bw?.close();
    await stripe?.close();
  });

  async function signedIn(size: (typeof SIZES)[number]) {
    const context = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('response', (r) => {
      // The refusals the test provokes are its own; anything else is a problem.
      if (r.status() >= 400 && r.status() !== 422) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().includes('status of 422')) problems.push(m.text());
    });
    await signInBrowser(page, w.svc.url, w.user);
    return { context, page, problems };
  }

  const click = (page: Page, phone: boolean, locator: ReturnType<Page['locator']>) => (phone ? locator.tap() : locator.click());
  async function shot(page: Page, size: string, name: string) {
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} is wider than the screen`).toBeLessThanOrEqual(page.viewportSize()!.width);
    await page.screenshot({ path: join(SHOTS, `${name}-${size}${tag}.png`), fullPage: false });
    await page.screenshot({ path: join(ARTIFACTS, `shop-${name}-${size}${tag}.png`), fullPage: false });
    expect(await axe(page), name).toEqual([]);
  }
  const thumbsLoaded = (page: Page) => page.locator('.or-lines img').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length);

  async function payByCard(): Promise<string> {
    const uuid = await placeOrder(w.svc.core, shop, { email: 'carla@example.com', lines: [{ item: 'Web' }, { item: 'Original file' }] });
    const session = await w.svc.core.stripe.checkout(shop.owner, uuid, { successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/back' });
    stripe.pay(session.id);
    const { webhookUrl } = (await w.svc.core.stripe.account(w.user))!;
    const event = signedEvent('checkout.session.completed', stripe.sessions.get(session.id)!.session, WHSEC);
    const res = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(res.status).toBe(200);
    return uuid;
  }

  for (const size of sizes) {
    it(`runs the shop at ${size.name} size`, async () => {
      const phone = size.phone;
      const { context, page, problems } = await signedIn(size);
      // The Shop entry of the header, a tap away on a phone.
      await click(page, phone, (await studioNav(page)).getByRole('link', { name: 'Shop' }));
      await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();

      // Payments: Stripe connected by the form (desktop), shown as "ending in" on both.
      await click(page, phone, page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Payments' }));
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      if (!phone) {
        await page.getByLabel('Secret key').fill(SK);
        await page.getByLabel('Webhook signing secret').fill(WHSEC);
        await page.getByRole('button', { name: 'Connect' }).click();
        await page.getByText('Stripe is connected').waitFor();
        await page.getByLabel(/Instructions on/).first().fill('Bank transfer to IBAN FR76 3000 6000 0112 3456 7890 189, reference: your order number.');
        await page.getByRole('button', { name: 'Save the instructions' }).first().click();
        await page.getByText('The payment instructions were saved.').waitFor();
      }
      expect(await page.locator('.pay-state').textContent()).toContain(`ending in …${SK.slice(-4)}`);
      expect(await page.content()).not.toContain(SK.slice(0, -4));
      await shot(page, size.name, 'payments');

      // Orders: one awaiting a direct payment, one paid by card.
      const pending = await placeOrder(w.svc.core, shop, { email: `ann-${size.name}@example.com` });
      const card = await payByCard();

      // Sales per month.
      await click(page, phone, page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Sales' }));
      await page.getByRole('heading', { name: 'Sales per month' }).waitFor();
      expect(await page.locator('.an-card rect.an-bar').count()).toBe(12);
      await shot(page, size.name, 'sales');

      // A price list made by the form, its sizes filled in.
      await click(page, phone, page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Price lists' }));
      await page.getByLabel('Name', { exact: true }).fill(`Portraits (${size.name})`);
      await page.getByLabel('Currency').selectOption('USD');
      await click(page, phone, page.getByRole('button', { name: 'Create the price list' }));
      await page.getByText('The price list was created').waitFor();
      await page.getByLabel('Size 1: label').fill('Web');
      await page.getByLabel('Long edge (px)').first().fill('2048');
      await page.getByLabel('Price (USD)').first().fill('12.50');
      await page.getByLabel('Size 2: label').fill('Original file');
      await page.getByLabel('Price (USD)').nth(1).fill('abc');
      await click(page, phone, page.getByRole('button', { name: 'Save the price list' }));
      // A refusal at its field, the rest as typed.
      await page.getByRole('alert').filter({ hasText: 'The price of size 2 must be an amount' }).waitFor();
      expect(await page.getByLabel('Size 1: label').inputValue()).toBe('Web');
      // The summary above the form leads to the field (below the fold on a phone).
      await click(page, phone, page.getByRole('link', { name: 'see the field marked below' }));
      await expect.poll(() => page.evaluate(() => document.activeElement?.id ?? location.hash)).toMatch(/items-1-price/);
      await shot(page, size.name, 'price-list-error');
      await page.getByLabel('Price (USD)').nth(1).fill('60');
      await click(page, phone, page.getByRole('button', { name: 'Save the price list' }));
      await page.getByText('The price list was saved.').waitFor();
      const uuid = /price-lists\/([0-9a-f-]{36})/.exec(page.url())![1];
      expect((await w.svc.core.pricingProfiles.get(w.user, uuid)).items.map((i) => [i.label, i.long_edge, i.price])).toEqual([
        ['Web', 2048, 1250],
        ['Original file', null, 6000],
      ]);
      await shot(page, size.name, 'price-list');
      await click(page, phone, page.getByRole('link', { name: 'All price lists' }));
      await page.getByRole('heading', { name: 'Price lists', level: 1 }).waitFor();
      await shot(page, size.name, 'price-lists');

      // Orders, filtered by status.
      await click(page, phone, page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Orders' }));
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
      // Each order with its first photo's thumbnail.
      await expect.poll(() => page.locator('.or-list img').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length)).toBe(size.phone ? 4 : 2);
      await shot(page, size.name, 'orders');
      await page.getByLabel('Status').selectOption('pending');
      await click(page, phone, page.getByRole('button', { name: 'Filter' }));
      await page.waitForURL('**/studio/shop/orders?status=pending**');
      expect(await page.locator('.or-list .status-paid').count()).toBe(0);

      // The pending order, its thumbnails, marked paid.
      await click(page, phone, page.locator(`a[href="/studio/shop/orders/${pending}"]`));
      await page.getByRole('heading', { name: `Order ${pending.slice(0, 8)}` }).waitFor();
      await expect.poll(() => thumbsLoaded(page)).toBe(2);
      await shot(page, size.name, 'order-pending');
      await click(page, phone, page.getByRole('button', { name: 'Mark paid' }));
      await page.getByText('Marked paid').waitFor();
      expect((await w.svc.core.orders.get(w.user, pending)).status).toBe('paid');

      // The card order, refunded through Stripe (the stand-in).
      await page.goto(`${w.svc.url}/studio/shop/orders/${card}`);
      await expect.poll(() => thumbsLoaded(page)).toBe(2);
      await shot(page, size.name, 'order-paid');
      const refunds = stripe.refunds.length;
      await click(page, phone, page.getByRole('button', { name: 'Refund' }));
      await page.getByRole('alert').filter({ hasText: 'Tick the box' }).waitFor();
      await click(page, phone, page.getByLabel(/refund .* to the buyer's card/));
      await click(page, phone, page.getByRole('button', { name: 'Refund' }));
      await page.getByText('The order was refunded.').waitFor();
      expect(stripe.refunds.length).toBe(refunds + 1);
      expect((await w.svc.core.orders.get(w.user, card)).status).toBe('refunded');
      await shot(page, size.name, 'order-refunded');
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);
  }
});

// Card payments through Stripe Checkout (docs/shop.md "Card payments"): the
// official `stripe` package against the local stand-in (test/support/stripe.ts),
// webhooks signed as Stripe signs them. Paid only by a verified event for the exact
// amount and currency, once; forged, stale or replayed webhooks change nothing;
// refunds go through Stripe; keys sealed at rest and never echoed. SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { signedEvent, startStripe, type StripeStandIn } from '../support/stripe.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';

const SK = `sk_test_${randomBytes(16).toString('hex')}`;
const WHSEC = `whsec_${randomBytes(16).toString('hex')}`;

eachDatabase((kind) => {
  let stripe: StripeStandIn;
  let w: World;
  let shop: Shop;
  let webhookUrl: string;

  beforeAll(async () => {
    stripe = await startStripe();
    w = await startWorld(kind, { STRIPE_API_BASE: stripe.base, PAYMENT_SECRETS_KEY: randomBytes(32).toString('hex') });
    shop = await openShop(w.svc.core, w.user);
    ({ webhookUrl } = await w.svc.core.stripe.configure(w.user, { secretKey: SK, webhookSecret: WHSEC }));
  });
  afterAll(async () => {
    await w?.svc.close();
    await stripe?.close();
  });

  const deliver = (event: { body: string; signature?: string }, url = webhookUrl) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(event.signature ? { 'stripe-signature': event.signature } : {}) }, body: event.body });
  const applied = async (res: Response) => {
    const xml = await res.text();
    expect(res.status, xml).toBe(200);
    return /<applied>true<\/applied>/.test(xml);
  };
  const order = async (uuid: string) => w.svc.core.orders.get(shop.owner, uuid);

  /** A pending order with its Checkout Session at the stand-in. */
  async function checkout() {
    const uuid = await placeOrder(w.svc.core, shop);
    const session = await w.svc.core.stripe.checkout(shop.owner, uuid, { successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/back' });
    return { uuid, session: stripe.sessions.get(session.id)!.session };
  }

  it("asks Stripe for the order's total after its coupon and the added tax, exactly", async () => {
    const taxed = await openShop(w.svc.core, w.user);
    await w.svc.core.shopSettings.update(w.user, taxed.urlname, { taxRate: 770, taxIncluded: false, taxLabel: 'MWST' });
    await w.svc.core.coupons.create(w.user, taxed.urlname, { code: 'Stripe15', percent: 15 });
    // 3 × 900 + 2 × 1500 = 5700; −15 % = 855 off → 4845; 7.7 % of 4845 = 373.065 → 373 (half-up); 5218.
    const uuid = await placeOrder(w.svc.core, taxed, { coupon: 'stripe15', lines: [{ item: 'Web', quantity: 3 }, { profile: taxed.prints, item: 'Paper', option: 'A3', quantity: 2 }] });
    const o = await order(uuid);
    expect([Number(o.subtotal), Number(o.discount), Number(o.tax), Number(o.total), o.tax_label]).toEqual([5700, 855, 373, 5218, 'MWST']);
    const made = await w.svc.core.stripe.checkout(w.user, uuid, { successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/back' });
    const session = stripe.sessions.get(made.id)!.session;
    expect([session.amount_total, session.currency]).toEqual([5218, 'eur']);
    // Paid by the session at that amount: the webhook's check of the amount agrees.
    stripe.pay(made.id);
    expect(await applied(await deliver(signedEvent('checkout.session.completed', stripe.sessions.get(made.id)!.session, WHSEC)))).toBe(true);
    expect((await order(uuid)).status).toBe('paid');
  });

  it('stores the keys sealed, never in clear, and hands out a webhook address of the service', async () => {
    expect(webhookUrl).toMatch(new RegExp(`^${w.svc.url}/payments/stripe/[A-Za-z0-9_-]{32}/webhook\\.xml$`));
    const row = await w.svc.db.selectFrom('payment_accounts').selectAll().where('owner_id', '=', w.user.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(SK.slice(8));
    expect(JSON.stringify(row)).not.toContain(WHSEC.slice(6));
    expect(row.secret_key).toMatch(/^v1:/);
    // A malformed key is refused without being repeated.
    const refusal = (await w.svc.core.stripe.configure(w.user, { secretKey: 'sk_nope secret!', webhookSecret: WHSEC }).catch((e: Error) => e)) as Error;
    expect(refusal.message).toContain('stripe[secret_key]');
    expect(refusal.message).not.toContain('secret!');
  });

  it('creates a Checkout Session for the order total with the photographer\'s key, and a verified completed event marks it paid once', async () => {
    const { uuid, session } = await checkout();
    const o = await order(uuid);
    expect([session.amount_total, session.currency, session.client_reference_id]).toEqual([Number(o.total), 'eur', uuid]);
    expect(stripe.requests.at(-1)!.key).toBe(SK);
    // Before the buyer paid, a (genuine) completed event is no payment.
    expect(await applied(await deliver(signedEvent('checkout.session.completed', session, WHSEC)))).toBe(false);
    expect((await order(uuid)).status).toBe('pending');
    stripe.pay(session.id);
    const event = signedEvent('checkout.session.completed', session, WHSEC);
    expect(await applied(await deliver(event))).toBe(true);
    const paid = await order(uuid);
    expect([paid.status, paid.payments.map((p) => [p.provider, p.kind, p.reference, Number(p.amount)])]).toEqual(['paid', [['stripe', 'payment', session.id, Number(o.total)]]]);
    // The same event again, or another event for the same session: nothing more.
    expect(await applied(await deliver(event))).toBe(false);
    expect(await applied(await deliver(signedEvent('checkout.session.async_payment_succeeded', session, WHSEC)))).toBe(false);
    expect((await order(uuid)).payments).toHaveLength(1);
    // The API shows the payment, not the keys.
    const xml = await (await w.svc.raw(w.app, 'GET', `/orders/${uuid}.xml`, { headers: { authorization: `Basic ${Buffer.from(`${w.user.email}:${w.user.password}`).toString('base64')}` } })).text();
    expect(xml).toContain(session.id);
    expect(xml).not.toContain(SK);
  });

  it('changes nothing for a forged, unsigned, stale or wrongly addressed webhook', async () => {
    const { uuid, session } = await checkout();
    stripe.pay(session.id);
    const forged = signedEvent('checkout.session.completed', session, `whsec_${randomBytes(16).toString('hex')}`);
    expect((await deliver(forged)).status).toBe(400);
    expect((await deliver({ body: forged.body })).status).toBe(400);
    // Signed right, but the body changed after signing.
    const genuine = signedEvent('checkout.session.completed', session, WHSEC);
    expect((await deliver({ body: genuine.body.replace('"livemode":false', '"livemode":true'), signature: genuine.signature })).status).toBe(400);
    // A genuine delivery captured and replayed later than Stripe's 5-minute tolerance.
    const stale = signedEvent('checkout.session.completed', session, WHSEC, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect((await deliver(stale)).status).toBe(400);
    expect((await deliver(genuine, webhookUrl.replace(/stripe\/[^/]+\//, `stripe/${'A'.repeat(32)}/`))).status).toBe(404);
    expect((await order(uuid)).status).toBe('pending');
  });

  it('refuses a paid session whose amount or currency differs from the order, and another account\'s session', async () => {
    const { uuid, session } = await checkout();
    stripe.pay(session.id);
    session.amount_total -= 1;
    expect(await applied(await deliver(signedEvent('checkout.session.completed', session, WHSEC)))).toBe(false);
    session.amount_total += 1;
    session.currency = 'usd';
    expect(await applied(await deliver(signedEvent('checkout.session.completed', session, WHSEC)))).toBe(false);
    expect((await order(uuid)).status).toBe('pending');
    // Another photographer, with their own account, sends an event naming this order's session.
    const other = await worldOn(w.svc);
    const otherWhsec = `whsec_${randomBytes(16).toString('hex')}`;
    const theirs = await w.svc.core.stripe.configure(other.user, { secretKey: `sk_test_${randomBytes(16).toString('hex')}`, webhookSecret: otherWhsec });
    session.currency = 'eur';
    expect(await applied(await deliver(signedEvent('checkout.session.completed', session, otherWhsec), theirs.webhookUrl))).toBe(false);
    expect((await order(uuid)).status).toBe('pending');
  });

  it('pays an asynchronous payment only when it succeeds', async () => {
    const { uuid, session } = await checkout();
    stripe.pay(session.id, { async: true });
    expect(await applied(await deliver(signedEvent('checkout.session.completed', session, WHSEC)))).toBe(false);
    expect(await applied(await deliver(signedEvent('checkout.session.async_payment_failed', session, WHSEC)))).toBe(false);
    expect((await order(uuid)).status).toBe('pending');
    stripe.settle(session.id);
    expect(await applied(await deliver(signedEvent('checkout.session.async_payment_succeeded', session, WHSEC)))).toBe(true);
    expect((await order(uuid)).status).toBe('paid');
  });

  it('refunds a card payment through Stripe with PUT order[status]=refunded', async () => {
    const { uuid, session } = await checkout();
    stripe.pay(session.id);
    expect(await applied(await deliver(signedEvent('checkout.session.completed', session, WHSEC)))).toBe(true);
    const res = await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'refunded' });
    const o = find(res.doc, 'order')!;
    expect(text(o, 'status')).toBe('refunded');
    const refund = stripe.refunds.find((r) => r.payment_intent === session.payment_intent)!;
    expect([refund.amount, refund.key]).toEqual([session.amount_total, SK]);
    expect(all(o, 'payments/payment').map((p) => [text(p, 'kind'), text(p, 'reference')])).toEqual([
      ['payment', session.id],
      ['refund', refund.id],
    ]);
    expect((await failure(w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' }))).status).toBe(409);
  });
});

it('refuses to store keys without PAYMENT_SECRETS_KEY', async () => {
  const w = await startWorld('sqlite');
  try {
    const refusal = (await w.svc.core.stripe.configure(w.user, { secretKey: SK, webhookSecret: WHSEC }).catch((e: Error & { status?: number }) => e)) as Error & { status?: number };
    expect([refusal.status, refusal.message]).toEqual([422, expect.stringContaining('PAYMENT_SECRETS_KEY')]);
  } finally {
    await w.svc.close();
  }
});

// Card payments through Stripe Checkout with the photographer's own account
// (docs/shop.md "Card payments"; the official `stripe` package, pointed by
// STRIPE_API_BASE). An order is paid only by a signature-verified webhook whose
// session, read back with the photographer's key, is paid for the order's exact
// amount and currency; recorded once per session, so a replayed event changes nothing.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { Logger } from 'pino';
import { ApiError, badRequest, conflict, invalid, notFound } from '../core/errors.js';
import { isUuid } from '../core/uuid.js';
import type { OrdersService } from '../orders/service.js';
import type { PaymentAccountsRepository } from './repository.js';
import { SecretBox } from './secrets.js';

const PROVIDER = 'stripe';
const SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,200}$/;
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=_-]{8,200}$/;
/** Events whose session may carry a finished payment: card payments complete at once, bank debits later. */
const PAYING_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/** Where Stripe Checkout's pages are: Stripe's own, or the origin STRIPE_API_BASE points to (a stand-in serves both). */
export function checkoutOrigin(apiBase: string | undefined): string {
  return !apiBase || new URL(apiBase).hostname === 'api.stripe.com' ? 'https://checkout.stripe.com' : new URL(apiBase).origin;
}

export interface StripeSettings {
  secretsKey: Buffer | undefined;
  stripeApiBase: string;
  /** The service's public address, read at each use (the tests settle it after start). */
  publicUrl(): string;
}

export interface WebhookResult {
  event: string;
  applied: boolean;
  reason?: string;
}

export class StripePayments {
  private readonly box: SecretBox | undefined;

  constructor(
    private readonly accounts: PaymentAccountsRepository,
    private readonly orders: OrdersService,
    private readonly settings: StripeSettings,
    private readonly log?: Logger,
  ) {
    this.box = settings.secretsKey ? new SecretBox(settings.secretsKey) : undefined;
  }

  /** Whether keys can be stored at all (PAYMENT_SECRETS_KEY is set). */
  get available(): boolean {
    return this.box !== undefined;
  }

  private sealer(): SecretBox {
    if (!this.box) throw new ApiError('unprocessable', 'card payments need PAYMENT_SECRETS_KEY set on the service (docs/shop.md, "Card payments")');
    return this.box;
  }

  webhookUrl(token: string): string {
    return `${this.settings.publicUrl()}/payments/stripe/${token}/webhook.xml`;
  }

  /** Stores (or replaces) the owner's Stripe keys, sealed; the address to give Stripe for webhooks. */
  async configure(owner: { id: number }, keys: { secretKey: string; webhookSecret: string }): Promise<{ webhookUrl: string }> {
    const box = this.sealer();
    // Never echo a secret back, even in a refusal.
    if (!SECRET_KEY.test(keys.secretKey)) throw invalid('stripe[secret_key]: the secret key must be a Stripe secret or restricted key (sk_… or rk_…)', 'secretKey');
    if (!WEBHOOK_SECRET.test(keys.webhookSecret)) throw invalid('stripe[webhook_secret]: the webhook secret must be a Stripe webhook signing secret (whsec_…)', 'webhookSecret');
    const sealed = { secret_key: box.seal(keys.secretKey, context(owner.id, 'secret_key')), webhook_secret: box.seal(keys.webhookSecret, context(owner.id, 'webhook_secret')) };
    const token = await this.accounts.save(owner.id, PROVIDER, sealed, randomBytes(24).toString('base64url'));
    return { webhookUrl: this.webhookUrl(token) };
  }

  /**
   * What the owner may be shown of their account: the webhook address and the last four
   * characters of each key (never more); undefined when none is set up.
   */
  async account(owner: { id: number }): Promise<{ webhookUrl: string; secretKeyEnd: string; webhookSecretEnd: string; readable: boolean } | undefined> {
    const a = await this.accounts.byOwner(owner.id, PROVIDER);
    if (!a) return undefined;
    const end = (sealed: string, field: string) => {
      try {
        return this.sealer().open(sealed, context(owner.id, field)).slice(-4);
      } catch {
        return '';
      }
    };
    const secretKeyEnd = end(a.secret_key, 'secret_key');
    const webhookSecretEnd = end(a.webhook_secret, 'webhook_secret');
    // Keys sealed under another PAYMENT_SECRETS_KEY (or none now) cannot be read: to be entered again.
    return { webhookUrl: this.webhookUrl(a.webhook_token), secretKeyEnd, webhookSecretEnd, readable: secretKeyEnd !== '' && webhookSecretEnd !== '' };
  }

  /** Forgets the owner's Stripe keys: buyers can no longer pay by card; the webhook address stops working. */
  async disconnect(owner: { id: number }): Promise<boolean> {
    return this.accounts.remove(owner.id, PROVIDER);
  }

  async isConfigured(ownerId: number): Promise<boolean> {
    return (await this.accounts.byOwner(ownerId, PROVIDER)) !== undefined;
  }

  private async client(ownerId: number): Promise<Stripe> {
    const account = await this.accounts.byOwner(ownerId, PROVIDER);
    if (!account) throw conflict('card payments are not set up for this photographer');
    return this.clientWith(this.sealer().open(account.secret_key, context(ownerId, 'secret_key')));
  }

  private clientWith(secretKey: string): Stripe {
    const base = new URL(this.settings.stripeApiBase);
    return new Stripe(secretKey, {
      host: base.hostname,
      port: base.port || (base.protocol === 'https:' ? 443 : 80),
      protocol: base.protocol === 'https:' ? 'https' : 'http',
      timeout: 20_000,
      maxNetworkRetries: 1,
      telemetry: false,
    });
  }

  /**
   * A Checkout Session for a pending order of the owner: one line for the order's total (its
   * prices, coupon and tax are the service's, not Stripe's), so the amount Stripe takes is the order's.
   */
  async checkout(owner: { id: number }, orderUuid: string, urls: { successUrl: string; cancelUrl: string }): Promise<{ id: string; url: string | null }> {
    const order = await this.orders.get(owner, orderUuid);
    if (order.status !== 'pending') throw conflict(`order ${order.uuid} is ${order.status}`);
    const stripe = await this.client(owner.id);
    const session = await stripe.checkout.sessions
      .create({
        mode: 'payment',
        client_reference_id: order.uuid,
        customer_email: order.email,
        metadata: { order_uuid: order.uuid },
        line_items: [{ quantity: 1, price_data: { currency: order.currency.toLowerCase(), unit_amount: Number(order.total), product_data: { name: `Order ${order.uuid.slice(0, 8)}` } } }],
        success_url: urls.successUrl,
        cancel_url: urls.cancelUrl,
      })
      .catch((err: unknown) => {
        throw refused('the checkout', err);
      });
    return { id: session.id, url: session.url };
  }

  /** Applies one webhook delivery to the account its address names; a signature that does not verify is a 400. */
  async webhook(token: string, payload: Buffer, signature: string | undefined): Promise<WebhookResult> {
    const account = /^[A-Za-z0-9_-]{32}$/.test(token) ? await this.accounts.byToken(token) : undefined;
    if (!account) throw notFound('webhook');
    const secret = this.sealer().open(account.webhook_secret, context(account.owner_id, 'webhook_secret'));
    let event: Stripe.Event;
    try {
      // Stripe's own check: the HMAC of the timestamp and the exact bytes, within 5 minutes.
      event = Stripe.webhooks.constructEvent(payload, signature ?? '', secret);
    } catch {
      throw badRequest('the Stripe-Signature header does not verify for this body');
    }
    if (!PAYING_EVENTS.has(event.type)) return { event: event.type, applied: false, reason: 'not a payment event' };
    const sent = event.data.object as Stripe.Checkout.Session;
    if (typeof sent.id !== 'string') return { event: event.type, applied: false, reason: 'no session' };
    const stripe = await this.client(account.owner_id);
    // What Stripe says now, with the photographer's key: the event's copy only names the session.
    const session = await stripe.checkout.sessions.retrieve(sent.id).catch((err: unknown) => {
      // A session this account does not know (another account's, a made-up one) is no payment of it.
      if (err instanceof Stripe.errors.StripeInvalidRequestError) return undefined;
      throw err;
    });
    if (!session) return { event: event.type, applied: false, reason: 'Stripe knows no such session of this account' };
    const applied = await this.applySession(account.owner_id, session);
    return { event: event.type, ...applied };
  }

  private async applySession(ownerId: number, session: Stripe.Checkout.Session): Promise<Omit<WebhookResult, 'event'>> {
    if (session.payment_status !== 'paid') return { applied: false, reason: 'the session is not paid (yet)' };
    const uuid = session.client_reference_id ?? '';
    const order = isUuid(uuid) ? await this.orders.get({ id: ownerId }, uuid).catch(() => undefined) : undefined;
    if (!order) return { applied: false, reason: 'no such order of this account' };
    if (session.amount_total !== Number(order.total) || (session.currency ?? '').toUpperCase() !== order.currency) {
      this.log?.warn({ order: order.uuid, session: session.id }, 'a paid Stripe session does not match its order: not applied');
      return { applied: false, reason: 'the amount or currency differs from the order' };
    }
    const moved = await this.orders.markPaid(order.id, { provider: PROVIDER, reference: session.id, amount: session.amount_total, currency: order.currency });
    if (moved) return { applied: true };
    // Paid at Stripe for an order cancelled meanwhile: the photographer refunds it (logged, not hidden).
    if (order.status === 'cancelled') this.log?.warn({ order: order.uuid, session: session.id }, 'a cancelled order was paid through Stripe: refund it there');
    return { applied: false, reason: `already applied or the order is ${order.status}` };
  }

  /** Refunds a paid session's payment in full through Stripe; the refund's id. */
  async refund(ownerId: number, payment: { reference: string | null; amount: number }): Promise<{ reference: string }> {
    if (!payment.reference) throw conflict('order[status]: the card payment has no Stripe session');
    const stripe = await this.client(ownerId);
    const session = await stripe.checkout.sessions.retrieve(payment.reference);
    const intent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
    if (!intent) throw conflict('order[status]: Stripe knows no payment for this order');
    // One refund per session, however often it is asked for (Stripe keeps idempotency keys for 24 hours).
    const refund = await stripe.refunds.create({ payment_intent: intent, amount: payment.amount }, { idempotencyKey: `refund-${payment.reference}` }).catch((err: unknown) => {
      throw refused('the refund', err);
    });
    return { reference: refund.id };
  }
}

/** Stripe's refusal (a wrong key, a refused refund) as the catalogue's 422; anything else as it is. */
function refused(what: string, err: unknown): Error {
  if (err instanceof Stripe.errors.StripeError && err.type !== 'StripeConnectionError' && err.type !== 'StripeAPIError') return new ApiError('unprocessable', `Stripe refused ${what}: ${err.message.slice(0, 200)}`);
  return err instanceof Error ? err : new Error(String(err));
}

/** The additional data a secret is sealed with: its owner and its field. */
function context(ownerId: number, field: string): string {
  return `payment_accounts:${ownerId}:${PROVIDER}:${field}`;
}

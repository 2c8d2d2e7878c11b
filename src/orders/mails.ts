// The mails of a new order (docs/shop.md "Mails"): "order received" to the buyer,
// a notice to the photographer (the website owner's account e-mail). Made after
// the order's commit; the mailer sends in the background. Nothing here fails or
// delays the order beyond its few reads: every error is logged, never thrown.
import type { Logger } from 'pino';
import type { Mailer } from '../mail/mailer.js';
import { newOrderMessage, orderReceivedMessage, type MailBrand, type OrderMail } from '../mail/messages.js';
import type { CurrencyCode } from '../shop/money.js';
import type { OrdersRepository } from './repository.js';

/** What the buyer reads with no instructions of the photographer's: the website's order page says the same (src/site/shop/cart-routes.ts). */
export const DEFAULT_PAYMENT_TEXT = 'The photographer will contact you by e-mail about the payment. Your order waits until it is paid.';

export interface OrderMailSettings {
  publicUrl(): string;
  /** Whether the owner takes cards (then the buyer may have paid by card or not). */
  takesCards(ownerId: number): Promise<boolean>;
  /** The website's brand in the buyer's mail (src/site/mail-brand.ts). */
  brand?(websiteId: number): Promise<MailBrand | undefined>;
}

export class OrderMails {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly mailer: Pick<Mailer, 'send'>,
    private readonly settings: OrderMailSettings,
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  /** Mails the buyer and the photographer of a new order; never throws. */
  async placed(orderId: number): Promise<void> {
    try {
      await this.send(orderId);
    } catch (err) {
      // The order id only: the mails' addresses are personal data, and no token is involved.
      this.log.error({ order: orderId, reason: (err as Error).message }, 'the mails of a new order could not be made');
    }
  }

  private async send(orderId: number): Promise<void> {
    const order = await this.repo.orderById(orderId);
    // An order is placed from a website's cart; one without a website (deleted since) mails nothing.
    if (order.website_id === null) return;
    const websiteId = order.website_id;
    const [items, facts, settings, card] = await Promise.all([
      this.repo.items(orderId),
      this.repo.mailFacts(websiteId, order.owner_id),
      this.repo.settings(websiteId),
      this.settings.takesCards(order.owner_id),
    ]);
    const mail: OrderMail = {
      siteTitle: facts.title ?? 'the photographer',
      uuid: order.uuid,
      lines: items.map((i) => ({ fileName: i.media_file_name, label: i.label, option: i.option_label, longEdge: i.long_edge === null ? null : Number(i.long_edge), kind: i.kind, quantity: Number(i.quantity), total: Number(i.total) })),
      totals: {
        currency: order.currency as CurrencyCode,
        subtotal: Number(order.subtotal),
        discount: Number(order.discount),
        coupon: order.coupon_code,
        tax: Number(order.tax),
        taxRateBp: Number(order.tax_rate_bp),
        taxIncluded: Number(order.tax_included) === 1,
        taxLabel: order.tax_label,
        total: Number(order.total),
      },
    };
    const instructions = settings?.manual_instructions?.trim() ? settings.manual_instructions : DEFAULT_PAYMENT_TEXT;
    const brand = await this.settings.brand?.(websiteId);
    this.mailer.send(orderReceivedMessage({ ...mail, to: order.email, payment: instructions, card, brand }), 'order received mail', '');
    if (!facts.ownerEmail) return;
    // The order's page in the studio (docs/studio.md "Shop"): the photographer marks a payment by hand there.
    const url = `${this.settings.publicUrl()}/studio/shop/orders/${order.uuid}`;
    this.mailer.send(newOrderMessage({ ...mail, to: facts.ownerEmail, buyerEmail: order.email, buyerName: order.name, url }), 'new order mail', url);
  }
}

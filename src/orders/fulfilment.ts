// The fulfilment of print orders (docs/shop.md "Prints"): the order sheet, its mail to the
// photographer's lab (automatically when an order with prints is paid, or on request), and the
// buyer's "shipped" mail with the tracking link. Mails go through the service's mailer; the lab
// through a LabConnector (src/shop/labs). Nothing here fails a payment: errors are logged.
import type { Logger } from 'pino';
import { conflict } from '../core/errors.js';
import type { Mailer } from '../mail/mailer.js';
import { shippedMessage } from '../mail/messages.js';
import type { LabConnector } from '../shop/labs/connector.js';
import { MailLab } from '../shop/labs/mail-lab.js';
import { addressLines } from './address.js';
import type { OrdersRepository } from './repository.js';
import { orderSheet, type PrintLinks } from './sheet.js';

export class PrintFulfilment {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly links: PrintLinks,
    private readonly mailer: Pick<Mailer, 'send'>,
    private readonly log: Pick<Logger, 'error' | 'info'>,
    /** The connector for a lab's address (one kind today: mail). */
    private readonly connectorFor: (lab: { email: string }) => LabConnector = (lab) => new MailLab(mailer, lab.email),
  ) {}

  sheet(orderId: number) {
    return orderSheet(this.repo, this.links, orderId);
  }

  /** After an order's payment: its sheet goes to the lab when the photographer chose so. Never throws. */
  async paid(orderId: number): Promise<void> {
    try {
      const order = await this.repo.orderById(orderId);
      const lab = await this.repo.lab(order.owner_id);
      if (!lab || lab.auto !== 1 || order.lab_sent_at !== null) return;
      if ((await this.repo.printItems(orderId)).length === 0) return;
      await this.toLab(orderId);
    } catch (err) {
      this.log.error({ order: orderId, reason: (err as Error).message }, 'the order sheet could not be sent to the lab');
    }
  }

  /** Sends the order's sheet to the owner's lab now (a 409 without a lab) and records when. */
  async toLab(orderId: number): Promise<void> {
    const order = await this.repo.orderById(orderId);
    const lab = await this.repo.lab(order.owner_id);
    if (!lab) throw conflict('order[send_to_lab]: no lab is set up (PUT /lab.xml with lab[email])');
    const sheet = await this.sheet(orderId);
    await this.connectorFor(lab).send(sheet.order, sheet);
    await this.repo.setLabSent(orderId);
    this.log.info({ order: order.uuid, rows: sheet.rows }, 'order sheet sent to the lab');
  }

  /** The buyer's "shipped" mail, with the tracking link. */
  async shipped(orderId: number): Promise<void> {
    const order = await this.repo.orderById(orderId);
    if (!order.tracking_url) return;
    const facts = order.website_id === null ? { title: undefined } : await this.repo.mailFacts(order.website_id, order.owner_id);
    this.mailer.send(shippedMessage({ to: order.email, siteTitle: facts.title ?? 'the photographer', uuid: order.uuid, trackingUrl: order.tracking_url, address: addressLines(order) }), 'shipped mail', order.tracking_url);
  }
}

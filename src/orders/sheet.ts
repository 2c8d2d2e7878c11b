// A print order's sheet (docs/shop.md "Prints"): one CSV row per print item with the product,
// option, quantity, the shipping address and a signed, expiring link to the file at print size
// (the original as uploaded: the largest there is). The same writer as the accounting exports.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { LabOrder, OrderSheet } from '../shop/labs/connector.js';
import { row } from './export.js';
import type { OrdersRepository } from './repository.js';

/** How long a sheet's file links work: a lab may print days after it got the sheet. */
export const PRINT_LINK_DAYS = 30;
export const SHEET_COLUMNS = ['order id', 'item', 'media uuid', 'media file name', 'product', 'option', 'quantity', 'pixels', 'name', 'address', 'postcode', 'city', 'country', 'file link', 'link expires'];

/** Signed links to a print item's original: `/print-files/<order>/<position>?e=<unix>&s=<mac>`. */
export class PrintLinks {
  private readonly key: Buffer;

  constructor(
    secret: Buffer,
    private readonly publicUrl: () => string,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps print sheet links', 32));
  }

  private mac(order: string, position: number, e: number): string {
    return createHmac('sha256', this.key).update(`${order}\n${position}\n${e}`).digest('base64url');
  }

  url(order: string, position: number, expires: Date): string {
    const e = Math.floor(expires.getTime() / 1000);
    return `${this.publicUrl()}/print-files/${order}/${position}?e=${e}&s=${this.mac(order, position, e)}`;
  }

  /** Whether the query proves a link made here for that item, still good at `now`. */
  check(order: string, position: number, q: { e?: string; s?: string }, now = Date.now()): boolean {
    if (!q.e || !/^\d{1,12}$/.test(q.e) || !q.s || q.s.length > 64) return false;
    const e = Number(q.e);
    const want = Buffer.from(this.mac(order, position, e));
    const got = Buffer.from(q.s);
    return got.length === want.length && timingSafeEqual(got, want) && e * 1000 > now;
  }
}

/** The sheet of one order (its print items; none: a sheet with the header only). */
export async function orderSheet(repo: OrdersRepository, links: PrintLinks, orderId: number, now = new Date()): Promise<OrderSheet & { order: LabOrder }> {
  const order = await repo.orderById(orderId);
  const items = await repo.printItems(orderId);
  const expires = new Date(now.getTime() + PRINT_LINK_DAYS * 86_400_000);
  const until = expires.toISOString().slice(0, 19).replace('T', ' ');
  const street = [order.ship_line1, order.ship_line2].filter(Boolean).join('\n');
  let csv = row(SHEET_COLUMNS);
  for (const i of items) {
    const pixels = i.width && i.height ? `${i.width}x${i.height}` : '';
    const link = i.storage_key ? links.url(order.uuid, i.position, expires) : '';
    csv += row([order.uuid, i.position, i.media_uuid, i.media_file_name, i.label, i.option_label, Number(i.quantity), pixels, order.ship_name, street, order.ship_postcode, order.ship_city, order.ship_country, link, link ? until : '']);
  }
  const facts = order.website_id === null ? { title: undefined, ownerEmail: undefined } : await repo.mailFacts(order.website_id, order.owner_id);
  return {
    fileName: `order_${order.uuid.slice(0, 8)}_prints.csv`,
    csv,
    rows: items.length,
    order: { uuid: order.uuid, siteTitle: facts.title ?? 'the photographer', replyTo: facts.ownerEmail, prints: items.reduce((n, i) => n + Number(i.quantity), 0) },
  };
}

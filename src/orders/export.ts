// The accounting exports of the original service (docs/shop.md "Exports"): an
// orders report (orders_Report_<date>.csv, one row per order) and its items
// (orders_items_<date>.csv, one row per item); UTF-8, semicolon-separated,
// every value quoted, CRLF. Amounts in major units ("39.00"); text a
// spreadsheet would run as a formula is defused with a leading apostrophe.
import type { CurrencyCode } from '../shop/money.js';
import { formatMinor } from '../shop/money.js';
import { addressLines } from './address.js';
import type { OrdersRepository } from './repository.js';

const PAGE = 500;
export const REPORT_COLUMNS = ['id', 'client', 'payment state', 'date', 'paid at', 'subtotal', 'discount', 'tax', 'total', 'currency', 'coupon', 'tax rate', 'tax label', 'terms accepted at'];
export const ITEM_COLUMNS = ['order id', 'media file name', 'media uuid', 'description', 'option', 'quantity', 'unit price', 'price', 'currency'];

export function cell(value: string | number | null): string {
  let v = value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return `"${v.replace(/"/g, '""')}"`;
}

export const row = (values: ReadonlyArray<string | number | null>) => values.map(cell).join(';') + '\r\n';
/** "2026-11-28 21:30:05", UTC. */
const when = (iso: string | null) => (iso ? iso.slice(0, 19).replace('T', ' ') : '');

export interface OrdersExport {
  reportName: string;
  report: string;
  itemsName: string;
  items: string;
  orders: number;
}

export async function exportOrders(repo: OrdersRepository, owner: { id: number }, now = new Date()): Promise<OrdersExport> {
  const day = now.toISOString().slice(0, 10);
  let report = row(REPORT_COLUMNS);
  let items = row(ITEM_COLUMNS);
  let count = 0;
  for (let after = 0; ; ) {
    const orders = await repo.exportPage(owner.id, after, PAGE);
    if (orders.length === 0) break;
    after = orders[orders.length - 1].id;
    count += orders.length;
    const money = (n: number | string, c: string) => formatMinor(Number(n), c as CurrencyCode);
    for (const o of orders) {
      // The buyer's name on its first line, then the e-mail, then the postal address's lines (orders with prints).
      const client = [o.name, o.email, ...addressLines(o).filter((l, n) => !(n === 0 && l === o.name))].filter((l): l is string => !!l).join('\n');
      // Accounting reads the payment: a shipped order is a paid one.
      report += row([o.uuid, client, o.status === 'shipped' ? 'paid' : o.status, when(o.created_at), when(o.paid_at), money(o.subtotal, o.currency), money(o.discount, o.currency), money(o.tax, o.currency), money(o.total, o.currency), o.currency, o.coupon_code, (o.tax_rate_bp / 100).toString(), o.tax_label, when(o.terms_accepted_at)]);
    }
    const currencyOf = new Map(orders.map((o) => [o.id, o] as const));
    for (const i of await repo.itemsOf(orders.map((o) => o.id))) {
      const o = currencyOf.get(i.order_id)!;
      items += row([o.uuid, i.media_file_name, i.media_uuid, i.label, i.option_label, i.quantity, money(i.unit_price, o.currency), money(i.total, o.currency), o.currency]);
    }
  }
  return { reportName: `orders_Report_${day}.csv`, report, itemsName: `orders_items_${day}.csv`, items, orders: count };
}

// The parameters of the orders API (docs/shop.md "Orders", an API extension):
// the list's filters and the photographer's change of status. A wrong value
// is a 422 naming the parameter.
import { invalid, missing } from '../core/errors.js';
import { namesOf } from '../core/fields.js';
import { fields, input, pagination, paramsSource, specDocs } from '../http/input.js';
import { LAB_API, LAB_FIELDS, readLab, readSale, SALE_API, SALE_FIELDS } from './fields.js';
import { readOrderFilter, type OrderFilterKey } from './filter.js';
import type { OrderStatus } from './service.js';
import type { OrderFilter } from './repository.js';

export const ORDERS_MAX_PER_PAGE = 500;
const API_NAMES: Record<OrderFilterKey, string> = { status: 'status', email: 'email', date: 'date', dateFrom: 'date_from', dateTo: 'date_to' };

export const orderFilterInput = input(Object.values(API_NAMES), (p): OrderFilter => {
  return readOrderFilter((key) => p.str(API_NAMES[key]), (key) => API_NAMES[key]);
});

export const orderListInput = fields({ page: pagination(ORDERS_MAX_PER_PAGE), filter: orderFilterInput });

/** The most a photographer may extend download links by at once. */
export const MAX_DOWNLOAD_DAYS = 365;

export interface OrderUpdate {
  status?: OrderStatus;
  /** With status shipped: the carrier's tracking link. */
  trackingUrl?: string;
  /** Send the print sheet to the lab now. */
  sendToLab?: boolean;
  /** Download links work this many days from now. */
  downloadDays?: number;
  /** Mail the buyer the link again. */
  resend?: boolean;
}

export const orderUpdateInput = input(['order[status]', 'order[download_days]', 'order[resend]', 'order[tracking_url]', 'order[send_to_lab]'], (p): OrderUpdate => {
  const out: OrderUpdate = {};
  const status = p.oneOf('order[status]', ['paid', 'shipped', 'cancelled', 'refunded'] as const);
  if (status) out.status = status;
  const tracking = p.str('order[tracking_url]');
  if (tracking !== undefined) {
    if (status !== 'shipped') throw invalid('parameter order[tracking_url] goes with order[status]=shipped');
    out.trackingUrl = tracking;
  } else if (status === 'shipped') throw missing('order[tracking_url]');
  if (p.flag('order[send_to_lab]')) out.sendToLab = true;
  const days = p.int('order[download_days]', { min: 1, max: MAX_DOWNLOAD_DAYS });
  if (days !== undefined) out.downloadDays = days;
  if (p.flag('order[resend]')) out.resend = true;
  if (out.status === undefined && out.downloadDays === undefined && !out.resend && !out.sendToLab) throw invalid('parameter order[status] is required (paid, shipped, cancelled or refunded), or order[download_days], order[resend] or order[send_to_lab]');
  return out;
});

/** The photographer's print lab (`PUT /lab.xml`): a blank e-mail removes it (orders/fields.ts). */
export const labInput = input(namesOf(LAB_FIELDS, LAB_API), (p) => readLab(paramsSource(p, LAB_API), LAB_API), specDocs(LAB_FIELDS, LAB_API, 'update'));

/** A gallery's whole sale (`PUT /galleries/<uuid>/sale.xml`): a blank sale[price] stops it (orders/fields.ts). */
export const gallerySaleInput = input(namesOf(SALE_FIELDS, SALE_API), (p) => readSale(paramsSource(p, SALE_API), SALE_API), specDocs(SALE_FIELDS, SALE_API, 'update'));

// The parameters of the orders API (docs/shop.md "Orders", an API extension):
// the list's filters and the photographer's change of status. A wrong value
// is a 422 naming the parameter.
import { invalid, missing } from '../core/errors.js';
import { fields, input, pagination } from '../http/input.js';
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

/** The photographer's print lab (`PUT /lab.xml`): a blank e-mail removes it. */
export const labInput = input(['lab[email]', 'lab[auto]'], (p) => {
  const email = p.str('lab[email]');
  if (email !== undefined && email.length > 254) throw invalid('parameter lab[email] must be an e-mail address');
  const auto = p.flag('lab[auto]');
  if (email === undefined && auto === undefined) throw missing('lab[email]');
  return { email, auto };
});

/** A gallery's whole sale (`PUT /galleries/<uuid>/sale.xml`): a blank sale[price] stops it. */
export const gallerySaleInput = input(['sale[pricing_profile]', 'sale[item]', 'sale[price]'], (p) => {
  const price = p.str('sale[price]');
  if (price !== undefined && price.trim() === '') return null;
  const value = p.int('sale[price]', { min: 0, max: 1_000_000_000 });
  if (value === undefined) throw missing('sale[price]');
  const profile = p.str('sale[pricing_profile]');
  const item = p.str('sale[item]');
  if (profile === undefined || profile.trim() === '') throw missing('sale[pricing_profile]');
  if (item === undefined || item.trim() === '') throw missing('sale[item]');
  return { profile, item, price: value };
});

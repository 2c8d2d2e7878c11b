// The parameters of the orders API (docs/shop.md "Orders", an API extension):
// the list's filters and the photographer's change of status. A wrong value
// is a 422 naming the parameter.
import { invalid } from '../core/errors.js';
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
  /** Download links work this many days from now. */
  downloadDays?: number;
  /** Mail the buyer the link again. */
  resend?: boolean;
}

export const orderUpdateInput = input(['order[status]', 'order[download_days]', 'order[resend]'], (p): OrderUpdate => {
  const out: OrderUpdate = {};
  const status = p.oneOf('order[status]', ['paid', 'cancelled', 'refunded'] as const);
  if (status) out.status = status;
  const days = p.int('order[download_days]', { min: 1, max: MAX_DOWNLOAD_DAYS });
  if (days !== undefined) out.downloadDays = days;
  if (p.flag('order[resend]')) out.resend = true;
  if (out.status === undefined && out.downloadDays === undefined && !out.resend) throw invalid('parameter order[status] is required (paid, cancelled or refunded), or order[download_days] or order[resend]');
  return out;
});

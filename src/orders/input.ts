// The parameters of the orders API (docs/shop.md "Orders", an API extension):
// the list's filters and the photographer's change of status. A wrong value
// is a 422 naming the parameter.
import { invalid } from '../core/errors.js';
import { fields, input, pagination } from '../http/input.js';
import { checkEmail, ORDER_STATUSES, type OrderStatus } from './service.js';
import type { OrderFilter } from './repository.js';

export const ORDERS_MAX_PER_PAGE = 500;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day (UTC) as its first instant, or a 422. */
function day(value: string, name: string): Date {
  const m = DAY.exec(value.trim());
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!m || !d || d.getUTCDate() !== Number(m[3]) || d.getUTCMonth() !== Number(m[2]) - 1) throw invalid(`parameter ${name} must be a day as YYYY-MM-DD, got ${JSON.stringify(value.slice(0, 40))}`);
  return d;
}

const nextDay = (d: Date) => new Date(d.getTime() + 86_400_000);

export const orderFilterInput = input(['status', 'email', 'date', 'date_from', 'date_to'], (p): OrderFilter => {
  const f: OrderFilter = {};
  const status = p.oneOf('status', ORDER_STATUSES);
  if (status) f.status = status;
  const email = p.str('email');
  if (email !== undefined && email.trim() !== '') f.email = checkEmail(email, 'email');
  const one = p.str('date');
  if (one !== undefined && one !== '') {
    if (p.str('date_from') || p.str('date_to')) throw invalid('parameter date: send either date or date_from/date_to');
    const d = day(one, 'date');
    return { ...f, from: d.toISOString(), to: nextDay(d).toISOString() };
  }
  const from = p.str('date_from');
  const to = p.str('date_to');
  if (from) f.from = day(from, 'date_from').toISOString();
  // Both ends are inclusive days.
  if (to) f.to = nextDay(day(to, 'date_to')).toISOString();
  if (f.from && f.to && f.from >= f.to) throw invalid('parameter date_to must not be before date_from');
  return f;
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

// The one reading of an orders list's filters (docs/shop.md "Orders"): status, buyer's e-mail,
// one day or a range of days (UTC, both ends inclusive). The API reads its query through it
// (input.ts), the studio its filter form; a wrong value is a 422 whose `field` is the key.
import { invalid } from '../core/errors.js';
import type { OrderFilter } from './repository.js';
import { checkEmail, ORDER_STATUSES } from './service.js';

export const ORDER_FILTER_KEYS = ['status', 'email', 'date', 'dateFrom', 'dateTo'] as const;
export type OrderFilterKey = (typeof ORDER_FILTER_KEYS)[number];

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day (UTC) as its first instant, or a 422. */
function day(value: string, key: OrderFilterKey, name: string): Date {
  const m = DAY.exec(value.trim());
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!m || !d || d.getUTCDate() !== Number(m[3]) || d.getUTCMonth() !== Number(m[2]) - 1) throw invalid(`${name} must be a day as YYYY-MM-DD, got ${JSON.stringify(value.slice(0, 40))}`, key);
  return d;
}

const nextDay = (d: Date) => new Date(d.getTime() + 86_400_000);

/**
 * The filter from the values a face read (`value(key)`), refused in its words (`name(key)`: the
 * API's "parameter date_from", a form's "from"); blank values filter nothing.
 */
export function readOrderFilter(value: (key: OrderFilterKey) => string | undefined, name: (key: OrderFilterKey) => string): OrderFilter {
  const f: OrderFilter = {};
  const status = value('status');
  if (status !== undefined && status !== '') {
    if (!(ORDER_STATUSES as readonly string[]).includes(status)) throw invalid(`${name('status')} must be one of ${ORDER_STATUSES.join(', ')}, got ${JSON.stringify(status.slice(0, 40))}`, 'status');
    f.status = status;
  }
  const email = value('email');
  if (email !== undefined && email.trim() !== '') {
    try {
      f.email = checkEmail(email, 'email');
    } catch {
      throw invalid(`${name('email')} must be an e-mail address`, 'email');
    }
  }
  const one = value('date');
  if (one !== undefined && one !== '') {
    if (value('dateFrom') || value('dateTo')) throw invalid(`${name('date')}: send either one day or a range (${name('dateFrom')}, ${name('dateTo')}), not both`, 'date');
    const d = day(one, 'date', name('date'));
    return { ...f, from: d.toISOString(), to: nextDay(d).toISOString() };
  }
  const from = value('dateFrom');
  const to = value('dateTo');
  if (from) f.from = day(from, 'dateFrom', name('dateFrom')).toISOString();
  // Both ends are inclusive days.
  if (to) f.to = nextDay(day(to, 'dateTo', name('dateTo'))).toISOString();
  if (f.from && f.to && f.from >= f.to) throw invalid(`${name('dateTo')} must not be before ${name('dateFrom')}`, 'dateTo');
  return f;
}

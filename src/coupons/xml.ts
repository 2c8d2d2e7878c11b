// How a coupon looks in a reply (API extension, docs/shop.md "Coupons"): a percent is whole
// percents, an amount minor units of its currency; `uses` counts placed, non-cancelled orders.
import { storedTimestamp, type XmlObject } from '../http/xml.js';
import type { CouponRecord } from './repository.js';

const when = (t: string | null) => (t === null ? null : storedTimestamp(t));

export function couponXml(c: CouponRecord): XmlObject {
  return {
    uuid: c.uuid,
    code: c.code,
    kind: c.kind,
    percent: c.kind === 'percent' ? Math.round(c.value / 100) : null,
    amount: c.kind === 'amount' ? c.value : null,
    currency: c.currency,
    'valid-from': when(c.valid_from),
    'valid-until': when(c.valid_until),
    'max-uses': c.usage_limit,
    uses: Number(c.times_used),
    active: Number(c.active) === 1,
    'created-at': when(c.created_at),
    'updated-at': when(c.updated_at),
  };
}

export function couponLocation(urlname: string, uuid: string): string {
  return `/websites/${urlname}/coupons/${uuid}.xml`;
}

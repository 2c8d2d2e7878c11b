// A website's coupon as every face reads it (docs/shop.md "Coupons"): the API's `coupon[…]`.
// A code is letters, digits, `-` and `_`, matched whatever its case; a percent or an amount.
import { custom, flag, instant, int, line, refuse, type InputOf } from '../core/fields.js';
import { isCurrencyCode, MAX_PRICE, type CurrencyCode } from '../shop/money.js';

export const MAX_CODE_LENGTH = 32;
export const CODE = /^[A-Za-z0-9_-]+$/;
/** Uses one coupon may be limited to. */
export const MAX_USES = 1_000_000;

export const COUPON_FIELDS = {
  code: line({ max: MAX_CODE_LENGTH, blank: 'refuse', required: 'create', check: { test: (v) => CODE.test(v), message: (n) => `${n} must be letters, digits, - and _ only` } }),
  /** A whole percent of the order's subtotal; blank: not a percent coupon. */
  percent: int({ min: 1, max: 100, blank: 'null' }),
  /** A fixed amount in minor units of `currency`; blank: not an amount coupon. */
  amount: int({ min: 1, max: MAX_PRICE, blank: 'null' }),
  currency: custom<CurrencyCode | null>((raw, at) => {
    if (raw === undefined) return undefined;
    if (raw.trim() === '') return null;
    if (!isCurrencyCode(raw.trim())) throw refuse(at, `${at.name} must be a supported ISO 4217 code in capitals (docs/shop.md), got ${JSON.stringify(raw.slice(0, 10))}`);
    return raw.trim() as CurrencyCode;
  }),
  validFrom: instant(),
  validUntil: instant(),
  maxUses: int({ min: 1, max: MAX_USES, blank: 'null' }),
  active: flag(),
};

export type CouponInput = InputOf<typeof COUPON_FIELDS>;

// A cart's totals (docs/shop.md, "Money and rounding"): lines at their unit
// prices, one coupon, one tax rule of the website. Amounts are summed exactly
// and rounded once per cart (half-up), so that no total depends on the order
// of the lines.
import { assertMinor, mulDivHalfUp, type CurrencyCode } from './money.js';

export interface CartLine {
  /** Names the line in the result (an item, a media). */
  key: string;
  unitPrice: number;
  quantity: number;
}

/** A website's tax: a rate in basis points (2000 = 20 %), included in prices or added to them. */
export interface TaxRule {
  rateBp: number;
  included: boolean;
}

export interface Coupon {
  code: string;
  /** percent: `value` in basis points of the subtotal (1000 = 10 %); amount: `value` in minor units of `currency`. */
  kind: 'percent' | 'amount';
  value: number;
  currency: CurrencyCode | undefined;
  validFrom?: Date;
  /** The last instant the coupon is valid. */
  validUntil?: Date;
  usageLimit?: number;
  timesUsed?: number;
  /** false: switched off by the photographer (default: on). */
  active?: boolean;
}

export interface CartTotals {
  currency: CurrencyCode;
  lines: Array<CartLine & { total: number }>;
  /** Sum of the lines, as priced (tax included or not, as the prices are). */
  subtotal: number;
  discount: number;
  /** The tax in the total: added to it, or the part of it the prices included. */
  tax: number;
  total: number;
}

export const MAX_TAX_RATE_BP = 10_000;
const BP = 10_000;

/** Why a coupon cannot be used now: the reason codes a face words in its own way. */
export type CouponReason = 'inactive' | 'not_yet_valid' | 'expired' | 'used_up' | 'other_currency';

/** Why a coupon cannot be used now on a cart in `cartCurrency` (a reason code); undefined when it can. */
export function couponReason(coupon: Coupon, cartCurrency: CurrencyCode, now: Date): CouponReason | undefined {
  if (coupon.active === false) return 'inactive';
  if (coupon.validFrom && now < coupon.validFrom) return 'not_yet_valid';
  if (coupon.validUntil && now > coupon.validUntil) return 'expired';
  if (coupon.usageLimit !== undefined && (coupon.timesUsed ?? 0) >= coupon.usageLimit) return 'used_up';
  if (coupon.kind === 'amount' && coupon.currency !== cartCurrency) return 'other_currency';
  return undefined;
}

/** Why a coupon cannot be used now on a cart in `cartCurrency`, in the API's words; undefined when it can. */
export function couponRefusal(coupon: Coupon, cartCurrency: CurrencyCode, now: Date): string | undefined {
  const words: Record<CouponReason, string> = {
    inactive: 'is not active',
    not_yet_valid: 'is not valid yet',
    expired: 'has expired',
    used_up: 'is used up',
    other_currency: `is in ${coupon.currency}, the cart in ${cartCurrency}`,
  };
  const reason = couponReason(coupon, cartCurrency, now);
  return reason && `coupon ${coupon.code} ${words[reason]}`;
}

export function priceCart(cart: { currency: CurrencyCode; lines: readonly CartLine[]; tax?: TaxRule; coupon?: Coupon; now: Date }): CartTotals {
  const lines = cart.lines.map((l) => {
    assertMinor(l.unitPrice, `the unit price of ${l.key}`);
    if (!Number.isSafeInteger(l.quantity) || l.quantity < 1) throw new RangeError(`the quantity of ${l.key} must be a whole number from 1, got ${l.quantity}`);
    return { ...l, total: l.unitPrice * l.quantity };
  });
  // Integer addition is exact and commutative: the order of the lines cannot change the sum.
  const subtotal = lines.reduce((sum, l) => sum + l.total, 0);
  assertMinor(subtotal, 'the subtotal');

  let discount = 0;
  if (cart.coupon) {
    const refusal = couponRefusal(cart.coupon, cart.currency, cart.now);
    if (refusal) throw new RangeError(refusal);
    discount = cart.coupon.kind === 'percent' ? mulDivHalfUp(subtotal, Math.min(cart.coupon.value, BP), BP) : Math.min(cart.coupon.value, subtotal);
  }
  const net = subtotal - discount;

  let tax = 0;
  let total = net;
  if (cart.tax && cart.tax.rateBp > 0) {
    const { rateBp, included } = cart.tax;
    if (!Number.isSafeInteger(rateBp) || rateBp > MAX_TAX_RATE_BP) throw new RangeError(`a tax rate is 0 to ${MAX_TAX_RATE_BP} basis points, got ${rateBp}`);
    if (included) {
      // The price holds net + tax = net × (1 + rate): the tax is what is left once the net part is rounded.
      tax = net - mulDivHalfUp(net, BP, BP + rateBp);
    } else {
      tax = mulDivHalfUp(net, rateBp, BP);
      total = net + tax;
    }
  }
  return { currency: cart.currency, lines, subtotal, discount, tax, total };
}

// The website's cart words a refusal from its field and reason codes (ApiError.field, .reason),
// never from its message: the services' wording may change without changing what a buyer reads.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { couponReason, couponRefusal, type Coupon } from '../../src/shop/cart.js';
import { checkAddress } from '../../src/orders/address.js';
import { checkoutWords, couponWords } from '../../src/site/shop/cart-routes.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const base: Coupon = { code: 'SPRING', kind: 'amount', value: 500, currency: 'EUR' };
const refusal = (code: 'invalid_parameter' | 'missing_parameter', field: string | undefined, reason?: string) => new ApiError(code, 'any wording at all', { field, reason });

describe('coupon refusals', () => {
  it('gives a reason code for each way a coupon cannot be used, and the API words it', () => {
    const cases: Array<[Coupon, string | undefined]> = [
      [base, undefined],
      [{ ...base, active: false }, 'inactive'],
      [{ ...base, validFrom: new Date('2026-12-01T00:00:00Z') }, 'not_yet_valid'],
      [{ ...base, validUntil: new Date('2026-11-28T00:00:00Z') }, 'expired'],
      [{ ...base, usageLimit: 2, timesUsed: 2 }, 'used_up'],
      [{ ...base, currency: 'USD' }, 'other_currency'],
    ];
    for (const [c, reason] of cases) {
      expect(couponReason(c, 'EUR', NOW)).toBe(reason);
      expect(couponRefusal(c, 'EUR', NOW) === undefined).toBe(reason === undefined);
    }
  });

  it('is worded for the visitor by its reason, whatever the message says', () => {
    expect(couponWords(refusal('invalid_parameter', 'coupon', 'coupon_expired'))).toBe('This coupon has expired.');
    expect(couponWords(refusal('invalid_parameter', 'coupon', 'coupon_not_yet_valid'))).toBe('This coupon is not valid yet.');
    expect(couponWords(refusal('invalid_parameter', 'coupon', 'coupon_used_up'))).toBe('This coupon has been used up.');
    expect(couponWords(refusal('invalid_parameter', 'coupon', 'coupon_other_currency'))).toBe('This coupon is for prices in another currency.');
    expect(couponWords(refusal('invalid_parameter', 'coupon', 'coupon_unknown'))).toBe('This coupon code is not valid.');
    // A message that reads like another reason changes nothing.
    expect(couponWords(new ApiError('invalid_parameter', 'cart[coupon]: coupon X has expired', { field: 'coupon', reason: 'coupon_inactive' }))).toBe('This coupon code is not valid.');
  });
});

describe('checkout refusals', () => {
  it('names the form field by the refusal\'s field key and words it by its code and reason', () => {
    expect(checkoutWords(refusal('invalid_parameter', 'acceptTerms'))).toBe('Please accept the terms of sale to place the order.');
    expect(checkoutWords(refusal('invalid_parameter', 'coupon', 'coupon_used_up'))).toBe('This coupon has been used up.');
    expect(checkoutWords(refusal('missing_parameter', 'email'))).toBe('Your e-mail address is required.');
    expect(checkoutWords(refusal('invalid_parameter', 'email', 'not_email'))).toBe('Your e-mail address must be an e-mail address, such as ann@example.com.');
    expect(checkoutWords(refusal('invalid_parameter', 'name', 'too_long'))).toBe('Your name must be one line of at most 200 characters.');
    expect(checkoutWords(refusal('missing_parameter', 'address.city'))).toBe('The city is required.');
    expect(checkoutWords(refusal('invalid_parameter', 'address.postcode', 'postcode_chars'))).toBe('The postcode may hold letters, digits, spaces and hyphens only.');
    expect(checkoutWords(refusal('invalid_parameter', 'address.city', 'too_long'))).toBe('The city must be one line of at most 100 characters.');
    // No field of the form: the caller shows the service's own message.
    expect(checkoutWords(refusal('invalid_parameter', undefined))).toBeUndefined();
    expect(checkoutWords(refusal('invalid_parameter', 'media'))).toBeUndefined();
  });

  it('gets the field keys and reasons from the address rules themselves', () => {
    const address = { name: 'Ann', line1: '1 Lane', postcode: 'SW1A 1AA', city: 'London', country: 'UK' };
    const caught = (a: Record<string, string>) => {
      try {
        checkAddress(a);
      } catch (err) {
        return err as ApiError;
      }
      throw new Error('accepted');
    };
    expect(checkoutWords(caught({ ...address, city: '  ' }))).toBe('The city is required.');
    expect(checkoutWords(caught({ ...address, postcode: 'SW1A#1AA' }))).toBe('The postcode may hold letters, digits, spaces and hyphens only.');
    expect(checkoutWords(caught({ ...address, country: 'U' }))).toBe('The country must be a country’s name or its two-letter code.');
    expect(checkoutWords(caught({ ...address, city: 'x'.repeat(101) }))).toBe('The city must be one line of at most 100 characters.');
  });
});

// Money of the shop (docs/shop.md): integer minor units of ISO 4217
// currencies, print prices by ratio, taxes, coupons, one rounding rule, and
// cart totals that never depend on the order of the lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceCart, couponRefusal, type CartLine, type Coupon, type TaxRule } from '../../src/shop/cart.js';
import { CURRENCIES, currency, formatMinor, isCurrencyCode, mulDivHalfUp, parseMajor, printOptionPrice, RATIO_REFERENCE, type CurrencyCode } from '../../src/shop/money.js';

describe('currencies', () => {
  it('knows the minor-unit exponent of each supported currency (ISO 4217)', () => {
    const expected: Record<string, number> = { EUR: 2, USD: 2, GBP: 2, CHF: 2, JPY: 0, SEK: 2, NOK: 2, DKK: 2, CAD: 2, AUD: 2, NZD: 2, PLN: 2, CZK: 2 };
    for (const [code, exponent] of Object.entries(expected)) expect(currency(code)?.exponent, code).toBe(exponent);
    expect(Object.keys(CURRENCIES).sort()).toEqual(Object.keys(expected).sort());
  });

  it('refuses codes it does not support, and lower-case or padded codes', () => {
    for (const code of ['XXX', 'eur', ' EUR', 'EURO', '', 'BTC', '__proto__', 'constructor', 'toString']) expect(isCurrencyCode(code), code).toBe(false);
    expect(isCurrencyCode('EUR')).toBe(true);
  });

  it('writes minor units as a decimal amount without floats', () => {
    expect(formatMinor(1234, 'EUR')).toBe('12.34');
    expect(formatMinor(5, 'EUR')).toBe('0.05');
    expect(formatMinor(0, 'USD')).toBe('0.00');
    expect(formatMinor(1234, 'JPY')).toBe('1234');
    expect(formatMinor(-250, 'GBP')).toBe('-2.50');
    // Past 2^53 / 100 a float would lose the last digit; integers do not.
    expect(formatMinor(9_007_199_254_740_991, 'EUR')).toBe('90071992547409.91');
  });
});

describe('amounts typed by people (the studio\'s price fields)', () => {
  it('reads major units with a point or a comma, never more decimals than the currency has', () => {
    const cases: Array<[string, CurrencyCode, number | undefined]> = [
      ['9', 'EUR', 900],
      ['9.5', 'EUR', 950],
      ['9,50', 'EUR', 950],
      [' 49.00 ', 'GBP', 4900],
      ['0', 'EUR', 0],
      ['1200', 'JPY', 1200],
      ['12.5', 'JPY', undefined],
      ['9.999', 'EUR', undefined],
      ['-1', 'EUR', undefined],
      ['1,000.00', 'EUR', undefined],
      ['', 'EUR', undefined],
      ['9.', 'EUR', undefined],
      ['abc', 'EUR', undefined],
    ];
    for (const [text, code, minor] of cases) expect(parseMajor(text, code), `${text} ${code}`).toBe(minor);
  });

  it('reads back every amount it writes', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), fc.constantFrom<CurrencyCode>('EUR', 'JPY', 'CHF'), (n, code) => parseMajor(formatMinor(n, code), code) === n));
  });
});

describe('rounding: half-up on exact integers', () => {
  it('rounds a × b / c to the nearest unit, a half going up', () => {
    expect(mulDivHalfUp(1, 1, 2)).toBe(1); // 0.5 → 1
    expect(mulDivHalfUp(1, 1, 3)).toBe(0); // 0.33 → 0
    expect(mulDivHalfUp(2, 1, 3)).toBe(1); // 0.67 → 1
    expect(mulDivHalfUp(5, 1, 2)).toBe(3); // 2.5 → 3 (half-even would give 2)
    expect(mulDivHalfUp(0, 7, 9)).toBe(0);
  });

  it('stays exact where floats are not: large products go through BigInt', () => {
    // 2^53 + 1 cannot be a float; the product of two large integers here is exact.
    expect(mulDivHalfUp(9_007_199_254_740_991, 3, 3)).toBe(9_007_199_254_740_991);
    // 1.005 × 100 in floats is 100.49999…: the integer rule gives 101 for 201 / 2.
    expect(mulDivHalfUp(201, 1, 2)).toBe(101);
  });

  it('refuses fractions, negatives and a zero divisor (a bug, not a price)', () => {
    expect(() => mulDivHalfUp(1.5, 1, 1)).toThrow(/integer/);
    expect(() => mulDivHalfUp(-1, 1, 1)).toThrow(/negative/);
    expect(() => mulDivHalfUp(1, 1, 0)).toThrow(/divisor/);
  });
});

describe('print options priced by ratio', () => {
  it("follows the original's ratios: base 100 at A4 ratio 200, A3 ratio 300 costs 150", () => {
    expect(RATIO_REFERENCE).toBe(200);
    expect(printOptionPrice({ basePrice: 100 }, { ratio: 200 })).toBe(100);
    expect(printOptionPrice({ basePrice: 100 }, { ratio: 300 })).toBe(150);
    expect(printOptionPrice({ basePrice: 1999 }, { ratio: 250 })).toBe(2499); // 2498.75 → 2499
    expect(printOptionPrice({ basePrice: 1 }, { ratio: 100 })).toBe(1); // 0.5 → 1
  });

  it('takes a fixed option price as it is, and the base price without an option', () => {
    expect(printOptionPrice({ basePrice: 100 }, { price: 4200 })).toBe(4200);
    expect(printOptionPrice({ basePrice: 100 }, undefined)).toBe(100);
  });

  it('never sells below the minimum price', () => {
    expect(printOptionPrice({ basePrice: 100 }, { ratio: 100 }, 80)).toBe(80);
    expect(printOptionPrice({ basePrice: 100 }, { price: 10 }, 80)).toBe(80);
    expect(printOptionPrice({ basePrice: 100 }, { ratio: 300 }, 80)).toBe(150);
  });
});

const EUR_LINES: CartLine[] = [
  { key: 'a', unitPrice: 1000, quantity: 1 },
  { key: 'b', unitPrice: 2550, quantity: 2 },
];
const NOW = new Date('2026-11-28T12:00:00Z');

describe('cart totals', () => {
  it('sums lines without tax or coupon', () => {
    const t = priceCart({ currency: 'EUR', lines: EUR_LINES, now: NOW });
    expect(t).toMatchObject({ subtotal: 6100, discount: 0, tax: 0, total: 6100 });
    expect(t.lines.map((l) => l.total)).toEqual([1000, 5100]);
  });

  it('adds a tax on top of prices, rounded half-up once on the cart', () => {
    const added: TaxRule = { rateBp: 2000, included: false }; // 20 %
    expect(priceCart({ currency: 'EUR', lines: EUR_LINES, tax: added, now: NOW })).toMatchObject({ subtotal: 6100, tax: 1220, total: 7320 });
    // 7.7 % of 1.05 = 0.08085 → 0.08
    expect(priceCart({ currency: 'CHF', lines: [{ key: 'x', unitPrice: 105, quantity: 1 }], tax: { rateBp: 770, included: false }, now: NOW })).toMatchObject({ tax: 8, total: 113 });
  });

  it('shows the tax a price already includes, without changing the total', () => {
    // 120.00 with 20 % included holds 20.00 of tax.
    const t = priceCart({ currency: 'EUR', lines: [{ key: 'x', unitPrice: 12000, quantity: 1 }], tax: { rateBp: 2000, included: true }, now: NOW });
    expect(t).toMatchObject({ subtotal: 12000, tax: 2000, total: 12000 });
    // 10.00 at 19 % included: 10.00 − 10.00 / 1.19 = 1.5966 → 1.60
    expect(priceCart({ currency: 'EUR', lines: [{ key: 'x', unitPrice: 1000, quantity: 1 }], tax: { rateBp: 1900, included: true }, now: NOW })).toMatchObject({ tax: 160, total: 1000 });
  });

  it('applies a percent coupon before the tax, and a fixed one never below zero', () => {
    const percent: Coupon = { code: 'TEN', kind: 'percent', value: 1000, currency: undefined };
    expect(priceCart({ currency: 'EUR', lines: EUR_LINES, coupon: percent, tax: { rateBp: 2000, included: false }, now: NOW })).toMatchObject({
      subtotal: 6100,
      discount: 610,
      tax: 1098,
      total: 6588,
    });
    const fixed: Coupon = { code: 'BIG', kind: 'amount', value: 100_000, currency: 'EUR' };
    expect(priceCart({ currency: 'EUR', lines: EUR_LINES, coupon: fixed, now: NOW })).toMatchObject({ discount: 6100, total: 0 });
  });

  it('refuses a coupon out of its dates, used up, or in another currency', () => {
    const base: Coupon = { code: 'X', kind: 'amount', value: 500, currency: 'EUR' };
    expect(couponRefusal(base, 'EUR', NOW)).toBeUndefined();
    expect(couponRefusal({ ...base, validFrom: new Date('2026-12-01T00:00:00Z') }, 'EUR', NOW)).toMatch(/not valid yet/);
    expect(couponRefusal({ ...base, validUntil: new Date('2026-11-28T11:59:59Z') }, 'EUR', NOW)).toMatch(/expired/);
    expect(couponRefusal({ ...base, usageLimit: 3, timesUsed: 3 }, 'EUR', NOW)).toMatch(/used up/);
    expect(couponRefusal({ ...base, usageLimit: 3, timesUsed: 2 }, 'EUR', NOW)).toBeUndefined();
    expect(couponRefusal(base, 'USD', NOW)).toMatch(/EUR/);
    expect(couponRefusal({ code: 'P', kind: 'percent', value: 500, currency: undefined }, 'USD', NOW)).toBeUndefined();
    expect(() => priceCart({ currency: 'USD', lines: EUR_LINES, coupon: base, now: NOW })).toThrow(/EUR/);
  });

  it('refuses a line that is not whole minor units or a quantity below 1', () => {
    expect(() => priceCart({ currency: 'EUR', lines: [{ key: 'x', unitPrice: 10.5, quantity: 1 }], now: NOW })).toThrow(/integer/);
    expect(() => priceCart({ currency: 'EUR', lines: [{ key: 'x', unitPrice: -1, quantity: 1 }], now: NOW })).toThrow(/negative/);
    expect(() => priceCart({ currency: 'EUR', lines: [{ key: 'x', unitPrice: 1, quantity: 0 }], now: NOW })).toThrow(/quantity/);
  });

  it("never depends on the lines' order (property)", () => {
    const line = fc.record({ unitPrice: fc.integer({ min: 0, max: 100_000_000 }), quantity: fc.integer({ min: 1, max: 100 }) });
    const tax = fc.option(fc.record({ rateBp: fc.integer({ min: 0, max: 10_000 }), included: fc.boolean() }), { nil: undefined });
    const coupon = fc.option(
      fc.oneof(
        fc.record({ code: fc.constant('P'), kind: fc.constant('percent' as const), value: fc.integer({ min: 1, max: 10_000 }), currency: fc.constant(undefined) }),
        fc.record({ code: fc.constant('A'), kind: fc.constant('amount' as const), value: fc.integer({ min: 1, max: 10_000_000 }), currency: fc.constant('EUR') }),
      ),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 30 }).chain((raw) => {
          const lines = raw.map((l, i) => ({ key: `l${i}`, ...l }));
          return fc.tuple(fc.constant(lines), fc.shuffledSubarray(lines, { minLength: lines.length, maxLength: lines.length }));
        }),
        tax,
        coupon,
        ([lines, shuffled], tax, coupon) => {
        const a = priceCart({ currency: 'EUR', lines, tax, coupon, now: NOW });
        const b = priceCart({ currency: 'EUR', lines: shuffled, tax, coupon, now: NOW });
        expect({ ...b, lines: undefined }).toEqual({ ...a, lines: undefined });
        expect(Object.fromEntries(b.lines.map((l) => [l.key, l.total]))).toEqual(Object.fromEntries(a.lines.map((l) => [l.key, l.total])));
        // And the figures hold together.
        expect(a.total).toBe(tax?.included === false ? a.subtotal - a.discount + a.tax : a.subtotal - a.discount);
        expect(Number.isSafeInteger(a.total) && a.total >= 0 && a.tax >= 0).toBe(true);
        },
      ),
      { seed: 20_261_128, numRuns: 300 },
    );
  });
});

// Coupons and taxes in minor units (docs/shop.md "Money and rounding"): a discount never takes a
// total below zero nor depends on the lines' order, whatever the currency's decimals (0, 2, 3);
// a coupon's API values (whole percents, amounts with their currency) as stored.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { couponValues } from '../../src/coupons/service.js';
import { priceCart, type Coupon } from '../../src/shop/cart.js';
import { formatMinorUnits, mulDivHalfUp } from '../../src/shop/money.js';

const NOW = new Date('2026-11-28T12:00:00Z');

describe('currencies of 0 and 3 decimals', () => {
  it('writes minor units with the exponent of the currency', () => {
    expect(formatMinorUnits(1234, 0)).toBe('1234'); // ¥1234
    expect(formatMinorUnits(1234, 3)).toBe('1.234'); // 1.234 KWD
    expect(formatMinorUnits(5, 3)).toBe('0.005');
    expect(formatMinorUnits(0, 3)).toBe('0.000');
    expect(formatMinorUnits(9_007_199_254_740_991, 3)).toBe('9007199254740.991');
  });

  it('prices a yen cart: a percent coupon and an added tax each rounded once, half-up, to the yen', () => {
    // ¥1,234 × 3 = ¥3,702; 15 % = 555.3 → 555; net 3,147; 10 % tax = 314.7 → 315; total 3,462.
    const t = priceCart({ currency: 'JPY', lines: [{ key: 'a', unitPrice: 1234, quantity: 3 }], coupon: { code: 'P', kind: 'percent', value: 1500, currency: undefined }, tax: { rateBp: 1000, included: false }, now: NOW });
    expect([t.subtotal, t.discount, t.tax, t.total]).toEqual([3702, 555, 315, 3462]);
    // Included: ¥3,147 at 10 % holds 3147 − round(3147 / 1.1) = 3147 − 2861 = 286.
    const inc = priceCart({ currency: 'JPY', lines: [{ key: 'a', unitPrice: 1234, quantity: 3 }], coupon: { code: 'P', kind: 'percent', value: 1500, currency: undefined }, tax: { rateBp: 1000, included: true }, now: NOW });
    expect([inc.tax, inc.total]).toEqual([286, 3147]);
  });

  it('prices a three-decimal cart in its thousandths (the amounts know no exponent)', () => {
    // 12.345 × 2 = 24.690; 5 % = 1.2345 → 1.235 (half-up); net 23.455; 5 % VAT added = 1.17275 → 1.173.
    const t = priceCart({ currency: 'EUR', lines: [{ key: 'a', unitPrice: 12_345, quantity: 2 }], coupon: { code: 'P', kind: 'percent', value: 500, currency: undefined }, tax: { rateBp: 500, included: false }, now: NOW });
    expect([t.subtotal, t.discount, t.tax, t.total].map((n) => formatMinorUnits(n, 3))).toEqual(['24.690', '1.235', '1.173', '24.628']);
  });
});

describe('coupons and taxes (properties)', () => {
  const line = fc.record({ unitPrice: fc.integer({ min: 0, max: 1_000_000_000 }), quantity: fc.integer({ min: 1, max: 100 }) });
  const tax = fc.option(fc.record({ rateBp: fc.integer({ min: 0, max: 10_000 }), included: fc.boolean() }), { nil: undefined });
  const coupon: fc.Arbitrary<Coupon> = fc.oneof(
    fc.integer({ min: 1, max: 100 }).map((p) => ({ code: 'P', kind: 'percent' as const, value: p * 100, currency: undefined })),
    fc.integer({ min: 1, max: 1_000_000_000 }).map((a) => ({ code: 'A', kind: 'amount' as const, value: a, currency: 'JPY' as const })),
  );

  it('a discount never takes a total below zero, nor above the subtotal; the tax is never negative', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 100 }), tax, coupon, (raw, tax, coupon) => {
        const t = priceCart({ currency: 'JPY', lines: raw.map((l, i) => ({ key: String(i), ...l })), tax, coupon, now: NOW });
        expect(t.discount).toBeGreaterThanOrEqual(0);
        expect(t.discount).toBeLessThanOrEqual(t.subtotal);
        expect(t.total).toBeGreaterThanOrEqual(0);
        expect(t.tax).toBeGreaterThanOrEqual(0);
        expect(t.tax).toBeLessThanOrEqual(t.total);
        for (const n of [t.subtotal, t.discount, t.tax, t.total]) expect(Number.isSafeInteger(n)).toBe(true);
        // The tax is the rate of the net, rounded once: within half a minor unit of the exact figure.
        if (tax && tax.rateBp > 0 && !tax.included) expect(Math.abs(2 * (t.tax * 10_000 - (t.subtotal - t.discount) * tax.rateBp))).toBeLessThanOrEqual(10_000);
      }),
      { seed: 33, numRuns: 500 },
    );
  });

  it('the totals never depend on the order of the lines, nor on how a quantity is split across equal lines', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 2 ** 31 }), tax, coupon, (raw, seed, tax, coupon) => {
        const lines = raw.map((l, i) => ({ key: String(i), ...l }));
        // A small seeded shuffle (Fisher–Yates with a linear congruential generator).
        const shuffled = [...lines];
        let s = seed;
        for (let i = shuffled.length - 1; i > 0; i--) {
          s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
          const j = s % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        const a = priceCart({ currency: 'JPY', lines, tax, coupon, now: NOW });
        const b = priceCart({ currency: 'JPY', lines: shuffled, tax, coupon, now: NOW });
        expect([b.subtotal, b.discount, b.tax, b.total]).toEqual([a.subtotal, a.discount, a.tax, a.total]);
        // One line of quantity q costs what q lines of quantity 1 cost.
        const split = lines.flatMap((l) => Array.from({ length: Math.min(l.quantity, 3) }, (_, k) => ({ key: `${l.key}.${k}`, unitPrice: l.unitPrice, quantity: k === 0 ? l.quantity - Math.min(l.quantity, 3) + 1 : 1 })));
        const c = priceCart({ currency: 'JPY', lines: split, tax, coupon, now: NOW });
        expect([c.subtotal, c.discount, c.tax, c.total]).toEqual([a.subtotal, a.discount, a.tax, a.total]);
      }),
      { seed: 2026, numRuns: 300 },
    );
  });

  it('a 100 % coupon makes any cart free, tax included', () => {
    const t = priceCart({ currency: 'EUR', lines: [{ key: 'a', unitPrice: 4900, quantity: 2 }], coupon: { code: 'FREE', kind: 'percent', value: 10_000, currency: undefined }, tax: { rateBp: 2000, included: false }, now: NOW });
    expect([t.discount, t.tax, t.total]).toEqual([9800, 0, 0]);
  });

  it('rounds half-up exactly at the half (a 10 % coupon on 5 minor units is 1, not 0)', () => {
    expect(mulDivHalfUp(5, 1000, 10_000)).toBe(1);
    const t = priceCart({ currency: 'EUR', lines: [{ key: 'a', unitPrice: 5, quantity: 1 }], coupon: { code: 'P', kind: 'percent', value: 1000, currency: undefined }, now: NOW });
    expect([t.discount, t.total]).toEqual([1, 4]);
  });
});

describe("a coupon's API values as stored", () => {
  it('keeps a whole percent in basis points, an amount with its currency, and a code in capitals', () => {
    expect(couponValues({ code: 'spring-10', percent: 10 }, undefined)).toMatchObject({ code: 'SPRING-10', kind: 'percent', value: 1000, currency: null, active: 1 });
    expect(couponValues({ code: 'x', amount: 500, currency: 'JPY' }, undefined)).toMatchObject({ kind: 'amount', value: 500, currency: 'JPY' });
  });

  it('switches kind on an update, keeps what is not sent, and refuses mixtures', () => {
    const old = couponValues({ code: 'x', percent: 10, maxUses: 3 }, undefined);
    expect(couponValues({ amount: 200, currency: 'EUR' }, old)).toMatchObject({ kind: 'amount', value: 200, currency: 'EUR', usage_limit: 3, code: 'X' });
    expect(() => couponValues({ amount: 200 }, old)).toThrow(/coupon\[currency\]/);
    expect(() => couponValues({ percent: 5, amount: 200, currency: 'EUR' }, old)).toThrow(/coupon\[percent\]/);
    expect(() => couponValues({ percent: null }, old)).toThrow(/coupon\[percent\] or coupon\[amount\]/);
    expect(() => couponValues({ validFrom: '2026-12-02T00:00:00.000Z', validUntil: '2026-12-01T00:00:00.000Z' }, old)).toThrow(/coupon\[valid_until\]/);
  });
});

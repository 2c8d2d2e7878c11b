// Amounts for people (docs/shop.md "Money"): the website's and the studio's `money` make one
// Intl.NumberFormat per (locale, currency), not one per amount (making one costs about a hundred
// formats: issue 33's cart page spent a second of its profile there).
import { afterEach, describe, expect, it } from 'vitest';
import { money as siteMoney } from '../../src/shop/money.js';
import { money as studioMoney } from '../../src/studio/pages/shop-common.js';

const Original = Intl.NumberFormat;
let made = 0;

/** Counts the formatters made while `fn` runs (a constructing proxy over the real one). */
function counting(fn: () => void): number {
  made = 0;
  Intl.NumberFormat = new Proxy(Original, {
    construct(target, args: ConstructorParameters<typeof Intl.NumberFormat>) {
      made++;
      return new target(...args);
    },
    apply(target, _this, args: Parameters<typeof Intl.NumberFormat>) {
      made++;
      return target(...args);
    },
  });
  try {
    fn();
  } finally {
    Intl.NumberFormat = Original;
  }
  return made;
}

afterEach(() => {
  Intl.NumberFormat = Original;
});

describe.each([
  ['the website (src/shop/money.ts)', siteMoney],
  ['the studio', studioMoney],
])('%s formats amounts', (_face, money) => {
  it('with one formatter per currency however many amounts, each amount right', () => {
    // A currency neither face formatted before in this file: the first amount makes its formatter.
    const out: string[] = [];
    const n = counting(() => {
      for (let i = 0; i < 50; i++) out.push(money(900 + i, 'NZD'));
      out.push(money(120_000, 'CZK'), money(5, 'CZK'));
    });
    expect(out[0]).toBe('NZ$9.00');
    expect(out[49]).toBe('NZ$9.49');
    expect(out.slice(50)).toEqual(['CZK\u00a01,200.00', 'CZK\u00a00.05']);
    expect(n).toBeLessThanOrEqual(2);
    // Already made: no formatter at all.
    expect(counting(() => money(1, 'NZD'))).toBe(0);
  });
});

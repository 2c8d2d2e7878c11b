// The postal address and tracking-link checks of prints (src/orders/address.ts): bounded, one line
// each, a 422 naming the part; only http(s) tracking links.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { addressLines, checkAddress, checkTrackingUrl } from '../../src/orders/address.js';

const OK = { name: ' Ann  Buyer ', line1: '1 Harbour Lane', line2: '', postcode: 'SW1A 1AA', city: 'London', country: 'GB' };

function refusal(f: () => unknown): { status: number; message: string } {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

describe('prints: the postal address and the tracking link', () => {
  it('tidies a good address and gives its lines', () => {
    const a = checkAddress(OK);
    expect(a).toEqual({ name: 'Ann Buyer', line1: '1 Harbour Lane', line2: null, postcode: 'SW1A 1AA', city: 'London', country: 'GB' });
    expect(addressLines({ ship_name: a.name, ship_line1: a.line1, ship_line2: a.line2 ?? null, ship_postcode: a.postcode, ship_city: a.city, ship_country: a.country })).toEqual(['Ann Buyer', '1 Harbour Lane', 'SW1A 1AA London', 'GB']);
  });

  it('refuses a missing, long, multi-line or odd part with a 422 naming it', () => {
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ ...OK, city: undefined }, 'order[address][city]'],
      [{ ...OK, name: '  ' }, 'order[address][name]'],
      [{ ...OK, line1: 'x'.repeat(201) }, 'order[address][line1]'],
      [{ ...OK, line2: 'a\nb' }, 'order[address][line2]'],
      [{ ...OK, city: 'Lon\u202Edon' }, 'order[address][city]'],
      [{ ...OK, postcode: '<b>' }, 'order[address][postcode]'],
      [{ ...OK, postcode: '1'.repeat(21) }, 'order[address][postcode]'],
      [{ ...OK, country: 'X' }, 'order[address][country]'],
    ];
    for (const [a, field] of cases) {
      const r = refusal(() => checkAddress(a));
      expect(r.status).toBe(422);
      expect(r.message).toContain(field);
    }
    expect(refusal(() => checkAddress(undefined)).status).toBe(422);
  });

  it('takes http and https tracking links only', () => {
    expect(checkTrackingUrl(' https://track.example/p?id=1 ')).toBe('https://track.example/p?id=1');
    expect(checkTrackingUrl('http://track.example')).toBe('http://track.example/');
    for (const bad of ['', 'javascript:alert(1)', 'data:text/html,x', 'ftp://a.example/', '//a.example/', 'https://u:p@a.example/', `https://a.example/${'x'.repeat(2000)}`, 'https://a.example/\u0000']) {
      expect(refusal(() => checkTrackingUrl(bad)).message).toContain('order[tracking_url]');
    }
  });
});

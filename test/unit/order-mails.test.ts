// The messages of a new order (docs/shop.md "Mails"): what the buyer typed is
// escaped in HTML, one line, its links defanged, and absent from the buyer's own
// mail; a title cannot add a header line; amounts in the currency's minor units.
import { describe, expect, it } from 'vitest';
import { newOrderMessage, orderReceivedMessage, type OrderMail } from '../../src/mail/messages.js';

const order = (over: Partial<OrderMail> = {}): OrderMail => ({
  siteTitle: 'Jane Doe Photography',
  uuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  lines: [{ fileName: 'harbour.jpg', label: 'Web', option: null, longEdge: 1200, kind: 'download', quantity: 2, total: 1800 }],
  totals: { currency: 'EUR', subtotal: 1800, discount: 0, coupon: null, tax: 0, taxRateBp: 0, taxIncluded: true, total: 1800 },
  ...over,
});

describe('the mails of a new order', () => {
  it("escapes and defangs the buyer's name in the photographer's notice, on one line", () => {
    const m = newOrderMessage({ ...order(), to: 'jane@example.com', buyerEmail: 'ann@example.com', buyerName: '<b>Ann</b>\nvisit https://evil.example.com', url: 'https://photos.example.com/orders/0f8fad5b-d9cb-469f-a165-70867728950e.xml' });
    expect(m.html).not.toContain('<b>Ann');
    expect(m.html).toContain('&lt;b>Ann&lt;/b>');
    expect(m.text).toContain('<b>Ann</b> visit https[:]//evil[.]example[.]com <ann@example.com> ordered on Jane Doe Photography');
    expect(m.text).not.toContain('https://evil');
    expect(m.subject).toBe('New order on Jane Doe Photography: 18.00 EUR');
  });

  it('keeps a title with line breaks to one header line, and writes yen without decimals', () => {
    const m = orderReceivedMessage({ ...order({ siteTitle: 'Shop\r\nBcc: all@example.com', totals: { currency: 'JPY', subtotal: 1800, discount: 300, coupon: 'SPRING', tax: 150, taxRateBp: 1000, taxIncluded: false, total: 1650 } }), to: 'ann@example.com', payment: 'Pay at the studio', card: false });
    expect(m.subject).toBe('Your order from Shop Bcc: all@example.com');
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.text).toContain('harbour.jpg: Web (1200 px) × 2 — 1800 JPY\nCoupon SPRING: −300 JPY\nTax (10 %): 150 JPY\nTotal: 1650 JPY');
    expect(m.text).toContain('How to pay:\nPay at the studio');
  });

  it("names the website's tax as it was sold (VAT, included or added), on one line", () => {
    const base = order({ totals: { currency: 'EUR', subtotal: 5800, discount: 870, coupon: 'SPRING15', tax: 986, taxRateBp: 2000, taxIncluded: false, taxLabel: 'VAT', total: 5916 } });
    const m = orderReceivedMessage({ ...base, to: 'ann@example.com', payment: 'Pay at the studio', card: false });
    expect(m.text).toContain('Coupon SPRING15: −8.70 EUR\nVAT (20 %): 9.86 EUR\nTotal: 59.16 EUR');
    const included = orderReceivedMessage({ ...order({ totals: { ...base.totals, taxIncluded: true, taxLabel: 'MwSt\nBcc: x', tax: 822, total: 4930 } }), to: 'ann@example.com', payment: 'x', card: false });
    expect(included.text).toContain('MwSt Bcc: x included (20 %): 8.22 EUR');
    expect(included.html).toContain('included (20 %)');
  });
});

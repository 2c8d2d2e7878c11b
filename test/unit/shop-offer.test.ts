// What one media is offered at (docs/shop.md, "A media's offer"): the download
// sizes its original can give (never upscaled), the original file itself, and
// the print options at their unit prices.
import { describe, expect, it } from 'vitest';
import { offerFor, type OfferedList, type PriceListLike } from '../../src/shop/offer.js';

const DOWNLOADS: PriceListLike = {
  uuid: 'd',
  name: 'Downloads',
  kind: 'download',
  currency: 'EUR',
  minimumPrice: null,
  items: [
    { label: 'Web', long_edge: 1200, price: 900, options: [] },
    { label: 'Print-ready', long_edge: 4000, price: 2900, options: [] },
    { label: 'Exactly the original size', long_edge: 3000, price: 1900, options: [] },
    { label: 'Original file', long_edge: null, price: 4900, options: [] },
  ],
};

const PRINTS: PriceListLike = {
  uuid: 'p',
  name: 'Prints',
  kind: 'print',
  currency: 'GBP',
  minimumPrice: 2500,
  items: [
    {
      label: 'Photo Rag',
      long_edge: null,
      price: 10000,
      options: [
        { label: 'A5', price: null, ratio: 20 },
        { label: 'A3', price: null, ratio: 300 },
        { label: 'Framed', price: 29900, ratio: null },
      ],
    },
    { label: 'Postcard', long_edge: null, price: 300, options: [] },
  ],
};

const labels = (lists: OfferedList[]) => lists.map((l) => [l.uuid, l.items.map((i) => `${i.label}=${i.unitPrice}`)]);

describe("a media's offer", () => {
  it('never offers a download size larger than the original (3000 × 2000 here), and always the original file', () => {
    expect(labels(offerFor({ width: 3000, height: 2000 }, [DOWNLOADS]))).toEqual([['d', ['Web=900', 'Exactly the original size=1900', 'Original file=4900']]]);
    // Portrait: the long edge is the height.
    expect(labels(offerFor({ width: 2000, height: 3000 }, [DOWNLOADS]))[0][1]).toContain('Exactly the original size=1900');
  });

  it('offers only the original file when the size of the original is unknown', () => {
    expect(labels(offerFor({ width: null, height: null }, [DOWNLOADS]))).toEqual([['d', ['Original file=4900']]]);
  });

  it('offers print options at their unit prices (ratio over 200, the minimum price), and a product without options at its base price', () => {
    const [prints] = offerFor({ width: 800, height: 600 }, [PRINTS]);
    expect(prints.items.map((i) => [i.label, i.option, i.unitPrice])).toEqual([
      ['Photo Rag', 'A5', 2500], // 10000 × 20 / 200 = 1000, raised to the minimum 2500
      ['Photo Rag', 'A3', 15000],
      ['Photo Rag', 'Framed', 29900],
      ['Postcard', null, 2500],
    ]);
    expect(prints.currency).toBe('GBP');
  });

  it('leaves out lists that offer nothing for this media, and keeps the order of the lists', () => {
    const small = offerFor({ width: 640, height: 480 }, [{ ...DOWNLOADS, items: DOWNLOADS.items.slice(0, 2) }, PRINTS, { ...PRINTS, uuid: 'empty', items: [] }]);
    expect(small.map((l) => l.uuid)).toEqual(['p']);
  });
});

// How a pricing profile looks in a reply (API extension, docs/shop.md):
// amounts are integers in the currency's minor units; a print option shows
// what it is set to (price or ratio) and what it costs (`unit-price`).
import { storedTimestamp, xmlArray, type XmlObject } from '../http/xml.js';
import { printOptionPrice } from '../shop/money.js';
import type { PriceList, PriceListSummary } from './service.js';

function head(p: Omit<PriceList, 'items'>): XmlObject {
  return {
    uuid: p.uuid,
    name: p.name,
    kind: p.kind,
    currency: p.currency,
    'minimum-price': p.minimumPrice,
    'created-at': storedTimestamp(p.createdAt),
    'updated-at': p.updatedAt === null ? null : storedTimestamp(p.updatedAt),
  };
}

export function summaryXml(p: PriceListSummary): XmlObject {
  return { ...head(p), 'items-count': p.itemsCount };
}

export function profileXml(p: PriceList): XmlObject {
  const items = p.items.map(
    (i): XmlObject =>
      p.kind === 'download'
        ? { label: i.label, 'long-edge': i.long_edge, price: i.price }
        : {
            label: i.label,
            price: i.price,
            // What the product costs without an option: its base price, or the minimum price.
            'unit-price': printOptionPrice({ basePrice: i.price }, undefined, p.minimumPrice),
            options: xmlArray(
              'option',
              i.options.map((o): XmlObject => ({ label: o.label, price: o.price, ratio: o.ratio, 'unit-price': printOptionPrice({ basePrice: i.price }, o, p.minimumPrice) })),
            ),
          },
  );
  return { ...head(p), items: xmlArray('item', items) };
}

export function profileLocation(uuid: string): string {
  return `/pricing_profiles/${uuid}.xml`;
}

// What one media is offered at (docs/shop.md, "A media's offer"): from the
// price lists attached to it, the download sizes its original can give (never
// a long edge larger than the original's: nothing is upscaled), the original
// file itself, and each print option at its unit price. Pure: the lists and
// the original's size are read by the caller.
import { printOptionPrice, type CurrencyCode } from './money.js';

/** A price list as stored (src/pricing-profiles): the fields an offer reads. */
export interface PriceListLike {
  uuid: string;
  name: string;
  kind: 'download' | 'print';
  currency: CurrencyCode;
  minimumPrice: number | null;
  items: ReadonlyArray<{ label: string; long_edge: number | null; price: number; options: ReadonlyArray<{ label: string; price: number | null; ratio: number | null }> }>;
}

export interface OfferedItem {
  /** The download size's or the print product's label. */
  label: string;
  /** The print option's label; null for a download size or a product without options. */
  option: string | null;
  /** Download sizes: the long edge in pixels; null: the original file. Prints: null. */
  longEdge: number | null;
  unitPrice: number;
}

export interface OfferedList {
  uuid: string;
  name: string;
  kind: 'download' | 'print';
  currency: CurrencyCode;
  items: OfferedItem[];
}

export function offerFor(original: { width: number | null; height: number | null }, lists: readonly PriceListLike[]): OfferedList[] {
  const longEdge = original.width !== null && original.height !== null ? Math.max(original.width, original.height) : undefined;
  const out: OfferedList[] = [];
  for (const list of lists) {
    const items: OfferedItem[] = [];
    for (const item of list.items) {
      if (list.kind === 'download') {
        // A sized item needs a known original at least as large; the original file itself is always there.
        if (item.long_edge === null || (longEdge !== undefined && item.long_edge <= longEdge)) items.push({ label: item.label, option: null, longEdge: item.long_edge, unitPrice: item.price });
      } else if (item.options.length === 0) {
        items.push({ label: item.label, option: null, longEdge: null, unitPrice: printOptionPrice({ basePrice: item.price }, undefined, list.minimumPrice) });
      } else {
        for (const o of item.options) items.push({ label: item.label, option: o.label, longEdge: null, unitPrice: printOptionPrice({ basePrice: item.price }, o, list.minimumPrice) });
      }
    }
    if (items.length) out.push({ uuid: list.uuid, name: list.name, kind: list.kind, currency: list.currency, items });
  }
  return out;
}

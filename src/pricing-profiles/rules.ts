// The rules a price list keeps whatever face sent it (docs/shop.md, "Price lists"): what each kind
// of list may hold. Services call them; nothing here knows HTTP.
import { invalid } from '../core/errors.js';
import type { ItemInput, PriceListKind } from './fields.js';

const P = 'pricing_profile';

/**
 * What a list of its kind may hold: download sizes have no options; print
 * products no long edge; only print lists have a minimum price.
 */
export function checkAgainstKind(kind: PriceListKind, items: readonly ItemInput[] | undefined, minimumPrice: number | null | undefined): void {
  for (const item of items ?? []) {
    if (kind === 'download' && item.options.length > 0) throw invalid(`${item.param}[options]: download sizes have no options (print lists do)`, `${item.param}[options]`);
    if (kind === 'print' && item.longEdge !== null) throw invalid(`${item.param}[long_edge]: print products have no long edge (download lists do); send the sizes as options`, `${item.param}[long_edge]`);
  }
  if (kind === 'download' && minimumPrice !== undefined && minimumPrice !== null) throw invalid(`${P}[minimum_price] applies to print lists only`, 'minimumPrice');
}

// A gallery sold whole from its settings (docs/studio.md "Shop"): OrdersService.gallerySale and
// setGallerySale, the API's rules (another's gallery is a 404, a print list or an unknown size a
// 422); the size is picked among the user's download lists, the price typed in major units.
import { invalid } from '../../core/errors.js';
import { readSale, SALE_API, SALE_FIELDS } from '../../orders/fields.js';
import { parseMajor } from '../../shop/money.js';
import type { Body } from '../body.js';
import type { Signed, StudioContext } from '../context.js';
import type { SaleChoice, SaleView } from '../pages/gallery-sale.js';
import { specForm } from '../spec-form.js';

/** Download lists the choice offers (a photographer keeps a handful). */
const LISTS_SHOWN = 50;

/** The user's download lists, read whole: every size a choice. */
async function downloadLists(ctx: StudioContext, s: Signed) {
  const { profiles } = await ctx.deps.pricingProfiles.list(s.user, LISTS_SHOWN, 0);
  return Promise.all(profiles.filter((l) => l.kind === 'download').map((l) => ctx.deps.pricingProfiles.get(s.user, l.uuid)));
}

const sizeWords = (longEdge: number | null) => (longEdge === null ? 'original files' : `${longEdge} px`);

/** The card's state for the gallery: its choices, the sale as set, and what the request adds (a draft, a refusal, a notice). */
export async function saleView(ctx: StudioContext, s: Signed, uuid: string, extra: Pick<SaleView, 'draft' | 'error' | 'notice'> = {}): Promise<SaleView> {
  const [lists, sold] = await Promise.all([downloadLists(ctx, s), ctx.deps.orders.gallerySale(s.user, uuid)]);
  const choices: SaleChoice[] = lists.flatMap((l) => l.items.map((i, n) => ({ value: `${l.uuid}:${n}`, label: `${l.name}: ${i.label} (${sizeWords(i.long_edge)}), ${l.currency}` })));
  const sale = sold.sale;
  const list = sale ? lists.find((l) => l.uuid === sale.profile) : undefined;
  const at = list ? list.items.findIndex((i) => i.label === sale!.item) : -1;
  const current = sale ? { choice: at >= 0 ? `${list!.uuid}:${at}` : '', price: sale.price, currency: sale.currency, medias: sale.medias, words: `${sale.item} (${sizeWords(sale.longEdge)})` } : undefined;
  return { viewer: s.viewer, uuid, choices, current, ...extra };
}

/** The sale's field spec under the card's names: the size picked (list and item) is `sale_item`, the price `sale_price`. */
const FORM = specForm(SALE_FIELDS, SALE_API, { pricingProfile: 'sale_item', item: 'sale_item', price: 'sale_price' }, { pricingProfile: 'the size', item: 'the size', price: 'the price' });

/** Sells the gallery whole as the form says (or stops); a refusal at the form's field. */
export async function saveSale(ctx: StudioContext, s: Signed, uuid: string, form: Body): Promise<{ error?: { field: string; message: string }; stopped?: boolean }> {
  if (form.str('do') === 'stop') {
    await ctx.deps.orders.setGallerySale(s.user, uuid, null);
    return { stopped: true };
  }
  try {
    // The card's own reading: a size among the user's lists, a price typed in major units.
    const [listUuid, n] = (form.str('sale_item') ?? '').split(':');
    const list = (await downloadLists(ctx, s)).find((l) => l.uuid === listUuid);
    const item = list?.items[Number(n)];
    if (!list || !item) throw invalid('Choose a size of one of your download price lists', 'item');
    const price = parseMajor((form.str('sale_price') ?? '').trim(), list.currency);
    if (price === undefined) throw invalid(`The price must be an amount such as ${parseMajor('9', list.currency) === 9 ? '49' : '49.00'}`, 'price');
    // Then the API's spec, so a value out of its bounds is refused as the API refuses it.
    const typed: Record<string, string> = { pricingProfile: list.uuid, item: item.label, price: String(price) };
    await ctx.deps.orders.setGallerySale(s.user, uuid, readSale({ value: (key) => typed[key] }, FORM.words));
  } catch (err) {
    const r = FORM.refusal(err);
    // The service words its own refusals with the API's names: "sale[item]: …" reads "The size: …".
    const message = r.message.replace(/^parameter /, '').replace(/^(the \w+):/, '$1');
    return { error: { field: r.field || 'sale_item', message: `${message[0]!.toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}` } };
  }
  return {};
}

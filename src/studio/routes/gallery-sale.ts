// A gallery sold whole from its settings (docs/studio.md "Shop"): OrdersService.gallerySale and
// setGallerySale, the API's rules (another's gallery is a 404, a print list or an unknown size a
// 422); the size is picked among the user's download lists, the price typed in major units.
import { ApiError, invalid } from '../../core/errors.js';
import { parseMajor } from '../../shop/money.js';
import type { Body } from '../body.js';
import type { Signed, StudioContext } from '../context.js';
import type { SaleChoice, SaleView } from '../pages/gallery-sale.js';

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

/** Sells the gallery whole as the form says (or stops); a refusal of the service at the form's field. */
export async function saveSale(ctx: StudioContext, s: Signed, uuid: string, form: Body): Promise<{ error?: { field: string; message: string }; stopped?: boolean }> {
  if (form.str('do') === 'stop') {
    await ctx.deps.orders.setGallerySale(s.user, uuid, null);
    return { stopped: true };
  }
  try {
    const [listUuid, n] = (form.str('sale_item') ?? '').split(':');
    const list = (await downloadLists(ctx, s)).find((l) => l.uuid === listUuid);
    const item = list?.items[Number(n)];
    if (!list || !item) throw invalid('Choose a size of one of your download price lists', 'sale_item');
    const price = parseMajor((form.str('sale_price') ?? '').trim(), list.currency);
    if (price === undefined) throw invalid(`The price must be an amount such as ${parseMajor('9', list.currency) === 9 ? '49' : '49.00'}`, 'sale_price');
    await ctx.deps.orders.setGallerySale(s.user, uuid, { profile: list.uuid, item: item.label, price });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    // The service names the API's parameters: the form's fields instead.
    const field = err.field === 'sale_item' || err.field === 'sale_price' ? err.field : /sale\[price\]/.test(err.message) ? 'sale_price' : 'sale_item';
    const message = err.message.replace(/^(?:parameter )?sale\[(\w+)\]:? ?/, (_, n: string) => (n === 'price' ? 'The price ' : 'The size '));
    return { error: { field, message: `${message[0]!.toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}` } };
  }
  return {};
}

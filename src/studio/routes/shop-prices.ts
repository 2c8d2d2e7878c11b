// Price lists in the studio (docs/studio.md "Shop"): list, create, edit, delete, through
// PricingProfilesService on the API's access rule (another photographer's list is a 404). A list's
// fields are read by the API's own field spec and items reader (pricing-profiles/fields.ts) under
// the form's names; amounts are typed in major units ("9.00") and handed on in minor units.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalid } from '../../core/errors.js';
import { plainNames, readFields, type Naming } from '../../core/fields.js';
import { isUuid } from '../../core/uuid.js';
import { PRICING_PROFILE_FIELDS, readItems, type ItemValues, type PricingProfileInput } from '../../pricing-profiles/fields.js';
import type { PriceList } from '../../pricing-profiles/service.js';
import { isCurrencyCode, parseMajor, type CurrencyCode } from '../../shop/money.js';
import type { Body } from '../body.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { idOf, priceListPage, priceListsPage, type FormError, type ItemDraft, type ListDraft } from '../pages/price-lists.js';
import { plainAmount } from '../pages/shop-common.js';
import { specForm } from '../spec-form.js';

/** Lists one screen shows (a photographer keeps a handful). */
const LISTS_SHOWN = 200;
/** A list of 100 products of 50 options is about 5 000 fields: room for it. */
const LIST_FORM_BYTES = SMALL_FORM_BYTES * 40;
const ITEMS = 'items';

const FORM = specForm(PRICING_PROFILE_FIELDS, plainNames(PRICING_PROFILE_FIELDS));
const NOTICES: Record<string, string> = { created: 'The price list was created: add its sizes or products.', saved: 'The price list was saved.', deleted: 'The price list was deleted.' };

export const priceListRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/shop/price-lists', handler: listsScreen },
  { method: 'POST', path: '/studio/shop/price-lists', bodyLimit: SMALL_FORM_BYTES, handler: createList },
  { method: 'GET', path: '/studio/shop/price-lists/:uuid', handler: listScreen },
  { method: 'POST', path: '/studio/shop/price-lists/:uuid', bodyLimit: LIST_FORM_BYTES, handler: saveList },
  { method: 'POST', path: '/studio/shop/price-lists/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: deleteList },
];

const uuidOf = (req: FastifyRequest) => {
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such price list.');
  return uuid;
};
const doneOf = (req: FastifyRequest) => NOTICES[(req.query as { done?: string }).done ?? ''];

/** How a refusal names an item's field for people: "the price of size 2", "the ratio of option 1 of product 3". */
function wordsOf(name: string, kind: string): string {
  const thing = kind === 'print' ? 'product' : 'size';
  const sub = (s: string) => (s === 'long_edge' ? 'long edge' : s);
  let m = /^items\[(\d+)\]\[options\]\[(\d+)\](?:\[(\w+)\])?$/.exec(name);
  if (m) return `${m[3] ? `the ${sub(m[3])} of ` : ''}option ${Number(m[2]) + 1} of product ${Number(m[1]) + 1}`;
  m = /^items\[(\d+)\]\[options\]$/.exec(name);
  if (m) return `the options of product ${Number(m[1]) + 1}`;
  m = /^items\[(\d+)\](?:\[(\w+)\])?$/.exec(name);
  if (m) return `${m[2] ? `the ${sub(m[2])} of ` : ''}${thing} ${Number(m[1]) + 1}`;
  return 'the list';
}

const sentence = (t: string) => `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;

/** A 422 at its field: the list's own (by the spec) or an item's (by the form name the reader refused). */
function refusal(err: unknown, kind: string): FormError {
  if (err instanceof ApiError && err.status === 422 && err.field?.startsWith(ITEMS)) {
    // The name refused, or the row it belongs to (an option's "either a price or a ratio").
    const row = err.field.replace(/\[\w+\]$/, '');
    const message = err.message.replace(/^parameter /, '').split(err.field).join(wordsOf(err.field, kind)).split(row).join(wordsOf(row, kind));
    return { field: idOf(err.field), message: sentence(message) };
  }
  const r = FORM.refusal(err);
  return { field: r.field, message: sentence(r.message) };
}

/** The form's rows as the items reader reads them: empty rows left out, prices typed in major units turned to minor units. */
function formItems(body: Body, currency: CurrencyCode): ItemValues {
  const blank = (prefix: string) => body.namesUnder(prefix).every((n) => (body.str(n) ?? '').trim() === '');
  const example = parseMajor('9', currency) === 9 ? '900' : '9.00';
  return {
    has: (n) => body.has(n),
    str: (n) => {
      const v = body.str(n);
      if (v === undefined || v.trim() === '' || !n.endsWith('[price]')) return v;
      const minor = parseMajor(v, currency);
      if (minor === undefined) throw invalid(`${n} must be an amount such as ${example}`, n);
      return String(minor);
    },
    namesUnder: (prefix) =>
      body.namesUnder(prefix).filter((n) => {
        const m = /^items\[([^\]]*)\](?:\[options\]\[([^\]]*)\])?/.exec(n);
        if (!m) return true;
        if (blank(`items[${m[1]}][`)) return false;
        return m[2] === undefined || !blank(`items[${m[1]}][options][${m[2]}][`);
      }),
  };
}

/** The list as the form sent it: name, kind, currency, minimum price (major units), and its items unless the kind changes. */
function listInput(body: Body, current: PriceList): PricingProfileInput {
  const sent = FORM.source(body, ['name', 'kind', 'currency', 'minimumPrice']);
  const typedCurrency = body.str('currency') ?? '';
  const currency = isCurrencyCode(typedCurrency) ? typedCurrency : current.currency;
  const value = (key: string) => {
    const v = sent.value(key);
    if (key !== 'minimumPrice' || v === undefined || v.trim() === '') return v;
    const minor = parseMajor(v, currency);
    if (minor === undefined) throw invalid(`minimum price must be an amount such as 25.00`, 'minimumPrice');
    return String(minor);
  };
  const input: PricingProfileInput = readFields(PRICING_PROFILE_FIELDS, { ...sent, value }, FORM.words as Naming, 'update');
  // A new kind empties the list: download sizes are not print products (the form held the old kind's rows).
  input.items = input.kind !== undefined && input.kind !== current.kind ? [] : (readItems(formItems(body, currency), ITEMS) ?? []);
  return input;
}

/** A stored list as the editor shows it (amounts in major units). */
function draftOf(l: PriceList): ListDraft {
  const c = l.currency;
  return {
    uuid: l.uuid,
    name: l.name,
    kind: l.kind,
    currency: c,
    minimumPrice: plainAmount(l.minimumPrice, c),
    items: l.items.map((i) => ({
      label: i.label,
      longEdge: i.long_edge === null ? '' : String(i.long_edge),
      price: plainAmount(i.price, c),
      options: i.options.map((o) => ({ label: o.label, price: plainAmount(o.price, c), ratio: o.ratio === null ? '' : String(o.ratio) })),
    })),
  };
}

/** What a refused form held, to show it again as sent. */
function draftFromForm(body: Body, current: PriceList): ListDraft {
  const rows = new Map<number, ItemDraft>();
  for (const n of body.namesUnder(`items[`)) {
    const m = /^items\[(\d{1,3})\](?:\[options\]\[(\d{1,3})\])?\[(label|long_edge|price|ratio)\]$/.exec(n);
    if (!m) continue;
    const row = rows.get(Number(m[1])) ?? { label: '', longEdge: '', price: '', options: [] };
    rows.set(Number(m[1]), row);
    const v = body.str(n) ?? '';
    if (m[2] === undefined) {
      if (m[3] === 'label') row.label = v;
      else if (m[3] === 'long_edge') row.longEdge = v;
      else if (m[3] === 'price') row.price = v;
      continue;
    }
    const j = Number(m[2]);
    while (row.options.length <= j) row.options.push({ label: '', price: '', ratio: '' });
    const o = row.options[j]!;
    if (m[3] === 'label') o.label = v;
    else if (m[3] === 'price') o.price = v;
    else if (m[3] === 'ratio') o.ratio = v;
  }
  // Row numbers stay those of the form, so that an error's field still points at its input.
  const dense: ItemDraft[] = [];
  for (const k of [...rows.keys()].sort((a, b) => a - b)) dense[k] = rows.get(k)!;
  const filled = Array.from(dense, (r) => r ?? { label: '', longEdge: '', price: '', options: [] });
  return {
    uuid: current.uuid,
    name: body.str('name') ?? current.name,
    kind: current.kind,
    currency: body.str('currency') ?? current.currency,
    minimumPrice: body.str('minimum_price') ?? '',
    items: filled,
  };
}

async function listsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  return lists(ctx, reply, s, 200, { notice: doneOf(req) });
}

async function lists(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: FormError; draft?: { name: string; kind: string; currency: string } }) {
  const found = await ctx.deps.pricingProfiles.list(s.user, LISTS_SHOWN, 0);
  const rows = found.profiles.map((p) => ({ uuid: p.uuid, name: p.name, kind: p.kind, currency: p.currency, itemsCount: p.itemsCount }));
  return ctx.send(reply, status, priceListsPage({ viewer: s.viewer, lists: rows, total: found.total, ...extra }));
}

async function createList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  try {
    const input = readFields(PRICING_PROFILE_FIELDS, FORM.source(form, ['name', 'kind', 'currency']), FORM.words, 'create');
    const made = await ctx.deps.pricingProfiles.createList(s.user, { ...input, items: [] });
    return ctx.redirect(reply, `/studio/shop/price-lists/${made.uuid}?done=created`);
  } catch (err) {
    const error = refusal(err, 'download');
    return lists(ctx, reply, s, 422, { error, draft: { name: form.str('name') ?? '', kind: form.str('kind') ?? 'download', currency: form.str('currency') ?? 'EUR' } });
  }
}

async function listScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const list = await ctx.deps.pricingProfiles.get(s.user, uuidOf(req));
  return ctx.send(reply, 200, priceListPage({ viewer: s.viewer, draft: draftOf(list), notice: doneOf(req) }));
}

async function saveList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  // Another photographer's list is a 404 before its form is judged.
  const current = await ctx.deps.pricingProfiles.get(s.user, uuidOf(req));
  try {
    await ctx.deps.pricingProfiles.update(s.user, current.uuid, listInput(form, current));
  } catch (err) {
    return ctx.send(reply, 422, priceListPage({ viewer: s.viewer, draft: draftFromForm(form, current), error: refusal(err, current.kind) }));
  }
  return ctx.redirect(reply, `/studio/shop/price-lists/${current.uuid}?done=saved`);
}

async function deleteList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const current = await ctx.deps.pricingProfiles.get(s.user, uuidOf(req));
  if (form.str('confirm') !== 'yes') {
    return ctx.send(reply, 422, priceListPage({ viewer: s.viewer, draft: draftOf(current), error: { field: 'form', message: 'Tick “Yes, delete this list” to delete it.' } }));
  }
  await ctx.deps.pricingProfiles.delete(s.user, current.uuid);
  return ctx.redirect(reply, '/studio/shop/price-lists?done=deleted');
}

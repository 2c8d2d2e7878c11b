// A website's coupons in the studio (docs/studio.md "Shop"): through CouponsService on the API's
// access rule (another's website or coupon is a 404), read by the API's field spec under the
// form's names. Amounts are typed in major units, days as dates (UTC): the studio's own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalid } from '../../core/errors.js';
import { plainNames, readFields } from '../../core/fields.js';
import { COUPON_FIELDS, type CouponInput } from '../../coupons/fields.js';
import type { CouponRecord } from '../../coupons/repository.js';
import { isCurrencyCode, parseMajor } from '../../shop/money.js';
import { homeUrl } from '../../websites/home-url.js';
import type { Body } from '../body.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { couponPage, couponsPage, type CouponDraft, type WebsiteChoice } from '../pages/coupons.js';
import { plainAmount } from '../pages/shop-common.js';
import { specForm, type FieldError } from '../spec-form.js';

const COUPONS_SHOWN = 500;
const WEBSITES_SHOWN = 50;
const KEYS = Object.keys(COUPON_FIELDS);
const SAY: Record<string, string> = { code: 'The code', percent: 'The percent', amount: 'The amount', currency: 'The currency', validFrom: 'The first day', validUntil: 'The last day', maxUses: 'The maximum uses', active: 'Active' };
const FORM = specForm(COUPON_FIELDS, plainNames(COUPON_FIELDS), {}, SAY);
const NOTICES: Record<string, string> = { created: 'The coupon was created.', saved: 'The coupon was saved.', deleted: 'The coupon was deleted.', active: 'The coupon is active.', inactive: 'The coupon was deactivated: buyers can no longer use it.' };
const EMPTY: CouponDraft = { code: '', percent: '', amount: '', currency: '', valid_from: '', valid_until: '', max_uses: '', active: true };

export const couponRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/shop/coupons', handler: listScreen },
  { method: 'POST', path: '/studio/shop/coupons/:urlname', bodyLimit: SMALL_FORM_BYTES, handler: create },
  { method: 'GET', path: '/studio/shop/coupons/:urlname/:uuid', handler: editScreen },
  { method: 'POST', path: '/studio/shop/coupons/:urlname/:uuid', bodyLimit: SMALL_FORM_BYTES, handler: save },
  { method: 'POST', path: '/studio/shop/coupons/:urlname/:uuid/active', bodyLimit: SMALL_FORM_BYTES, handler: setActive },
  { method: 'POST', path: '/studio/shop/coupons/:urlname/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: remove },
];

const params = (req: FastifyRequest) => req.params as { urlname: string; uuid: string };
const doneOf = (req: FastifyRequest) => NOTICES[(req.query as { done?: string }).done ?? ''];
const sentence = (t: string) => `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;

/** The websites whose coupons the user may write (the service's rule: those it does not refuse). */
export async function shopWebsites(ctx: StudioContext, s: Signed): Promise<WebsiteChoice[]> {
  const { websites } = await ctx.deps.websites.list(s.user, { limit: WEBSITES_SHOWN, offset: 0 });
  const allowed = await Promise.all(websites.map((w) => ctx.deps.shopSettings.get(s.user, w.urlname).then(() => true, () => false)));
  return websites.filter((_, i) => allowed[i]).map((w) => ({ urlname: w.urlname, title: w.title ?? '', home: homeUrl(ctx.deps.config.publicUrl, w) }));
}

/** A stored coupon as its form shows it. */
function draftOf(c: CouponRecord): CouponDraft {
  const percent = c.kind === 'percent';
  return {
    code: c.code,
    percent: percent ? String(c.value / 100) : '',
    amount: percent ? '' : plainAmount(c.value, c.currency ?? 'EUR'),
    currency: c.currency ?? '',
    valid_from: c.valid_from?.slice(0, 10) ?? '',
    valid_until: c.valid_until?.slice(0, 10) ?? '',
    max_uses: c.usage_limit === null ? '' : String(c.usage_limit),
    active: c.active === 1,
  };
}

function typed(form: Body): CouponDraft {
  const v = (n: string) => (form.str(n) ?? '').slice(0, 100);
  return { code: v('code'), percent: v('percent'), amount: v('amount'), currency: v('currency'), valid_from: v('valid_from'), valid_until: v('valid_until'), max_uses: v('max_uses'), active: form.has('active') };
}

/** The form read by the coupon's spec: a day becomes its first (from) or last (until) second, UTC; an amount its minor units. */
function readCoupon(form: Body, mode: 'create' | 'update'): CouponInput {
  const source = FORM.source(form, KEYS, { blank: true });
  const currency = (form.str('currency') ?? '').trim();
  const dayAt = (name: string, time: string) => {
    const t = (form.str(name) ?? '').trim();
    return /^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T${time}Z` : t;
  };
  const value = (key: string): string | undefined => {
    if (key === 'validFrom') return dayAt('valid_from', '00:00:00');
    if (key === 'validUntil') return dayAt('valid_until', '23:59:59');
    if (key === 'active') return form.has('active') ? '1' : '0';
    if (key === 'amount') {
      const t = (form.str('amount') ?? '').trim();
      if (t === '') return '';
      const minor = parseMajor(t, isCurrencyCode(currency) ? currency : 'EUR');
      if (minor === undefined) throw invalid('Write the amount as digits with at most the currency’s decimals, such as 5.00', 'amount');
      return String(minor);
    }
    return source.value(key);
  };
  return readFields(COUPON_FIELDS, { ...source, value }, FORM.words, mode);
}

/** A refusal at its field; the service's cross-field messages name the API's parameters: the form's words instead. */
function refusal(err: unknown): FieldError {
  const { field } = FORM.refusal(err);
  const key = (name: string) => KEYS.find((k) => FORM.name(k) === name);
  const said = (err as Error).message.replace(/(?:parameter )?coupon\[(\w+)\]/gi, (_, n: string) => (key(n) ? FORM.words(key(n)!) : n).toLowerCase()).replace(/^parameter /i, '');
  return { field, message: sentence(said) };
}

async function listPage(ctx: StudioContext, reply: FastifyReply, s: Signed, urlname: string | undefined, status: number, extra: { draft?: CouponDraft; error?: FieldError; notice?: string } = {}) {
  const websites = await shopWebsites(ctx, s);
  const site = websites.find((w) => w.urlname === urlname) ?? (urlname === undefined ? websites[0] : undefined);
  if (urlname !== undefined && !site) throw new ApiError('not_found', 'There is no such website.');
  const list = site ? await ctx.deps.coupons.list(s.user, site.urlname, COUPONS_SHOWN, 0) : { rows: [], total: 0 };
  return ctx.send(reply, status, couponsPage({ viewer: s.viewer, websites, urlname: site?.urlname, coupons: list.rows, total: list.total, draft: extra.draft ?? EMPTY, error: extra.error, notice: extra.notice }));
}

async function listScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const w = (req.query as { website?: unknown }).website;
  return listPage(ctx, reply, s, typeof w === 'string' && w !== '' ? w : undefined, 200, { notice: doneOf(req) });
}

async function create(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname } = params(req);
  await ctx.deps.coupons.list(s.user, urlname, 1, 0); // another's website: the 404 before anything is read
  try {
    await ctx.deps.coupons.create(s.user, urlname, readCoupon(form, 'create'));
  } catch (err) {
    return listPage(ctx, reply, s, urlname, 422, { draft: typed(form), error: refusal(err) });
  }
  return ctx.redirect(reply, `/studio/shop/coupons?website=${encodeURIComponent(urlname)}&done=created`);
}

async function editScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { urlname, uuid } = params(req);
  const c = await ctx.deps.coupons.get(s.user, urlname, uuid);
  return ctx.send(reply, 200, couponPage({ viewer: s.viewer, urlname: c.urlname, c, draft: draftOf(c), notice: doneOf(req) }));
}

async function save(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, uuid } = params(req);
  const c = await ctx.deps.coupons.get(s.user, urlname, uuid);
  try {
    await ctx.deps.coupons.update(s.user, urlname, uuid, readCoupon(form, 'update'));
  } catch (err) {
    return ctx.send(reply, 422, couponPage({ viewer: s.viewer, urlname: c.urlname, c, draft: typed(form), error: refusal(err) }));
  }
  return ctx.redirect(reply, `/studio/shop/coupons/${encodeURIComponent(c.urlname)}/${c.uuid}?done=saved`);
}

async function setActive(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, uuid } = params(req);
  const c = await ctx.deps.coupons.get(s.user, urlname, uuid);
  let input: CouponInput;
  try {
    input = readFields(COUPON_FIELDS, FORM.source(form, ['active'], { blank: true }), FORM.words);
  } catch (err) {
    return listPage(ctx, reply, s, c.urlname, 422, { error: { field: '', message: refusal(err).message } });
  }
  await ctx.deps.coupons.update(s.user, urlname, uuid, input);
  return ctx.redirect(reply, `/studio/shop/coupons?website=${encodeURIComponent(c.urlname)}&done=${input.active ? 'active' : 'inactive'}`);
}

async function remove(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, uuid } = params(req);
  const c = await ctx.deps.coupons.get(s.user, urlname, uuid);
  if (form.str('confirm') !== 'yes') return ctx.send(reply, 422, couponPage({ viewer: s.viewer, urlname: c.urlname, c, draft: draftOf(c), error: { field: '', message: 'Tick “Yes, delete this coupon” to delete it.' } }));
  await ctx.deps.coupons.delete(s.user, urlname, uuid);
  return ctx.redirect(reply, `/studio/shop/coupons?website=${encodeURIComponent(c.urlname)}&done=deleted`);
}

// A website's tax and terms (ShopSettingsService, read by the API's field spec under the form's
// names; another's website is a 404) and the photographer's print lab (OrdersService.setLab), in
// the studio (docs/studio.md "Shop"). The rate is typed in percent: the studio's own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalid } from '../../core/errors.js';
import { plainNames, readFields } from '../../core/fields.js';
import { LAB_API, LAB_FIELDS, readLab } from '../../orders/fields.js';
import { SHOP_SETTINGS_FIELDS } from '../../shop-settings/fields.js';
import type { Body } from '../body.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { shopSettingsPage, type LabDraft, type SettingsDraft } from '../pages/shop-settings.js';
import { specForm, type FieldError } from '../spec-form.js';
import { shopWebsites } from './shop-coupons.js';

/** Terms of 20 000 characters, up to 3 bytes each and more with %-escapes. */
const TERMS_FORM_BYTES = 256 * 1024;
const KEYS = ['taxRate', 'taxIncluded', 'taxLabel', 'terms'];
const LAB_FORM = specForm(LAB_FIELDS, LAB_API, { email: 'lab_email' }, { email: 'the lab’s e-mail', auto: 'sending automatically' });
const FORM = specForm(SHOP_SETTINGS_FIELDS, plainNames(SHOP_SETTINGS_FIELDS), {}, { taxRate: 'The tax rate', taxIncluded: 'Included', taxLabel: 'The name of the tax', terms: 'The terms' });
const NOTICES: Record<string, string> = { saved: 'Tax and terms were saved.', lab: 'The lab was saved.', nolab: 'The lab was removed: order sheets go nowhere until you set one.' };
const RATE = /^(\d{1,3})(?:[.,](\d{1,2}))?$/;

export const shopSettingRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/shop/settings', handler: screen },
  { method: 'POST', path: '/studio/shop/settings/:urlname', bodyLimit: TERMS_FORM_BYTES, handler: save },
  { method: 'POST', path: '/studio/shop/lab', bodyLimit: SMALL_FORM_BYTES, handler: saveLab },
];

const sentence = (t: string) => `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
const rateText = (bp: number) => String(bp / 100);

/** "7.7" (percent) as the spec's basis points ("770"); anything else is refused at the field. */
function basisPoints(typed: string): string {
  const t = typed.trim();
  if (t === '') return '0';
  const m = RATE.exec(t);
  if (!m) throw invalid('The tax rate must be a percent such as 20 or 7.7', 'taxRate');
  return String(Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')));
}

function typed(form: Body): SettingsDraft {
  return { tax_rate: (form.str('tax_rate') ?? '').slice(0, 20), tax_label: (form.str('tax_label') ?? '').slice(0, 100), tax_included: form.str('tax_included') !== '0', terms: form.str('terms') ?? '' };
}

async function page(ctx: StudioContext, reply: FastifyReply, s: Signed, urlname: string | undefined, status: number, extra: { draft?: SettingsDraft; lab?: LabDraft; error?: FieldError; errorOf?: 'settings' | 'lab'; notice?: string } = {}) {
  const websites = await shopWebsites(ctx, s);
  const site = urlname === undefined ? websites[0] : websites.find((w) => w.urlname === urlname);
  if (urlname !== undefined && !site) throw new ApiError('not_found', 'There is no such website.');
  const [settings, lab] = await Promise.all([site ? ctx.deps.shopSettings.get(s.user, site.urlname) : undefined, ctx.deps.orders.lab(s.user)]);
  const draft = extra.draft ?? { tax_rate: rateText(settings?.tax_rate_bp ?? 0), tax_label: settings?.tax_label ?? '', tax_included: (settings?.tax_included ?? 1) === 1, terms: settings?.terms ?? '' };
  return ctx.send(reply, status, shopSettingsPage({ viewer: s.viewer, websites, site, draft, lab: extra.lab ?? { email: lab?.email ?? '', auto: lab?.auto ?? false }, error: extra.error, errorOf: extra.errorOf, notice: extra.notice }));
}

async function screen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const q = req.query as { website?: unknown; done?: unknown };
  return page(ctx, reply, s, typeof q.website === 'string' && q.website !== '' ? q.website : undefined, 200, { notice: NOTICES[typeof q.done === 'string' ? q.done : ''] });
}

async function save(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname } = req.params as { urlname: string };
  await ctx.deps.shopSettings.get(s.user, urlname); // another's website: the 404 before anything is read
  try {
    const source = FORM.source(form, KEYS, { blank: true });
    const value = (key: string) => (key === 'taxRate' ? basisPoints(form.str('tax_rate') ?? '') : source.value(key));
    await ctx.deps.shopSettings.update(s.user, urlname, readFields(SHOP_SETTINGS_FIELDS, { ...source, value }, FORM.words));
  } catch (err) {
    const r = FORM.refusal(err);
    // The spec's limits are in basis points: said in percent here.
    const message = r.field === 'tax_rate' && !RATE.test((form.str('tax_rate') ?? '').trim()) ? r.message : r.field === 'tax_rate' ? 'The tax rate must be from 0 to 100 %' : r.message;
    return page(ctx, reply, s, urlname, 422, { draft: typed(form), error: { field: r.field, message: sentence(message) }, errorOf: 'settings' });
  }
  return ctx.redirect(reply, `/studio/shop/settings?website=${encodeURIComponent(urlname)}&done=saved`);
}

async function saveLab(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const draft = { email: (form.str('lab_email') ?? '').slice(0, 300), auto: form.has('auto') };
  // Back to the website the screen showed, when it is one of the user's.
  const back = (await shopWebsites(ctx, s)).find((w) => w.urlname === form.str('website'))?.urlname;
  let lab;
  try {
    // The API's field spec under the form's names: an empty address removes the lab, the box unticked is no.
    const source = LAB_FORM.source(form, ['email'], { blank: true });
    lab = await ctx.deps.orders.setLab(s.user, readLab({ ...source, value: (key) => (key === 'auto' ? (draft.auto ? '1' : '0') : source.value(key)) }, LAB_FORM.words));
  } catch (err) {
    const r = LAB_FORM.refusal(err);
    return page(ctx, reply, s, back, 422, { lab: draft, error: { field: r.field || 'lab_email', message: sentence(r.message.replace(/^parameter /, '')) }, errorOf: 'lab' });
  }
  return ctx.redirect(reply, `/studio/shop/settings?${back ? `website=${encodeURIComponent(back)}&` : ''}done=${lab ? 'lab' : 'nolab'}`);
}

// The studio's shop (docs/studio.md "Shop"): the sales overview, payment settings, and orders
// (list, filter, one order and its actions, the accounting exports), on OrdersService and
// StripePayments with the API's rules: another photographer's order is a 404, a status change
// the order's state does not allow is the service's 409, shown on the order's page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { isUuid } from '../../core/uuid.js';
import { readOrderFilter, type OrderFilterKey } from '../../orders/filter.js';
import type { OrderFilter } from '../../orders/repository.js';
import { DOWNLOAD_DAYS } from '../../orders/service.js';
import { bracketNames, readFields } from '../../core/fields.js';
import { SHOP_SETTINGS_FIELDS } from '../../shop-settings/fields.js';
import { specForm } from '../spec-form.js';
import { pageNumber, SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { orderPage, ordersPage, type FilterDraft } from '../pages/orders.js';
import { paymentsPage, shopOverviewPage, type InstructionsView } from '../pages/shop.js';

const ORDERS_PER_PAGE = 25;
const MONTHS_SHOWN = 12;
/** Websites whose instructions the payments screen shows (a photographer has a few). */
const WEBSITES_SHOWN = 20;

/** The filter form's names and how its refusals name them. */
const FILTER_NAMES: Record<OrderFilterKey, string> = { status: 'status', email: 'email', date: 'date', dateFrom: 'from', dateTo: 'to' };
const FILTER_WORDS: Record<OrderFilterKey, string> = { status: 'The status', email: 'The e-mail', date: 'The day', dateFrom: 'From', dateTo: 'To' };

const ORDER_NOTICES: Record<string, string> = {
  paid: 'Marked paid: the downloads are being made and the buyer will be mailed.',
  cancelled: 'The order was cancelled.',
  refunded: 'The order was refunded.',
  extended: `The download links work ${DOWNLOAD_DAYS} more days from now.`,
  resent: 'The download mail was sent again.',
  shipped: 'Marked shipped: the buyer was mailed the tracking link.',
  lab: 'The order sheet was sent to the lab.',
};
const PAYMENT_NOTICES: Record<string, string> = {
  connected: 'Stripe is connected: buyers can pay by card.',
  disconnected: 'Stripe was disconnected: buyers can no longer pay by card.',
  instructions: 'The payment instructions were saved.',
};

export const shopRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/shop', handler: overview },
  { method: 'GET', path: '/studio/shop/payments', handler: paymentsScreen },
  { method: 'POST', path: '/studio/shop/payments/stripe', bodyLimit: SMALL_FORM_BYTES, handler: connectStripe },
  { method: 'POST', path: '/studio/shop/payments/stripe/remove', bodyLimit: SMALL_FORM_BYTES, handler: disconnectStripe },
  { method: 'POST', path: '/studio/shop/payments/instructions', bodyLimit: SMALL_FORM_BYTES, handler: saveInstructions },
  { method: 'GET', path: '/studio/shop/orders', handler: ordersScreen },
  { method: 'GET', path: '/studio/shop/orders/export/:file', handler: exportFile },
  { method: 'GET', path: '/studio/shop/orders/:uuid', handler: orderScreen },
  { method: 'GET', path: '/studio/shop/orders/:uuid/sheet', handler: orderSheet },
  { method: 'POST', path: '/studio/shop/orders/:uuid/:action', bodyLimit: SMALL_FORM_BYTES, handler: orderAction },
];

const uuidOf = (req: FastifyRequest) => {
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such order.');
  return uuid;
};
const query = (req: FastifyRequest) => req.query as Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

async function overview(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const [months, pending, lists, cards] = await Promise.all([
    ctx.deps.orders.monthlySales(s.user, MONTHS_SHOWN),
    ctx.deps.orders.list(s.user, { status: 'pending' }, 1, 0),
    ctx.deps.pricingProfiles.list(s.user, 1, 0),
    ctx.deps.stripe.isConfigured(s.user.id),
  ]);
  return ctx.send(reply, 200, shopOverviewPage({ viewer: s.viewer, months, pending: pending.total, lists: lists.total, cards }));
}

// ---- payments: Stripe's keys (never shown back), each website's manual payment instructions

/** The websites the user owns (a member of a shared website does not take its payments). */
async function ownWebsites(ctx: StudioContext, s: Signed): Promise<Array<InstructionsView & { id: number }>> {
  const { websites } = await ctx.deps.websites.list(s.user, { limit: WEBSITES_SHOWN, offset: 0 });
  const details = await Promise.all(websites.map((w) => ctx.websiteDetails(s, w.urlname)));
  const own = details.filter((d) => d.website.owner_id === s.user.id);
  const settings = await Promise.all(own.map((d) => ctx.deps.orders.websiteSettings(d.website.id)));
  return own.map((d, i) => ({ id: d.website.id, urlname: d.website.urlname, title: d.website.title, text: settings[i]?.manual_instructions ?? '' }));
}

async function payments(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: { field: string; message: string }; draft?: { urlname: string; text: string } } = {}) {
  const [stripe, websites] = await Promise.all([ctx.deps.stripe.account(s.user), ownWebsites(ctx, s)]);
  return ctx.send(reply, status, paymentsPage({ viewer: s.viewer, stripe, available: ctx.deps.stripe.available, websites, ...extra }));
}

async function paymentsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  return payments(ctx, reply, s, 200, { notice: PAYMENT_NOTICES[str(query(req).done) ?? ''] });
}

async function connectStripe(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  try {
    await ctx.deps.stripe.configure(s.user, { secretKey: (form.str('secret_key') ?? '').trim(), webhookSecret: (form.str('webhook_secret') ?? '').trim() });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    // The service's words name its own parameters; the form's fields are these (and nothing typed is shown back).
    const field = err.field === 'secretKey' ? 'secret_key' : err.field === 'webhookSecret' ? 'webhook_secret' : '';
    const message = field === 'secret_key' ? 'This is not a Stripe secret key: it starts with sk_ (or rk_ for a restricted key).' : field === 'webhook_secret' ? 'This is not a webhook signing secret: it starts with whsec_.' : err.message;
    return payments(ctx, reply, s, 422, { error: { field, message } });
  }
  return ctx.redirect(reply, '/studio/shop/payments?done=connected');
}

async function disconnectStripe(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  if (form.str('confirm') !== 'yes') return payments(ctx, reply, s, 422, { error: { field: '', message: 'Tick “Yes, stop taking cards” to disconnect Stripe.' } });
  await ctx.deps.stripe.disconnect(s.user);
  return ctx.redirect(reply, '/studio/shop/payments?done=disconnected');
}

/** The instructions' form over the shop settings' field spec: the same rule as the API's `shop_settings[manual_instructions]`. */
const INSTRUCTIONS_FORM = specForm(SHOP_SETTINGS_FIELDS, bracketNames('shop_settings', SHOP_SETTINGS_FIELDS), { manualInstructions: 'instructions' }, { manualInstructions: 'The instructions' });

async function saveInstructions(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const urlname = form.str('website') ?? '';
  const text = form.str('instructions') ?? '';
  // Only the website's owner takes its payments: anyone else (a member, a stranger) gets the 404.
  const details = await ctx.websiteDetails(s, urlname);
  if (details.website.owner_id !== s.user.id) throw new ApiError('not_found', 'There is no such website.');
  try {
    // The tax and terms are left as they are: only this field is sent.
    await ctx.deps.shopSettings.update(s.user, details.website.urlname, readFields(SHOP_SETTINGS_FIELDS, INSTRUCTIONS_FORM.source(form, ['manualInstructions'], { blank: true }), INSTRUCTIONS_FORM.words));
  } catch (err) {
    const r = INSTRUCTIONS_FORM.refusal(err);
    return payments(ctx, reply, s, 422, { error: { field: 'instructions', message: `${r.message}.` }, draft: { urlname, text } });
  }
  return ctx.redirect(reply, '/studio/shop/payments?done=instructions');
}

// ---- orders

/** The filter form as sent, and the filter it stands for (read by the API's own reader), or its refusal. */
function filterOf(req: FastifyRequest): { draft: FilterDraft; filter?: OrderFilter; error?: { field: string; message: string } } {
  const q = query(req);
  const raw = (name: string) => (str(q[name]) ?? '').slice(0, 300);
  const draft: FilterDraft = { status: raw('status'), email: raw('email'), from: raw('from'), to: raw('to') };
  try {
    return { draft, filter: readOrderFilter((key) => raw(FILTER_NAMES[key]), (key) => FILTER_WORDS[key]) };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    const key = err.field as OrderFilterKey | undefined;
    return { draft, error: { field: key ? FILTER_NAMES[key] : '', message: err.message } };
  }
}

async function ordersScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { draft, filter, error } = filterOf(req);
  const pageNo = pageNumber(req, 100_000);
  const list = filter ? await ctx.deps.orders.listWithItems(s.user, filter, ORDERS_PER_PAGE, (pageNo - 1) * ORDERS_PER_PAGE) : { rows: [], total: 0 };
  const kept = Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== ''));
  const pageQuery = (page: number) => `/studio/shop/orders?${new URLSearchParams({ ...kept, page: String(page) }).toString()}`;
  const day = new Date().toISOString().slice(0, 10);
  const exports = { report: `orders_Report_${day}.csv`, items: `orders_items_${day}.csv` };
  return ctx.send(reply, error ? 422 : 200, ordersPage({ viewer: s.viewer, list, page: pageNo, pageSize: ORDERS_PER_PAGE, filter: draft, query: pageQuery, error, exports }));
}

// The two files of `admin orders export`, one link each: the same service, the same bytes.
async function exportFile(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const file = (req.params as { file: string }).file;
  if (file !== 'report' && file !== 'items') throw new ApiError('not_found', 'There is no such export.');
  const made = await ctx.deps.orders.export(s.user);
  const [name, body] = file === 'report' ? [made.reportName, made.report] : [made.itemsName, made.items];
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

async function orderScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const [o, lab] = await Promise.all([ctx.deps.orders.get(s.user, uuidOf(req)), ctx.deps.orders.lab(s.user)]);
  return ctx.send(reply, 200, orderPage({ viewer: s.viewer, o, lab: lab?.email, notice: ORDER_NOTICES[str(query(req).done) ?? ''], now: new Date() }));
}

// The print sheet, as `GET /orders/<uuid>/sheet.csv` sends it: the same service, the same bytes.
async function orderSheet(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const uuid = uuidOf(req);
  let sheet;
  try {
    sheet = await ctx.deps.orders.sheet(s.user, uuid);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    const [o, lab] = await Promise.all([ctx.deps.orders.get(s.user, uuid), ctx.deps.orders.lab(s.user)]);
    return ctx.send(reply, 409, orderPage({ viewer: s.viewer, o, lab: lab?.email, error: 'This order has no order sheet: it holds no prints.', now: new Date() }));
  }
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${sheet.fileName}"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .send(sheet.csv);
}

const CONFIRM: Record<string, string> = { cancel: 'Tick “Yes, cancel this order” to cancel it.', refund: 'Tick the box beside Refund to refund the order.' };

/** One of an order's actions; a refusal of the service (a 409: the order is not in that state any more) is shown on the order's page. */
async function orderAction(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = uuidOf(req);
  const action = (req.params as { action: string }).action;
  const [o, lab] = await Promise.all([ctx.deps.orders.get(s.user, uuid), ctx.deps.orders.lab(s.user)]);
  const tracking = action === 'ship' ? (form.str('tracking_url') ?? '').slice(0, 2100) : undefined;
  const again = (status: number, error: string) => ctx.send(reply, status, orderPage({ viewer: s.viewer, o, lab: lab?.email, error, tracking, now: new Date() }));
  if (CONFIRM[action] && form.str('confirm') !== 'yes') return again(422, CONFIRM[action]!);
  const orders = ctx.deps.orders;
  const steps: Record<string, () => Promise<unknown>> = {
    paid: () => orders.setStatus(s.user, uuid, 'paid'),
    cancel: () => orders.setStatus(s.user, uuid, 'cancelled'),
    refund: () => orders.setStatus(s.user, uuid, 'refunded'),
    extend: () => orders.downloads(s.user, uuid, { days: DOWNLOAD_DAYS }),
    resend: () => orders.downloads(s.user, uuid, { resend: true }),
    ship: () => orders.setStatus(s.user, uuid, 'shipped', form.str('tracking_url') ?? ''),
    lab: () => orders.sendToLab(s.user, uuid),
  };
  const step = steps[action];
  if (!step) throw new ApiError('not_found', 'There is no such action.');
  try {
    await step();
  } catch (err) {
    // A tracking link refused: at its field, in the form's words.
    if (err instanceof ApiError && err.status === 422 && action === 'ship') {
      const message = sentence(err.message.replace(/^(?:parameter )?order\[tracking_url\]:? ?/, 'The tracking link '));
      return ctx.send(reply, 422, orderPage({ viewer: s.viewer, o, lab: lab?.email, fieldError: { field: 'tracking_url', message }, tracking, now: new Date() }));
    }
    // The service words its refusals with the API's parameter ("order[status]: …"): the reason alone.
    if (err instanceof ApiError && (err.status === 409 || err.status === 422)) return again(err.status, sentence(err.message.replace(/^order\[\w+\]: /, '')));
    throw err;
  }
  const done = { paid: 'paid', cancel: 'cancelled', refund: 'refunded', extend: 'extended', resend: 'resent', ship: 'shipped', lab: 'lab' }[action as 'paid'];
  return ctx.redirect(reply, `/studio/shop/orders/${uuid}?done=${done}`);
}

const sentence = (t: string) => `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;

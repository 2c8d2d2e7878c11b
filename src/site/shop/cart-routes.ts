// The shop on the website (docs/shop.md "On the website"), rows of the route table
// (../routes.ts): `<home>/_cart` (the cart), its posts `add`, `update`, `coupon`,
// `checkout`, `<home>/_cart/terms` and `<home>/_cart/order/<uuid>` (the buyer's order). The cart is the
// OrdersService's, named by an HttpOnly cookie; posts come from the website itself
// only; nothing the browser sends sets a price. Every page is the visitor's own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { isUuid } from '../../core/uuid.js';
import { ADDRESS_LIMITS } from '../../orders/address.js';
import { MAX_NAME_LENGTH } from '../../orders/service.js';
import { cookiePath, type SiteAddress } from '../address.js';
import { formOf, one } from '../delivery/favourites-routes.js';
import type { SiteHelpers, SiteRoute, WebsiteDeps } from '../plugin-deps.js';
import { render } from '../pages/layout.js';
import type { Picture } from '../service.js';
import { CartPage, OrderPage, TermsPage, type CartLine, type CartTotalsView } from '../pages/shop.js';
import { renderMarkdown } from '../look/markdown.js';
import { only, visiting, notFound, type Visit } from '../visit.js';

export const CART = '_cart';
const CART_COOKIE = 'cart';
const ORDER_COOKIE = 'orders';
/** The buyer's last orders this browser may open again (UUIDs joined by dots). */
const ORDERS_KEPT = 5;
const CART_FORM_BYTES = 4096;
const ORDER_PAGE = /^order\/([^/]{1,64})$/;
const TERMS = 'terms';
const DEFAULT_MANUAL = 'The photographer will contact you by e-mail about the payment. Your order waits until it is paid.';
/** The kinds of price lists the website sells (prints ask a postal address at checkout). */
export const SOLD_KINDS = new Set(['download', 'print']);
/** The parts of the checkout's postal address, as the form names them (`ship_city`). */
const ADDRESS_PARTS = ['name', 'line1', 'line2', 'postcode', 'city', 'country'] as const;

export const cartHref = (at: SiteAddress) => `${at.homePath}/${CART}`;

/** A coupon's refusal in the visitor's words, by its reason code (ApiError.reason); the code is not echoed. */
export function couponWords(err: ApiError): string {
  switch (err.reason) {
    case 'coupon_expired':
      return 'This coupon has expired.';
    case 'coupon_not_yet_valid':
      return 'This coupon is not valid yet.';
    case 'coupon_used_up':
      return 'This coupon has been used up.';
    case 'coupon_other_currency':
      return 'This coupon is for prices in another currency.';
    default:
      return 'This coupon code is not valid.';
  }
}

export function cartRoutes(helpers: SiteHelpers, deps: WebsiteDeps): SiteRoute[] {
  const c = new Cart(helpers, deps);
  return [
    { method: 'GET', path: `/${CART}`, handler: visiting(helpers, deps, only((rest) => rest === CART, (req, reply, v) => c.page(req, reply, v))) },
    {
      method: 'GET',
      path: `/${CART}/*`,
      handler: visiting(
        helpers,
        deps,
        only(
          (rest) => rest.startsWith(`${CART}/`) && (ORDER_PAGE.test(rest.slice(CART.length + 1)) || rest === `${CART}/${TERMS}`),
          (req, reply, v) => (v.rest === `${CART}/${TERMS}` ? c.terms(reply, v) : c.order(req, reply, v)),
        ),
      ),
    },
    { method: 'POST', path: `/${CART}/*`, bodyLimit: CART_FORM_BYTES, handler: visiting(helpers, deps, only((rest) => rest.startsWith(`${CART}/`), (req, reply, v) => c.post(req, reply, v, v.rest.slice(CART.length + 1)))) },
  ];
}

/** The value of a cookie of the request; the first that passes `valid` (a prefix address and a host may both have set one). */
function cookie(req: FastifyRequest, name: string, valid: (v: string) => boolean): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      if (valid(value)) return value;
    }
  }
  return undefined;
}

function setCookie(at: SiteAddress, name: string, value: string, maxAge: number): string {
  return `${name}=${value}; Path=${cookiePath(at)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${at.home.startsWith('https:') ? '; Secure' : ''}`;
}

/** `<profile uuid>:<item label>`, and for a print option a tab and its label, as the offer's radios send it (labels hold no tab). */
function choiceOf(form: URLSearchParams): { profile: string; item: string; option: string | null } {
  const choice = one(form, 'choice');
  if (choice === undefined || choice === '') throw new ApiError('missing_parameter', 'Choose a size.');
  const colon = choice.indexOf(':');
  if (colon !== 36 || !isUuid(choice.slice(0, 36)) || choice.length > 440) throw new ApiError('invalid_parameter', 'Choose one of the sizes offered.');
  const [item, option, more] = choice.slice(37).split('\t');
  if (more !== undefined) throw new ApiError('invalid_parameter', 'Choose one of the sizes offered.');
  return { profile: choice.slice(0, 36).toLowerCase(), item, option: option ?? null };
}

/** The postal address the checkout form sends (`ship_<part>`); undefined parts stay undefined. */
function addressOf(form: URLSearchParams): Record<(typeof ADDRESS_PARTS)[number], string | undefined> {
  return Object.fromEntries(ADDRESS_PARTS.map((p) => [p, one(form, `ship_${p}`)])) as Record<(typeof ADDRESS_PARTS)[number], string | undefined>;
}

/** The checkout's fields as the form labels them, by the service's field key (ApiError.field). */
const FIELD_TEXT: Record<string, string> = {
  email: 'Your e-mail address',
  name: 'Your name',
  'address.name': 'The name for delivery',
  'address.line1': 'The address',
  'address.line2': 'The second address line',
  'address.postcode': 'The postcode',
  'address.city': 'The city',
  'address.country': 'The country',
};

/**
 * A checkout refusal in the visitor's words, from its field and reason codes (never its message,
 * whose wording may change); undefined when it names no field of the form.
 */
export function checkoutWords(err: ApiError): string | undefined {
  if (err.field === 'acceptTerms') return 'Please accept the terms of sale to place the order.';
  if (err.field === 'coupon') return couponWords(err);
  const label = err.field === undefined ? undefined : FIELD_TEXT[err.field];
  if (label === undefined) return undefined;
  if (err.code === 'missing_parameter') return `${label} is required.`;
  const part = err.field!.startsWith('address.') ? (err.field!.slice('address.'.length) as keyof typeof ADDRESS_LIMITS) : undefined;
  switch (err.reason) {
    case 'not_email':
      return `${label} must be an e-mail address, such as ann@example.com.`;
    case 'too_long':
      return `${label} must be one line of at most ${part ? ADDRESS_LIMITS[part] : MAX_NAME_LENGTH} characters.`;
    case 'postcode_chars':
      return `${label} may hold letters, digits, spaces and hyphens only.`;
    case 'country_short':
      return `${label} must be a country’s name or its two-letter code.`;
    default:
      return `${label} is not valid.`;
  }
}

class Cart {
  constructor(
    private readonly helpers: SiteHelpers,
    private readonly deps: WebsiteDeps,
  ) {}

  private get orders() {
    return this.deps.shop.orders;
  }

  private cartId(req: FastifyRequest): string | undefined {
    return cookie(req, CART_COOKIE, (v) => isUuid(v));
  }

  private manualText(instructions: string | null | undefined): string {
    return instructions && instructions.trim() !== '' ? instructions : DEFAULT_MANUAL;
  }

  /**
   * The lines' photos as this visitor sees them on this website (a whole gallery's: its first
   * photo), in one access decision for them all: a fixed number of queries whatever the lines.
   */
  private async shownAll(v: Visit, lines: ReadonlyArray<{ kind: string; media_uuid: string; media_file_name: string | null }>): Promise<Array<{ title: string; href?: string; picture?: Picture }>> {
    const firsts = await this.orders.galleryFirstMedias(v.at.website.id, lines.filter((l) => l.kind === 'gallery').map((l) => l.media_uuid));
    const mediaOf = (l: (typeof lines)[number]) => (l.kind === 'gallery' ? firsts.get(l.media_uuid.toLowerCase()) : l.media_uuid.toLowerCase());
    const seen = await this.deps.site.shopMedias(v.at, lines.flatMap((l) => mediaOf(l) ?? []), v.pass);
    return lines.map((l, n) => {
      const m = seen.get(mediaOf(l) ?? '');
      // A whole gallery's line: its name, and its first photo as its picture (when this visitor sees it).
      if (l.kind === 'gallery') return { title: l.media_file_name ?? `Gallery ${n + 1}`, picture: m?.picture };
      return m ? { title: m.title || `Photo ${n + 1}`, href: m.href, picture: m.picture } : { title: `Photo ${n + 1}` };
    });
  }

  /** The cart as its page shows it: lines with their photo, totals; undefined when there is none. */
  private async view(req: FastifyRequest, v: Visit) {
    const id = this.cartId(req);
    const cart = id ? await this.orders.websiteCart(id, v.at.website.id) : undefined;
    if (!cart) return undefined;
    const shown = await this.shownAll(v, cart.items);
    const lines: CartLine[] = cart.items.map((i, n) => ({ media: i.media_uuid, profile: i.profile_uuid, kind: i.kind, label: i.label, option: i.option_label, longEdge: i.long_edge, quantity: i.quantity, unitPrice: i.unit_price, total: i.total, ...shown[n] }));
    const totals: CartTotalsView | undefined = cart.totals && {
      currency: cart.totals.currency,
      subtotal: cart.totals.subtotal,
      discount: cart.totals.discount,
      tax: cart.totals.tax,
      taxRateBp: cart.settings!.tax_rate_bp,
      taxIncluded: cart.settings!.tax_included === 1,
      total: cart.totals.total,
      coupon: cart.coupon?.code ?? null,
      taxLabel: cart.settings!.tax_label,
    };
    const changed = [
      cart.dropped > 0 ? `${cart.dropped === 1 ? 'A photo is' : `${cart.dropped} photos are`} no longer for sale at the size you chose: taken out of your cart.` : '',
      cart.couponDropped ? 'Your coupon can no longer be used: taken off.' : '',
    ].filter((t) => t !== '');
    return { lines, totals, instructions: cart.settings?.manual_instructions, terms: Boolean(cart.settings?.terms?.trim()), changed: changed.join(' ') || undefined };
  }

  private async cartPage(req: FastifyRequest, reply: FastifyReply, v: Visit, status: number, extra: { error?: string; email?: string; name?: string; couponTyped?: string; address?: Record<string, string | undefined> } = {}) {
    const view = await this.view(req, v);
    const card = view?.totals ? await this.deps.shop.stripe.isConfigured(v.at.website.owner_id) : false;
    const page = CartPage({ frame: this.helpers.frameOf(v.at), action: cartHref(v.at), lines: view?.lines ?? [], totals: view?.totals, card, manualText: this.manualText(view?.instructions), changed: view?.changed, termsHref: view?.terms ? `${cartHref(v.at)}/${TERMS}` : undefined, ...extra });
    return this.helpers.html(reply, status, render(page), { personal: true, formTargets: card ? [this.deps.shop.checkoutOrigin] : undefined });
  }

  async page(req: FastifyRequest, reply: FastifyReply, v: Visit) {
    if ([...v.query.keys()].length > 0) return reply.code(301).header('location', cartHref(v.at)).header('cache-control', 'no-store').send();
    return this.cartPage(req, reply, v, 200);
  }

  /** The website's terms of sale; none set: 404. */
  async terms(reply: FastifyReply, v: Visit) {
    const terms = (await this.orders.websiteSettings(v.at.website.id))?.terms;
    if (!terms?.trim()) throw notFound();
    return this.helpers.html(reply, 200, render(TermsPage({ frame: this.helpers.frameOf(v.at), html: renderMarkdown(terms), cartHref: cartHref(v.at) })), { personal: true });
  }

  async order(req: FastifyRequest, reply: FastifyReply, v: Visit) {
    const uuid = ORDER_PAGE.exec(v.rest.slice(CART.length + 1))![1].toLowerCase();
    if (!isUuid(uuid)) throw notFound();
    // Only the browser that placed it opens an order here (the photographer's is the API and the studio).
    const mine = (cookie(req, ORDER_COOKIE, () => true) ?? '').split('.');
    if (!mine.includes(uuid)) throw notFound();
    const order = await this.orders.get({ id: v.at.website.owner_id }, uuid).catch(() => undefined);
    if (!order || order.website_id !== v.at.website.id) throw notFound();
    const [settings, shown] = await Promise.all([this.orders.websiteSettings(v.at.website.id), this.shownAll(v, order.items)]);
    const page = OrderPage({
      frame: this.helpers.frameOf(v.at),
      uuid: order.uuid,
      status: order.status,
      email: order.email,
      items: order.items.map((i, n) => ({
        kind: i.kind,
        label: i.label,
        option: i.option_label,
        long_edge: i.long_edge === null ? null : Number(i.long_edge),
        quantity: Number(i.quantity),
        total: Number(i.total),
        ...shown[n],
      })),
      shipping: order.ship_line1 ? { lines: [order.ship_name, order.ship_line1, order.ship_line2, `${order.ship_postcode ?? ''} ${order.ship_city ?? ''}`.trim(), order.ship_country].filter((l): l is string => !!l), trackingUrl: order.tracking_url } : undefined,
      totals: { currency: order.currency, subtotal: Number(order.subtotal), discount: Number(order.discount), tax: Number(order.tax), taxRateBp: Number(order.tax_rate_bp), taxIncluded: Number(order.tax_included) === 1, total: Number(order.total), coupon: order.coupon_code, taxLabel: order.tax_label },
      confirming: v.query.get('via') === 'card',
      manualText: this.manualText(settings?.manual_instructions),
    });
    return this.helpers.html(reply, 200, render(page), { personal: true });
  }

  async post(req: FastifyRequest, reply: FastifyReply, v: Visit, sub: string) {
    // A cross-site page must not fill or check out a visitor's cart.
    if (!this.helpers.fromOwnSite(req, v.at)) throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    const form = formOf(req);
    if (sub === 'add') return this.add(reply, v, form, req);
    if (sub === 'gallery') return this.addGallery(reply, v, form, req);
    if (sub === 'update') return this.update(req, reply, v, form);
    if (sub === 'coupon') return this.coupon(req, reply, v, form);
    if (sub === 'checkout') return this.checkout(req, reply, v, form);
    throw notFound();
  }

  /** The media a form names, as this visitor sees it on this website; else a 404 (what one cannot see is not there). */
  private async mediaOf(v: Visit, form: URLSearchParams): Promise<string> {
    const media = one(form, 'media') ?? '';
    if (!isUuid(media) || !(await this.deps.site.shopMedias(v.at, [media], v.pass)).has(media.toLowerCase())) throw notFound();
    return media.toLowerCase();
  }

  private async add(reply: FastifyReply, v: Visit, form: URLSearchParams, req: FastifyRequest) {
    const media = await this.mediaOf(v, form);
    const { profile, item, option } = choiceOf(form);
    const offer = (await this.deps.shop.offer(v.at.website.owner_id, media)).filter((l) => SOLD_KINDS.has(l.kind));
    if (!offer.some((l) => l.uuid === profile && l.items.some((i) => i.label === item && i.option === option))) throw new ApiError('invalid_parameter', 'This photo is not offered at that size.');
    const { id, current } = await this.cartFor(req, reply, v);
    const same = current?.items.find((i) => i.media_uuid === media && i.profile_uuid === profile && i.label === item && i.option_label === option);
    await this.orders.setCartLine(id, { media, profile, item, option, quantity: Math.min((same?.quantity ?? 0) + 1, 100) });
    return reply.code(303).header('location', cartHref(v.at)).header('cache-control', 'no-store').send();
  }

  /** The visitor's cart of this website, made (with its cookie) when there is none. */
  private async cartFor(req: FastifyRequest, reply: FastifyReply, v: Visit) {
    const id = this.cartId(req);
    const current = id ? await this.orders.websiteCart(id, v.at.website.id) : undefined;
    if (current) return { id: id!, current };
    const made = (await this.orders.createCart(v.at.website.id)).uuid;
    reply.header('set-cookie', setCookie(v.at, CART_COOKIE, made, 30 * 86_400));
    return { id: made, current: undefined };
  }

  /** "Buy the whole gallery": a gallery this visitor may see on this website, sold whole (else 404 / 422). */
  private async addGallery(reply: FastifyReply, v: Visit, form: URLSearchParams, req: FastifyRequest) {
    const gallery = one(form, 'gallery') ?? '';
    const seen = isUuid(gallery) ? await this.deps.site.shopGallery(v.at, gallery, v.pass) : undefined;
    if (!seen) throw notFound();
    if (!(await this.orders.websiteGallerySale(v.at.website, seen.id))) throw new ApiError('invalid_parameter', 'This gallery is not sold whole.');
    const { id } = await this.cartFor(req, reply, v);
    await this.orders.setCartGallery(id, seen.uuid, true);
    return reply.code(303).header('location', cartHref(v.at)).header('cache-control', 'no-store').send();
  }

  private async update(req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const id = this.cartId(req);
    const cart = id ? await this.orders.websiteCart(id, v.at.website.id) : undefined;
    if (!cart) throw new ApiError('conflict', 'Your cart is empty.');
    const gallery = (one(form, 'gallery') ?? '').toLowerCase();
    if (gallery !== '') {
      // A whole gallery is bought once: it can only be taken out.
      if (!cart.items.some((i) => i.kind === 'gallery' && i.media_uuid === gallery) || one(form, 'remove') !== '1') throw new ApiError('invalid_parameter', 'Choose a gallery of the cart.');
      await this.orders.setCartGallery(id!, gallery, false);
      return reply.code(303).header('location', cartHref(v.at)).header('cache-control', 'no-store').send();
    }
    const media = (one(form, 'media') ?? '').toLowerCase();
    const { profile, item, option } = choiceOf(form);
    // Only a line of the cart changes here: new lines come through `add`, from a page the visitor may see.
    if (!cart.items.some((i) => i.kind !== 'gallery' && i.media_uuid === media && i.profile_uuid === profile && i.label === item && i.option_label === option)) throw new ApiError('invalid_parameter', 'Choose a photo of the cart.');
    const raw = one(form, 'remove') === '1' ? '0' : (one(form, 'quantity') ?? '');
    if (!/^\d{1,3}$/.test(raw) || Number(raw) > 100) throw new ApiError('invalid_parameter', 'The quantity must be a whole number from 1 to 100.');
    await this.orders.setCartLine(id!, { media, profile, item, option, quantity: Number(raw) });
    return reply.code(303).header('location', cartHref(v.at)).header('cache-control', 'no-store').send();
  }

  private async coupon(req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const id = this.cartId(req);
    if (!id || !(await this.orders.websiteCart(id, v.at.website.id))) throw new ApiError('conflict', 'Your cart is empty.');
    try {
      await this.orders.setCartCoupon(id, one(form, 'coupon') ?? null);
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) return this.cartPage(req, reply, v, 422, { error: couponWords(err), couponTyped: (one(form, 'coupon') ?? '').slice(0, 32) });
      throw err;
    }
    return reply.code(303).header('location', cartHref(v.at)).header('cache-control', 'no-store').send();
  }

  private async checkout(req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const id = this.cartId(req);
    const cart = id ? await this.orders.websiteCart(id, v.at.website.id) : undefined;
    if (!cart || cart.items.length === 0) throw new ApiError('conflict', 'Your cart is empty.');
    const email = one(form, 'email') ?? '';
    const name = one(form, 'name') ?? '';
    const method = one(form, 'method') ?? 'manual';
    if (method !== 'manual' && method !== 'card') throw new ApiError('invalid_parameter', 'Choose a way to pay.');
    const owner = { id: v.at.website.owner_id };
    if (method === 'card' && !(await this.deps.shop.stripe.isConfigured(owner.id))) throw new ApiError('invalid_parameter', 'Card payments are not available here.');
    const address = addressOf(form);
    let placed: { uuid: string };
    try {
      placed = await this.orders.placeOrder(id!, { email, name: name.trim() === '' ? null : name, acceptTerms: one(form, 'accept_terms') === '1', address });
    } catch (err) {
      const kept = Object.fromEntries(ADDRESS_PARTS.map((p) => [p, address[p]?.slice(0, 200)]));
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      return this.cartPage(req, reply, v, 422, { error: checkoutWords(err) ?? err.message, email: email.slice(0, 254), name: name.slice(0, 200), address: kept });
    }
    const kept = [placed.uuid, ...(cookie(req, ORDER_COOKIE, () => true) ?? '').split('.').filter((u) => isUuid(u))].slice(0, ORDERS_KEPT);
    const orderHref = `${cartHref(v.at)}/order/${placed.uuid}`;
    // The cart is gone with the order: its cookie goes too.
    reply.header('set-cookie', [setCookie(v.at, CART_COOKIE, '', 0), setCookie(v.at, ORDER_COOKIE, kept.join('.'), 90 * 86_400)]);
    if (method === 'manual') return reply.code(303).header('location', orderHref).header('cache-control', 'no-store').send();
    // The order page says "confirming" until the signed webhook marks it paid: coming back proves nothing.
    const session = await this.deps.shop.stripe.checkout(owner, placed.uuid, { successUrl: `${v.at.home}/${CART}/order/${placed.uuid}?via=card`, cancelUrl: `${v.at.home}/${CART}/order/${placed.uuid}` });
    if (!session.url) throw new ApiError('unprocessable', 'The card payment could not be started.');
    return reply.code(303).header('location', session.url).header('cache-control', 'no-store').send();
  }
}

// Carts and orders (docs/shop.md "Orders"). A cart is server-side and belongs
// to a website; its lines name a media and a price-list item, never a price.
// Placing an order prices every line from the profiles as they are now
// (src/shop), copies the prices into the order, and empties the cart, in one
// transaction. Services know no HTTP: refusals are catalogue errors naming the field.
import { randomBytes } from 'node:crypto';
import { ApiError, conflict, invalid, missing, notFound } from '../core/errors.js';
import { isUuid } from '../core/uuid.js';
import type { Db } from '../database/db.js';
import type { Unit } from '../database/unit-of-work.js';
import type { PriceList, PricingProfilesService } from '../pricing-profiles/service.js';
import { priceCart, couponReason, couponRefusal, type Coupon, type CouponReason } from '../shop/cart.js';
import { MAX_PRICE, type CurrencyCode } from '../shop/money.js';
import type { OfferedItem, OfferedList } from '../shop/offer.js';
import { checkAddress, checkTrackingUrl, type PostalAddress } from './address.js';
import { exportOrders } from './export.js';
import { isPaid, type CartGalleryRow, type CartLineRow, type CouponRow, type GallerySaleRow, type NewOrderItem, type OrderFilter, type OrdersRepository } from './repository.js';

export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Of one line: a buyer orders a handful of one print, never thousands. */
export const MAX_QUANTITY = 100;
export const MAX_CART_LINES = 100;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_NAME_LENGTH = 200;
export const MAX_COUPON_LENGTH = 64;
/** How long a paid order's download links work (the photographer can extend them). */
export const DOWNLOAD_DAYS = 30;
const EMAIL = /^[^\s@"\\<>,;]+@[^\s@"\\<>,;]+\.[^\s@"\\<>,;]+$/;
/** An address an order's mail may go to (a buyer's, a lab's). */
export const isOrderEmail = (v: string) => v.length <= MAX_EMAIL_LENGTH && EMAIL.test(v);
const CONTROL = /[\x00-\x1F\x7F]/;
const COUPON_CODE = /^[A-Z0-9_-]+$/;

export interface CartLineInput {
  media: string;
  profile: string;
  item: string;
  option?: string | null;
  /** The line's new quantity; 0 takes it out of the cart. */
  quantity: number;
}

export interface Buyer {
  email: string;
  name?: string | null;
  /** The buyer ticked "I accept the terms"; required when the website has terms. */
  acceptTerms?: boolean;
  /** The postal address: required when the cart holds prints, ignored otherwise. */
  address?: Partial<Record<keyof PostalAddress, string | null>>;
}

/** A gallery sold whole: one price for all its medias at a download item of a price list. */
export interface GallerySaleInput {
  profile: string;
  item: string;
  price: number;
}

export interface OrdersHooks {
  /** In the transaction that places an order (its order.created webhook event): a throw undoes the order. */
  placedIn?(unit: Unit, orderId: number): Promise<void>;
  /** After a new order's commit: its mails (src/orders/mails.ts). Never fails the order. */
  onPlaced?(orderId: number): Promise<void>;
  /** In the transaction that sets or ends a gallery's whole sale (its gallery.updated). */
  saleChangedIn?(unit: Unit, galleryId: number): Promise<void>;
  /** In the transaction that marks an order paid (once per order): queues its delivery. */
  queueDelivery?(trx: Db, order: { id: number; ownerId: number }): Promise<void>;
  /** After that transaction's commit (wakes the worker). */
  onPaid?(orderId: number): Promise<void>;
  /** Mails the buyer of a delivered order the link to its downloads again. */
  resend?(orderId: number): Promise<void>;
  /** Refunds a card payment through its provider; the payment as recorded. */
  refund?(ownerId: number, payment: { provider: string; reference: string | null; amount: number; currency: string }): Promise<{ reference: string }>;
  /** After an order is marked shipped: the buyer's mail with the tracking link. */
  onShipped?(orderId: number): Promise<void>;
  /** An order's print sheet (src/orders/sheet.ts). */
  sheet?(orderId: number): Promise<{ fileName: string; csv: string; rows: number }>;
  /** Sends an order's print sheet to the owner's lab now. */
  toLab?(orderId: number): Promise<void>;
}

type Owner = { id: number };
/** One month's sales in one currency (OrdersService.monthlySales). */
export interface CurrencySales {
  currency: CurrencyCode;
  /** Orders paid that month (refunded since included) and their totals, minor units. */
  orders: number;
  total: number;
  refunded: number;
  refundedTotal: number;
}
export interface MonthSales {
  /** `YYYY-MM`, UTC. */
  month: string;
  currencies: CurrencySales[];
}

type Priced = { item: NewOrderItem; currency: CurrencyCode };

function couponOf(row: CouponRow): Coupon {
  return {
    code: row.code,
    kind: row.kind as Coupon['kind'],
    value: row.value,
    currency: (row.currency ?? undefined) as CurrencyCode | undefined,
    validFrom: row.valid_from ? new Date(row.valid_from) : undefined,
    validUntil: row.valid_until ? new Date(row.valid_until) : undefined,
    usageLimit: row.usage_limit ?? undefined,
    timesUsed: Number(row.times_used),
    active: Number(row.active) === 1,
  };
}

function checkUuid(value: string | undefined, field: string): string {
  if (value === undefined || value.trim() === '') throw missing(field);
  const v = value.trim().toLowerCase();
  if (!isUuid(v)) throw invalid(`${field} must be a UUID, got ${JSON.stringify(value.slice(0, 60))}`);
  return v;
}

/** `key`: the field's spec key, carried by the refusal (ApiError.field) for the faces that word it. */
function checkLabel(value: string | undefined | null, field: string, required: boolean, key?: string): string | null {
  if (value === undefined || value === null || value.trim() === '') {
    if (required) throw missing(field, key);
    return null;
  }
  if (value.length > 200 || CONTROL.test(value)) throw new ApiError('invalid_parameter', `${field} must be at most 200 characters, without control characters`, { field: key, reason: 'too_long' });
  return value.trim();
}

export function checkEmail(value: string | undefined, field: string, key?: string): string {
  const v = value?.trim() ?? '';
  if (v === '') throw missing(field, key);
  if (v.length > MAX_EMAIL_LENGTH || !EMAIL.test(v)) throw new ApiError('invalid_parameter', `${field} must be an e-mail address`, { field: key, reason: 'not_email' });
  return v.toLowerCase();
}

type CartRow = { id: number; website_id: number; owner_id: number; coupon_code: string | null };
type LineKey = { media: string; profile: string; item: string; option: string | null };

/** The price lists a cart reads, once: each line's media's offer, the lists by UUID, the galleries' sales. */
interface Book {
  offered: ReadonlyMap<number, OfferedList[]>;
  lists: ReadonlyMap<string, PriceList>;
  sales: ReadonlyMap<number, GallerySaleRow>;
}

/** A cart as it is priced: its lines, whole galleries, their book, its coupon's row and the website's settings. */
interface Loaded {
  lines: CartLineRow[];
  galleries: CartGalleryRow[];
  book: Book;
  couponRow: CouponRow | undefined;
  settings: { tax_rate_bp: number; tax_included: number; tax_label: string | null; terms: string | null; manual_instructions: string | null };
}

const lineOf = (l: CartLineRow): LineKey => ({ media: l.media_uuid, profile: l.profile_uuid, item: l.item_label, option: l.option_label });
const validCode = (code: string) => code.trim().length <= MAX_COUPON_LENGTH && COUPON_CODE.test(code.trim().toUpperCase());

/** The item of a media's offer (read in `book`) a line names, refused with the field that is wrong; `mediaId` undefined: not the owner's. */
function itemOf(book: Pick<Book, 'offered' | 'lists'>, mediaId: number | undefined, line: LineKey, field: string): { list: OfferedList; item: OfferedItem } {
  // Another photographer's media is answered as an unknown one.
  if (mediaId === undefined) throw invalid(`${field}[media]: unknown media ${line.media}`, 'media');
  const lists = book.offered.get(mediaId) ?? [];
  if (lists.length === 0) throw invalid(`${field}[media]: media ${line.media} is not for sale`, 'media');
  const list = lists.find((l) => l.uuid === line.profile);
  if (!list) throw invalid(`${field}[profile]: price list ${line.profile} is not offered for media ${line.media}`, 'profile');
  const item = list.items.find((i) => i.label === line.item && i.option === line.option);
  if (!item) {
    const sized = line.option === null && list.kind === 'download' && (book.lists.get(list.uuid)?.items ?? []).some((i) => i.label === line.item);
    // A size the list has but the media cannot give: larger than its original (nothing is upscaled).
    if (sized) throw invalid(`${field}[item]: ${JSON.stringify(line.item)} is larger than the original of media ${line.media}`, 'item');
    throw invalid(`${field}[${line.option === null ? 'item' : 'option'}]: ${JSON.stringify(line.option === null ? line.item : `${line.item} / ${line.option}`)} is not an item of price list ${line.profile}`, line.option === null ? 'item' : 'option');
  }
  return { list, item };
}

/** A whole gallery's line priced from `book`, or a 422 naming `field` when it is no longer for sale. */
function saleLineOf(book: Book, g: Pick<CartGalleryRow, 'gallery_id' | 'gallery_uuid' | 'gallery_name'>, field: string): Priced {
  const sale = book.sales.get(g.gallery_id);
  if (!sale) throw invalid(`${field}[gallery]: gallery ${g.gallery_uuid} is not for sale`, 'gallery');
  const list = book.lists.get(sale.profile_uuid);
  const item = list?.kind === 'download' ? list.items.find((i) => i.label === sale.item_label) : undefined;
  if (!list || !item) throw invalid(`${field}[gallery]: the item of gallery ${g.gallery_uuid}'s sale is no longer in its price list`, 'gallery');
  return {
    currency: list.currency,
    item: {
      media_id: null,
      media_uuid: g.gallery_uuid,
      media_file_name: g.gallery_name,
      profile_uuid: list.uuid,
      kind: 'gallery',
      label: item.label,
      option_label: null,
      long_edge: item.long_edge,
      unit_price: Number(sale.price),
      quantity: 1,
      total: Number(sale.price),
      gallery_id: g.gallery_id,
    },
  };
}

/** The cart priced from what `load` read: its lines, totals, coupon and settings; a 422 naming the line, gallery or coupon that no longer fits. */
function price(cart: CartRow, loaded: Loaded) {
  const { lines, galleries, book, settings } = loaded;
  if (lines.length === 0 && galleries.length === 0) throw invalid('cart: the cart is empty');
  const priced: Priced[] = [];
  for (const [n, l] of lines.entries()) {
    const { list, item } = itemOf(book, l.media_owner_id === cart.owner_id ? l.media_id : undefined, lineOf(l), `cart[items][${n}]`);
    priced.push({
      currency: list.currency,
      item: {
        media_id: l.media_id,
        media_uuid: l.media_uuid,
        media_file_name: l.media_file_name,
        profile_uuid: list.uuid,
        kind: list.kind,
        label: item.label,
        option_label: item.option,
        long_edge: item.longEdge,
        unit_price: item.unitPrice,
        quantity: l.quantity,
        total: item.unitPrice * l.quantity,
      },
    });
  }
  for (const [n, g] of galleries.entries()) priced.push(saleLineOf(book, g, `cart[galleries][${n}]`));
  const currency = priced[0].currency;
  if (priced.some((p) => p.currency !== currency)) throw invalid('cart[items]: the cart mixes currencies');
  // The coupon as stored: gone since (deleted, renamed) is an unknown one.
  const couponRow = cart.coupon_code ? loaded.couponRow : undefined;
  if (cart.coupon_code && !couponRow) throw couponRefused('unknown', `cart[coupon]: unknown coupon ${JSON.stringify(cart.coupon_code)}`);
  const coupon = couponRow ? couponOf(couponRow) : undefined;
  const now = new Date();
  if (coupon) {
    const reason = couponReason(coupon, currency, now);
    if (reason) throw couponRefused(reason, `cart[coupon]: ${couponRefusal(coupon, currency, now)}`);
  }
  const totals = priceCart({
    currency,
    lines: priced.map((p, n) => ({ key: String(n), unitPrice: p.item.unit_price, quantity: p.item.quantity })),
    tax: { rateBp: settings.tax_rate_bp, included: settings.tax_included === 1 },
    coupon,
    now,
  });
  return { priced, totals, coupon: couponRow, settings };
}

/** A coupon's refusal: the field `coupon`, and why as a reason code (the website words it, docs/shop.md). */
function couponRefused(reason: CouponReason | 'unknown', message: string): ApiError {
  return new ApiError('invalid_parameter', message, { field: 'coupon', reason: `coupon_${reason}` });
}

export class OrdersService {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly pricingProfiles: PricingProfilesService,
    private readonly hooks: OrdersHooks = {},
  ) {}

  /** Sets the hooks the composition root builds after this service (delivery, the card provider). */
  setHooks(hooks: OrdersHooks): void {
    Object.assign(this.hooks, hooks);
  }

  // The website's side: carts.

  async createCart(websiteId: number): Promise<{ uuid: string }> {
    return { uuid: await this.repo.createCart(websiteId) };
  }

  private async cartOf(uuid: string) {
    const cart = isUuid(uuid) ? await this.repo.cart(uuid.toLowerCase()) : undefined;
    if (!cart) throw notFound(`cart ${uuid}`);
    return cart;
  }

  /** The item of the media's offer a line names (one media, read here), refused with the field that is wrong. */
  private async offered(ownerId: number, line: { media: string; profile: string; item: string; option: string | null }, field: string) {
    const media = await this.repo.media(ownerId, line.media);
    // Another photographer's media is answered as an unknown one.
    if (!media) throw invalid(`${field}[media]: unknown media ${line.media}`);
    const book = await this.pricingProfiles.offers({ id: ownerId }, [{ ...media, owner_id: ownerId }]);
    return { media, ...itemOf(book, media.id, line, field) };
  }

  /**
   * What a cart's lines and whole galleries are sold at now, read at once (docs/shop.md "On the
   * website"): the lines' offers and lists, the galleries' sales, the coupon and the settings, a
   * fixed number of queries whatever the number of lines.
   */
  private async load(cart: CartRow): Promise<Loaded> {
    const [lines, galleries, couponRow, s] = await Promise.all([
      this.repo.cartLines(cart.id),
      this.repo.cartGalleries(cart.id),
      cart.coupon_code && validCode(cart.coupon_code) ? this.repo.coupon(cart.owner_id, cart.website_id, cart.coupon_code.trim().toUpperCase()) : undefined,
      this.repo.settings(cart.website_id),
    ]);
    const sales = await this.repo.gallerySales(galleries.map((g) => g.gallery_id));
    const book = await this.pricingProfiles.offers(
      { id: cart.owner_id },
      lines.map((l) => ({ id: l.media_id, owner_id: l.media_owner_id, status: l.media_status, width: l.media_width, height: l.media_height })),
      [...sales.values()].map((x) => x.profile_id),
    );
    const settings = { tax_rate_bp: s?.tax_rate_bp ?? 0, tax_included: s?.tax_included ?? 1, tax_label: s?.tax_label ?? null, terms: s?.terms ?? null, manual_instructions: s?.manual_instructions ?? null };
    return { lines, galleries, book: { ...book, sales }, couponRow, settings };
  }

  /** Adds a line to the cart, or sets the quantity of the same line (0 takes it out). */
  async setCartLine(cartUuid: string, input: CartLineInput): Promise<void> {
    const F = 'cart_item';
    const cart = await this.cartOf(cartUuid);
    const line = {
      media: checkUuid(input.media, `${F}[media]`),
      profile: checkUuid(input.profile, `${F}[profile]`),
      item: checkLabel(input.item, `${F}[item]`, true)!,
      option: checkLabel(input.option, `${F}[option]`, false),
    };
    if (!Number.isSafeInteger(input.quantity) || input.quantity < 0 || input.quantity > MAX_QUANTITY) throw invalid(`${F}[quantity] must be a whole number from 0 to ${MAX_QUANTITY}`);
    const lines = await this.repo.cartLines(cart.id);
    const same = lines.find((l) => l.media_uuid === line.media && l.profile_uuid === line.profile && l.item_label === line.item && l.option_label === line.option);
    if (input.quantity > 0) {
      const { media, list } = await this.offered(cart.owner_id, line, F);
      if (!same && lines.length >= MAX_CART_LINES) throw invalid(`${F}: a cart holds at most ${MAX_CART_LINES} lines`);
      const other = lines.find((l) => l.profile_uuid !== line.profile);
      const gallery = (await this.repo.cartGalleries(cart.id))[0];
      if (gallery) {
        const theirs = (await this.saleLine(cart.owner_id, gallery, F)).currency;
        if (theirs !== list.currency) throw invalid(`${F}[profile]: the cart is in ${theirs}, price list ${list.uuid} in ${list.currency}`);
      }
      if (other) {
        const otherList = await this.pricingProfiles.get({ id: cart.owner_id }, other.profile_uuid);
        if (otherList.currency !== list.currency) throw invalid(`${F}[profile]: the cart is in ${otherList.currency}, price list ${list.uuid} in ${list.currency}`);
      }
      const profileId = (await this.repo.profileId(cart.owner_id, line.profile))!;
      await this.repo.saveCartLine(cart.id, { id: same?.id, media_id: media.id, profile_id: profileId, item_label: line.item, option_label: line.option, quantity: input.quantity });
    } else if (same) {
      await this.repo.saveCartLine(cart.id, { ...same, quantity: 0 });
    }
  }

  async setCartCoupon(cartUuid: string, code: string | null): Promise<void> {
    const cart = await this.cartOf(cartUuid);
    if (code === null || code.trim() === '') return this.repo.setCartCoupon(cart.id, null);
    const row = await this.findCoupon(cart.owner_id, cart.website_id, code, 'cart[coupon]');
    // Expired, not yet valid, used up, switched off or in another currency: said now, not at checkout.
    const c = couponOf(row);
    const lines = await this.repo.cartLines(cart.id);
    const currency = lines.length > 0 ? (await this.pricingProfiles.get({ id: cart.owner_id }, lines[0].profile_uuid)).currency : undefined;
    const cartCurrency = currency ?? c.currency ?? 'EUR';
    const reason = couponReason(c, cartCurrency, new Date());
    if (reason) throw couponRefused(reason, `cart[coupon]: ${couponRefusal(c, cartCurrency, new Date())}`);
    await this.repo.setCartCoupon(cart.id, row.code);
  }

  private async findCoupon(ownerId: number, websiteId: number, code: string, field: string): Promise<CouponRow> {
    const key = code.trim().toUpperCase();
    // A code out of the coupons' charset or length names no coupon: no query for it.
    if (key.length > MAX_COUPON_LENGTH || !COUPON_CODE.test(key)) throw couponRefused('unknown', `${field}: unknown coupon`);
    const row = await this.repo.coupon(ownerId, websiteId, key);
    if (!row) throw couponRefused('unknown', `${field}: unknown coupon ${JSON.stringify(key)}`);
    return row;
  }

  /**
   * The website's read of its cart: undefined when there is none of that website (a stale or
   * foreign cookie); an empty cart has no totals. Read at once, whatever the number of lines.
   */
  async websiteCart(cartUuid: string, websiteId: number) {
    const cart = isUuid(cartUuid) ? await this.repo.cart(cartUuid.toLowerCase()) : undefined;
    if (!cart || cart.website_id !== websiteId) return undefined;
    const loaded = await this.load(cart);
    // What the photographer changed since (a size no longer sold, a coupon expired or used up) leaves
    // the cart here, and the page says so: else the visitor would face a refusal they cannot mend.
    const sells = (f: () => unknown) => {
      try {
        f();
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 422) return false;
        throw err;
      }
    };
    const goneLines = loaded.lines.filter((l) => !sells(() => itemOf(loaded.book, l.media_owner_id === cart.owner_id ? l.media_id : undefined, lineOf(l), 'cart_item')));
    const goneGalleries = loaded.galleries.filter((g) => !sells(() => saleLineOf(loaded.book, g, 'cart_gallery')));
    await this.repo.dropFromCart(cart.id, goneLines.map((l) => l.id), goneGalleries.map((g) => g.gallery_id));
    const dropped = goneLines.length + goneGalleries.length;
    const kept = { ...loaded, lines: loaded.lines.filter((l) => !goneLines.includes(l)), galleries: loaded.galleries.filter((g) => !goneGalleries.includes(g)) };
    if (kept.lines.length === 0 && kept.galleries.length === 0) return { cart, items: [] as NewOrderItem[], totals: undefined, coupon: undefined, settings: undefined, dropped, couponDropped: false };
    let couponDropped = false;
    let priced;
    try {
      priced = price(cart, kept);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 422 && cart.coupon_code && err.field === 'coupon')) throw err;
      await this.repo.setCartCoupon(cart.id, null);
      couponDropped = true;
      priced = price({ ...cart, coupon_code: null }, kept);
    }
    return { cart, items: priced.priced.map((p) => p.item), totals: priced.totals, coupon: priced.coupon, settings: priced.settings, dropped, couponDropped };
  }

  /** The cart's lines priced now, with its totals (what the cart page shows). */
  async pricedCart(cartUuid: string) {
    const cart = await this.cartOf(cartUuid);
    const { priced, totals, coupon, settings } = price(cart, await this.load(cart));
    return { cart, items: priced.map((p) => p.item), totals, coupon, settings };
  }

  /** Places the cart's order: priced now on the server, copied into the order; the cart is gone after. */
  async placeOrder(cartUuid: string, buyer: Buyer): Promise<{ uuid: string }> {
    const cart = await this.cartOf(cartUuid);
    const email = checkEmail(buyer.email, 'order[email]', 'email');
    const name = checkLabel(buyer.name, 'order[name]', false, 'name');
    const { priced, totals, coupon, settings } = price(cart, await this.load(cart));
    // The terms are the website's now: accepted with this order, or no order.
    if (settings.terms !== null && settings.terms.trim() !== '' && buyer.acceptTerms !== true) throw invalid('order[accept_terms]: accept the terms of sale to place the order', 'acceptTerms');
    // A postal address only when something is to be posted; else nothing the buyer typed there is kept.
    const address = priced.some((p) => p.item.kind === 'print') ? checkAddress(buyer.address) : undefined;
    const placed = await this.repo.placeOrder(
      cart.id,
      {
        owner_id: cart.owner_id,
        website_id: cart.website_id,
        email,
        name,
        currency: totals.currency,
        subtotal: totals.subtotal,
        discount: totals.discount,
        tax: totals.tax,
        tax_rate_bp: settings.tax_rate_bp,
        tax_included: settings.tax_included,
        total: totals.total,
        coupon_code: coupon?.code ?? null,
        coupon_id: coupon?.id ?? null,
        tax_label: settings.tax_rate_bp > 0 ? settings.tax_label : null,
        terms_accepted_at: settings.terms !== null && settings.terms.trim() !== '' ? new Date().toISOString() : null,
        ...(address && { ship_name: address.name, ship_line1: address.line1, ship_line2: address.line2 ?? null, ship_postcode: address.postcode, ship_city: address.city, ship_country: address.country }),
      },
      priced.map((p) => p.item),
      (unit, id) => this.hooks.placedIn?.(unit, id) ?? Promise.resolve(),
    );
    if (!placed) throw couponRefused('used_up', `cart[coupon]: coupon ${coupon?.code} is used up`);
    // The order stands whatever becomes of its mails.
    await this.hooks.onPlaced?.(placed.id).catch(() => undefined);
    return { uuid: placed.uuid };
  }

  /** A website's shop settings as its pages show them (the manual payment's instructions). */
  websiteSettings(websiteId: number) {
    return this.repo.settings(websiteId);
  }

  // The photographer's side.

  async createCoupon(owner: Owner, c: { websiteId?: number | null; code: string; kind: 'percent' | 'amount'; value: number; currency?: CurrencyCode | null; validFrom?: Date; validUntil?: Date; usageLimit?: number | null }): Promise<void> {
    const code = c.code.trim().toUpperCase();
    if (code === '' || code.length > MAX_COUPON_LENGTH || CONTROL.test(code)) throw invalid(`coupon[code] must be 1 to ${MAX_COUPON_LENGTH} characters`);
    if (!Number.isSafeInteger(c.value) || c.value < 0 || c.value > (c.kind === 'percent' ? 10_000 : MAX_PRICE)) throw invalid('coupon[value] is out of range');
    if (c.kind === 'amount' && !c.currency) throw missing('coupon[currency]');
    await this.repo.createCoupon(owner.id, {
      website_id: c.websiteId ?? null,
      code,
      kind: c.kind,
      value: c.value,
      currency: c.currency ?? null,
      valid_from: c.validFrom?.toISOString() ?? null,
      valid_until: c.validUntil?.toISOString() ?? null,
      usage_limit: c.usageLimit ?? null,
      active: 1,
    });
  }

  async list(owner: Owner, filter: OrderFilter, limit: number, offset: number) {
    return this.repo.list(owner.id, filter, limit, offset);
  }

  /**
   * Sales per month for the last `months` months (this one included, UTC), oldest first: per
   * currency, the orders paid that month and their totals (tax included, minor units), and the
   * refunds among them. Months without sales are there, empty.
   */
  async monthlySales(owner: Owner, months = 12, now = new Date()): Promise<MonthSales[]> {
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
    const out: MonthSales[] = [];
    for (let i = 0; i < months; i++) {
      const d = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + i, 1));
      out.push({ month: d.toISOString().slice(0, 7), currencies: [] });
    }
    const byMonth = new Map(out.map((m) => [m.month, m] as const));
    for (const r of await this.repo.monthly(owner.id, first.toISOString())) {
      const m = byMonth.get(r.month);
      if (!m) continue;
      let c = m.currencies.find((x) => x.currency === r.currency);
      if (!c) m.currencies.push((c = { currency: r.currency as CurrencyCode, orders: 0, total: 0, refunded: 0, refundedTotal: 0 }));
      // A refunded order was a sale that month: counted, and its money shown as returned.
      c.orders += r.orders;
      c.total += r.total;
      if (r.status === 'refunded') {
        c.refunded += r.orders;
        c.refundedTotal += r.total;
      }
    }
    for (const m of out) m.currencies.sort((a, b) => a.currency.localeCompare(b.currency));
    return out;
  }

  /** A page of orders as a list shows them: each with its number of items and the medias of its first few (one read for the page). */
  async listWithItems(owner: Owner, filter: OrderFilter, limit: number, offset: number) {
    const page = await this.repo.list(owner.id, filter, limit, offset);
    const items = await this.repo.itemsOf(page.rows.map((r) => r.id));
    const of = new Map<number, { count: number; medias: string[] }>();
    for (const i of items) {
      const o = of.get(i.order_id) ?? { count: 0, medias: [] };
      of.set(i.order_id, o);
      o.count += Number(i.quantity);
      if (o.medias.length < 3 && !o.medias.includes(i.media_uuid)) o.medias.push(i.media_uuid);
    }
    return { total: page.total, rows: page.rows.map((r) => ({ ...r, items: of.get(r.id) ?? { count: 0, medias: [] } })) };
  }

  /** One of the owner's orders with its items and payments; 404 for anyone else's. */
  async get(owner: Owner, uuid: string) {
    const order = isUuid(uuid) ? await this.repo.order(owner.id, uuid.toLowerCase()) : undefined;
    if (!order) throw notFound(`order ${uuid}`);
    const [items, payments] = await Promise.all([this.repo.items(order.id), this.repo.payments(order.id)]);
    return { ...order, items, payments };
  }

  /** The photographer's change of status: a manual payment, a cancellation, a refund, the shipping of prints. */
  async setStatus(owner: Owner, uuid: string, status: OrderStatus, trackingUrl?: string) {
    const order = await this.get(owner, uuid);
    const field = 'order[status]';
    if (status === 'shipped') return this.ship(owner, order, trackingUrl);
    if (trackingUrl !== undefined) throw invalid('order[tracking_url] goes with order[status]=shipped');
    if (status === order.status) return order;
    if (status === 'paid') {
      if (order.status !== 'pending') throw conflict(`${field}: a ${order.status} order cannot be marked paid`);
      await this.markPaid(order.id, { provider: 'manual', reference: null, amount: Number(order.total), currency: order.currency });
    } else if (status === 'cancelled') {
      if (order.status !== 'pending') throw conflict(`${field}: a ${order.status} order cannot be cancelled${order.status === 'paid' ? ': refund it' : ''}`);
      if (!(await this.repo.transition(order.id, 'pending', 'cancelled', undefined))) throw conflict(`${field}: the order changed meanwhile`);
    } else if (status === 'refunded') {
      if (!isPaid(order.status)) throw conflict(`${field}: only a paid order can be refunded`);
      await this.refund(owner, order);
    } else throw invalid(`${field}: an order cannot go back to pending`);
    return this.get(owner, uuid);
  }

  private async refund(owner: Owner, order: Awaited<ReturnType<OrdersService['get']>>) {
    const paid = order.payments.find((p) => p.kind === 'payment');
    let reference: string | null = null;
    if (paid && paid.provider !== 'manual') {
      if (!this.hooks.refund) throw conflict(`order[status]: ${paid.provider} refunds are not set up`);
      reference = (await this.hooks.refund(owner.id, { provider: paid.provider, reference: paid.reference, amount: Number(paid.amount), currency: paid.currency })).reference;
    }
    const moved = await this.repo.transition(order.id, order.status, 'refunded', { provider: paid?.provider ?? 'manual', kind: 'refund', reference, amount: Number(order.total), currency: order.currency });
    if (!moved) throw conflict('order[status]: the order changed meanwhile');
  }

  /**
   * Marks a pending order paid with its payment, once: a second call (a replayed event, a
   * concurrent request) changes nothing and answers false. Delivery is queued on the first.
   */
  async markPaid(orderId: number, payment: { provider: string; reference: string | null; amount: number; currency: string }): Promise<boolean> {
    const expires = new Date(Date.now() + DOWNLOAD_DAYS * 86_400_000).toISOString();
    const { owner_id: ownerId } = await this.repo.orderById(orderId);
    const queue = this.hooks.queueDelivery;
    const moved = await this.repo.transition(
      orderId,
      'pending',
      'paid',
      { ...payment, kind: 'payment' },
      { download_token: randomBytes(24).toString('base64url'), downloads_expire_at: expires },
      queue && ((trx) => queue(trx, { id: orderId, ownerId })),
    );
    if (moved) await this.hooks.onPaid?.(orderId);
    return moved;
  }

  /**
   * The photographer's care of a paid order's downloads: links that work `days` from now (longer or
   * shorter), and the link mailed again.
   */
  async downloads(owner: Owner, uuid: string, change: { days?: number; resend?: boolean }) {
    const order = await this.get(owner, uuid);
    if (!isPaid(order.status)) throw conflict(`order[${change.days === undefined ? 'resend' : 'download_days'}]: the order is ${order.status}, it has no downloads`);
    if (change.days !== undefined) await this.repo.setDownloadsExpiry(order.id, new Date(Date.now() + change.days * 86_400_000).toISOString());
    if (change.resend) {
      if (order.delivered_at === null) throw conflict('order[resend]: the files are still being made; the buyer is mailed once they are');
      if (!this.hooks.resend) throw conflict('order[resend]: this process sends no mail');
      await this.hooks.resend(order.id);
    }
    return this.get(owner, uuid);
  }

  /**
   * Marks a paid order with prints shipped, with the carrier's tracking link (http or https),
   * and mails the buyer; a shipped order may be given a new link (mailed again).
   */
  private async ship(owner: Owner, order: Awaited<ReturnType<OrdersService['get']>>, trackingUrl: string | undefined) {
    const url = checkTrackingUrl(trackingUrl);
    if (!isPaid(order.status)) throw conflict(`order[status]: a ${order.status} order cannot be shipped${order.status === 'pending' ? ': mark it paid first' : ''}`);
    if (!order.items.some((i) => i.kind === 'print')) throw conflict('order[status]: the order has no prints to ship');
    if (!(await this.repo.transition(order.id, order.status, 'shipped', undefined, { tracking_url: url, shipped_at: new Date().toISOString() }))) throw conflict('order[status]: the order changed meanwhile');
    await this.hooks.onShipped?.(order.id).catch(() => undefined);
    return this.get(owner, order.uuid);
  }

  /** A paid order's print sheet (CSV, one row per print item); a 409 for an order without prints. */
  async sheet(owner: Owner, uuid: string) {
    const order = await this.get(owner, uuid);
    if (!order.items.some((i) => i.kind === 'print')) throw conflict(`order ${uuid} has no prints`);
    if (!this.hooks.sheet) throw conflict('order sheets are not set up in this process');
    return this.hooks.sheet(order.id);
  }

  /** Sends a paid order's print sheet to the owner's lab now (again, if it was sent). */
  async sendToLab(owner: Owner, uuid: string) {
    const order = await this.get(owner, uuid);
    if (!order.items.some((i) => i.kind === 'print')) throw conflict('order[send_to_lab]: the order has no prints');
    if (!isPaid(order.status)) throw conflict(`order[send_to_lab]: the order is ${order.status}: a lab prints paid orders only`);
    if (!this.hooks.toLab) throw conflict('order[send_to_lab]: labs are not set up in this process');
    await this.hooks.toLab(order.id);
    return this.get(owner, uuid);
  }

  /** The photographer's print lab: where order sheets are mailed, and whether on payment. */
  async lab(owner: Owner) {
    const lab = await this.repo.lab(owner.id);
    return lab ? { email: lab.email, auto: lab.auto === 1, updatedAt: lab.updated_at } : undefined;
  }

  /** Sets (or with a blank e-mail, removes) the lab; `auto` kept when not given. */
  async setLab(owner: Owner, input: { email?: string; auto?: boolean }) {
    const current = await this.repo.lab(owner.id);
    if (input.email !== undefined && input.email.trim() === '') {
      await this.repo.saveLab(owner.id, null);
      return undefined;
    }
    const email = input.email !== undefined ? checkEmail(input.email, 'lab[email]') : current?.email;
    if (!email) throw missing('lab[email]');
    await this.repo.saveLab(owner.id, { email, auto: (input.auto ?? current?.auto === 1) ? 1 : 0 });
    return this.lab(owner);
  }

  // Whole galleries.

  /** A whole gallery's line priced now, or a 422 naming `field` when it is no longer for sale. */
  private async saleLine(ownerId: number, g: Pick<CartGalleryRow, 'gallery_id' | 'gallery_uuid' | 'gallery_name'>, field: string): Promise<Priced> {
    const sales = await this.repo.gallerySales([g.gallery_id]);
    const { lists } = sales.size > 0 ? await this.pricingProfiles.offers({ id: ownerId }, [], [...sales.values()].map((x) => x.profile_id)) : { lists: new Map<string, PriceList>() };
    return saleLineOf({ offered: new Map(), lists, sales }, g, field);
  }

  private async ownGallery(owner: Owner, uuid: string, field: string) {
    const g = isUuid(uuid) ? await this.repo.gallery(owner.id, uuid.toLowerCase()) : undefined;
    if (!g) throw notFound(`gallery ${uuid}`);
    void field;
    return g;
  }

  /** A gallery's whole sale as set, with what it is offered at; undefined when it is not sold whole. */
  async gallerySale(owner: Owner, uuid: string) {
    const g = await this.ownGallery(owner, uuid, 'sale');
    const sale = await this.repo.gallerySale(g.id);
    if (!sale) return { gallery: g, sale: undefined };
    const list = await this.pricingProfiles.get(owner, sale.profile_uuid);
    const item = list.items.find((i) => i.label === sale.item_label);
    return { gallery: g, sale: { profile: sale.profile_uuid, item: sale.item_label, price: Number(sale.price), currency: list.currency, longEdge: item?.long_edge ?? null, medias: await this.repo.galleryMediaCount(g.id), updatedAt: sale.updated_at } };
  }

  /** Sells a gallery whole (or, with null, no longer): the item must be a download item of the owner's list. */
  async setGallerySale(owner: Owner, uuid: string, input: GallerySaleInput | null) {
    const g = await this.ownGallery(owner, uuid, 'sale');
    const changed = (unit: Unit) => this.hooks.saleChangedIn?.(unit, g.id) ?? Promise.resolve();
    if (input === null) {
      await this.repo.saveGallerySale(g.id, null, changed);
      return this.gallerySale(owner, uuid);
    }
    const profile = checkUuid(input.profile, 'sale[pricing_profile]');
    const label = checkLabel(input.item, 'sale[item]', true)!;
    if (!Number.isSafeInteger(input.price) || input.price < 0 || input.price > MAX_PRICE) throw invalid(`sale[price] must be a whole number of minor units from 0 to ${MAX_PRICE}`);
    const profileId = await this.repo.profileId(owner.id, profile);
    if (profileId === undefined) throw invalid(`sale[pricing_profile]: unknown price list ${profile}`, 'pricingProfile');
    const list = await this.pricingProfiles.get(owner, profile);
    if (list.kind !== 'download') throw invalid('sale[pricing_profile] must be a download price list: a gallery is sold whole as files', 'pricingProfile');
    if (!list.items.some((i) => i.label === label)) throw invalid(`sale[item]: ${JSON.stringify(label)} is not an item of price list ${profile}`, 'item');
    await this.repo.saveGallerySale(g.id, { profile_id: profileId, item_label: label, price: input.price }, changed);
    return this.gallerySale(owner, uuid);
  }

  /** The website's read of a gallery's whole sale (the gallery page's offer): undefined when not sold whole. */
  async websiteGallerySale(website: { id: number; owner_id: number }, galleryId: number) {
    const sale = await this.repo.gallerySale(galleryId);
    if (!sale || sale.website_id !== website.id) return undefined;
    const medias = await this.repo.galleryMediaCount(galleryId);
    return this.saleLine(website.owner_id, { gallery_id: galleryId, gallery_uuid: sale.gallery_uuid, gallery_name: sale.gallery_name }, 'gallery').then(
      (p) => ({ gallery: sale.gallery_uuid, label: p.item.label, longEdge: p.item.long_edge, price: p.item.unit_price, currency: p.currency, medias }),
      () => undefined,
    );
  }

  /** Whole galleries' pictures on the website's cart and order pages: each one's first photo's UUID, by gallery UUID (one query). */
  galleryFirstMedias(websiteId: number, galleryUuids: readonly string[]): Promise<Map<string, string>> {
    return this.repo.galleryFirstMedias(websiteId, [...new Set(galleryUuids.map((u) => u.toLowerCase()))]);
  }

  /** Puts a whole gallery of the cart's website in the cart, or takes it out. */
  async setCartGallery(cartUuid: string, galleryUuid: string, inCart: boolean): Promise<void> {
    const cart = await this.cartOf(cartUuid);
    const g = await this.repo.gallery(cart.owner_id, checkUuid(galleryUuid, 'cart_gallery[gallery]'));
    if (!g || g.website_id !== cart.website_id) throw invalid(`cart_gallery[gallery]: unknown gallery ${galleryUuid}`);
    if (inCart) {
      const line = await this.saleLine(cart.owner_id, { gallery_id: g.id, gallery_uuid: g.uuid, gallery_name: g.name }, 'cart_gallery');
      const lines = await this.repo.cartLines(cart.id);
      const galleries = await this.repo.cartGalleries(cart.id);
      if (lines.length + galleries.length >= MAX_CART_LINES && !galleries.some((x) => x.gallery_id === g.id)) throw invalid(`cart_gallery: a cart holds at most ${MAX_CART_LINES} lines`);
      const other = lines[0] ? (await this.pricingProfiles.get({ id: cart.owner_id }, lines[0].profile_uuid)).currency : galleries[0] ? (await this.saleLine(cart.owner_id, galleries[0], 'cart_gallery')).currency : undefined;
      if (other && other !== line.currency) throw invalid(`cart_gallery[gallery]: the cart is in ${other}, gallery ${g.uuid} in ${line.currency}`);
    }
    await this.repo.setCartGallery(cart.id, g.id, inCart);
  }

  /** The owner's accounting exports (docs/shop.md "Exports"). */
  export(owner: Owner, now?: Date) {
    return exportOrders(this.repo, owner, now);
  }

  /** Forgets a buyer of the owner's websites (ActivityService.forget's eraser "orders"): how many orders. */
  forgetBuyer(ownerId: number, email: string): Promise<number> {
    return this.repo.forgetBuyer(ownerId, email.trim().toLowerCase(), new Date().toISOString());
  }

  orderById(id: number) {
    return this.repo.orderById(id);
  }
}

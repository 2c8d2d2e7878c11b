// SQL of the shop's orders (docs/shop.md "Orders"): shop settings, coupons,
// server-side carts, orders with their items copied at order time, payments.
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../database/db.js';
import type { CouponsTable } from '../database/schema.js';
import { nowIso } from '../database/db.js';
import { inUnit, type Unit } from '../database/unit-of-work.js';
import { prepared, preparedAll } from '../database/prepared.js';

export interface CartLineRow {
  id: number;
  media_id: number;
  media_uuid: string;
  /** The media as its offer reads it (src/shop/offer.ts): whose, live or not, its original's size, its file name. */
  media_owner_id: number;
  media_status: string;
  media_width: number | null;
  media_height: number | null;
  media_file_name: string | null;
  profile_id: number;
  profile_uuid: string;
  item_label: string;
  option_label: string | null;
  quantity: number;
}

/** What checkout reads of a coupon. */
export type CouponRow = Pick<Selectable<CouponsTable>, 'id' | 'code' | 'kind' | 'value' | 'currency' | 'valid_from' | 'valid_until' | 'usage_limit' | 'times_used' | 'active'>;

export interface NewOrderItem {
  media_id: number | null;
  media_uuid: string;
  media_file_name: string | null;
  profile_uuid: string;
  kind: string;
  label: string;
  option_label: string | null;
  long_edge: number | null;
  unit_price: number;
  quantity: number;
  total: number;
  /** A whole gallery's item (then media_id is null and media_uuid is the gallery's UUID). */
  gallery_id?: number | null;
}

/** A whole gallery in a cart: its sale, as the photographer set it. */
export interface CartGalleryRow {
  id: number;
  gallery_id: number;
  gallery_uuid: string;
  gallery_name: string;
}

export interface GallerySaleRow {
  gallery_id: number;
  profile_id: number;
  gallery_uuid: string;
  gallery_name: string;
  website_id: number;
  profile_uuid: string;
  item_label: string;
  price: number;
  updated_at: string;
}

export interface NewOrder {
  owner_id: number;
  website_id: number;
  email: string;
  name: string | null;
  currency: string;
  subtotal: number;
  discount: number;
  tax: number;
  tax_rate_bp: number;
  tax_included: number;
  total: number;
  coupon_code: string | null;
  coupon_id: number | null;
  tax_label: string | null;
  terms_accepted_at: string | null;
  ship_name?: string | null;
  ship_line1?: string | null;
  ship_line2?: string | null;
  ship_postcode?: string | null;
  ship_city?: string | null;
  ship_country?: string | null;
}

export interface OrderFilter {
  status?: string;
  email?: string;
  /** ISO instants: created at or after `from`, before `to`. */
  from?: string;
  to?: string;
}

const ORDER_COLUMNS = [
  'id',
  'uuid',
  'owner_id',
  'website_id',
  'email',
  'name',
  'status',
  'currency',
  'subtotal',
  'discount',
  'tax',
  'tax_rate_bp',
  'tax_included',
  'total',
  'coupon_code',
  'coupon_id',
  'tax_label',
  'terms_accepted_at',
  'created_at',
  'updated_at',
  'paid_at',
  'download_token',
  'downloads_expire_at',
  'delivered_at',
  'ship_name',
  'ship_line1',
  'ship_line2',
  'ship_postcode',
  'ship_city',
  'ship_country',
  'tracking_url',
  'shipped_at',
  'lab_sent_at',
] as const;

const ITEM_COLUMNS = ['id', 'position', 'media_id', 'media_uuid', 'media_file_name', 'profile_uuid', 'kind', 'label', 'option_label', 'long_edge', 'unit_price', 'quantity', 'total', 'file_key', 'file_type', 'file_bytes', 'gallery_id'] as const;
const PAYMENT_COLUMNS = ['id', 'provider', 'kind', 'reference', 'amount', 'currency', 'created_at'] as const;

// The cart page's reads, compiled once (src/database/prepared.ts): every cart, checkout and order page makes them.
const settingsOf = prepared((db: Db, websiteId: number) => db.selectFrom('shop_settings').select(['tax_rate_bp', 'tax_included', 'tax_label', 'terms', 'manual_instructions']).where('website_id', '=', websiteId));
const couponOf = prepared((db: Db, ownerId: number, code: string, websiteId: number) =>
  db
    .selectFrom('coupons')
    .select(['id', 'code', 'kind', 'value', 'currency', 'valid_from', 'valid_until', 'usage_limit', 'times_used', 'active'])
    .where('owner_id', '=', ownerId)
    .where('code', '=', code)
    .where((eb) => eb.or([eb('website_id', 'is', null), eb('website_id', '=', websiteId)])),
);
const cartByUuid = prepared((db: Db, uuid: string) =>
  db.selectFrom('carts').innerJoin('websites', 'websites.id', 'carts.website_id').select(['carts.id', 'carts.website_id', 'websites.owner_id', 'carts.coupon_code']).where('carts.uuid', '=', uuid),
);
const cartLinesOf = preparedAll((db: Db, cartId: number) =>
  db
    .selectFrom('cart_items as c')
    .innerJoin('medias as m', 'm.id', 'c.media_id')
    .innerJoin('pricing_profiles as p', 'p.id', 'c.profile_id')
    .select(['c.id', 'c.media_id', 'm.uuid as media_uuid', 'm.owner_id as media_owner_id', 'm.status as media_status', 'm.width as media_width', 'm.height as media_height', 'm.file_name as media_file_name'])
    .select(['c.profile_id', 'p.uuid as profile_uuid', 'c.item_label', 'c.option_label', 'c.quantity'])
    .where('c.cart_id', '=', cartId)
    .orderBy('c.id'),
);
const cartGalleriesOf = preparedAll((db: Db, cartId: number) =>
  db.selectFrom('cart_galleries as c').innerJoin('galleries as g', 'g.id', 'c.gallery_id').select(['c.id', 'c.gallery_id', 'g.uuid as gallery_uuid', 'g.name as gallery_name']).where('c.cart_id', '=', cartId).orderBy('c.id'),
);
const gallerySalesOf = preparedAll((db: Db, galleryIds: readonly number[]) =>
  db
    .selectFrom('gallery_sales as s')
    .innerJoin('galleries as g', 'g.id', 's.gallery_id')
    .innerJoin('pricing_profiles as p', 'p.id', 's.profile_id')
    .select(['s.gallery_id', 's.profile_id', 'g.uuid as gallery_uuid', 'g.name as gallery_name', 'g.website_id', 'p.uuid as profile_uuid', 's.item_label', 's.price', 's.updated_at'])
    .where('s.gallery_id', 'in', galleryIds),
);
const firstMediasOf = preparedAll((db: Db, websiteId: number, galleryUuids: readonly string[]) =>
  db
    .selectFrom('galleries as g')
    .select('g.uuid')
    .select((eb) =>
      eb
        .selectFrom('media_galleries as mg')
        .innerJoin('medias as m', 'm.id', 'mg.media_id')
        .select('m.uuid')
        .whereRef('mg.gallery_id', '=', 'g.id')
        .where('m.status', '=', sql.lit('live'))
        .orderBy('mg.position')
        .orderBy('m.id')
        .limit(sql.lit(1))
        .as('first'),
    )
    .where('g.website_id', '=', websiteId)
    .where('g.uuid', 'in', galleryUuids),
);

/** What a forgotten buyer's orders keep in place of the e-mail address (a reserved domain: never mailed). */
export const FORGOTTEN_EMAIL = 'forgotten@invalid';

export class OrdersRepository {
  constructor(private readonly db: Db) {}

  /**
   * Forgets a buyer of an owner's websites (a client's data on request, docs/shop.md "Privacy"):
   * their orders keep what accounting needs (amounts, items, dates, status), their name goes, the
   * e-mail becomes a placeholder and the order page's address stops working. How many orders.
   */
  async forgetBuyer(ownerId: number, email: string, now: string): Promise<number> {
    const r = await this.db
      .updateTable('orders')
      .set({ email: FORGOTTEN_EMAIL, name: null, download_token: null, ship_name: null, ship_line1: null, ship_line2: null, ship_postcode: null, ship_city: null, updated_at: now })
      .where('owner_id', '=', ownerId)
      .where('email', '=', email)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  // Shop settings and coupons.

  async settings(websiteId: number): Promise<{ tax_rate_bp: number; tax_included: number; tax_label: string | null; terms: string | null; manual_instructions: string | null } | undefined> {
    return settingsOf(this.db, websiteId);
  }

  async createCoupon(ownerId: number, c: Omit<CouponRow, 'id' | 'times_used'> & { website_id: number | null }): Promise<void> {
    await this.db.insertInto('coupons').values({ uuid: randomUUID(), owner_id: ownerId, ...c, created_at: nowIso() }).execute();
  }

  /** The owner's coupon of that (upper-cased) code valid on the website or on all of them. */
  async coupon(ownerId: number, websiteId: number, code: string): Promise<CouponRow | undefined> {
    return couponOf(this.db, ownerId, code, websiteId);
  }

  // Carts.

  async createCart(websiteId: number): Promise<string> {
    const uuid = randomUUID();
    const now = nowIso();
    await this.db.insertInto('carts').values({ uuid, website_id: websiteId, created_at: now, updated_at: now }).execute();
    return uuid;
  }

  async cart(uuid: string): Promise<{ id: number; website_id: number; owner_id: number; coupon_code: string | null } | undefined> {
    return cartByUuid(this.db, uuid);
  }

  async cartLines(cartId: number): Promise<CartLineRow[]> {
    return cartLinesOf(this.db, cartId);
  }

  /** Writes the cart's new lines (one changed or added line, or one removed) and coupon. */
  async saveCartLine(cartId: number, line: { id?: number; media_id: number; profile_id: number; item_label: string; option_label: string | null; quantity: number }): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (line.id !== undefined) {
        if (line.quantity === 0) await trx.deleteFrom('cart_items').where('id', '=', line.id).where('cart_id', '=', cartId).execute();
        else await trx.updateTable('cart_items').set({ quantity: line.quantity }).where('id', '=', line.id).where('cart_id', '=', cartId).execute();
      } else if (line.quantity > 0) {
        await trx.insertInto('cart_items').values({ cart_id: cartId, media_id: line.media_id, profile_id: line.profile_id, item_label: line.item_label, option_label: line.option_label, quantity: line.quantity }).execute();
      }
      await trx.updateTable('carts').set({ updated_at: nowIso() }).where('id', '=', cartId).execute();
    });
  }

  /** Takes lines and whole galleries out of a cart at once (what is no longer for sale). */
  async dropFromCart(cartId: number, lineIds: readonly number[], galleryIds: readonly number[]): Promise<void> {
    if (lineIds.length === 0 && galleryIds.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      if (lineIds.length > 0) await trx.deleteFrom('cart_items').where('cart_id', '=', cartId).where('id', 'in', [...lineIds]).execute();
      if (galleryIds.length > 0) await trx.deleteFrom('cart_galleries').where('cart_id', '=', cartId).where('gallery_id', 'in', [...galleryIds]).execute();
      await trx.updateTable('carts').set({ updated_at: nowIso() }).where('id', '=', cartId).execute();
    });
  }

  async setCartCoupon(cartId: number, code: string | null): Promise<void> {
    await this.db.updateTable('carts').set({ coupon_code: code, updated_at: nowIso() }).where('id', '=', cartId).execute();
  }

  /** A live media of the owner: its id, size and file name. */
  async media(ownerId: number, uuid: string): Promise<{ id: number; status: string; width: number | null; height: number | null; file_name: string | null } | undefined> {
    return this.db.selectFrom('medias').select(['id', 'status', 'width', 'height', 'file_name']).where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  async mediaFileNames(ids: readonly number[]): Promise<Map<number, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('medias').select(['id', 'file_name']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.file_name]));
  }

  async profileId(ownerId: number, uuid: string): Promise<number | undefined> {
    return (await this.db.selectFrom('pricing_profiles').select('id').where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst())?.id;
  }

  // Orders.

  /**
   * The order, its items and the coupon's use, and the cart emptied, in one transaction: a coupon
   * used up meanwhile (`usage_limit` reached) rolls everything back and answers false. The
   * conditional UPDATE is the race's referee: on PostgreSQL a second transaction waits for the
   * first's row lock and re-reads `times_used` before it counts itself.
   */
  async placeOrder(cartId: number, order: NewOrder, items: readonly NewOrderItem[], placedIn?: (unit: Unit, orderId: number) => Promise<void>): Promise<{ id: number; uuid: string } | false> {
    const couponId = order.coupon_id ?? undefined;
    const uuid = randomUUID();
    const now = nowIso();
    const out = await inUnit(this.db, async (unit) => {
      const trx = unit.db;
      if (couponId !== undefined) {
        const r = await trx
          .updateTable('coupons')
          .set((eb) => ({ times_used: eb('times_used', '+', 1) }))
          .where('id', '=', couponId)
          .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('times_used', '<', eb.ref('usage_limit'))]))
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) throw new CouponUsedUp();
      }
      const { id } = await trx
        .insertInto('orders')
        .values({ uuid, ...order, status: 'pending', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('order_items')
        .values(items.map((i, n) => ({ order_id: id, position: n + 1, ...i })))
        .execute();
      await trx.deleteFrom('carts').where('id', '=', cartId).execute();
      // What must exist exactly when the order does (its order.created event).
      await placedIn?.(unit, id);
      return { id, uuid };
    }).catch((err: unknown) => {
      if (err instanceof CouponUsedUp) return false as const;
      throw err;
    });
    return out;
  }

  async order(ownerId: number, uuid: string) {
    return this.db.selectFrom('orders').select(ORDER_COLUMNS).where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  async orderById(id: number) {
    return this.db.selectFrom('orders').select(ORDER_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** What the mails of a new order name: its website's title and its owner's account e-mail. */
  async mailFacts(websiteId: number, ownerId: number): Promise<{ title: string | undefined; ownerEmail: string | undefined }> {
    const [site, owner] = await Promise.all([
      this.db.selectFrom('websites').select('title').where('id', '=', websiteId).where('owner_id', '=', ownerId).executeTakeFirst(),
      this.db.selectFrom('users').select('email').where('id', '=', ownerId).executeTakeFirst(),
    ]);
    return { title: site?.title ?? undefined, ownerEmail: owner?.email ?? undefined };
  }

  async items(orderId: number) {
    return this.db.selectFrom('order_items').select(ITEM_COLUMNS).where('order_id', '=', orderId).orderBy('position').execute();
  }

  async payments(orderId: number) {
    return this.db.selectFrom('payments').select(PAYMENT_COLUMNS).where('order_id', '=', orderId).orderBy('id').execute();
  }

  /**
   * Paid and refunded orders per month of payment (UTC, `YYYY-MM`) and currency, since `from`
   * (an ISO instant): how many, and their totals in minor units. One grouped statement.
   */
  async monthly(ownerId: number, from: string): Promise<Array<{ month: string; currency: string; status: string; orders: number; total: number }>> {
    const month = sql<string>`substr(paid_at, 1, 7)`;
    const rows = await this.db
      .selectFrom('orders')
      .select([month.as('month'), 'currency', 'status', (eb) => eb.fn.countAll<number>().as('orders'), (eb) => eb.fn.sum<number>('total').as('total')])
      .where('owner_id', '=', ownerId)
      .where('status', 'in', ['paid', 'refunded'])
      .where('paid_at', '>=', from)
      .groupBy([month, 'currency', 'status'])
      .execute();
    return rows.map((r) => ({ month: r.month, currency: r.currency, status: r.status, orders: Number(r.orders), total: Number(r.total) }));
  }

  async list(ownerId: number, f: OrderFilter, limit: number, offset: number) {
    let q = this.db.selectFrom('orders').where('owner_id', '=', ownerId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.email) q = q.where('email', '=', f.email);
    if (f.from) q = q.where('created_at', '>=', f.from);
    if (f.to) q = q.where('created_at', '<', f.to);
    const [rows, total] = await Promise.all([
      q.select(ORDER_COLUMNS).orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  // Prints: the lab, the sheet's reads, the shipping.

  async lab(ownerId: number): Promise<{ email: string; auto: number; updated_at: string } | undefined> {
    return this.db.selectFrom('print_labs').select(['email', 'auto', 'updated_at']).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  async saveLab(ownerId: number, lab: { email: string; auto: number } | null): Promise<void> {
    if (lab === null) {
      await this.db.deleteFrom('print_labs').where('owner_id', '=', ownerId).execute();
      return;
    }
    const row = { ...lab, updated_at: nowIso() };
    await this.db
      .insertInto('print_labs')
      .values({ owner_id: ownerId, ...row })
      .onConflict((oc) => oc.column('owner_id').doUpdateSet(row))
      .execute();
  }

  async setLabSent(orderId: number): Promise<void> {
    const now = nowIso();
    await this.db.updateTable('orders').set({ lab_sent_at: now, updated_at: now }).where('id', '=', orderId).execute();
  }

  /** The print items of an order with their media's original (for the sheet's file links). */
  async printItems(orderId: number) {
    return this.db
      .selectFrom('order_items as i')
      .leftJoin('medias as m', 'm.id', 'i.media_id')
      .select(['i.position', 'i.media_uuid', 'i.media_file_name', 'i.label', 'i.option_label', 'i.quantity', 'm.width', 'm.height', 'm.storage_key'])
      .where('i.order_id', '=', orderId)
      .where('i.kind', '=', 'print')
      .orderBy('i.position')
      .execute();
  }

  // Whole galleries.

  /** A gallery of one of the owner's websites, by UUID. */
  async gallery(ownerId: number, uuid: string): Promise<{ id: number; uuid: string; name: string; website_id: number } | undefined> {
    return this.db
      .selectFrom('galleries as g')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select(['g.id', 'g.uuid', 'g.name', 'g.website_id'])
      .where('g.uuid', '=', uuid)
      .where('w.owner_id', '=', ownerId)
      .executeTakeFirst();
  }

  async gallerySale(galleryId: number): Promise<GallerySaleRow | undefined> {
    return this.db
      .selectFrom('gallery_sales as s')
      .innerJoin('galleries as g', 'g.id', 's.gallery_id')
      .innerJoin('pricing_profiles as p', 'p.id', 's.profile_id')
      .select(['s.gallery_id', 's.profile_id', 'g.uuid as gallery_uuid', 'g.name as gallery_name', 'g.website_id', 'p.uuid as profile_uuid', 's.item_label', 's.price', 's.updated_at'])
      .where('s.gallery_id', '=', galleryId)
      .executeTakeFirst();
  }

  /** The whole sales of several galleries, by gallery id: one query. */
  async gallerySales(galleryIds: readonly number[]): Promise<Map<number, GallerySaleRow>> {
    if (galleryIds.length === 0) return new Map();
    const rows = await gallerySalesOf(this.db, [...galleryIds]);
    return new Map(rows.map((r) => [r.gallery_id, r]));
  }

  /** Sets (or, with null, ends) a gallery's whole sale, and `alsoIn` in the same transaction (its gallery.updated). */
  async saveGallerySale(galleryId: number, sale: { profile_id: number; item_label: string; price: number } | null, alsoIn?: (unit: Unit) => Promise<void>): Promise<void> {
    await inUnit(this.db, async (unit) => {
      if (sale === null) {
        await unit.db.deleteFrom('gallery_sales').where('gallery_id', '=', galleryId).execute();
      } else {
        const row = { ...sale, updated_at: nowIso() };
        await unit.db
          .insertInto('gallery_sales')
          .values({ gallery_id: galleryId, ...row })
          .onConflict((oc) => oc.column('gallery_id').doUpdateSet(row))
          .execute();
      }
      await alsoIn?.(unit);
    });
  }

  /** The first live photo (UUID) of each of these galleries of the website, by gallery UUID: one query. */
  async galleryFirstMedias(websiteId: number, galleryUuids: readonly string[]): Promise<Map<string, string>> {
    if (galleryUuids.length === 0) return new Map();
    const rows = await firstMediasOf(this.db, websiteId, [...galleryUuids]);
    return new Map(rows.flatMap((r) => (r.first ? [[r.uuid, r.first] as [string, string]] : [])));
  }

  /** How many live medias a gallery holds (what its whole sale delivers). */
  async galleryMediaCount(galleryId: number): Promise<number> {
    const r = await this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('mg.gallery_id', '=', galleryId)
      .where('m.status', '=', 'live')
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async cartGalleries(cartId: number): Promise<CartGalleryRow[]> {
    return cartGalleriesOf(this.db, cartId);
  }

  /** Puts a whole gallery in the cart (once: a gallery is bought one time), or takes it out. */
  async setCartGallery(cartId: number, galleryId: number, inCart: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (!inCart) await trx.deleteFrom('cart_galleries').where('cart_id', '=', cartId).where('gallery_id', '=', galleryId).execute();
      else {
        const seen = await trx.selectFrom('cart_galleries').select('id').where('cart_id', '=', cartId).where('gallery_id', '=', galleryId).executeTakeFirst();
        if (!seen) await trx.insertInto('cart_galleries').values({ cart_id: cartId, gallery_id: galleryId }).execute();
      }
      await trx.updateTable('carts').set({ updated_at: nowIso() }).where('id', '=', cartId).execute();
    });
  }

  async setDownloadsExpiry(orderId: number, at: string): Promise<void> {
    await this.db.updateTable('orders').set({ downloads_expire_at: at, updated_at: nowIso() }).where('id', '=', orderId).execute();
  }

  /** A page of the owner's orders, oldest first, after `afterId` (the accounting export). */
  async exportPage(ownerId: number, afterId: number, limit: number) {
    return this.db.selectFrom('orders').select(ORDER_COLUMNS).where('owner_id', '=', ownerId).where('id', '>', afterId).orderBy('id').limit(limit).execute();
  }

  /** The items of these orders, by order then position. */
  async itemsOf(orderIds: readonly number[]) {
    if (orderIds.length === 0) return [];
    return this.db.selectFrom('order_items').select(['order_id', ...ITEM_COLUMNS]).where('order_id', 'in', orderIds).orderBy('order_id').orderBy('position').execute();
  }

  /**
   * Moves an order from `from` to `to` and records the payment with it, in one transaction; false
   * when the order was no longer in `from` (another request or event came first) or the payment's
   * reference was recorded already: nothing is written then.
   */
  async transition(
    orderId: number,
    from: string,
    to: string,
    payment: { provider: string; kind: 'payment' | 'refund'; reference: string | null; amount: number; currency: string } | undefined,
    extra: { download_token?: string; downloads_expire_at?: string; tracking_url?: string; shipped_at?: string } = {},
    /** More work of the same transaction (queueing the delivery), once the order moved. */
    within?: (trx: Db) => Promise<void>,
  ): Promise<boolean> {
    const now = nowIso();
    return this.db.transaction().execute(async (trx) => {
      if (payment?.reference) {
        const seen = await trx.selectFrom('payments').select('id').where('provider', '=', payment.provider).where('kind', '=', payment.kind).where('reference', '=', payment.reference).executeTakeFirst();
        if (seen) return false;
      }
      const r = await trx
        .updateTable('orders')
        .set({ status: to, updated_at: now, ...(to === 'paid' ? { paid_at: now } : {}), ...extra })
        .where('id', '=', orderId)
        .where('status', '=', from)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      // A coupon's uses are its placed orders that are not cancelled: a cancellation gives one back.
      if (to === 'cancelled') {
        const o = await trx.selectFrom('orders').select('coupon_id').where('id', '=', orderId).executeTakeFirstOrThrow();
        if (o.coupon_id !== null) await trx.updateTable('coupons').set((eb) => ({ times_used: eb('times_used', '-', 1) })).where('id', '=', o.coupon_id).where('times_used', '>', 0).execute();
      }
      if (payment) await trx.insertInto('payments').values({ order_id: orderId, ...payment, created_at: now }).execute();
      await within?.(trx);
      return true;
    });
  }
}

export interface Deliverable {
  id: number;
  position: number;
  label: string;
  long_edge: number | null;
  file_key: string | null;
  media_uuid: string;
  media_file_name: string | null;
  /** The media's original now; null when the media or its file is gone. */
  storage_key: string | null;
  mime_type: string | null;
}

/** The delivery side of orders: what a paid order's job makes, and what its buyer's page lists. */
export class DeliveriesRepository {
  constructor(private readonly db: Db) {}

  /** The download items of an order, with their media's original. */
  async deliverables(orderId: number): Promise<Deliverable[]> {
    return this.db
      .selectFrom('order_items as i')
      .leftJoin('medias as m', 'm.id', 'i.media_id')
      .select(['i.id', 'i.position', 'i.label', 'i.long_edge', 'i.file_key', 'i.media_uuid', 'i.media_file_name', 'm.storage_key', 'm.mime_type'])
      .where('i.order_id', '=', orderId)
      .where('i.kind', '=', 'download')
      .orderBy('i.position')
      .execute();
  }

  /** Records the files made for an order's items and marks it delivered, in the job's transaction; false when the order is no longer paid. */
  async recordDelivered(trx: Db, orderId: number, files: ReadonlyArray<{ itemId: number; key: string; type: string; bytes: number }>): Promise<boolean> {
    const order = await trx.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirst();
    if (!isPaid(order?.status)) return false;
    for (const f of files) {
      await trx.updateTable('order_items').set({ file_key: f.key, file_type: f.type, file_bytes: f.bytes }).where('id', '=', f.itemId).where('order_id', '=', orderId).execute();
    }
    await trx.updateTable('orders').set({ delivered_at: nowIso() }).where('id', '=', orderId).execute();
    return true;
  }

  /** The whole-gallery items of an order: the gallery (null once deleted) and the size. */
  async galleryItems(orderId: number) {
    return this.db.selectFrom('order_items').select(['id', 'position', 'gallery_id', 'long_edge', 'label']).where('order_id', '=', orderId).where('kind', '=', 'gallery').orderBy('position').execute();
  }

  /** The live medias of a gallery with a stored original, in the gallery's order. */
  async galleryMedias(galleryId: number) {
    return this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['m.id', 'm.uuid', 'm.file_name', 'm.storage_key', 'm.mime_type'])
      .where('mg.gallery_id', '=', galleryId)
      .where('m.status', '=', 'live')
      .where('m.storage_key', 'is not', null)
      .orderBy('mg.position')
      .orderBy('m.id')
      .execute();
  }

  /** Records a whole gallery's files (numbered after those already recorded), in the job's transaction. */
  async recordGalleryFiles(trx: Db, orderId: number, files: ReadonlyArray<{ itemId: number; mediaUuid: string; fileName: string | null; key: string; type: string; bytes: number }>): Promise<void> {
    if (files.length === 0) return;
    const last = await trx.selectFrom('order_files').select((eb) => eb.fn.max('position').as('p')).where('order_id', '=', orderId).executeTakeFirst();
    let position = Number(last?.p ?? 0);
    await trx
      .insertInto('order_files')
      .values(files.map((f) => ({ order_id: orderId, item_id: f.itemId, position: ++position, media_uuid: f.mediaUuid, media_file_name: f.fileName, file_key: f.key, file_type: f.type, file_bytes: f.bytes })))
      .execute();
  }

  /** The files a whole gallery's items delivered, in order. */
  async galleryFiles(orderId: number, tx: Db = this.db) {
    return tx
      .selectFrom('order_files as f')
      .innerJoin('order_items as i', 'i.id', 'f.item_id')
      .select(['f.position', 'f.item_id', 'f.media_uuid', 'f.media_file_name', 'f.file_key', 'f.file_type', 'f.file_bytes', 'i.label', 'i.long_edge'])
      .where('f.order_id', '=', orderId)
      .orderBy('f.position')
      .execute();
  }

  /** A print item's original, for the order sheet's signed link: the order must still be paid or shipped. */
  async printOriginal(orderUuid: string, position: number) {
    return this.db
      .selectFrom('order_items as i')
      .innerJoin('orders as o', 'o.id', 'i.order_id')
      .leftJoin('medias as m', 'm.id', 'i.media_id')
      .select(['o.status', 'i.media_file_name', 'm.storage_key', 'm.mime_type', 'm.file_size'])
      .where('o.uuid', '=', orderUuid)
      .where('i.position', '=', position)
      .where('i.kind', '=', 'print')
      .executeTakeFirst();
  }

  /** `tx`: the job's transaction (on SQLite its one connection is held by it). */
  async orderById(id: number, tx: Db = this.db) {
    return tx.selectFrom('orders').select(ORDER_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async orderByToken(token: string) {
    return this.db.selectFrom('orders').select(ORDER_COLUMNS).where('download_token', '=', token).executeTakeFirst();
  }

  /** The files of an order's items, in order. */
  async files(orderId: number, tx: Db = this.db) {
    return tx
      .selectFrom('order_items')
      .select(['position', 'label', 'long_edge', 'media_file_name', 'file_key', 'file_type', 'file_bytes'])
      .where('order_id', '=', orderId)
      .where('kind', '=', 'download')
      .orderBy('position')
      .execute();
  }

  async websiteTitle(websiteId: number | null, tx: Db = this.db): Promise<string | undefined> {
    if (websiteId === null) return undefined;
    return (await tx.selectFrom('websites').select('title').where('id', '=', websiteId).executeTakeFirst())?.title ?? undefined;
  }
}

class CouponUsedUp extends Error {}

/** Paid, and perhaps shipped since: the statuses whose buyer has paid. */
export function isPaid(status: string | undefined | null): boolean {
  return status === 'paid' || status === 'shipped';
}
